"""Pure rules of validation: which final claims are validated, and what a validator's answer
must meet (plain values and already-read rows in, no database)."""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from annotation.evidence import evidence_rule_problem, visual_ids
from annotation.models import Subset
from annotation.models.review import LABELS

Labels = Callable[[Iterable[int]], Mapping[int, str]] | None
FIELDS = ("text", "subset", "label", "evidence", "explanation")


def validates(*, superseded: bool, dropped: bool, written: str, final: str) -> bool:
    """Whether a claim that became final is validated: not when it was replaced or its pair
    dropped, nor a perturbation found true (its writer replaces it, and the new claim is)."""
    return not (superseded or dropped or (written == "refuted" and final == "entailed"))


def answer_fields(
    *,
    text: str,
    subset: str,
    label: str,
    evidence: Iterable[int],
    explanation: str,
    written: str = "refuted",
) -> dict[str, Any]:
    """The revisable fields of a claim, as stored or as a validator's answer leaves them: a
    claim written entailed (`written`, its label as written) keeps no explanation."""
    return {
        "text": text,
        "subset": subset,
        "label": label,
        "evidence": sorted(evidence),
        "explanation": explanation if written == "refuted" else "",
    }


def changed_fields(before: Mapping[str, Any], after: Mapping[str, Any]) -> list[str]:
    """The revisable fields the answer changes, in FIELDS order."""
    return [name for name in FIELDS if before[name] != after[name]]


@dataclass(frozen=True)
class Revision:
    """A validator's answer against the claim as it stood: the fields before and after, those
    it changes, the criteria it says the claim failed."""

    before: dict[str, Any]
    after: dict[str, Any]
    failed: list[str]

    @property
    def changed(self) -> list[str]:
        return changed_fields(self.before, self.after)

    @property
    def outcome(self) -> str:
        return "revised" if self.changed else "passed"


def answer_errors(
    *,
    subset: str,
    label: str,
    evidence: Collection[int],
    explanation: str,
    written: str,
    kinds: Mapping[int, str],
    pair_subset: str,
    sampled: Collection[int],
    sibling_evidence: Collection[int] | None,
    labels: Labels = None,
) -> dict[str, str]:
    """What is wrong with a validation's subset, label, evidence and explanation (field →
    why). The evidence is held to the evidence rule for the subset the claim leaves with; a
    new subset is the pair's, so the pair's other claim, already validated
    (`sibling_evidence`, None when it is not), must meet it too."""
    errors = {}
    if subset not in Subset.values:
        errors["subset"] = "Choose one of the four subsets."
    if label not in LABELS:
        errors["label"] = "Choose the label: entailed or refuted."
    final_subset = subset if subset in Subset.values else pair_subset
    if not evidence:
        errors["evidence"] = "Mark the evidence."
    elif any(pk not in kinds for pk in evidence):
        errors["evidence"] = "Some evidence is not part of this paper's curated context."
    elif problem := evidence_rule_problem(final_subset, evidence, kinds, sampled, labels=labels):
        errors["evidence"] = problem
    elif final_subset != pair_subset and sibling_evidence is not None:
        if evidence_rule_problem(final_subset, sibling_evidence, kinds, sampled):
            errors["subset"] = (
                f"The pair's other claim, already validated, cites "
                f"{len(visual_ids(sibling_evidence, kinds))} table(s)/chart(s): as {final_subset} "
                "it would break the evidence rule. Keep the subset, or ask an admin to re-open "
                "the other claim."
            )
    if written == "refuted" and not explanation:
        errors["explanation"] = "A refuted claim keeps an explanation of why it is false."
    return errors


def criteria_error(failed: Sequence[str], changed: Sequence[str]) -> str:
    """A pass changes nothing and a revision names the criteria the claim failed: the refusal
    when the answer does not match its criteria, else ""."""
    if failed and not changed:
        return (
            "You marked failed criteria but changed nothing: revise the claim, or untick "
            "them to pass it."
        )
    if changed and not failed:
        return "You revised the claim: tick the criteria it failed."
    return ""
