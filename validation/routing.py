"""Who validates a final claim (pure): the rule the validation handoff follows."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

VALIDATOR = "validator"
ADJUDICATOR = "adjudicator"


@dataclass(frozen=True)
class Route:
    """Who a claim's validation item goes to: `assignee` (an expert named for it, or None:
    anyone eligible free of a role on the pair), and the event that says why."""

    assignee: int | None
    action: str = ""
    note: str = ""


def validator_choice(
    eligible: Iterable[int], roles: Mapping[int, str], adjudicators: Iterable[int]
) -> tuple[bool, int | None]:
    """(anyone free, fallback). Preferred: an eligible expert with no role on the pair (not its
    writer, nor a second annotator). Failing that, the claim's adjudicator."""
    eligible = list(eligible)
    if any(e not in roles for e in eligible):
        return True, None
    for expert in adjudicators:
        if expert in eligible and roles.get(expert) == ADJUDICATOR:
            return False, expert
    return False, None


def route_validation(
    eligible: Iterable[int], roles: Mapping[int, str], adjudicators: Iterable[int]
) -> Route:
    """Where a claim's validation goes, given who is eligible in the pair's subfield, the roles
    on its pair (expert → role) and the experts who decided its adjudications. A pair's
    validator validates all its claims (a new perturbation, or a claim final later than its
    sibling, goes to the one who validated the first)."""
    eligible = list(eligible)
    validator = next((e for e, r in roles.items() if r == VALIDATOR and e in eligible), None)
    if validator is not None:
        return Route(validator, "assigned", "the pair's validator validates all its claims")
    _, fallback = validator_choice(eligible, roles, adjudicators)
    if fallback is not None:
        return Route(
            fallback,
            "assigned to adjudicator",
            "nobody else eligible is free of a role on the pair",
        )
    return Route(None)
