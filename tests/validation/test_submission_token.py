"""A validation or a baseline answer whose form lost its submission token is refused, as the
writing and review pages refuse it (issue 12): never a fresh token invented, which would let a
form sent twice record twice. The refusal is the one every work page gives: 400, reason
"invalid", the kit's message, the page kept."""

from __future__ import annotations

import uuid

import pytest

from annotation import inputs as parse
from annotation.models import WorkItem, WorkStatus
from tests.annotation.factories import make_expert
from tests.validation.factories import Team, final_pair, validate_all
from validation import services
from validation.models import BaselineAnswer, Validation, ValidationRevision

pytestmark = pytest.mark.django_db


@pytest.fixture
def held():
    team = Team()
    final_pair(team)
    return team, services.take_next(user=team.validators[0])


def _form(item: WorkItem, **changes) -> dict:
    claim = item.claim
    evidence = [str(pk) for pk in claim.review.final_evidence.values_list("pk", flat=True)]
    return {
        "version": item.version,
        "subset": claim.pair.subset,
        "text": claim.text,
        "label": claim.review.final_label,
        "evidence": evidence,
        "explanation": claim.explanation,
    } | changes


@pytest.mark.parametrize("token", [None, "", "not-a-token"])
def test_a_validation_without_its_token_is_refused_and_nothing_is_recorded(client, held, token):
    team, item = held
    client.force_login(team.validators[0])
    form = _form(item) if token is None else _form(item, token=token)
    response = client.post(f"/validate/{item.key}/", form)
    assert response.status_code == 400
    html = response.content.decode()
    assert parse.TOKEN_LOST in html and item.claim.text in html  # the page, kept
    item.refresh_from_db()
    assert item.status == WorkStatus.LEASED and item.done_by_id is None
    assert Validation.objects.get(claim=item.claim).status == "pending"
    assert not ValidationRevision.objects.exists()


def test_a_pages_script_gets_the_refusal_every_work_page_gives(client, held):
    team, item = held
    client.force_login(team.validators[0])
    response = client.post(f"/validate/{item.key}/", _form(item), HTTP_ACCEPT="application/json")
    assert response.status_code == 400
    body = response.json()
    assert body["reason"] == "invalid" and body["message"] == parse.TOKEN_LOST
    item.refresh_from_db()
    assert item.status == WorkStatus.LEASED


def test_with_its_token_the_same_form_is_recorded(client, held):
    team, item = held
    client.force_login(team.validators[0])
    response = client.post(f"/validate/{item.key}/", _form(item, token=str(uuid.uuid4())))
    assert response.status_code == 302
    item.refresh_from_db()
    assert item.status == WorkStatus.DONE


def test_a_baseline_answer_without_its_token_is_refused_and_nothing_is_recorded(client):
    team = Team()
    final_pair(team)
    validate_all(team)
    a, b = make_expert("a1"), make_expert("b1")
    client.force_login(team.admin)
    study = client.post("/manage/baseline/", {"experts": [a.pk, b.pk], "per_subset": 2})
    assert study.status_code == 302
    client.force_login(a)
    url = client.post("/baseline/next/").url
    item = WorkItem.objects.get(key=url.rstrip("/").split("/")[-1])
    answer = {"version": item.version, "label": "entailed", "explanation": "because"}
    refused = client.post(url, answer)
    assert refused.status_code == 400 and parse.TOKEN_LOST in refused.content.decode()
    as_json = client.post(url, answer, HTTP_ACCEPT="application/json")
    assert as_json.status_code == 400 and as_json.json()["reason"] == "invalid"
    assert not BaselineAnswer.objects.exists()
    item.refresh_from_db()
    assert item.status == WorkStatus.LEASED
    assert client.post(url, answer | {"token": str(uuid.uuid4())}).status_code == 302
    assert BaselineAnswer.objects.count() == 1


def test_the_kit_reads_a_token_and_ids_by_one_rule():
    token = uuid.uuid4()
    assert parse.parse_token(str(token)) == token
    for lost in (None, "", "x", 12, ["a"]):
        with pytest.raises(parse.BadInput, match="lost its submission token"):
            parse.parse_token(lost)
    assert parse.id_set([3, "4", "4", True, -1, "²", "x", None, 0]) == {0, 3, 4}
    assert parse.id_set(None) == set() and parse.id_set("12") == set()
