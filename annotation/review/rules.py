"""Pure rules of the review stage: what a second annotation and an adjudication must give,
and how a second annotation compares with the writer's (plain values in, no database)."""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from annotation.errors import too_long
from annotation.evidence import evidence_rule_problem, visual_ids
from annotation.limits import MAX_NOTE
from annotation.models.claims import LABELS, ReviewState
from annotation.models.review import (
    AdjudicationDecision,
    AdjudicationReason,
    Confidence,
    Disagreement,
)
from annotation.review.agreement import is_agreed, jaccard

Labels = Mapping[int, str] | Callable[[Iterable[int]], Mapping[int, str]] | None


def context_evidence_problem(
    kinds: Mapping[int, str], evidence: Collection[int], *, any_visual: bool = True
) -> str:
    """What every review stage asks of evidence: some, in the curated context (`kinds`: its
    elements' kinds), and (unless the evidence rule says more) a table or chart."""
    if not evidence:
        return "Mark the evidence that verifies the claim (at least one table or chart)."
    if any(pk not in kinds for pk in evidence):
        return "Some evidence is not part of this paper's curated context."
    if any_visual and not visual_ids(evidence, kinds):
        return "The evidence must include at least one table or chart."
    return ""


def second_annotation_errors(
    label: str, evidence: Collection[int], kinds: Mapping[int, str]
) -> dict[str, str]:
    """A second annotation's label and evidence, field → what is wrong (empty when fine). The
    second annotator marks what they believe: not held to the evidence rule."""
    errors = {}
    if label not in LABELS:
        errors["label"] = "Say whether the context entails or refutes the claim."
    if problem := context_evidence_problem(kinds, evidence):
        errors["evidence"] = problem
    return errors


@dataclass(frozen=True, slots=True)
class Comparison:
    """A second annotation compared with the writer's: the review's next state, the changes
    that go with it, and what the history keeps (`event`)."""

    agreed: bool
    state: str
    changes: dict[str, Any]
    event: dict[str, Any]


def compare(
    *,
    written_label: str,
    written: Collection[int],
    second_label: str,
    evidence: Collection[int],
    subset: str,
    kinds: Mapping[int, str],
    sampled: Collection[int],
    threshold: float,
) -> Comparison:
    """Agreed (unanimous) when the labels agree, the evidence agrees (Jaccard at least the
    threshold) and both evidences meet the evidence rule: a count that breaks it (the second
    annotator is not held to it, and a claim written before the rule may break it) is an
    evidence disagreement for the adjudicator to settle."""
    score = jaccard(set(written), set(evidence))
    broken = {
        who: problem
        for who, marked in (("writer", written), ("second annotator", evidence))
        if (problem := evidence_rule_problem(subset, marked, kinds, sampled))
    }
    agreed = not broken and is_agreed(
        written_label, set(written), second_label, set(evidence), jaccard_threshold=threshold
    )
    if agreed:
        state = ReviewState.UNANIMOUS
        changes: dict[str, Any] = {"disagreement": Disagreement.NONE, "final_label": written_label}
    else:
        state = ReviewState.ADJUDICATION
        changes = {
            "disagreement": Disagreement.LABEL
            if written_label != second_label
            else Disagreement.EVIDENCE
        }
    event = {"disagreement": changes["disagreement"], "jaccard": score, "threshold": threshold}
    if broken:
        event["evidence_rule"] = broken
    return Comparison(agreed, state, {"evidence_jaccard": score, **changes}, event)


@dataclass(frozen=True, slots=True)
class Annotation:
    """A label and the evidence marked with it (the writer's, the second annotator's)."""

    label: str
    evidence: frozenset[int]


def adjudication_evidence_problem(
    evidence: Collection[int],
    *,
    kinds: Mapping[int, str],
    subset: str,
    sampled: Collection[int],
    labels: Labels = None,
) -> str:
    """The adjudicator's final evidence: in context, and held to the evidence rule."""
    return context_evidence_problem(kinds, evidence, any_visual=False) or evidence_rule_problem(
        subset, evidence, kinds, sampled, labels=labels
    )


def adjudication_errors(
    *,
    decision: str,
    label: str,
    confidence: str,
    reason: str,
    notes: str,
    final: Annotation,
    evidence_problem: str,
    annotations: Iterable[Annotation],
) -> tuple[dict[str, str], bool]:
    """What is wrong with an adjudication (field → message) and whether its decision
    (`final`) overrides both `annotations`. Notes are required when it does, and to leave a
    claim unresolved; `evidence_problem` is the final evidence's (`adjudication_evidence_problem`,
    asked only of a decision)."""
    errors: dict[str, str] = {}
    if decision not in AdjudicationDecision.values:
        errors["decision"] = "Decide, or leave the claim unresolved."
    if confidence not in Confidence.values:
        errors["confidence"] = "Give your confidence (low, medium, high)."
    if reason not in AdjudicationReason.values:
        errors["reason"] = "Choose the reason for the disagreement."
    overrides_both = False
    if decision == AdjudicationDecision.DECIDED:
        if label not in LABELS:
            errors["label"] = "Choose the final label."
        if evidence_problem:
            errors["evidence"] = evidence_problem
        overrides_both = final not in set(annotations)
        if overrides_both and not notes:
            errors["notes"] = "Your decision differs from both annotations: say why in the notes."
    elif decision == AdjudicationDecision.UNRESOLVED and not notes:
        errors["notes"] = "Say in the notes why the claim stays unresolved."
    if problem := too_long("notes", notes, MAX_NOTE):
        errors["notes"] = problem
    return errors, overrides_both
