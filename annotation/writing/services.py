"""Writes of claim writing: creating claim tasks from a curated context, recording a pair, and
a new perturbation when the last one turned out true (one transaction each, keyword-only
arguments, domain errors)."""

from __future__ import annotations

import secrets
import uuid
from collections import Counter
from collections.abc import Iterable

from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from django.db.models import Count
from django.utils import timezone

from annotation import access, lifecycle
from annotation.assignment import selectors as assignment_selectors
from annotation.curation import selectors as curation_selectors
from annotation.errors import AnnotationError, NotAssigned
from annotation.experts import selectors as expert_selectors
from annotation.inputs import id_set
from annotation.limits import MAX_CLAIM, MAX_NOTE, long_texts, refuse_long
from annotation.models import (
    Assignment,
    Claim,
    ClaimLabel,
    ClaimPair,
    ClaimTask,
    CuratedContext,
    ExpertProfile,
    PairRole,
    PairState,
    PerturbationKind,
    Role,
    WorkAction,
    WorkItem,
    WorkKind,
    WorkStatus,
)
from annotation.queue import work
from annotation.writing import selectors as writing_selectors
from annotation.writing.rules import (
    PairDraft,
    TaskPlan,
    check_pair,
    check_reperturbation_target,
    check_task_candidates,
    check_task_request,
    claim_fields,
    pair_draft,
    pair_submitted,
    perturbation_record,
    plan_tasks,
    reperturbation_errors,
)
from papers.models import Element, Paper


class InvalidClaim(AnnotationError):
    """The pair breaks a rule; `errors` maps each form field to what is wrong with it."""

    def __init__(self, errors: dict[str, str]):
        super().__init__("The claim pair was not recorded: " + " ".join(errors.values()))
        self.errors = errors


@transaction.atomic
def create_claim_tasks(
    *,
    paper: Paper,
    by: AbstractBaseUser | None,
    count: int | None = None,
    seed: int | None = None,
    context: CuratedContext | None = None,
) -> list[ClaimTask]:
    """`count` claim tasks (default CLAIM_TASKS_PER_PAPER) from the paper's latest curated
    context (or `context`), each with its own uniform sample of three tables/charts and a
    subset chosen to keep the four subsets balanced towards CLAIM_SUBSET_TARGETS. Each task
    becomes a writing item for the paper's writer (or any eligible expert if it has none)."""
    paper = Paper.objects.select_for_update().only("id", "arxiv_id", "version").get(pk=paper.pk)
    if by is not None and not access.can_curate(by, paper.pk):
        raise NotAssigned(f"{paper.versioned_id} is not assigned to you.")
    context = context or curation_selectors.latest_context(paper.pk)
    count = settings.CLAIM_TASKS_PER_PAPER if count is None else count
    has_context = context is not None and context.paper_id == paper.pk
    check_task_request(paper=paper.versioned_id, has_context=has_context, count=count)
    elements, references = writing_selectors.context_layout(context)
    candidates = sorted(e.id for e in elements if e.kind in ("table", "chart"))
    check_task_candidates(context_number=context.number, candidates=len(candidates))
    plans = plan_tasks(
        count=count,
        seed=seed,
        candidates=candidates,
        subset_counts=Counter(
            dict(ClaimTask.objects.values_list("subset").annotate(n=Count("id")))
        ),
        targets=settings.CLAIM_SUBSET_TARGETS,
        elements=elements,
        references=references,
    )
    writer = (
        Assignment.objects.filter(paper=paper, role=Role.WRITER, status__in=Assignment.OPEN)
        .values_list("expert_id", flat=True)
        .first()
    )
    code = assignment_selectors.paper_subfield_codes([paper.pk])[paper.pk] or ""
    return [
        _create_task(paper, context, plan, candidates=candidates, writer=writer, code=code, by=by)
        for plan in plans
    ]


def _create_task(
    paper: Paper,
    context: CuratedContext,
    plan: TaskPlan,
    *,
    candidates: list[int],
    writer: int | None,
    code: str,
    by: AbstractBaseUser | None,
) -> ClaimTask:
    """One planned claim task, and its writing item for the paper's `writer` (or any expert
    eligible for `code` if it has none)."""
    task = ClaimTask.objects.create(
        paper=paper,
        context=context,
        subset=plan.subset,
        seed=plan.seed,
        candidate_ids=candidates,
        sampled_ids=plan.sampled,
        paragraph_ids=plan.paragraphs,
        created_by=by,
    )
    work.create_item(
        kind=WorkKind.WRITE,
        paper_id=paper.pk,
        subfield_code=code,
        actor=by,
        task=task,
        assignee_id=writer,
    )
    return task


