"""Editing one's last answer: a second annotator or an adjudicator changes a submitted answer while
nobody has taken the next stage's item. The edit is an `answer edited` event on the item (old
and new); the agreement statistics keep reading the first submission (`review.stats`).

Blindness: whether an answer may still be edited, and every answer to an edit, say nothing
about whether the answer agreed. A second annotation's edit withdraws whatever its comparison
opened (an adjudication or a validation, neither taken yet) and compares again; the annotator is
told only that their answer was changed."""

from __future__ import annotations

from collections.abc import Iterable

from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction

from annotation import lifecycle
from annotation.errors import AnnotationError
from annotation.inputs import id_set
from annotation.limits import MAX_NOTE, long_texts
from annotation.models import (
    Adjudication,
    AdjudicationDecision,
    AdjudicationReason,
    Claim,
    ClaimReview,
    Confidence,
    EvidenceAnnotation,
    ReviewState,
    WorkAction,
    WorkEvent,
    WorkItem,
    WorkKind,
    WorkStatus,
)
from annotation.queue import work
from annotation.review.rules import LABELS
from annotation.review.services import (
    InvalidAnnotation,
    _adjudication_evidence_problem,
    _compare,
    check_second_annotation,
)

# One message for every reason an answer can no longer be edited: which stage started (an
# adjudication or a validation) would say whether the answer agreed.
TOO_LATE = "The next stage has started on this claim: your answer can no longer be edited."
NEXT_KINDS = (WorkKind.ADJUDICATE, WorkKind.VALIDATE)


class AnswerLocked(AnnotationError):
    reason = "locked"


def _next_items(claim_id: int, *, after: WorkItem, lock: bool = False):
    """The items of later stages on the claim, made after `after` (ids rise: made later)."""
    rows = WorkItem.objects.filter(claim_id=claim_id, kind__in=NEXT_KINDS, pk__gt=after.pk)
    if lock:
        rows = rows.select_for_update()
    return list(rows.exclude(status=WorkStatus.CANCELLED))


def _untouched(items: list[WorkItem]) -> bool:
    """Every item open and never leased (a released one was seen: it counts as taken)."""
    if not items or any(i.status != WorkStatus.OPEN for i in items):
        return False
    return not WorkEvent.objects.filter(item__in=items, action=WorkAction.CLAIMED).exists()


def _mine(item: WorkItem, user: AbstractBaseUser, kind: str) -> bool:
    return item.kind == kind and item.status == WorkStatus.DONE and item.done_by_id == user.pk


def second_annotation_editable(item: WorkItem, user: AbstractBaseUser) -> bool:
    if not _mine(item, user, WorkKind.BLIND):
        return False
    state = ClaimReview.objects.filter(claim_id=item.claim_id).values_list("state", flat=True)
    if state.first() not in (ReviewState.UNANIMOUS, ReviewState.ADJUDICATION):
        return False
    return _untouched(_next_items(item.claim_id, after=item))


def adjudication_editable(item: WorkItem, user: AbstractBaseUser) -> bool:
    if not _mine(item, user, WorkKind.ADJUDICATE):
        return False
    review = ClaimReview.objects.filter(claim_id=item.claim_id).first()
    if review is None or review.state != ReviewState.ADJUDICATED:
        return False
    latest = Adjudication.objects.filter(claim_id=item.claim_id).order_by("-created_at", "-id")
    if latest.values_list("item_id", flat=True).first() != item.pk:
        return False
    return _untouched(_next_items(item.claim_id, after=item))


@transaction.atomic
def edit_second_annotation(
    *, item: WorkItem, user: AbstractBaseUser, label: str, evidence_ids: Iterable[object]
) -> EvidenceAnnotation:
    """Change a submitted blind annotation and compare the claim again."""
    item = (
        WorkItem.objects.select_for_update(of=("self",))
        .select_related("pair__context", "pair__task", "claim__pair")
        .get(pk=item.pk)
    )
    if not _mine(item, user, WorkKind.BLIND):
        raise AnswerLocked(
            "Only the expert who submitted this annotation can edit it.", reason="forbidden"
        )
    review = ClaimReview.objects.select_for_update().get(claim_id=item.claim_id)
    later = _next_items(item.claim_id, after=item, lock=True)
    if review.state not in (ReviewState.UNANIMOUS, ReviewState.ADJUDICATION) or not _untouched(
        later
    ):
        raise AnswerLocked(TOO_LATE)
    evidence = id_set(evidence_ids)
    kinds, written = check_second_annotation(item, label, evidence)
    annotation = EvidenceAnnotation.objects.select_for_update().get(item=item)
    before = {
        "label": annotation.label,
        "evidence": sorted(annotation.evidence.values_list("pk", flat=True)),
    }
    after = {"label": label, "evidence": sorted(evidence)}
    if before == after:
        raise InvalidAnnotation({"label": "Nothing changed: your answer stays as it was."})
    annotation.label = label
    annotation.save(update_fields=["label"])
    annotation.evidence.set(after["evidence"])
    lifecycle.record(item, actor=user, action=WorkAction.ANSWER_EDITED, old=before, new=after)
    # Withdraw what the first comparison opened (nobody has taken it), then compare again.
    work.cancel_items(
        WorkItem.objects.filter(pk__in=[i.pk for i in later]),
        actor=user,
        note="the second annotator edited their answer: compared again",
    )
    review.final_evidence.clear()
    lifecycle.move(
        review,
        ReviewState.SECOND,
        actor=user,
        action=WorkAction.ANSWER_EDITED,
        item=item,
        changes={"disagreement": "", "final_label": "", "evidence_jaccard": None},
        locked=(review.state, review.version),
    )
    item.claim = Claim.objects.select_related("pair").get(pk=item.claim_id)
    item.claim.review = review
    _compare(
        item=item,
        annotation=annotation,
        evidence=evidence,
        written=written,
        kinds=kinds,
        actor=user,
    )
    return annotation


