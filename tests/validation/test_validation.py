"""Validation through its services: who may validate, pass, revise in place, history, re-open."""

from __future__ import annotations

import uuid

import pytest
from django.utils import timezone

from annotation.errors import AnnotationError
from annotation.models import ClaimPair, EvidenceAnnotation, PairRole, WorkItem, WorkKind
from annotation.queue import work
from papers.models import Element
from tests.annotation.factories import make_expert
from tests.validation.factories import Team, final_pair
from validation import routing, selectors, services
from validation.models import Validation, ValidationRevision

pytestmark = pytest.mark.django_db


def fields(item: WorkItem, **changes) -> dict:
    item.refresh_from_db()
    claim = item.claim
    claim.refresh_from_db()
    base = {
        "criteria_failed": [],
        "text": claim.text,
        "subset": claim.pair.subset,
        "label": claim.review.final_label,
        "evidence_ids": list(claim.review.final_evidence.values_list("pk", flat=True)),
        "explanation": claim.explanation,
    }
    return base | changes


def validate(item: WorkItem, user, **changes) -> Validation:
    data = fields(item, **changes)
    return services.submit_validation(
        item=item, user=user, version=item.version, token=uuid.uuid4(), **data
    )


def test_final_claims_become_validation_items_when_final_and_once():
    team = Team()
    pair, _ = final_pair(team)
    # Opened in the transaction that made each claim final, one per claim.
    assert WorkItem.objects.filter(kind=WorkKind.VALIDATE).count() == 2
    assert Validation.objects.filter(claim__pair=pair).count() == 2


def test_writer_and_second_annotators_never_validate_and_the_pair_goes_to_one_validator():
    """Never the writer, never a claim's own second annotator: each second annotator may
    validate the pair's other claim (their blind annotation is in); a validator free of roles
    on the pair validates both."""
    team = Team()
    pair, claims = final_pair(team)
    with pytest.raises(work.NothingToDo):
        services.take_next(user=team.writer)
    now = timezone.now()
    for user in (team.second, team.third):
        mine = EvidenceAnnotation.objects.get(claim__pair=pair, annotator=user).claim_id
        offered = set(work.available_to(user, "validate", now).values_list("claim_id", flat=True))
        assert offered == {c.pk for c in claims.values()} - {mine}, user.username
    first = services.take_next(user=team.validators[0])
    assert PairRole.objects.get(pair=pair, expert=team.validators[0]).role == "validator"
    with pytest.raises(work.NothingToDo):  # the other claim is named for the pair's validator
        services.take_next(user=team.validators[1])
    validate(first, team.validators[0])
    second = services.take_next(user=team.validators[0])
    assert {first.claim_id, second.claim_id} == {c.pk for c in claims.values()}


def test_nobody_eligible_waits_visibly():
    team = Team(validators=0)
    pair, _ = final_pair(team)
    # second and third annotated one claim each; without third, nobody may validate the claim
    # second annotated (third's claim is second's to validate).
    team.third.is_active = False
    team.third.save(update_fields=["is_active"])
    total, waiting = work.waiting_items(kind=WorkKind.VALIDATE)
    assert total == 1
    seconds = EvidenceAnnotation.objects.get(claim__pair=pair, annotator=team.second).claim_id
    assert waiting[0].item.claim_id == seconds
    assert waiting[0].reason == (
        "nobody eligible for cs.CL may take it (second annotated this claim; writer wrote the pair)"
    )


def test_pass_records_no_revision_and_validates():
    team = Team()
    final_pair(team)
    item = services.take_next(user=team.validators[0])
    validation = validate(item, team.validators[0])
    assert validation.status == "validated" and validation.revisions == 0
    assert not ValidationRevision.objects.exists()
    assert selectors.validated_claims().count() == 1


def test_revision_changes_in_place_keeps_before_after_and_the_subset_is_the_pairs():
    team = Team()
    pair, claims = final_pair(team)
    item = services.take_next(user=team.validators[0])
    new_subset = "analytical" if pair.subset != "analytical" else "direct"
    validation = validate(
        item,
        team.validators[0],
        criteria_failed=["language", "subset"],
        text="Ours reaches a BLEU score of 73.2, higher than the Baseline model.",
        subset=new_subset,
    )
    assert validation.revisions == 1
    changes = {r.field: r for r in ValidationRevision.objects.all()}
    assert set(changes) == {"text", "subset"}
    assert changes["subset"].before == pair.subset and changes["subset"].after == new_subset
    assert changes["text"].criteria_failed == ["language", "subset"]
    assert changes["text"].by == team.validators[0]
    assert ClaimPair.objects.get(pk=pair.pk).subset == new_subset  # both claims see it
    item.claim.refresh_from_db()
    assert item.claim.text.startswith("Ours reaches a BLEU score")
    with pytest.raises(ValueError):
        changes["text"].save()