def _labels(kinds: dict[int, str], *evidence: Iterable[int]) -> dict[int, str]:
    """The labels ("Table 2") of the tables/charts among the evidence, to name them in a
    refusal (one query)."""
    ids = {pk for ids in evidence for pk in ids if kinds.get(pk) in ("table", "chart")}
    return dict(Element.objects.filter(pk__in=ids).values_list("pk", "label")) if ids else {}


def _refuted_texts(refuted: str, explanation: str, suggestion: str) -> list[tuple[str, str, int]]:
    """A refuted claim's texts with their limits (annotation.limits), named as the page's
    fields: a pair's and a new perturbation's alike."""
    return [
        ("refuted", refuted, MAX_CLAIM),
        ("explanation", explanation, MAX_NOTE),
        ("suggestion", suggestion, MAX_NOTE),
    ]


def _pair_errors(draft: PairDraft, *, context: CuratedContext, sampled: list[int]) -> dict:
    """`check_pair` on a draft, with the task's context read and the settings' word limits."""
    kinds, texts = writing_selectors.evidence_kinds_and_texts(context)
    return check_pair(
        draft,
        sampled=sampled,
        kinds=kinds,
        paragraph_texts=texts,
        min_words=settings.CLAIM_MIN_WORDS,
        max_words=settings.CLAIM_MAX_WORDS,
        perturbation_kinds=PerturbationKind.values,
        labels=_labels(kinds, draft.evidence, draft.refuted_evidence),
    )


@transaction.atomic
def submit_claim_pair(
    *,
    item: WorkItem,
    user: AbstractBaseUser,
    version: int | None,
    token: uuid.UUID,
    entailed: str,
    evidence_ids: Iterable[int],
    refuted: str,
    explanation: str,
    perturbation_kind: str,
    suggestion: str = "",
    refuted_evidence_ids: Iterable[int] | None = None,
    reference_note: str = "",
) -> ClaimPair:
    """Record the entailed claim with its evidence and the refuted rewrite with its explanation
    as a ClaimPair, and finish the writing item. The same token again returns the pair recorded
    the first time; a page opened before the item last changed is refused (StaleWork).
    `reference_note`: the writer's reason for a claim that names a table or figure not among
    its evidence (a warning, never a rule), shown to the validators."""
    item, replay = work.begin_submission(item=item, user=user, version=version, token=token)
    if replay:
        return ClaimPair.objects.get(pk=item.pair_id)
    task = ClaimTask.objects.select_related("context").get(pk=item.task_id)
    draft = pair_draft(
        subset=task.subset,
        entailed=entailed,
        evidence=frozenset(id_set(evidence_ids)),
        refuted=refuted,
        refuted_evidence=None
        if refuted_evidence_ids is None
        else frozenset(id_set(refuted_evidence_ids)),
        explanation=explanation,
        perturbation_kind=perturbation_kind,
    )
    errors = _pair_errors(draft, context=task.context, sampled=task.sampled_ids)
    # A claim's word rule speaks first (it counts what was typed, as the page's counter does).
    if (
        errors := long_texts(
            [
                ("entailed", entailed, MAX_CLAIM),
                *_refuted_texts(refuted, explanation, suggestion),
                ("reference_note", reference_note, MAX_NOTE),
            ]
        )
        | errors
    ):
        raise InvalidClaim(errors)
    pair = _write_pair(task, item, draft, user=user, suggestion=suggestion, note=reference_note)
    work.finish_submission(
        item,
        user=user,
        token=token,
        pair=pair,
        old={"draft": item.draft},
        new=pair_submitted(draft, suggestion=suggestion, reference_note=pair.reference_note),
    )
    lifecycle.hand_on(lifecycle.PAIR_WRITTEN, pair, actor=user)
    return pair


