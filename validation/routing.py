"""Who validates a final claim (pure): the rule the validation handoff follows."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from annotation.queue import blindness


@dataclass(frozen=True)
class Route:
    """Who a claim's validation item goes to: `assignee` (an expert named for it, or None:
    anyone the blindness rule lets take it), and the event that says why."""

    assignee: int | None
    action: str = ""
    note: str = ""


def route_validation(
    claim: int,
    eligible: Iterable[int],
    roles: Iterable[blindness.RoleRow],
    pending_blind: Iterable[int] = (),
) -> Route:
    """Where a claim's validation goes, given who is eligible in the pair's subfield and the
    pair's roles. A pair's validator validates its other claims too (a new perturbation, or a
    claim final later than its sibling) when the blindness rule lets them; otherwise the item is
    free for anyone it lets: an expert without a role on the pair, or one who annotated or
    adjudicated only the pair's other claim. Never the claim's writer, second annotator or
    adjudicator; with nobody left the item waits for an admin's override."""
    roles = list(roles)
    eligible = set(eligible)
    pending = set(pending_blind)
    for row in roles:
        if row.role == blindness.VALIDATOR and row.expert in eligible:
            if not blindness.refusal("validate", row.expert, claim, roles, pending):
                return Route(row.expert, "assigned", "the pair's validator validates its claims")
    return Route(None)
