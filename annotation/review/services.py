"""Writes of the review stage: handing claims out blind, recording second annotations,
comparing, adjudicating, reopening, dropping pairs and admins' eligibility overrides (one
transaction each, keyword-only arguments, domain errors, a history row per state change)."""

from __future__ import annotations

import functools
import secrets
import uuid
from collections.abc import Iterable
from typing import Any

from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from django.db.models import Count, Exists, OuterRef, Q
from django.utils import timezone

from annotation import access, lifecycle
from annotation.errors import AnnotationError
from annotation.experts import selectors as expert_selectors
from annotation.inputs import id_set
from annotation.limits import MAX_NOTE, refuse_long
from annotation.models import (
    Adjudication,
    AdjudicationDecision,
    Claim,
    ClaimPair,
    ClaimReview,
    Disagreement,
    EvidenceAnnotation,
    ExpertProfile,
    PairReview,
    PairRole,
    PairState,
    ReviewState,
    Role,
    Subfield,
    WorkAction,
    WorkItem,
    WorkKind,
    WorkStatus,
)
from annotation.queue import work
from annotation.review.rules import LABELS as LABELS  # still read here by callers
from annotation.review.rules import (
    Annotation,
    adjudication_errors,
    adjudication_evidence_problem,
    compare,
    second_annotation_errors,
)
from annotation.writing import reperturbation
from annotation.writing import selectors as writing_selectors
from papers.models import Element

REVIEW_KINDS = (WorkKind.BLIND, WorkKind.ADJUDICATE)
# What dropping a pair cancels: its unfinished work of every later stage.
# A human-baseline item of a dropped pair is cancelled too: its gold label is no longer the
# dataset's, and the study's report leaves it out.
DROPPED_PAIR_KINDS = (*REVIEW_KINDS, WorkKind.VALIDATE, WorkKind.REPERTURB, WorkKind.BASELINE)


class InvalidAnnotation(AnnotationError):
    """The annotation breaks a rule; `errors` maps each form field to what is wrong with it."""

    def __init__(self, errors: dict[str, str]):
        super().__init__("Nothing was recorded: " + " ".join(errors.values()))
        self.errors = errors


def queue_order(kind: str, user: object) -> list[work.Walk]:
    """Second annotation: the expert's own shuffle (claims assigned to them by name first,
    nobody else may take them; then across papers, so an expert does not read one paper's
    claims in a row); adjudication: label disagreements before evidence-only ones, each
    oldest first."""
    if kind == WorkKind.BLIND:
        return work.shuffled(user)
    oldest = ("created_at", "id")
    return [(Q(claim__review__disagreement=Disagreement.LABEL), oldest), (Q(), oldest)]


def _least_loaded(candidates: list[AbstractBaseUser]) -> AbstractBaseUser:
    """The candidate with the fewest unfinished second-annotation items (then by username)."""
    load = dict(
        WorkItem.objects.filter(
            kind=WorkKind.BLIND,
            status__in=[WorkStatus.OPEN, WorkStatus.LEASED],
            assignee_id__in=[u.pk for u in candidates],
        )
        .values("assignee_id")
        .annotate(n=Count("id"))
        .values_list("assignee_id", "n")
    )
    return min(candidates, key=lambda u: (load.get(u.pk, 0), u.get_username()))


def open_second_annotation(*, pair: ClaimPair, actor: AbstractBaseUser | None) -> list[WorkItem]:
    """After a pair is written: each claim becomes a blind second-annotation item, created in
    random order (nothing about a claim's label may follow from when its item was made).

    Any eligible expert without a role on the pair may take either claim; taking one rules them
    out of the other (`annotation.queue.blindness`), so two eligible experts besides the writer
    annotate one claim each and may then adjudicate or validate each other's. With only one, the
    second claim waits, visibly, for an admin's cross-subfield override, unless the subfield
    allows the flagged behaviour: then both claims go to that expert, and the pair is reported
    apart. With none, both wait."""
    code = pair.subfield_code
    on_pair = set(PairRole.objects.filter(pair=pair).values_list("expert_id", flat=True))
    candidates = [u for u in expert_selectors.eligible_experts(code) if u.pk not in on_pair]
    shared = Subfield.objects.filter(code=code, shared_second_annotator=True).exists()
    only = candidates[0] if shared and len(candidates) == 1 else None
    PairReview.objects.create(pair=pair, same_second_annotator=only is not None)
    items = []
    claims = list(Claim.objects.current().filter(pair=pair))
    secrets.SystemRandom().shuffle(claims)
    for claim in claims:
        _open_review(claim, actor=actor)
        item = work.create_item(
            kind=WorkKind.BLIND,
            paper_id=pair.paper_id,
            subfield_code=code,
            actor=actor,
            pair=pair,
            claim=claim,
            assignee_id=only.pk if only else None,
        )
        if only is not None:
            work.record(
                item,
                WorkAction.FLAGGED,
                actor=actor,
                new={"assignee": only.pk},
                note=f"only {only.get_username()} is eligible besides the writer and "
                f"{code} allows one second annotator for both claims: both go to them, "
                "who may tell which one was perturbed",
            )
        items.append(item)
    return items