@pytest.mark.parametrize(
    "changes, field",
    [
        ({"criteria_failed": ["language"]}, "criteria"),
        ({"text": "Ours beats the baseline clearly on BLEU in Table 1."}, "criteria"),
        ({"text": "   "}, "text"),
        ({"label": "maybe"}, "label"),
        ({"evidence_ids": []}, "evidence"),
        ({"subset": "nonsense"}, "subset"),
    ],
)
def test_bad_validations_record_nothing_and_say_which_field(changes, field):
    team = Team()
    final_pair(team)
    item = services.take_next(user=team.validators[0])
    with pytest.raises(services.InvalidValidation) as caught:
        validate(item, team.validators[0], **changes)
    assert field in caught.value.errors
    assert Validation.objects.get(claim=item.claim).status == "pending"
    assert not ValidationRevision.objects.exists()


def test_a_refuted_claim_keeps_its_explanation():
    team = Team()
    final_pair(team)
    item = services.take_next(user=team.validators[0])
    if item.claim.label != "refuted":
        validate(item, team.validators[0])
        item = services.take_next(user=team.validators[0])
    with pytest.raises(services.InvalidValidation) as caught:
        validate(item, team.validators[0], explanation="", criteria_failed=["label"])
    assert "explanation" in caught.value.errors


def test_the_same_submission_twice_records_once():
    team = Team()
    final_pair(team)
    item = services.take_next(user=team.validators[0])
    data = fields(
        item, criteria_failed=["language"], text="Ours reaches 73.2 BLEU, above the Baseline."
    )
    token = uuid.uuid4()
    for _ in range(2):
        services.submit_validation(
            item=item, user=team.validators[0], version=item.version, token=token, **data
        )
    assert ValidationRevision.objects.count() == 1


def test_admin_reopens_with_a_reason_and_only_admins_may():
    team = Team()
    final_pair(team)
    item = services.take_next(user=team.validators[0])
    validate(item, team.validators[0])
    with pytest.raises(AnnotationError):
        services.reopen_validation(claim=item.claim, by=team.validators[0], reason="x")
    with pytest.raises(AnnotationError):
        services.reopen_validation(claim=item.claim, by=team.admin, reason=" ")
    from annotation.errors import too_long
    from annotation.inputs import MAX_TEXT

    long = "r" * (MAX_TEXT + 1)  # refused whole by the service too, not only by its page
    with pytest.raises(AnnotationError) as refused:
        services.reopen_validation(claim=item.claim, by=team.admin, reason=long)
    assert refused.value.message == "Nothing was re-opened: " + too_long("reason", long, MAX_TEXT)
    assert item.claim.validation.status == "validated"
    validation = services.reopen_validation(claim=item.claim, by=team.admin, reason="typo left")
    assert validation.status == "pending" and validation.reopen_reason == "typo left"
    assert validation.item.events.filter(action="reopened", note="typo left").exists()
    assert validation.item.status == "open"
    sibling = services.take_next(user=team.validators[0])
    assert sibling.claim_id != item.claim_id
    validate(sibling, team.validators[0])
    with pytest.raises(work.NothingToDo):  # a re-opened claim goes to someone else
        services.take_next(user=team.validators[0])
    assert services.take_next(user=team.validators[1]).claim_id == item.claim_id


def test_the_pairs_validator_is_named_only_where_the_blindness_rule_lets_them():
    from annotation.queue.blindness import RoleRow

    roles = [
        RoleRow(1, "writer", None),
        RoleRow(2, "evidence", 10),
        RoleRow(3, "evidence", 11),
        RoleRow(4, "validator", 10),
    ]
    assert routing.route_validation(11, [1, 2, 3, 4], roles).assignee == 4
    assert routing.route_validation(11, [1, 2, 3], roles).assignee is None  # 4 not eligible
    # the validator of claim 10 adjudicated claim 11: someone else validates it
    assert (
        routing.route_validation(11, [1, 2, 3, 4], [*roles, RoleRow(4, "adjudicator", 11)]).assignee
        is None
    )


