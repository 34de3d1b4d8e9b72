"""Pure strategies for claim tasks: which elements to sample, which subset to ask for."""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence

SUBSETS = ("direct", "parallel", "sequential", "analytical")


def sample_elements(candidates: Sequence[int], *, k: int = 3, seed: int) -> list[int]:
    """k distinct element ids drawn uniformly at random; the same seed gives the same draw.

    The candidates are sorted first, so the draw depends on the set and the seed only, not on
    the order a query happened to return them in.
    """
    pool = sorted(set(candidates))
    if len(pool) < k:
        raise ValueError(f"need at least {k} tables/charts to sample from, have {len(pool)}")
    return random.Random(seed).sample(pool, k)


def choose_subset(
    counts: Mapping[str, int],
    targets: Mapping[str, float] | None = None,
    *,
    seed: int | None = None,
) -> str:
    """The subset furthest below its target share, so that the four stay balanced.

    `counts` are the tasks already created per subset; `targets` the wanted shares (default:
    equal). Ties go to a seeded random choice among the tied subsets, so that no subset is
    systematically favoured by its position in the list.
    """
    targets = dict(targets or dict.fromkeys(SUBSETS, 1.0))
    unknown = set(targets) - set(SUBSETS)
    if unknown:
        raise ValueError(f"unknown subsets: {', '.join(sorted(unknown))}")
    total_weight = sum(w for w in targets.values() if w > 0)
    if total_weight <= 0:
        raise ValueError("at least one subset needs a positive target")
    total = sum(counts.get(s, 0) for s in targets) + 1  # counting the task about to be made
    deficits = {s: w / total_weight * total - counts.get(s, 0) for s, w in targets.items() if w > 0}
    best = max(deficits.values())
    tied = sorted(s for s, d in deficits.items() if abs(d - best) < 1e-9)
    return random.Random(seed).choice(tied) if len(tied) > 1 else tied[0]
