"""Scoring (pure): one outcome per record by both readings, and accuracy broken down as SciVer's
Table 3 and Figure 4 do (overall, per subset, subfield, label, number of evidence pieces), each
with its count and a seeded 95 % bootstrap interval."""

from __future__ import annotations

import bisect
import math
import random
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass

from evaluation.reading import official_correct, read_response
from evaluation.release import EVIDENCE_BUCKETS, UNKNOWN, Item, evidence_bucket

__all__ = [
    "CHANCE",
    "GROUPS",
    "Cell",
    "Outcome",
    "bootstrap_interval",
    "breakdowns",
    "score",
]

CHANCE = 0.5  # a uniform guess between two labels, whatever their balance
RESAMPLES = 2000
LEVEL = 0.95
SUBSETS = ("direct", "parallel", "sequential", "analytical")
LABELS = ("entailed", "refuted")


@dataclass(frozen=True)
class Outcome:
    """One record's response, how it reads, and whether it is right by each reading."""

    request_id: int
    response: str | None  # None: no response was given (or the request failed)
    parsed: str | None
    correct: bool  # by our reading; an unreadable answer (parsed None) is wrong
    official_correct: bool  # by SciVer's acc_evaluation.py
    claim_type: str
    subfield: str
    gold: str
    evidence: int | None

    def line(self) -> dict:
        """The `--out` JSON Lines record."""
        return {
            "request_id": self.request_id,
            "response": self.response,
            "parsed": self.parsed,
            "correct": self.correct,
            "official_correct": self.official_correct,
        }

    def as_dict(self) -> dict:
        return asdict(self)


def score(items: Iterable[Item], responses: Mapping[int, str | None]) -> list[Outcome]:
    """Every item's outcome; an item without a response reads as no answer."""
    outcomes = []
    for item in items:
        response = responses.get(item.request_id)
        parsed = read_response(response)
        outcomes.append(
            Outcome(
                request_id=item.request_id,
                response=response,
                parsed=parsed,
                correct=parsed == item.gold,
                official_correct=official_correct(response, item.label),
                claim_type=item.claim_type,
                subfield=item.subfield,
                gold=item.gold,
                evidence=item.evidence,
            )
        )
    return outcomes


@dataclass(frozen=True)
class Cell:
    """Accuracy of one group of records (e.g. subset "direct")."""

    group: str
    key: str
    n: int
    correct: int
    unanswered: int  # responses our reading finds no answer in (counted wrong)
    official: int  # correct by SciVer's rule
    low: float | None
    high: float | None

    @property
    def accuracy(self) -> float | None:
        return self.correct / self.n if self.n else None

    @property
    def official_accuracy(self) -> float | None:
        return self.official / self.n if self.n else None

    def as_dict(self) -> dict:
        return asdict(self) | {
            "accuracy": self.accuracy,
            "official_accuracy": self.official_accuracy,
        }


def _binomial_cdf(n: int, p: float) -> list[float]:
    """P(X ≤ k) for k = 0…n, X ~ Binomial(n, p), summed in log space (no underflow at n=2000)."""
    if p <= 0.0:
        return [1.0] * (n + 1)
    if p >= 1.0:
        return [0.0] * n + [1.0]
    log_p, log_q = math.log(p), math.log1p(-p)
    head = math.lgamma(n + 1)
    cdf, total = [], 0.0
    for k in range(n + 1):
        total += math.exp(
            head - math.lgamma(k + 1) - math.lgamma(n - k + 1) + k * log_p + (n - k) * log_q
        )
        cdf.append(total)
    cdf[-1] = max(cdf[-1], 1.0)
    return cdf


def _quantile(ordered: Sequence[float], q: float) -> float:
    position = q * (len(ordered) - 1)
    lower = math.floor(position)
    upper = min(lower + 1, len(ordered) - 1)
    return ordered[lower] + (ordered[upper] - ordered[lower]) * (position - lower)


def bootstrap_interval(
    correct: int, n: int, *, rng: random.Random, resamples: int = RESAMPLES, level: float = LEVEL
) -> tuple[float, float] | tuple[None, None]:
    """The percentile bootstrap interval of an accuracy of `correct` out of `n`.

    Resampling n right/wrong outcomes with replacement and counting the right ones draws from
    Binomial(n, correct/n) exactly, so each resample is one draw from that distribution (by
    inverse CDF) rather than n draws of single outcomes: the same interval, n times faster.
    """
    if n == 0:
        return None, None
    cdf = _binomial_cdf(n, correct / n)
    draws = sorted(min(bisect.bisect_left(cdf, rng.random()), n) / n for _ in range(resamples))
    tail = (1 - level) / 2
    return round(_quantile(draws, tail), 6), round(_quantile(draws, 1 - tail), 6)


def _evidence_key(outcome: Outcome) -> str:
    return evidence_bucket(outcome.evidence)


GROUPS: dict[str, tuple[Callable[[Outcome], str], tuple[str, ...]]] = {
    "overall": (lambda o: "all", ("all",)),
    "subset": (lambda o: o.claim_type, SUBSETS),
    "subfield": (lambda o: o.subfield, ()),
    "label": (lambda o: o.gold, LABELS),
    "evidence": (_evidence_key, EVIDENCE_BUCKETS),
}


def _order(keys: set[str], preferred: tuple[str, ...]) -> list[str]:
    """The preferred keys always (a subset or evidence bucket the part lacks shows as n = 0),
    then the others sorted, "unknown" last."""
    known = list(preferred)
    rest = sorted(k for k in keys - set(preferred) if k != UNKNOWN)
    return known + rest + ([UNKNOWN] if UNKNOWN in keys else [])


def breakdowns(
    outcomes: Sequence[Outcome], *, seed: int = 0, resamples: int = RESAMPLES
) -> dict[str, list[Cell]]:
    """group → one cell per key. Each cell's interval has its own seeded generator, so a cell's
    interval does not depend on which other cells exist."""
    result: dict[str, list[Cell]] = {}
    for group, (key_of, preferred) in GROUPS.items():
        members: dict[str, list[Outcome]] = {}
        for outcome in outcomes:
            members.setdefault(key_of(outcome), []).append(outcome)
        cells = []
        for key in _order(set(members), preferred):
            chosen = members.get(key, [])
            correct = sum(o.correct for o in chosen)
            low, high = bootstrap_interval(
                correct,
                len(chosen),
                rng=random.Random(f"{seed}:{group}:{key}"),
                resamples=resamples,
            )
            cells.append(
                Cell(
                    group=group,
                    key=key,
                    n=len(chosen),
                    correct=correct,
                    unanswered=sum(o.parsed is None for o in chosen),
                    official=sum(o.official_correct for o in chosen),
                    low=low,
                    high=high,
                )
            )
        result[group] = cells
    return result
