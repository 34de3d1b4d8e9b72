"""No silent cuts in the validation services themselves (not only on their pages): a claim's text
or explanation in a validation or its edit, and a baseline answer's explanation, longer than
MAX_TEXT is refused whoever calls (a command, a script, the shell) with the field, the limit and
the length, and nothing is recorded; text exactly at the limit is stored whole."""

from __future__ import annotations

import uuid

import pytest

from annotation import inputs as request_parsing
from annotation.models import ClaimReview, WorkItem, WorkStatus
from tests.annotation.factories import make_expert
from tests.validation.factories import Team, final_pair, validate_all
from validation import edits, services
from validation.baseline import services as baseline_services
from validation.models import BaselineAnswer, Validation, ValidationRevision

pytestmark = pytest.mark.django_db

LIMIT = request_parsing.MAX_TEXT


def text_of(length: int) -> str:
    """A claim's words, `length` characters, single spaces and no space at either end (what
    the services keep of a text as it is)."""
    text = "Ours reaches a BLEU of 73.2 on the test set, above the Baseline. " * (length // 60 + 1)
    return text[: length - 1] + "."


def too_long(field: str, length: int) -> str:
    return f"{field}: longer than {LIMIT:,} characters (it has {length:,}); shorten it."


def _fields(item: WorkItem, **changes) -> dict:
    claim = item.claim
    claim.refresh_from_db()
    review = ClaimReview.objects.get(claim=claim)
    return {
        "criteria_failed": [],
        "text": claim.text,
        "subset": claim.pair.subset,
        "label": review.final_label,
        "explanation": claim.explanation,
        "evidence_ids": list(review.final_evidence.values_list("pk", flat=True)),
    } | changes


def _submit(item: WorkItem, user, **changes) -> Validation:
    return services.submit_validation(
        item=item, user=user, version=item.version, token=uuid.uuid4(), **_fields(item, **changes)
    )


def _refuted_item(team: Team) -> WorkItem:
    """The validation item of the pair's refuted claim, held by the first validator."""
    while True:
        item = services.take_next(user=team.validators[0])
        if item.claim.label == "refuted":
            return item
        _submit(item, team.validators[0])


@pytest.mark.parametrize("field", ["text", "explanation"])
def test_a_validation_refuses_text_over_the_limit_and_stores_it_whole_at_the_limit(field):
    team = Team()
    final_pair(team)
    item = _refuted_item(team)
    validator = team.validators[0]
    before = item.claim.text, item.claim.explanation
    long = text_of(LIMIT + 1)
    with pytest.raises(services.InvalidValidation) as refused:
        _submit(item, validator, criteria_failed=["language"], **{field: long})
    assert refused.value.errors == {field: too_long(field, LIMIT + 1)}
    assert too_long(field, LIMIT + 1) in refused.value.message
    item.claim.refresh_from_db()
    assert (item.claim.text, item.claim.explanation) == before  # nothing cut, nothing stored
    assert Validation.objects.get(claim=item.claim).status == "pending"
    assert not ValidationRevision.objects.filter(item=item).exists()
    assert WorkItem.objects.get(pk=item.pk).status == WorkStatus.LEASED
    at_limit = text_of(LIMIT)
    assert len(at_limit) == LIMIT and at_limit == " ".join(at_limit.split())
    item.refresh_from_db()
    _submit(item, validator, criteria_failed=["language"], **{field: at_limit})
    item.claim.refresh_from_db()
    assert getattr(item.claim, field) == at_limit
    assert ValidationRevision.objects.get(item=item, field=field).after == at_limit


@pytest.mark.parametrize("field", ["text", "explanation"])
def test_editing_a_validation_refuses_text_over_the_limit_and_stores_it_whole_at_it(field):
    team = Team()
    final_pair(team)
    validate_all(team)
    validation = Validation.objects.get(claim__label="refuted")
    item, claim = validation.item, validation.claim
    validator = team.validators[0]
    evidence = list(
        ClaimReview.objects.get(claim=claim).final_evidence.values_list("pk", flat=True)
    )
    fields = {"text": claim.text, "explanation": claim.explanation}
    with pytest.raises(services.InvalidValidation) as refused:
        edits.edit_validation(
            item=item,
            user=validator,
            criteria_failed=["language"],
            evidence_ids=evidence,
            **fields | {field: text_of(LIMIT + 1)},
        )
    assert refused.value.errors == {field: too_long(field, LIMIT + 1)}
    claim.refresh_from_db()
    assert {"text": claim.text, "explanation": claim.explanation} == fields
    assert not ValidationRevision.objects.filter(item=item).exists()
    at_limit = text_of(LIMIT)
    edits.edit_validation(
        item=item,
        user=validator,
        criteria_failed=["language"],
        evidence_ids=evidence,
        **fields | {field: at_limit},
    )
    claim.refresh_from_db()
    assert getattr(claim, field) == at_limit
    assert ValidationRevision.objects.get(item=item, field=field).after == at_limit


def test_a_baseline_answer_refuses_an_explanation_over_the_limit_and_stores_one_at_it():
    team = Team()
    final_pair(team)
    validate_all(team)
    expert, other = make_expert("baseline1"), make_expert("baseline2")
    baseline_services.start_baseline(
        by=team.admin, expert_ids=[expert.pk, other.pk], per_subset=1, seed=1
    )
    item = baseline_services.take_next_baseline(user=expert)
    with pytest.raises(services.InvalidValidation) as refused:
        baseline_services.submit_baseline_answer(
            item=item,
            user=expert,
            version=item.version,
            token=uuid.uuid4(),
            label="entailed",
            explanation=text_of(LIMIT + 1),
        )
    assert refused.value.errors == {"explanation": too_long("explanation", LIMIT + 1)}
    assert not BaselineAnswer.objects.exists()
    item.refresh_from_db()
    assert item.status == WorkStatus.LEASED
    at_limit = text_of(LIMIT)
    answer = baseline_services.submit_baseline_answer(
        item=item,
        user=expert,
        version=item.version,
        token=uuid.uuid4(),
        label="entailed",
        explanation=at_limit,
    )
    assert BaselineAnswer.objects.get(pk=answer.pk).explanation == at_limit
