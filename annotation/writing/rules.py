"""Pure rules of claim writing: subset guide, surrounding paragraphs, the claim tasks a request
makes, what a pair and a new perturbation must meet, and what their history keeps."""

from __future__ import annotations

import random
import re
from collections import Counter
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from annotation.errors import AnnotationError, InvalidTransition
from annotation.evidence import evidence_rule_problem
from annotation.writing.sampling import choose_subset, sample_elements

# Definitions from the SciVer paper (§3); the examples are written for this guide.
SUBSET_GUIDE: dict[str, tuple[str, str]] = {
    "direct": (
        "One piece of information is extracted from one table or chart and interpreted.",
        "“On SQuAD, the fine-tuned model reaches an F1 of 91.2 (Table 2).”",
    ),
    "parallel": (
        "Several distinct sources (two tables/charts, and any paragraphs) are read and integrated "
        "at once.",
        "“The method is best on both benchmarks: it leads Table 1 in accuracy and has the "
        "lowest latency in Figure 3.”",
    ),
    "sequential": (
        "A chain across sources: each step's conclusion is the premise of the next.",
        "“The ablation that hurts most in Table 3 removes the retriever, and without it the "
        "recall curve of Figure 4 falls below 60% after 5 hops.”",
    ),
    "analytical": (
        "Domain knowledge and reasoning beyond extraction are needed to verify the claim.",
        "“Since the gains in Figure 2 grow with model size while the data stays fixed, the "
        "improvement is not explained by memorising more training data.”",
    ),
}
MIN_EXPLANATION_CHARS = 10
# What the writer of a new perturbation controls (the entailed claim and its evidence are final).
REPERTURB_FIELDS = ("refuted", "refuted_evidence", "explanation", "perturbation_kind")


@dataclass(frozen=True, slots=True)
class ContextElement:
    """An element of a curated context, as much as the rules need."""

    id: int
    section_id: int
    kind: str  # paragraph, table, chart
    order: int


def surrounding_paragraphs(
    elements: Sequence[ContextElement],
    references: Mapping[int, Collection[int]],
    sampled: Iterable[int],
) -> list[int]:
    """The paragraphs shown with the sampled tables/charts, in reading order: those that
    reference a sampled element, and the nearest paragraph before and after it in its section.

    `elements` are the context's elements (in context only); `references` maps a paragraph id
    to the ids of the tables/charts it references.
    """
    ordered = sorted(elements, key=lambda e: e.order)
    position = {e.id: i for i, e in enumerate(ordered)}
    chosen: set[int] = set()
    for target in sampled:
        chosen.update(p for p, refs in references.items() if target in refs and p in position)
        if target not in position:
            continue
        here = ordered[position[target]]
        for step in (-1, 1):
            i = position[target] + step
            while 0 <= i < len(ordered) and ordered[i].section_id == here.section_id:
                if ordered[i].kind == "paragraph":
                    chosen.add(ordered[i].id)
                    break
                i += step
    return [e.id for e in ordered if e.id in chosen and e.kind == "paragraph"]


def normalise(text: str) -> str:
    return " ".join(text.split()).casefold()


def word_count(text: str) -> int:
    return len(text.split())


_EDGE_PUNCTUATION = re.compile(r"^[\W_]+|[\W_]+$")


def copied_from(claim: str, paragraphs: Iterable[str]) -> bool:
    """Whether the claim is a paragraph's sentence (or a run of its text) copied verbatim."""
    key = _EDGE_PUNCTUATION.sub("", normalise(claim))
    if not key:
        return False
    return any(key in normalise(text) for text in paragraphs)


@dataclass(frozen=True, slots=True)
class PairDraft:
    """What the writer submits, ready for the rules."""

    subset: str
    entailed: str
    evidence: frozenset[int]
    refuted: str
    refuted_evidence: frozenset[int]
    explanation: str
    perturbation_kind: str