def open_replacement_review(*, claim: Claim, actor: AbstractBaseUser | None) -> WorkItem:
    """A new perturbation replacing one that turned out true is annotated blind like any claim:
    any eligible expert without a role on the pair may take it (someone who saw the pair's
    claims would know which one is perturbed). With nobody free it waits, visibly, for an
    admin, who may allow a former second annotator (the pair is then flagged)."""
    pair = claim.pair
    _open_review(claim, actor=actor)
    return work.create_item(
        kind=WorkKind.BLIND,
        paper_id=pair.paper_id,
        subfield_code=pair.subfield_code,
        actor=actor,
        pair=pair,
        claim=claim,
    )


def _open_review(claim: Claim, *, actor: AbstractBaseUser | None) -> ClaimReview:
    review = ClaimReview.objects.create(claim=claim)
    review.claim = claim
    lifecycle.opened(review, actor=actor, action=WorkAction.OPENED)
    return review


def take_next(*, user: AbstractBaseUser, kind: str) -> WorkItem:
    """Lease the expert's next review item and record their role on its claim (so they are
    never handed the pair's other claim blind, nor this claim to adjudicate or validate)."""
    if kind not in REVIEW_KINDS:
        raise AnnotationError(f"Not a review kind: {kind}.")
    role = Role.EVIDENCE if kind == WorkKind.BLIND else Role.ADJUDICATOR

    def record_role(item: WorkItem) -> None:  # in the lease's transaction; kept if it exists
        PairRole.objects.bulk_create(
            [PairRole(pair_id=item.pair_id, claim_id=item.claim_id, expert=user, role=role)],
            ignore_conflicts=True,
        )

    return work.next_item(
        user=user, kind=kind, order=functools.partial(queue_order, kind), on_lease=record_role
    )


def element_labels(ids: Iterable[int]) -> dict[int, str]:
    """Element labels ("Table 2") to name tables/charts in an evidence-rule message (one query;
    `evidence_rule_problem` asks it only when the rule is broken)."""
    return dict(Element.objects.filter(pk__in=set(ids)).values_list("pk", "label"))


def _adjudication_evidence_problem(item: WorkItem, evidence: set[int]) -> str:
    """The adjudicator's final evidence: in context, and held to the evidence rule."""
    kinds, _ = writing_selectors.evidence_kinds_and_texts(item.pair.context)
    pair = item.pair
    return adjudication_evidence_problem(
        evidence,
        kinds=kinds,
        subset=pair.subset,
        sampled=pair.task.sampled_ids,
        labels=element_labels,
    )


def check_second_annotation(
    item: WorkItem, label: str, evidence: list[int]
) -> tuple[dict[int, str], set[int]]:
    """A second annotation's label and evidence as a submission or an edit of it must give
    them (InvalidAnnotation otherwise); returns the context's kinds and the writer's evidence.
    The second annotator marks what they believe: not held to the evidence rule (a count that
    breaks it makes the claim a disagreement, see `_compare`)."""
    if hasattr(item, "kinds_and_cited"):  # read with the item (`submit_second_annotation`)
        kinds, written = writing_selectors.read_kinds_and_cited(item.kinds_and_cited)
    else:
        kinds, written = writing_selectors.evidence_kinds_and_cited(
            item.pair.context, item.claim_id
        )
    if errors := second_annotation_errors(label, evidence, kinds):
        raise InvalidAnnotation(errors)
    return kinds, written