def _write_pair(
    task: ClaimTask,
    item: WorkItem,
    draft: PairDraft,
    *,
    user: AbstractBaseUser,
    suggestion: str,
    note: str,
) -> ClaimPair:
    """The pair of a checked draft, its two claims (created in random order) with their
    evidence, and its writer's role."""
    pair = ClaimPair.objects.create(
        task=task,
        paper_id=task.paper_id,
        context=task.context,
        subset=task.subset,
        writer=user,
        subfield_code=item.subfield_code,
        reference_note=note.strip(),
    )
    lifecycle.opened(
        pair,
        actor=user,
        action=WorkAction.CREATED,
        item=item,
        new={"subset": pair.subset, "subfield": pair.subfield_code},
    )
    fields = claim_fields(draft, suggestion)
    order = list(fields)
    secrets.SystemRandom().shuffle(order)  # nothing may follow from which claim came first
    claims = {
        label: Claim.objects.create(pair=pair, label=label, **fields[label]) for label in order
    }
    claims[ClaimLabel.ENTAILED].evidence.set(sorted(draft.evidence))
    claims[ClaimLabel.REFUTED].evidence.set(sorted(draft.refuted_evidence))
    PairRole.objects.create(pair=pair, expert=user, role=Role.WRITER)
    return pair


# --- A new perturbation ------------------------------------------------------------------------


@transaction.atomic
def submit_reperturbation(
    *,
    item: WorkItem,
    user: AbstractBaseUser,
    version: int | None,
    token: uuid.UUID,
    refuted: str,
    explanation: str,
    perturbation_kind: str,
    suggestion: str = "",
    refuted_evidence_ids: Iterable[int] | None = None,
) -> Claim:
    """Replace the pair's refuted claim, whose perturbation turned out true, by a new one: the
    old claim is kept, marked superseded (with its reviews, validation and history), and the
    new one goes through blind second annotation, adjudication if needed and validation like
    any claim. By default it cites the entailed claim's final evidence; `refuted_evidence_ids`
    chooses other evidence, held to the writing page's rules for a refuted claim's evidence
    (in the curated context, and the evidence rule: exactly the subset's tables/charts, one of
    them sampled). Shared evidence that breaks the rule (a claim written before it) is refused
    too: the writer cites other evidence. The same token again returns the claim recorded the
    first time."""
    item, replay = work.begin_submission(item=item, user=user, version=version, token=token)
    if replay:
        return Claim.objects.get(replaces_id=item.claim_id)
    if item.kind != WorkKind.REPERTURB:
        raise AnnotationError("This is not a new-perturbation item.")
    pair = (
        ClaimPair.objects.select_for_update(of=("self",))
        .select_related("task", "context")
        .get(pk=item.pair_id)
    )
    old = Claim.objects.select_for_update().get(pk=item.claim_id)
    check_reperturbation_target(
        pair=pair.pk, dropped=pair.state == PairState.DROPPED, superseded=old.superseded
    )
    entailed = writing_selectors.current_claim(pair, ClaimLabel.ENTAILED)
    draft = pair_draft(
        subset=pair.subset,
        entailed=entailed.text,
        evidence=frozenset(writing_selectors.final_or_written_evidence(entailed)),
        refuted=refuted,
        refuted_evidence=None
        if refuted_evidence_ids is None
        else frozenset(id_set(refuted_evidence_ids)),
        explanation=explanation,
        perturbation_kind=perturbation_kind,
    )
    errors = _pair_errors(draft, context=pair.context, sampled=pair.task.sampled_ids)
    errors = reperturbation_errors(errors, draft=draft, replaced=old.text)
    if errors := long_texts(_refuted_texts(refuted, explanation, suggestion)) | errors:
        raise InvalidClaim(errors)
    new = _replace_claim(pair, old, draft, suggestion=suggestion, item=item, user=user)
    _record_replacement(
        pair, old, new, draft, suggestion=suggestion, item=item, user=user, token=token
    )
    lifecycle.hand_on(lifecycle.CLAIM_REPLACED, new, actor=user)
    return new