def check_pair(
    draft: PairDraft,
    *,
    sampled: Collection[int],
    kinds: Mapping[int, str],
    paragraph_texts: Iterable[str],
    min_words: int,
    max_words: int,
    perturbation_kinds: Collection[str],
    labels: Mapping[int, str] | None = None,
) -> dict[str, str]:
    """The rules a claim pair must meet, as {field: message}; empty when it may be recorded.

    `kinds` gives the kind of every element of the task's curated context (in context only):
    evidence outside it is refused. Each evidence is held to the evidence rule
    (`annotation.evidence`); `labels` name its tables/charts in the refusal ("Table 2").
    """
    errors: dict[str, str] = {}
    paragraph_texts = list(paragraph_texts)
    for field, text in (("entailed", draft.entailed), ("refuted", draft.refuted)):
        n = word_count(text)
        if not text.strip():
            errors[field] = f"Write the {field} claim."
        elif n < min_words or n > max_words:
            errors[field] = f"A claim has {min_words}–{max_words} words; this one has {n}."
        elif copied_from(text, paragraph_texts):
            errors[field] = "This is copied from a paragraph: a claim must be your own sentence."
    if "refuted" not in errors and "entailed" not in errors:
        if normalise(draft.refuted) == normalise(draft.entailed):
            errors["refuted"] = (
                "The refuted claim must differ from the entailed one (not only in case or spaces)."
            )
    for field, evidence in (
        ("evidence", draft.evidence),
        ("refuted_evidence", draft.refuted_evidence),
    ):
        if field == "refuted_evidence" and evidence == draft.evidence:
            break  # the shared evidence: already judged (and reported) once
        message = _evidence_problem(draft.subset, evidence, sampled, kinds, labels)
        if message:
            errors[field] = message
    if len(draft.explanation.strip()) < MIN_EXPLANATION_CHARS:
        errors["explanation"] = "Explain why the refuted claim is false (a sentence or two)."
    if draft.perturbation_kind not in perturbation_kinds:
        errors["perturbation_kind"] = "Say how the refuted claim was made."
    return errors


def _evidence_problem(
    subset: str,
    evidence: Collection[int],
    sampled: Collection[int],
    kinds: Mapping[int, str],
    labels: Mapping[int, str] | None,
) -> str:
    foreign = [pk for pk in evidence if pk not in kinds]
    if foreign:
        return "Some evidence is not part of this task's curated context."
    if not evidence:
        return "Mark the evidence that supports the claim."
    return evidence_rule_problem(subset, evidence, kinds, sampled, labels=labels)


# --- Claim tasks, pairs and new perturbations: what a submission must meet ---------------------


def check_task_request(*, paper: str, has_context: bool, count: int) -> None:
    """Refuse claim tasks for a paper (`paper`: its versioned id) with no curated context of its
    own, or a count outside 1–100 (AnnotationError)."""
    if not has_context:
        raise AnnotationError(f"{paper} has no curated context yet: curate it first.")
    if not 1 <= count <= 100:
        raise AnnotationError("Create between 1 and 100 tasks at a time.")


def check_task_candidates(*, context_number: int, candidates: int) -> None:
    """Refuse claim tasks from a context that keeps fewer than three tables/charts: each task
    samples three."""
    if candidates < 3:
        raise AnnotationError(
            f"Context v{context_number} keeps {candidates} tables/charts; claim tasks need 3."
        )


@dataclass(frozen=True, slots=True)
class TaskPlan:
    """One claim task to create: its seed, its sampled tables/charts, its subset and the
    paragraphs shown with them."""

    seed: int
    sampled: list[int]
    subset: str
    paragraphs: list[int]


def plan_tasks(
    *,
    count: int,
    seed: int | None,
    candidates: Sequence[int],
    subset_counts: Counter[str],
    targets: Mapping[str, float],
    elements: Sequence[ContextElement],
    references: Mapping[int, Collection[int]],
) -> list[TaskPlan]:
    """`count` tasks, each with its own uniform sample of three of `candidates` and a subset
    chosen to keep the subsets balanced towards `targets` (`subset_counts` counts those made
    before and is updated); seeds follow `seed` (seed, seed+1, …) or are drawn at random."""
    seeds = random.SystemRandom() if seed is None else None
    plans = []
    for n in range(count):
        task_seed = seeds.getrandbits(62) if seeds else seed + n  # type: ignore[operator]
        sampled = sample_elements(candidates, k=3, seed=task_seed)
        subset = choose_subset(subset_counts, targets, seed=task_seed)
        subset_counts[subset] += 1
        paragraphs = surrounding_paragraphs(elements, references, sampled)
        plans.append(TaskPlan(task_seed, sampled, subset, paragraphs))
    return plans