def _begin_blind(
    *,
    item: WorkItem | None,
    key: str | None,
    user: AbstractBaseUser,
    version: int | None,
    token: uuid.UUID,
) -> tuple[WorkItem, bool]:
    """`work.begin_submission` for a blind item, reading in one statement what the submission
    needs: the item, its pair and task, the claim's review with its validation (if any),
    whether the pair has a validator (where a final claim is routed) and the context's
    elements with the writer's evidence; the item and the review locked. No more joins than
    the submission reads: planning the statement costs more than running it (the claim's pair
    is the item's, set by the caller; the context is read as text)."""
    return work.begin_submission(
        item=item,
        key=key,
        user=user,
        version=version,
        token=token,
        related=("pair__task", "claim__review", "claim__validation"),
        lock=("self", "claim__review"),
        annotate=_blind_reads,
        name="a blind submission's item",
    )


def _blind_reads() -> dict[str, Any]:
    """What a blind submission reads with its item beside the joined rows."""
    return {
        "pair_has_validator": Exists(
            PairRole.objects.filter(pair_id=OuterRef("pair_id"), role=Role.VALIDATOR)
        ),
        "kinds_and_cited": writing_selectors.kinds_and_cited(
            OuterRef("pair__context_id"), OuterRef("claim_id")
        ),
    }


@transaction.atomic
def submit_second_annotation(
    *,
    item: WorkItem | None = None,
    key: str | None = None,
    user: AbstractBaseUser,
    version: int | None,
    token: uuid.UUID,
    label: str,
    evidence_ids: Iterable[object],
) -> EvidenceAnnotation:
    """Record the blind label and evidence, finish the item (`item`, or the one its page's
    `key` names: the view need not read it first), and compare with the writer's: agreed claims
    are final (unanimous), the others go to adjudication."""
    item, replay = _begin_blind(item=item, key=key, user=user, version=version, token=token)
    if replay:
        return EvidenceAnnotation.objects.get(item=item)
    if item.kind != WorkKind.BLIND:
        raise AnnotationError("This is not a second-annotation item.")
    item.claim.pair = item.pair  # a blind item's pair is its claim's
    item.pair.has_validator = item.pair_has_validator  # read by validation's hand-off
    evidence = id_set(evidence_ids)
    kinds, written = check_second_annotation(item, label, evidence)
    with lifecycle.batched():  # the events in one INSERT at the end
        annotation = EvidenceAnnotation.objects.create(
            claim_id=item.claim_id, item=item, annotator=user, label=label
        )
        EvidenceAnnotation.evidence.through.objects.bulk_create(
            EvidenceAnnotation.evidence.through(evidenceannotation=annotation, element_id=pk)
            for pk in sorted(evidence)
        )  # a new annotation: nothing to compare with, one INSERT
        work.finish_submission(
            item,
            user=user,
            token=token,
            pair=None,
            old={"draft": item.draft},
            new={"label": label, "evidence": sorted(evidence)},
        )
        _compare(
            item=item,
            annotation=annotation,
            evidence=evidence,
            written=written,
            kinds=kinds,
            actor=user,
        )
    return annotation


def _compare(
    *,
    item: WorkItem,
    annotation: EvidenceAnnotation,
    evidence: set[int],
    written: set[int],
    kinds: dict[int, str],
    actor: AbstractBaseUser,
) -> None:
    """Agreed (unanimous) when the labels agree, the evidence agrees (Jaccard at least the
    threshold) and both evidences meet the evidence rule: a count that breaks it (the second
    annotator is not held to it, and a claim written before the rule may break it) is an
    evidence disagreement for the adjudicator to settle. The item comes locked with its
    claim's review (`submit_second_annotation`)."""
    claim = item.claim
    review = claim.review
    comparison = compare(
        written_label=claim.label,
        written=written,
        second_label=annotation.label,
        evidence=evidence,
        subset=item.pair.subset,
        kinds=kinds,
        sampled=item.pair.task.sampled_ids,
        threshold=settings.EVIDENCE_JACCARD_THRESHOLD,
    )
    if comparison.agreed:  # the final evidence is in place before the claim is handed on
        # The writer's evidence stays (it met the subset's rules); a review compared for the
        # first time has none yet (one INSERT, no read).
        review.final_evidence.through.objects.bulk_create(
            review.final_evidence.through(claimreview=review, element_id=pk)
            for pk in sorted(written)
        )
    lifecycle.move(
        review,
        comparison.state,
        actor=actor,
        action=WorkAction.COMPARED,
        item=item,
        changes=comparison.changes,
        new=comparison.event,
        refusal=f"Claim {claim.pk} is {review.get_state_display()}.",
        locked=(review.state, review.version),
    )
    if not comparison.agreed:
        work.create_item(
            kind=WorkKind.ADJUDICATE,
            paper_id=item.paper_id,
            subfield_code=item.subfield_code,
            actor=actor,
            pair_id=claim.pair_id,
            claim=claim,
        )


