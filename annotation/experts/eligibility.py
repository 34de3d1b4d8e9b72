"""Whether an expert may work in a subfield, and in words why not (pure, no database)."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Eligibility:
    subfield: str
    publications: int
    required: int
    declared: bool = False
    reasons: list[str] = field(default_factory=list)

    @property
    def eligible(self) -> bool:
        return not self.reasons

    def explain(self) -> str:
        return "eligible" if self.eligible else "; ".join(self.reasons)


def judge_eligibility(
    *,
    subfield: str,
    has_profile: bool,
    active: bool,
    declared: bool,
    publications: int,
    trained: bool,
    required: int,
) -> Eligibility:
    """SciVer's rule: at least `required` peer-reviewed publications in the subfield, and the
    training completed; here also an active profile that lists the subfield."""
    reasons: list[str] = []
    if not has_profile:
        reasons.append("no expert profile")
    else:
        if not active:
            reasons.append("expert profile inactive")
        if not declared:
            reasons.append(f"{subfield} is not among their subfields")
        if publications < required:
            reasons.append(f"{publications} of {required} required publications in {subfield}")
        if not trained:
            reasons.append("training not completed")
    return Eligibility(
        subfield=subfield,
        publications=publications,
        required=required,
        declared=declared,
        reasons=reasons,
    )
