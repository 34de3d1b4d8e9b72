"""Assignment strategies as plain functions: spread papers over experts by open workload."""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Generic, TypeVar

P = TypeVar("P", bound=Hashable)
E = TypeVar("E", bound=Hashable)


@dataclass
class Spread(Generic[P, E]):
    assigned: dict[P, E] = field(default_factory=dict)
    left_over: list[P] = field(default_factory=list)

    def count_by_expert(self) -> dict[E, int]:
        counts: dict[E, int] = {}
        for expert in self.assigned.values():
            counts[expert] = counts.get(expert, 0) + 1
        return counts


def spread_balanced(
    papers: Sequence[P],
    eligible: Mapping[P, Sequence[E]],
    load: Mapping[E, int],
    *,
    per_expert: int | None = None,
) -> Spread[P, E]:
    """Give each paper, in the given (priority) order, to the eligible expert with the least
    open work so far (ties: the one listed first), never more than `per_expert` new papers to
    anyone. Papers nobody can take are left over, in order."""
    current = dict(load)
    given: dict[E, int] = {}
    spread: Spread[P, E] = Spread()
    for paper in papers:
        candidates = [
            (current.get(expert, 0), position, expert)
            for position, expert in enumerate(eligible.get(paper, ()))
            if per_expert is None or given.get(expert, 0) < per_expert
        ]
        if not candidates:
            spread.left_over.append(paper)
            continue
        _, _, chosen = min(candidates, key=lambda c: (c[0], c[1]))
        spread.assigned[paper] = chosen
        current[chosen] = current.get(chosen, 0) + 1
        given[chosen] = given.get(chosen, 0) + 1
    return spread