def _annotations(claim: Claim, second: EvidenceAnnotation) -> list[Annotation]:
    """The writer's and the second annotator's label and evidence (two queries)."""
    return [
        Annotation(claim.label, frozenset(claim.evidence.values_list("pk", flat=True))),
        Annotation(second.label, frozenset(second.evidence.values_list("pk", flat=True))),
    ]


@transaction.atomic
def submit_adjudication(
    *,
    item: WorkItem,
    user: AbstractBaseUser,
    version: int | None,
    token: uuid.UUID,
    decision: str,
    label: str,
    evidence_ids: Iterable[object],
    confidence: str,
    reason: str,
    notes: str,
) -> Adjudication:
    """Settle a disagreement: the final label and evidence (adjudicated), or unresolved (never
    released). Notes are required when the decision overrides both annotations, and to leave a
    claim unresolved."""
    item, replay = work.begin_submission(item=item, user=user, version=version, token=token)
    if replay:
        return Adjudication.objects.get(item=item)
    if item.kind != WorkKind.ADJUDICATE:
        raise AnnotationError("This is not an adjudication item.")
    item = WorkItem.objects.select_related("pair__context", "pair__task").get(pk=item.pk)
    claim = Claim.objects.only("id", "label").get(pk=item.claim_id)
    second = EvidenceAnnotation.objects.get(claim=claim)
    evidence, notes = id_set(evidence_ids), notes.strip()
    decided = decision == AdjudicationDecision.DECIDED
    errors, overrides_both = adjudication_errors(
        decision=decision,
        label=label,
        confidence=confidence,
        reason=reason,
        notes=notes,
        final=Annotation(label, frozenset(evidence)),
        evidence_problem=_adjudication_evidence_problem(item, evidence) if decided else "",
        annotations=_annotations(claim, second) if decided else [],
    )
    if errors:
        raise InvalidAnnotation(errors)
    adjudication = Adjudication.objects.create(
        claim=claim,
        item=item,
        adjudicator=user,
        decision=decision,
        label=label if decided else "",
        confidence=confidence,
        reason=reason,
        notes=notes,
        overrides_both=overrides_both,
    )
    _settle(adjudication, evidence, item=item, user=user, token=token)
    if decided and claim.label == "refuted" and label == "entailed":
        reperturbation.open_reperturbation(
            claim=claim,
            actor=user,
            why=f"adjudicated entailed ({adjudication.get_reason_display()})"
            + (f": {notes}" if notes else ""),
        )
    return adjudication


def _settle(
    adjudication: Adjudication,
    evidence: set[int],
    *,
    item: WorkItem,
    user: AbstractBaseUser,
    token: uuid.UUID,
) -> None:
    """Move the claim's review as the adjudication settles it (adjudicated, with its final
    label and evidence, or unresolved) and finish the adjudication item."""
    claim = adjudication.claim
    decided = adjudication.decision == AdjudicationDecision.DECIDED
    review = ClaimReview.objects.select_related("claim").get(claim=claim)
    previous = review.state
    if decided:
        adjudication.evidence.set(sorted(evidence))
        review.final_evidence.set(sorted(evidence))
    lifecycle.move(
        review,
        ReviewState.ADJUDICATED if decided else ReviewState.UNRESOLVED,
        actor=user,
        action=WorkAction.ADJUDICATED,
        item=item,
        changes={"final_label": adjudication.label} if decided else {},
        new={"decision": adjudication.decision, "label": adjudication.label},
        refusal=f"Claim {claim.pk} is {review.get_state_display()}.",
    )
    work.finish_submission(
        item,
        user=user,
        token=token,
        pair=None,
        old={"draft": item.draft, "state": previous},
        new={
            "decision": adjudication.decision,
            "label": adjudication.label,
            "evidence": sorted(evidence),
            "confidence": adjudication.confidence,
            "reason": adjudication.reason,
            "notes": adjudication.notes,
            "overrides_both": adjudication.overrides_both,
            "state": review.state,
        },
    )


