"""Editing one's last answer, for a validation: its validator changes the claim's text, explanation,
evidence or the criteria failed, while the claim is in no frozen split and no human-baseline
expert has taken it. The label and the subset stay (changing them opens or withdraws a new
perturbation, or changes the pair's other claim): for those an admin re-opens the validation.
Each changed field is a revision like the submission's; the edit is an `answer edited` event."""

from __future__ import annotations

from collections.abc import Iterable

from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction

from annotation import lifecycle
from annotation.errors import AnnotationError
from annotation.models import (
    Claim,
    ClaimReview,
    WorkAction,
    WorkEvent,
    WorkItem,
    WorkKind,
    WorkStatus,
)
from annotation.writing import selectors as writing_selectors
from validation.models import (
    SplitMember,
    Validation,
    ValidationRevision,
    ValidationStatus,
)
from validation.services import (
    InvalidValidation,
    labelled_rule_problem,
    read_answer,
    record_revisions,
)

TOO_LATE = (
    "This claim is in a frozen split or its human baseline has started: your validation can no "
    "longer be edited (an admin can re-open it)."
)
FIELDS = ("text", "evidence", "explanation")


class ValidationLocked(AnnotationError):
    reason = "locked"


def _mine(item: WorkItem, user: AbstractBaseUser) -> bool:
    return (
        item.kind == WorkKind.VALIDATE
        and item.status == WorkStatus.DONE
        and item.done_by_id == user.pk
    )


def _open_to_edit(item: WorkItem, validation: Validation | None) -> bool:
    if validation is None or validation.status != ValidationStatus.VALIDATED:
        return False
    if validation.item_id != item.pk:  # re-opened and validated again since
        return False
    if SplitMember.objects.filter(pair_id=item.pair_id).exists():
        return False
    baseline = WorkItem.objects.filter(claim_id=item.claim_id, kind=WorkKind.BASELINE)
    if baseline.filter(status=WorkStatus.DONE).exists():
        return False
    return not WorkEvent.objects.filter(item__in=baseline, action=WorkAction.CLAIMED).exists()


def validation_editable(item: WorkItem, user: AbstractBaseUser) -> bool:
    if not _mine(item, user):
        return False
    return _open_to_edit(item, Validation.objects.filter(claim_id=item.claim_id).first())


def _values(claim: Claim, review: ClaimReview) -> dict[str, object]:
    return {
        "text": claim.text,
        "explanation": claim.explanation,
        "evidence": sorted(review.final_evidence.values_list("pk", flat=True)),
    }


@transaction.atomic
def edit_validation(
    *,
    item: WorkItem,
    user: AbstractBaseUser,
    criteria_failed: Iterable[str],
    text: str,
    evidence_ids: Iterable[object],
    explanation: str = "",
) -> Validation:
    if not _mine(item, user):
        raise ValidationLocked(
            "Only the validator who submitted this validation can edit it.", reason="forbidden"
        )
    claim = (
        Claim.objects.select_related("pair__context", "pair__task")
        .select_for_update(of=("self",))
        .get(pk=item.claim_id)
    )
    review = ClaimReview.objects.select_for_update().get(claim=claim)
    validation = Validation.objects.select_for_update().get(claim=claim)
    if not _open_to_edit(item, validation):
        raise ValidationLocked(TOO_LATE)
    failed, text, explanation, evidence, errors = read_answer(
        text, explanation, criteria_failed, evidence_ids
    )
    kinds, _ = writing_selectors.evidence_kinds_and_texts(claim.pair.context)
    pair, sampled = claim.pair, claim.pair.task.sampled_ids
    if not evidence:
        errors["evidence"] = "Mark the evidence."
    elif any(pk not in kinds for pk in evidence):
        errors["evidence"] = "Some evidence is not part of this paper's curated context."
    elif problem := labelled_rule_problem(pair.subset, evidence, kinds, sampled):
        errors["evidence"] = problem
    if claim.label == "refuted" and not explanation:
        errors["explanation"] = "A refuted claim keeps an explanation of why it is false."
    current = _values(claim, review)
    new = {
        "text": text,
        "explanation": explanation if claim.label == "refuted" else "",
        "evidence": sorted(evidence),
    }
    # What the claim was before this validation: the first revision's `before`, else as now.
    original = dict(current)
    revisions = ValidationRevision.objects.filter(validation=validation, item=item)
    for revision in revisions.order_by("-at", "-id"):
        original[revision.field] = revision.before
    label_or_subset = revisions.filter(field__in=["label", "subset"]).exists()
    changed = [f for f in FIELDS if original[f] != new[f]]
    if not errors:
        if failed and not changed and not label_or_subset:
            errors["criteria"] = (
                "You marked failed criteria but the claim is as it was written: revise it, or "
                "untick them to pass it."
            )
        elif (changed or label_or_subset) and not failed:
            errors["criteria"] = "You revised the claim: tick the criteria it failed."
        elif current == new and failed == sorted(validation.criteria_failed):
            errors["criteria"] = "Nothing changed: your validation stays as it was."
    if errors:
        raise InvalidValidation(errors)
    edited = [f for f in FIELDS if current[f] != new[f]]
    record_revisions(
        validation=validation,
        item=item,
        claim=claim,
        review=review,
        fields=edited,
        before=current,
        after=new,
        failed=failed,
        user=user,
    )
    was_revised = label_or_subset or any(original[f] != current[f] for f in FIELDS)
    now_revised = label_or_subset or bool(changed)
    count = validation.revisions - int(was_revised) + int(now_revised)
    old = {f: current[f] for f in edited} | {"criteria_failed": validation.criteria_failed}
    after = {f: new[f] for f in edited} | {
        "criteria_failed": failed,
        "outcome": "revised" if now_revised else "passed",
    }
    lifecycle.record(item, actor=user, action=WorkAction.ANSWER_EDITED, old=old, new=after)
    lifecycle.change(
        validation,
        actor=user,
        action=WorkAction.ANSWER_EDITED,
        changes={"criteria_failed": failed, "revisions": count},
        old=old,
        new=after,
    )
    return validation