def pair_draft(
    *,
    subset: str,
    entailed: str,
    evidence: frozenset[int],
    refuted: str,
    refuted_evidence: frozenset[int] | None,
    explanation: str,
    perturbation_kind: str,
) -> PairDraft:
    """A submission as the rules read it: texts stripped, and the refuted claim's evidence the
    entailed claim's unless the writer chose other."""
    return PairDraft(
        subset=subset,
        entailed=entailed.strip(),
        evidence=evidence,
        refuted=refuted.strip(),
        refuted_evidence=evidence if refuted_evidence is None else refuted_evidence,
        explanation=explanation.strip(),
        perturbation_kind=perturbation_kind,
    )


def claim_fields(draft: PairDraft, suggestion: str) -> dict[str, dict[str, str]]:
    """The fields of the pair's two claims, by label."""
    return {
        "entailed": {"text": draft.entailed},
        "refuted": {
            "text": draft.refuted,
            "perturbation_kind": draft.perturbation_kind,
            "suggestion": suggestion.strip(),
            "explanation": draft.explanation,
        },
    }


def pair_submitted(draft: PairDraft, *, suggestion: str, reference_note: str) -> dict[str, Any]:
    """What the writing item's history keeps of a pair written."""
    fields = claim_fields(draft, suggestion)
    return {
        "subset": draft.subset,
        "entailed": {**fields["entailed"], "evidence": sorted(draft.evidence)},
        "refuted": {
            "text": draft.refuted,
            "evidence": sorted(draft.refuted_evidence),
            **{k: v for k, v in fields["refuted"].items() if k != "text"},
        },
    } | ({"reference_note": reference_note} if reference_note else {})


def check_reperturbation_target(*, pair: int, dropped: bool, superseded: bool) -> None:
    """Refuse a new perturbation for a dropped pair, or for a claim already replaced
    (InvalidTransition)."""
    if dropped:
        raise InvalidTransition(f"Pair {pair} was dropped.")
    if superseded:
        raise InvalidTransition("A new perturbation already replaced this claim.")


def reperturbation_errors(
    errors: Mapping[str, str], *, draft: PairDraft, replaced: str
) -> dict[str, str]:
    """What is wrong with a new perturbation, from `check_pair`'s `errors` on the pair it would
    make: only the fields its writer controls (the entailed claim and its evidence are final),
    shared evidence that breaks the evidence rule named on the new claim's evidence, and a
    refuted claim that repeats the entailed one or `replaced` (the perturbation found true)."""
    errors = dict(errors)
    if "evidence" in errors and draft.refuted_evidence == draft.evidence:
        errors["refuted_evidence"] = (
            "The entailed claim's final evidence does not meet the evidence rule, so the new "
            f"claim cannot share it: {errors['evidence']} Cite different evidence."
        )
    errors = {name: message for name, message in errors.items() if name in REPERTURB_FIELDS}
    if "refuted" not in errors and draft.refuted:
        if normalise(draft.refuted) == normalise(draft.entailed):
            errors["refuted"] = (
                "The refuted claim must differ from the entailed one (not only in case or spaces)."
            )
        elif normalise(draft.refuted) == normalise(replaced):
            errors["refuted"] = "This is the perturbation that turned out true: write a new one."
    return errors


def perturbation_record(
    claim: int,
    *,
    text: str,
    evidence: Iterable[int],
    perturbation_kind: str,
    explanation: str,
    suggestion: str | None = None,
) -> dict[str, Any]:
    """A refuted claim as a new perturbation's history keeps it (the new one with the writer's
    suggestion, the one it replaces without)."""
    record: dict[str, Any] = {
        "claim": claim,
        "text": text,
        "evidence": sorted(evidence),
        "perturbation_kind": perturbation_kind,
    }
    if suggestion is not None:
        record["suggestion"] = suggestion.strip()
    return record | {"explanation": explanation}