def _replace_claim(
    pair: ClaimPair,
    old: Claim,
    draft: PairDraft,
    *,
    suggestion: str,
    item: WorkItem,
    user: AbstractBaseUser,
) -> Claim:
    """Mark `old` superseded and write the new refuted claim of `draft` in its place; the work
    still open on the old claim (e.g. a re-opened validation) has nothing left to judge."""
    old.superseded_at = timezone.now()
    old.save(update_fields=["superseded_at"])
    new = Claim.objects.create(
        pair=pair,
        label=ClaimLabel.REFUTED,
        text=draft.refuted,
        perturbation_kind=draft.perturbation_kind,
        suggestion=suggestion.strip(),
        explanation=draft.explanation,
        replaces=old,
    )
    new.evidence.set(sorted(draft.refuted_evidence))
    work.cancel_items(
        WorkItem.objects.filter(claim=old).exclude(pk=item.pk),
        actor=user,
        note=f"claim {old.pk} superseded by claim {new.pk}",
    )
    return new


def _record_replacement(
    pair: ClaimPair,
    old: Claim,
    new: Claim,
    draft: PairDraft,
    *,
    suggestion: str,
    item: WorkItem,
    user: AbstractBaseUser,
    token: uuid.UUID,
) -> None:
    """Finish the new-perturbation item and make the pair active again, both events naming
    the claim replaced and the one that replaces it."""
    submitted = perturbation_record(
        new.pk,
        text=draft.refuted,
        evidence=draft.refuted_evidence,
        perturbation_kind=draft.perturbation_kind,
        explanation=draft.explanation,
        suggestion=suggestion,
    )
    replaced = perturbation_record(
        old.pk,
        text=old.text,
        evidence=old.evidence.values_list("pk", flat=True),
        perturbation_kind=old.perturbation_kind,
        explanation=old.explanation,
    )
    work.finish_submission(
        item,
        user=user,
        token=token,
        pair=None,
        old={"draft": item.draft, "refuted": replaced},
        new=submitted,
    )
    lifecycle.move(
        pair,
        PairState.ACTIVE,
        actor=user,
        action=WorkAction.PERTURBATION_REPLACED,
        item=item,
        old=replaced,
        new=submitted,
        note=f"claim {old.pk} superseded; claim {new.pk} goes to blind second annotation",
    )


def _drop_unused_writer_role(item: WorkItem) -> None:
    """The expert an item is taken from keeps their writer role only if they wrote something on
    the pair (its first claims, or a new perturbation before): a role given by an earlier
    hand-over and never used would keep them from annotating, adjudicating and validating it."""
    previous = item.assignee_id
    if previous is None or ClaimPair.objects.filter(pk=item.pair_id, writer_id=previous).exists():
        return
    wrote = WorkItem.objects.filter(
        pair_id=item.pair_id, kind=WorkKind.REPERTURB, status=WorkStatus.DONE, assignee_id=previous
    ).exists()
    if not wrote:
        PairRole.objects.filter(pair_id=item.pair_id, expert_id=previous, role=Role.WRITER).delete()


@transaction.atomic
def reassign_reperturbation(
    *, item: WorkItem, expert: AbstractBaseUser, by: AbstractBaseUser, note: str = ""
) -> WorkItem:
    """An admin hands a waiting new-perturbation item to another expert (e.g. the writer left):
    someone with no role on the pair, who becomes one of its writers. Recorded as an override
    (`work.reassign` makes the checks every hand-over shares)."""
    refuse_long([("note", note, MAX_NOTE)], nothing="Nothing was handed over")

    def becomes_writer(item: WorkItem, profile: ExpertProfile) -> None:
        code = item.pair.subfield_code
        if not expert_selectors.eligible_experts(code).filter(pk=expert.pk).exists():
            raise AnnotationError(
                f"{expert.get_username()} is not eligible for {code or 'this pair’s subfield'} "
                "(see their expert page for why): hand it to an eligible expert."
            )
        roles = PairRole.objects.filter(pair_id=item.pair_id, expert_id=expert.pk)
        role = roles.exclude(role=Role.WRITER).first()
        if role is not None:
            raise AnnotationError(
                f"{expert.get_username()} already holds a role ({role.role}) on this pair: the "
                "new perturbation must be annotated blind by people who did not write it."
            )
        if expert.pk == item.assignee_id:
            raise AnnotationError(f"{expert.get_username()} already holds this item.")
        PairRole.objects.get_or_create(
            pair_id=item.pair_id, expert=expert, claim=None, role=Role.WRITER
        )
        _drop_unused_writer_role(item)

    return work.reassign(
        item,
        expert,
        by=by,
        kinds=(WorkKind.REPERTURB,),
        wrong_kind="This is not a new-perturbation item.",
        admit=becomes_writer,
        note=note,
    )