def test_another_subfield_expert_never_validates():
    team = Team(validators=0)
    final_pair(team)
    with pytest.raises(work.NothingToDo):
        services.take_next(user=make_expert("vision", codes=("cs.CV",)))


# --- The evidence rule -----------------------------------------------------------------------


def test_the_validators_evidence_is_held_to_the_evidence_rule_for_the_pairs_subset():
    team = Team()
    pair, _ = final_pair(team)  # direct: one table or chart
    sampled = pair.task.sampled_ids
    item = services.take_next(user=team.validators[0])
    with pytest.raises(services.InvalidValidation) as caught:
        validate(item, team.validators[0], criteria_failed=["evidence"], evidence_ids=sampled[:2])
    message = caught.value.errors["evidence"]
    assert "A direct claim rests on exactly one table or chart" in message
    assert "2 are marked" in message and "Untick one" in message
    for label in Element.objects.filter(pk__in=sampled[:2]).values_list("label", flat=True):
        assert label in message
    assert not ValidationRevision.objects.exists()
    validation = validate(
        item, team.validators[0], criteria_failed=["evidence"], evidence_ids=sampled[1:2]
    )
    assert validation.status == "validated"
    assert list(item.claim.review.final_evidence.values_list("pk", flat=True)) == [sampled[1]]


def test_a_revised_subset_is_the_one_the_evidence_is_held_to():
    team = Team()
    pair, _ = final_pair(team)
    sampled = pair.task.sampled_ids
    item = services.take_next(user=team.validators[0])
    with pytest.raises(services.InvalidValidation) as caught:  # parallel needs two
        validate(item, team.validators[0], criteria_failed=["subset"], subset="parallel")
    assert "A parallel claim rests on exactly two tables/charts" in caught.value.errors["evidence"]
    assert "Mark one more" in caught.value.errors["evidence"]
    validate(
        item,
        team.validators[0],
        criteria_failed=["subset", "evidence"],
        subset="parallel",
        evidence_ids=sampled[:2],
    )
    assert ClaimPair.objects.get(pk=pair.pk).subset == "parallel"
    # The pair's other claim, not validated yet, still cites one: its validator is warned, and
    # held to the rule when submitting.
    other = services.take_next(user=team.validators[0])
    warning = selectors.evidence_rule_warning(selectors.validation_page(other.pk))
    assert warning.code == "evidence_rule" and "1 is marked" in warning.message
    with pytest.raises(services.InvalidValidation) as caught:
        validate(other, team.validators[0])
    assert "Mark one more" in caught.value.errors["evidence"]
    validate(other, team.validators[0], criteria_failed=["evidence"], evidence_ids=sampled[:2])


def test_the_subset_cannot_change_under_a_validated_claim_that_would_break_the_rule():
    team = Team()
    pair, _ = final_pair(team)
    first = services.take_next(user=team.validators[0])
    validate(first, team.validators[0])
    second = services.take_next(user=team.validators[0])
    sampled = pair.task.sampled_ids
    with pytest.raises(services.InvalidValidation) as caught:
        validate(
            second,
            team.validators[0],
            criteria_failed=["subset", "evidence"],
            subset="sequential",
            evidence_ids=sampled[:2],
        )
    assert "already validated" in caught.value.errors["subset"]
    assert ClaimPair.objects.get(pk=pair.pk).subset == pair.subset


def test_a_claim_that_breaks_the_rule_warns_its_validator_and_cannot_pass_as_it_is():
    """A claim written before the rule (two tables for a direct claim) is listed for its
    validator: a warning under criterion 4, and a pass is refused until the evidence is fixed."""
    team = Team()
    pair, claims = final_pair(team)
    sampled = pair.task.sampled_ids
    item = services.take_next(user=team.validators[0])
    item.claim.review.final_evidence.set(sampled[:2])
    warning = selectors.evidence_rule_warning(selectors.validation_page(item.pk))
    assert warning is not None and "2 are marked" in warning.message
    with pytest.raises(services.InvalidValidation) as caught:
        validate(item, team.validators[0])
    assert "Untick one" in caught.value.errors["evidence"]
    validate(item, team.validators[0], criteria_failed=["evidence"], evidence_ids=sampled[:1])
    assert selectors.evidence_rule_warning(selectors.validation_page(item.pk)) is None