@transaction.atomic
def reopen_unresolved(*, claim: Claim, by: AbstractBaseUser, note: str = "") -> WorkItem:
    """Hand an unresolved claim to another adjudicator (the previous ones hold a role on the
    pair, so they are never handed it again)."""
    access.require_staff(by)
    refuse_long([("note", note.strip(), MAX_NOTE)], nothing="Nothing was reopened")
    review = ClaimReview.objects.select_related("claim__pair").get(claim=claim)
    pair = review.claim.pair
    item = work.create_item(
        kind=WorkKind.ADJUDICATE,
        paper_id=pair.paper_id,
        subfield_code=pair.subfield_code,
        actor=by,
        pair=pair,
        claim=claim,
    )
    lifecycle.move(
        review,
        ReviewState.ADJUDICATION,
        actor=by,
        action=WorkAction.REOPENED,
        item=item,
        note=note.strip(),
        refusal="Only unresolved claims can be reopened; this one is "
        f"{review.get_state_display()}.",
    )
    return item


@transaction.atomic
def drop_pair(*, pair: ClaimPair, by: AbstractBaseUser, reason: str) -> PairReview:
    """Take a pair out of the dataset, with the reason, at any stage: its open work items
    (second annotation, adjudication, validation, a new perturbation, human baseline) are
    cancelled and its
    claims never reach a release (their validations no longer count as waiting)."""
    access.require_staff(by)
    reason = reason.strip()
    if not reason:
        raise AnnotationError("Say why the pair is dropped.")
    refuse_long([("reason", reason, MAX_NOTE)], nothing="Nothing was dropped")
    review = PairReview.objects.select_for_update().get(pair=pair)
    states = dict(ClaimReview.objects.filter(claim__pair=pair).values_list("claim_id", "state"))
    lifecycle.move(
        pair,
        PairState.DROPPED,
        actor=by,
        action=WorkAction.PAIR_DROPPED,
        old={"states": states},
        note=reason,
        refusal=f"Pair {pair.pk} was already dropped.",
    )
    review.dropped, review.drop_reason = True, reason
    review.dropped_by, review.dropped_at = by, timezone.now()
    review.save()
    work.cancel_items(
        WorkItem.objects.filter(pair=pair, kind__in=DROPPED_PAIR_KINDS),
        actor=by,
        note=f"pair dropped: {reason}",
    )
    for claim_review in ClaimReview.objects.filter(claim__pair=pair).select_related("claim"):
        lifecycle.move(
            claim_review, ReviewState.DROPPED, actor=by, action=WorkAction.PAIR_DROPPED, note=reason
        )
    return review


@transaction.atomic
def allow_expert(
    *, item: WorkItem, expert: AbstractBaseUser, by: AbstractBaseUser, note: str = ""
) -> WorkItem:
    """An admin lets an expert (of another subfield, typically) take a waiting second-annotation,
    adjudication or validation item: the one mechanism for any stage where nobody eligible may
    take an item. Recorded in the item's history with the expert's subfields; the blindness
    rule still holds for them (`work.reassign` makes the checks every hand-over shares)."""
    refuse_long([("note", note, MAX_NOTE)], nothing="Nobody was allowed")

    def blindness_allows(item: WorkItem, profile: ExpertProfile) -> dict[str, list[str]]:
        why = work.refusal_for(item, expert.pk)
        if why:
            raise AnnotationError(f"{expert.get_username()} may not take this item: they {why}.")
        return {"expert_subfields": sorted(profile.subfields.values_list("code", flat=True))}

    return work.reassign(
        item,
        expert,
        by=by,
        kinds=(*REVIEW_KINDS, WorkKind.VALIDATE),
        wrong_kind="Only second-annotation, adjudication and validation items can be overridden.",
        admit=blindness_allows,
        note=note,
    )