@transaction.atomic
def edit_adjudication(
    *,
    item: WorkItem,
    user: AbstractBaseUser,
    label: str,
    evidence_ids: Iterable[object],
    confidence: str,
    reason: str,
    notes: str,
) -> Adjudication:
    """Change a decided adjudication before its claim's validation is taken: the final label
    and evidence follow. Leaving the claim unresolved, or deciding a refuted claim entailed
    (which sends the pair back to its writer), is no edit: ask an admin to re-open the claim."""
    item = (
        WorkItem.objects.select_for_update(of=("self",))
        .select_related("pair__context", "pair__task")
        .get(pk=item.pk)
    )
    if not _mine(item, user, WorkKind.ADJUDICATE):
        raise AnswerLocked(
            "Only the adjudicator who submitted this decision can edit it.", reason="forbidden"
        )
    review = ClaimReview.objects.select_for_update().get(claim_id=item.claim_id)
    adjudication = Adjudication.objects.select_for_update().get(item=item)
    latest = Adjudication.objects.filter(claim_id=item.claim_id).order_by("-created_at", "-id")
    if (
        review.state != ReviewState.ADJUDICATED
        or latest.values_list("item_id", flat=True).first() != item.pk
        or not _untouched(_next_items(item.claim_id, after=item, lock=True))
    ):
        raise AnswerLocked(TOO_LATE)
    claim = Claim.objects.get(pk=item.claim_id)
    evidence, notes = id_set(evidence_ids), str(notes).strip()
    errors: dict[str, str] = {}
    if label not in LABELS:
        errors["label"] = "Choose the final label."
    elif claim.label == "refuted" and label == "entailed":
        errors["label"] = (
            "Deciding this claim entailed sends the pair back to its writer: that "
            "is no edit. Ask an admin to re-open the claim."
        )
    if confidence not in Confidence.values:
        errors["confidence"] = "Give your confidence (low, medium, high)."
    if reason not in AdjudicationReason.values:
        errors["reason"] = "Choose the reason for the disagreement."
    problem = _adjudication_evidence_problem(item, evidence)
    if problem:
        errors["evidence"] = problem
    second = EvidenceAnnotation.objects.get(claim=claim)
    written = set(claim.evidence.values_list("pk", flat=True))
    seconded = set(second.evidence.values_list("pk", flat=True))
    overrides_both = (label, frozenset(evidence)) not in {
        (claim.label, frozenset(written)),
        (second.label, frozenset(seconded)),
    }
    if overrides_both and not notes:
        errors["notes"] = "Your decision differs from both annotations: say why in the notes."
    if errors := errors | long_texts([("notes", notes, MAX_NOTE)]):
        raise InvalidAnnotation(errors)
    fields = ("label", "confidence", "reason", "notes", "overrides_both")
    before = {f: getattr(adjudication, f) for f in fields}
    before["evidence"] = sorted(adjudication.evidence.values_list("pk", flat=True))
    after = {
        "label": label,
        "confidence": confidence,
        "reason": reason,
        "notes": notes,
        "overrides_both": overrides_both,
        "evidence": sorted(evidence),
    }
    if before == after:
        raise InvalidAnnotation({"label": "Nothing changed: your decision stays as it was."})
    for f in fields:
        setattr(adjudication, f, after[f])
    adjudication.decision = AdjudicationDecision.DECIDED
    adjudication.save(update_fields=[*fields, "decision"])
    adjudication.evidence.set(after["evidence"])
    review.final_evidence.set(after["evidence"])
    lifecycle.record(item, actor=user, action=WorkAction.ANSWER_EDITED, old=before, new=after)
    lifecycle.change(
        review,
        actor=user,
        action=WorkAction.ANSWER_EDITED,
        changes={"final_label": label},
        old={"final_label": before["label"]},
        new={"final_label": label},
    )
    return adjudication
