"""A recorded submission goes on to the expert's next item at the same stage (the page's first
button, Ctrl+Enter), or back to the workspace (its second button, `then=home`, or when nothing
more waits): blind annotation, adjudication and validation, by a browser's form and by the page's
script. The next item is leased as the Next button leases it, and where the expert lands says
nothing about the claim just annotated."""

from __future__ import annotations

import re
import uuid

import pytest
from django.test import Client

from annotation.models import WorkItem, WorkKind, WorkStatus
from tests.annotation.review_factories import FLIP, crew, written_pair

pytestmark = pytest.mark.django_db

RECORDED = "Recorded. Thank you."


def client_for(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def held_by(user, kind: str = WorkKind.BLIND) -> list[WorkItem]:
    return list(WorkItem.objects.filter(holder=user, kind=kind, status=WorkStatus.LEASED))


def open_next(client: Client, stage: str = "annotate") -> tuple[str, WorkItem]:
    response = client.post(f"/review/{stage}/next/")
    assert response.status_code == 302 and f"/review/{stage}/" in response.url, response
    key = response.url.rstrip("/").rsplit("/", 1)[1]
    return response.url, WorkItem.objects.select_related("claim").get(key=key)


def answer(item: WorkItem, *, flip: bool = False, **extra) -> dict:
    page_version = item.version
    claim = item.claim
    return {
        "label": FLIP[claim.label] if flip else claim.label,
        "evidence": list(claim.evidence.values_list("pk", flat=True)),
        "version": page_version,
        "token": str(uuid.uuid4()),
        **extra,
    }


def messages_on(client: Client, url: str) -> list[str]:
    page = client.get(url).content.decode()
    return re.findall(r'<li class="success">([^<]*)</li>', page)


@pytest.fixture
def team():
    """alice wrote three pairs: six blind claims, of which bob may take one per pair."""
    c = crew("alice", "bob", "carol", "dave")
    for seed in (1, 2, 3):
        written_pair(c["alice"], c["boss"], seed=seed)
    return c


def test_submitting_goes_on_to_the_next_claim_leased_to_the_expert(team):
    bob = client_for(team["bob"])
    url, first = open_next(bob)
    response = bob.post(url, answer(first))
    assert response.status_code == 302
    first.refresh_from_db()
    assert first.status == WorkStatus.DONE and first.done_by == team["bob"]
    [following] = held_by(team["bob"])  # leased by the submission, as Next would
    assert following.pk != first.pk and following.pair_id != first.pair_id
    assert response.url == f"/review/annotate/{following.key}/"
    assert messages_on(bob, response.url) == [f"{RECORDED} Here is the next claim."]


def test_the_second_button_records_and_goes_back_to_the_workspace_without_a_lease(team):
    bob = client_for(team["bob"])
    url, first = open_next(bob)
    response = bob.post(url, answer(first, then="home"))
    assert response.status_code == 302 and response.url == "/"
    assert held_by(team["bob"]) == []
    assert messages_on(bob, "/") == [RECORDED]


def test_with_nothing_more_waiting_the_workspace_says_so(team):
    bob = client_for(team["bob"])
    for _ in range(3):  # one claim of each pair; the last submission finds nothing more
        url, item = open_next(bob)
        response = bob.post(url, answer(item))
        if response.url != "/":
            bob.get(response.url)  # read the message, as a person would
        else:
            break
    assert response.url == "/" and held_by(team["bob"]) == []
    assert messages_on(bob, "/") == [
        f"{RECORDED} No claim to annotate is waiting for you right now."
    ]
    assert WorkItem.objects.filter(done_by=team["bob"], kind=WorkKind.BLIND).count() == 3


def test_the_pages_script_is_told_to_go_on_to_the_next_item(team):
    bob = client_for(team["bob"])
    url, first = open_next(bob)
    response = bob.post(
        url, answer(first), HTTP_ACCEPT="application/json", HTTP_X_REQUESTED_WITH="fetch"
    )
    [following] = held_by(team["bob"])
    assert response.status_code == 200
    assert response.json() == {"ok": True, "redirect": f"/review/annotate/{following.key}/"}


def test_where_a_submission_lands_does_not_say_whether_it_agreed(team):
    """An agreeing and a disagreeing label land alike: the next claim, the same words."""
    landed = []
    for name, flip in (("bob", False), ("carol", True)):
        client = client_for(team[name])
        url, item = open_next(client)
        response = client.post(url, answer(item, flip=flip))
        [following] = held_by(team[name])
        assert response.url == f"/review/annotate/{following.key}/"
        landed.append(messages_on(client, response.url))
    assert landed[0] == landed[1] == [f"{RECORDED} Here is the next claim."]


def test_a_submission_refused_leases_nothing_more(team):
    bob = client_for(team["bob"])
    url, first = open_next(bob)
    stale = answer(first) | {"version": first.version + 7}
    assert bob.post(url, stale).status_code == 409
    assert held_by(team["bob"]) == [first]  # still the one item, nothing more leased


def test_an_adjudication_goes_on_to_the_next_adjudication(team):
    for name in ("bob", "carol"):  # each disagrees on one claim of each of two pairs
        client = client_for(team[name])
        for _ in range(2):
            url, item = open_next(client)
            client.post(url, answer(item, flip=True, then="home"))
    dave = client_for(team["dave"])
    url, item = open_next(dave, "adjudicate")
    claim = item.claim
    response = dave.post(
        url,
        {
            "decision": "decided",
            "label": claim.label,
            "evidence": list(claim.evidence.values_list("pk", flat=True)),
            "confidence": "high",
            "reason": "second_annotator_error",
            "version": item.version,
            "token": str(uuid.uuid4()),
        },
    )
    assert response.status_code == 302, response.content.decode()[:2000]
    [following] = held_by(team["dave"], WorkKind.ADJUDICATE)
    assert following.pk != item.pk
    assert response.url == f"/review/adjudicate/{following.key}/"
    assert messages_on(dave, response.url) == [
        "Adjudication recorded. Here is the next adjudication."
    ]


def test_a_validation_goes_on_to_the_next_claim_to_validate():
    from tests.validation.factories import Team, final_pair
    from validation import services as validation

    team = Team()
    final_pair(team, seed=1)
    validator = team.validators[0]
    item = validation.take_next(user=validator)
    claim = item.claim
    client = client_for(validator)
    response = client.post(
        f"/validate/{item.key}/",
        {
            "version": item.version,
            "token": str(uuid.uuid4()),
            "subset": claim.pair.subset,
            "label": claim.review.final_label,
            "evidence": [
                str(pk) for pk in claim.review.final_evidence.values_list("pk", flat=True)
            ],
            "text": claim.text,
            "explanation": claim.explanation,
        },
    )
    assert response.status_code == 302, response.content.decode()[:2000]
    [following] = held_by(validator, WorkKind.VALIDATE)
    assert following.pk != item.pk and following.claim.pair_id == claim.pair_id
    assert response.url == f"/validate/{following.key}/"
    assert messages_on(client, response.url) == [
        "Validated. Thank you. Here is the next claim to validate."
    ]


def test_another_experts_copy_of_a_submission_is_not_replayed_for_them(team):
    """The item is locked by the key the form names, with no read before: a form sent again
    is recorded once for its sender, and the same form (token and all) from someone who never
    held the item is 404 and leases them nothing."""
    bob, carol = client_for(team["bob"]), client_for(team["carol"])
    url, first = open_next(bob)
    data = answer(first, then="home")
    assert bob.post(url, data).url == "/"
    assert bob.post(url, data).url == "/"  # bob's own resubmission: recorded once, answered so
    assert carol.post(url, data).status_code == 404
    assert held_by(team["carol"]) == []
    assert WorkItem.objects.filter(done_by=team["bob"], kind=WorkKind.BLIND).count() == 1
