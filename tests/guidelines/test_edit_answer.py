"""Edit my last answer: only its author, only while nobody has taken the next stage's item, each
edit in the history, agreement still the first submission's, and nothing on any answer that
says whether the answer agreed."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from annotation.models import (
    ClaimReview,
    CuratedElement,
    EvidenceAnnotation,
    ReviewState,
    WorkAction,
    WorkEvent,
    WorkItem,
    WorkKind,
    WorkStatus,
)
from annotation.review import edits
from annotation.review import services as review
from annotation.review.stats import agreement_items
from tests.annotation.review_factories import FLIP, adjudicate, annotate, crew, written_pair
from validation import services as validation
from validation.models import Validation
from validation.selectors import live_validations

pytestmark = pytest.mark.django_db
# Words a page about a blind annotation must never show the annotator.
TELLING = re.compile(r"agree|unanimous|adjudicat|disagree|validat|compared", re.I)


@pytest.fixture
def team():
    people = crew("writer", "second", "third", "dave")
    pair = written_pair(people["writer"], people["boss"])
    return people, pair


def _first(item: WorkItem):
    return next(a for a in agreement_items() if a.item_id == item.claim_id)


def _evidence(item: WorkItem) -> list[int]:
    return sorted(item.claim.evidence.values_list("pk", flat=True))


def _blind_page(client, item: WorkItem) -> str:
    """The edit page without its form values (the claim's words are the writer's)."""
    page = client.get(reverse("answers:edit", args=[item.key])).content.decode()
    main = page[page.index("<main>") : page.index("</main>")]
    return main.replace(item.claim.text, "")


def _only_the_author_may_edit(people, item: WorkItem, client) -> None:
    url = reverse("answers:edit", args=[item.key])
    for name in ("writer", "third", "dave", "boss"):
        client.force_login(people[name])
        assert client.get(url).status_code == 404  # as for an item that does not exist
        assert client.post(url, {"label": "refuted"}).status_code == 404
        with pytest.raises(edits.AnswerLocked):
            edits.edit_second_annotation(
                item=item, user=people[name], label="refuted", evidence_ids=_evidence(item)
            )
    assert not WorkEvent.objects.filter(action=WorkAction.ANSWER_EDITED).exists()
    client.force_login(people["second"])
    bad = client.post(url, {"label": "maybe", "evidence": _evidence(item)})
    assert bad.status_code == 400
    same = client.post(url, {"label": item.claim.label, "evidence": _evidence(item)})
    assert same.status_code == 400 and "Nothing changed" in same.content.decode()


def test_an_edit_compares_again_withdraws_what_was_opened_and_keeps_agreement(team, client):
    people, pair = team
    item = annotate(people["second"])  # agrees: unanimous, a validation is open
    claim = item.claim
    _only_the_author_may_edit(people, item, client)
    before = _first(item)
    opened = WorkItem.objects.get(claim=claim, kind=WorkKind.VALIDATE)
    assert edits.second_annotation_editable(item, people["second"])
    client.force_login(people["second"])
    url = reverse("answers:edit", args=[item.key])
    response = client.post(
        url, {"label": FLIP[claim.label], "evidence": _evidence(item)}, follow=True
    )
    after_flip = response.content.decode()
    assert "Your answer was changed." in after_flip
    opened.refresh_from_db()
    assert opened.status == WorkStatus.CANCELLED
    assert ClaimReview.objects.get(claim=claim).state == ReviewState.ADJUDICATION
    assert not live_validations().filter(claim=claim).exists()  # withdrawn: waits for nobody
    assert EvidenceAnnotation.objects.get(item=item).label == FLIP[claim.label]
    event = WorkEvent.objects.get(item=item, action=WorkAction.ANSWER_EDITED, machine="item")
    assert event.old["label"] == claim.label and event.new["label"] == FLIP[claim.label]
    assert event.actor == people["second"]
    assert _first(item) == before  # agreement is the first submission's
    # Back again: the adjudication is withdrawn, the claim final, its validation handed out anew.
    client.post(url, {"label": claim.label, "evidence": _evidence(item)})
    assert ClaimReview.objects.get(claim=claim).state == ReviewState.UNANIMOUS
    assert WorkItem.objects.get(claim=claim, kind=WorkKind.ADJUDICATE).status == "cancelled"
    fresh = WorkItem.objects.get(claim=claim, kind=WorkKind.VALIDATE, status=WorkStatus.OPEN)
    assert Validation.objects.get(claim=claim).item == fresh
    assert _first(item) == before
    assert (
        WorkEvent.objects.filter(item=item, action=WorkAction.ANSWER_EDITED, machine="item").count()
        == 2
    )
    # The same words after either outcome, and none of them about agreement or the next stage.
    assert TELLING.search(_blind_page(client, item)) is None
    assert TELLING.search(after_flip[after_flip.index("<main>") :].replace(claim.text, "")) is None
    # The stats page agrees with the first submission too.
    assert before.label_b == claim.label


def test_once_the_next_stage_is_taken_the_answer_stays_and_the_refusal_says_which_not(team, client):
    people, pair = team
    first = annotate(people["second"])  # agrees
    other = annotate(people["third"], flip=True)  # disagrees: an adjudication is open
    taken = validation.take_next(user=people["third"])  # third validates second's claim
    assert taken.claim_id == first.claim_id
    adjudication = review.take_next(user=people["dave"], kind=WorkKind.ADJUDICATE)
    assert adjudication.claim_id == other.claim_id
    messages = []
    for item, who in ((first, people["second"]), (other, people["third"])):
        assert not edits.second_annotation_editable(item, who)
        with pytest.raises(edits.AnswerLocked) as refused:
            edits.edit_second_annotation(
                item=item, user=who, label="entailed", evidence_ids=_evidence(item)
            )
        messages.append(refused.value.message)
        client.force_login(who)
        response = client.post(
            reverse("answers:edit", args=[item.key]),
            {"label": "refuted", "evidence": _evidence(item)},
        )
        assert response.status_code == 409 and edits.TOO_LATE in response.content.decode()
        assert TELLING.search(_blind_page(client, item)) is None
    assert messages == [edits.TOO_LATE, edits.TOO_LATE]
    assert not WorkEvent.objects.filter(action=WorkAction.ANSWER_EDITED).exists()
    # Released and open again: it was seen, so it still counts as taken.
    from annotation.queue import work

    work.release_item(item=adjudication, user=people["dave"], version=adjudication.version)
    assert not edits.second_annotation_editable(other, people["third"])


def test_an_adjudicator_edits_before_the_validation_is_taken(team, client):
    people, pair = team
    annotate(people["second"], flip=True)
    annotate(people["third"], flip=True)
    item = adjudicate(people["dave"], notes="")
    claim = item.claim
    review_row = ClaimReview.objects.get(claim=claim)
    assert review_row.state == ReviewState.ADJUDICATED
    assert edits.adjudication_editable(item, people["dave"])
    assert not edits.adjudication_editable(item, people["second"])
    written = _evidence(item)
    shown = CuratedElement.objects.filter(context=claim.pair.context, in_context=True)
    paragraphs = [shown.filter(element__kind="paragraph").values_list("element_id", flat=True)[0]]
    client.force_login(people["dave"])
    url = reverse("answers:edit", args=[item.key])
    response = client.post(
        url,
        {
            "label": claim.label,
            "evidence": written + paragraphs,
            "confidence": "medium",
            "reason": "ambiguous_claim",
            "notes": "the paragraph defines the metric",
        },
    )
    assert response.status_code == 302, response.content.decode()[:3000]
    review_row.refresh_from_db()
    assert sorted(review_row.final_evidence.values_list("pk", flat=True)) == sorted(
        written + paragraphs
    )
    event = WorkEvent.objects.get(item=item, action=WorkAction.ANSWER_EDITED, machine="item")
    assert event.old["confidence"] == "high" and event.new["confidence"] == "medium"
    if claim.label == "refuted":
        refused = client.post(
            url,
            {
                "label": "entailed",
                "evidence": written,
                "notes": "x",
                "confidence": "high",
                "reason": "other",
            },
        )
        assert refused.status_code == 400 and "Ask an admin" in refused.content.decode()
    # A validator who never saw the pair takes it: the decision stays as it is.
    taken = WorkItem.objects.get(claim=claim, kind=WorkKind.VALIDATE, status=WorkStatus.OPEN)
    leased = validation.take_next(user=crew("eve")["eve"])
    assert leased.pk == taken.pk
    assert not edits.adjudication_editable(item, people["dave"])
    with pytest.raises(edits.AnswerLocked, match="can no longer be edited"):
        edits.edit_adjudication(
            item=item,
            user=people["dave"],
            label=claim.label,
            evidence_ids=written,
            confidence="high",
            reason="other",
            notes="back",
        )


def test_a_validator_edits_until_a_split_is_frozen(client):
    from tests.validation.factories import Team, final_pair, validate_all
    from validation import edits as validation_edits
    from validation.models import ValidationRevision

    team = Team()
    pair, claims = final_pair(team)
    validate_all(team)  # passed, nothing changed
    claim = claims["entailed"]
    item = Validation.objects.get(claim=claim).item
    url = reverse("validation_answers:edit", args=[item.key])
    for who in (team.validators[1], team.second, team.admin):
        client.force_login(who)
        assert client.get(url).status_code == 404
    client.force_login(team.validators[0])
    evidence = list(
        ClaimReview.objects.get(claim=claim).final_evidence.values_list("pk", flat=True)
    )
    revised = "Ours reaches a BLEU of 73.2, higher than that of the Baseline model."
    unticked = client.post(url, {"text": revised, "evidence": evidence})
    assert unticked.status_code == 400 and "tick the criteria" in unticked.content.decode()
    # Longer than the field holds: refused with the reason, the text kept on the page, not cut.
    too_long = revised + " It holds." * 500
    refused = client.post(url, {"text": too_long, "evidence": evidence, "criteria": ["language"]})
    page = refused.content.decode()
    assert refused.status_code == 400 and "longer than 5,000 characters" in page
    assert too_long in page
    claim.refresh_from_db()
    assert claim.text != too_long[:5000] and not ValidationRevision.objects.filter(item=item)
    ok = client.post(url, {"text": revised, "evidence": evidence, "criteria": ["language"]})
    assert ok.status_code == 302
    claim.refresh_from_db()
    validation_row = Validation.objects.get(claim=claim)
    assert claim.text == revised and validation_row.revisions == 1
    assert validation_row.criteria_failed == ["language"]
    assert ValidationRevision.objects.get(item=item).after == revised
    # Back to the words as written: a pass again, and the count follows.
    written = ValidationRevision.objects.get(item=item).before
    assert client.post(url, {"text": written, "evidence": evidence}).status_code == 302
    validation_row.refresh_from_db()
    assert validation_row.revisions == 0 and validation_row.criteria_failed == []
    assert (
        WorkEvent.objects.filter(item=item, action=WorkAction.ANSWER_EDITED, machine="item").count()
        == 2
    )
    # A frozen split closes it.
    from django.core.management import call_command

    validated_more = [final_pair(team, seed=s)[0] for s in (2, 3)]
    validate_all(team)
    assert validated_more
    call_command("make_split", "--validation", "2", "--test", "4", "--seed", "1", "--name", "s")
    assert not validation_edits.validation_editable(item, team.validators[0])
    refused = client.post(url, {"text": revised, "evidence": evidence, "criteria": ["language"]})
    assert refused.status_code == 409 and validation_edits.TOO_LATE in refused.content.decode()
