"""Writes of claim writing: creating claim tasks from a curated context, and recording a pair
(one transaction each, keyword-only arguments, domain errors)."""

from __future__ import annotations

import random
import uuid
from collections import Counter
from collections.abc import Iterable

from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from django.db.models import Count

from annotation import selectors, work
from annotation.errors import AnnotationError, NotAssigned
from annotation.models import (
    Assignment,
    Claim,
    ClaimLabel,
    ClaimPair,
    ClaimTask,
    CuratedContext,
    PairRole,
    PerturbationKind,
    Role,
    WorkItem,
    WorkKind,
)
from annotation.review import services as review_services
from annotation.sampling import choose_subset, sample_elements
from annotation.writing import selectors as writing_selectors
from annotation.writing.rules import PairDraft, check_pair, surrounding_paragraphs
from papers.models import Paper


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
    if by is not None and not selectors.can_curate(by, paper.pk):
        raise NotAssigned(f"{paper.versioned_id} is not assigned to you.")
    context = context or selectors.latest_context(paper.pk)
    if context is None or context.paper_id != paper.pk:
        raise AnnotationError(f"{paper.versioned_id} has no curated context yet: curate it first.")
    count = settings.CLAIM_TASKS_PER_PAPER if count is None else count
    if not 1 <= count <= 100:
        raise AnnotationError("Create between 1 and 100 tasks at a time.")
    elements, references = writing_selectors.context_layout(context)
    candidates = sorted(e.id for e in elements if e.kind in ("table", "chart"))
    if len(candidates) < 3:
        raise AnnotationError(
            f"Context v{context.number} keeps {len(candidates)} tables/charts; claim tasks need 3."
        )
    counts = Counter(
        dict(ClaimTask.objects.values("subset").annotate(n=Count("id")).values_list("subset", "n"))
    )
    writer = (
        Assignment.objects.filter(paper=paper, role=Role.WRITER, status__in=Assignment.OPEN)
        .values_list("expert_id", flat=True)
        .first()
    )
    code = selectors.paper_subfield_codes([paper.pk])[paper.pk] or ""
    seeds = random.SystemRandom() if seed is None else None
    tasks = []
    for n in range(count):
        task_seed = seeds.getrandbits(62) if seeds else seed + n
        sampled = sample_elements(candidates, k=3, seed=task_seed)
        subset = choose_subset(counts, settings.CLAIM_SUBSET_TARGETS, seed=task_seed)
        counts[subset] += 1
        task = ClaimTask.objects.create(
            paper=paper, context=context, subset=subset, seed=task_seed,
            candidate_ids=candidates, sampled_ids=sampled,
            paragraph_ids=surrounding_paragraphs(elements, references, sampled), created_by=by,
        )  # fmt: skip
        work.create_item(kind=WorkKind.WRITE, paper_id=paper.pk, subfield_code=code, actor=by,
                         task=task, assignee_id=writer)  # fmt: skip
        tasks.append(task)
    return tasks


def _ids(values: Iterable[int]) -> frozenset[int]:
    return frozenset(int(v) for v in values)


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
) -> ClaimPair:
    """Record the entailed claim with its evidence and the refuted rewrite with its explanation
    as a ClaimPair, and finish the writing item. The same token again returns the pair recorded
    the first time; a page opened before the item last changed is refused (StaleWork)."""
    item, replay = work.begin_submission(item=item, user=user, version=version, token=token)
    if replay:
        return ClaimPair.objects.get(pk=item.pair_id)
    task = ClaimTask.objects.select_related("context").get(pk=item.task_id)
    evidence = _ids(evidence_ids)
    refuted_evidence = evidence if refuted_evidence_ids is None else _ids(refuted_evidence_ids)
    draft = PairDraft(
        subset=task.subset, entailed=entailed.strip(), evidence=evidence, refuted=refuted.strip(),
        refuted_evidence=refuted_evidence, explanation=explanation.strip(),
        perturbation_kind=perturbation_kind,
    )  # fmt: skip
    kinds, texts = writing_selectors.evidence_kinds_and_texts(task.context)
    errors = check_pair(
        draft, sampled=task.sampled_ids, kinds=kinds, paragraph_texts=texts,
        min_words=settings.CLAIM_MIN_WORDS, max_words=settings.CLAIM_MAX_WORDS,
        perturbation_kinds=PerturbationKind.values,
    )  # fmt: skip
    if errors:
        raise InvalidClaim(errors)
    pair = ClaimPair.objects.create(
        task=task, paper_id=task.paper_id, context=task.context, subset=task.subset, writer=user
    )
    claims = {
        ClaimLabel.ENTAILED: Claim.objects.create(
            pair=pair, label=ClaimLabel.ENTAILED, text=draft.entailed
        ),
        ClaimLabel.REFUTED: Claim.objects.create(
            pair=pair,
            label=ClaimLabel.REFUTED,
            text=draft.refuted,
            perturbation_kind=draft.perturbation_kind,
            suggestion=suggestion.strip(),
            explanation=draft.explanation,
        ),  # fmt: skip
    }
    claims[ClaimLabel.ENTAILED].evidence.set(sorted(draft.evidence))
    claims[ClaimLabel.REFUTED].evidence.set(sorted(draft.refuted_evidence))
    PairRole.objects.create(pair=pair, expert=user, role=Role.WRITER)
    work.finish_submission(
        item, user=user, token=token, pair=pair, old={"draft": item.draft},
        new={
            "subset": task.subset,
            "entailed": {"text": draft.entailed, "evidence": sorted(draft.evidence)},
            "refuted": {
                "text": draft.refuted, "evidence": sorted(draft.refuted_evidence),
                "perturbation_kind": draft.perturbation_kind, "suggestion": suggestion.strip(),
                "explanation": draft.explanation,
            },
        },
    )  # fmt: skip
    review_services.open_second_annotation(pair=pair, actor=user)
    return pair
