"""The rules of an error analysis (pure, no database): SciVer's five error types, the seeded
sample of wrong answers per subset, the taggers each case gets, and the agreement and the
counts its report shows."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Collection, Hashable, Mapping, Sequence
from dataclasses import dataclass
from typing import TypeVar

from annotation.review.agreement import cohen_kappa, percent_agreement
from evaluation.release import EvaluationError
from evaluation.scoring import SUBSETS

__all__ = [
    "CATEGORIES",
    "CODES",
    "CategoryAgreement",
    "ErrorAnalysisRefused",
    "agreement_by_category",
    "assign_taggers",
    "check_categories",
    "majority",
    "markdown_table",
    "sample_cases",
    "union",
]

DEFAULT_SAMPLE = 10  # wrong answers per subset (SciVer's own analysis: 25)
MAX_SAMPLE = 500
TAGGERS_PER_CASE = 2


class ErrorAnalysisRefused(EvaluationError):
    """An error analysis the rules refuse; the message says why and what to do."""


@dataclass(frozen=True)
class Category:
    code: str
    title: str
    definition: str


# SciVer, §4.3 and Appendix C (C.1–C.5), in the paper's order; each definition in its words.
CATEGORIES = (
    Category(
        "retrieval",
        "Failure to retrieve relevant information",
        "The model fails to retrieve and consider all the key evidence in the context it was "
        "given, leading to incomplete reasoning or to calling a verifiable claim unverifiable.",
    ),
    Category(
        "visual",
        "Visual element misinterpretation",
        "The model misinterprets a chart or a table (reads a value, an axis, a legend or a "
        "cell wrongly).",
    ),
    Category(
        "text_reliance",
        "Heavy reliance on text modality",
        "The model focuses on the text and fails to integrate crucial information from the "
        "tables and charts.",
    ),
    Category(
        "domain",
        "Domain-specific misconceptions",
        "The model misapplies domain terminology or relies on irrelevant memorised knowledge "
        "instead of the given context.",
    ),
    Category(
        "other",
        "Other observation errors",
        "Any other error: e.g. a wrong numerical computation, or no answer (the model refused "
        "to respond); say which in the note.",
    ),
)
CODES = tuple(c.code for c in CATEGORIES)
TITLES = {c.code: c.title for c in CATEGORIES}


def check_categories(codes: Sequence[str]) -> list[str]:
    """The chosen categories in the paper's order; at least one, each one of the five."""
    unknown = [c for c in codes if c not in CODES]
    if unknown:
        raise ErrorAnalysisRefused(f"Unknown error type(s): {', '.join(unknown)}.")
    if not codes:
        raise ErrorAnalysisRefused("Choose at least one error type.")
    return [c for c in CODES if c in codes]


def check_sample_size(size: int | None) -> int:
    if size is None or not 1 <= size <= MAX_SAMPLE:
        raise ErrorAnalysisRefused(f"The sample size per subset is a whole number 1–{MAX_SAMPLE}.")
    return size


def sample_cases(
    wrong: Mapping[str, Collection[int]], *, size: int, seed: int
) -> dict[str, list[int]]:
    """Up to `size` of each subset's wrong answers (request ids), drawn without replacement;
    the same seed and answers give the same sample whatever their order."""
    chosen = {}
    for subset in sorted(wrong):
        ids = sorted(wrong[subset])
        rng = random.Random(f"{seed}:{subset}")
        chosen[subset] = sorted(rng.sample(ids, min(size, len(ids))))
    return chosen


K = TypeVar("K", bound=Hashable)


def assign_taggers(
    cases: Sequence[tuple[K, Sequence[int]]],
    *,
    load: Mapping[int, int] | None = None,
    per_case: int = TAGGERS_PER_CASE,
) -> dict[K, tuple[int, ...]]:
    """Each case's taggers among its eligible people (ids): the `per_case` with the fewest
    cases so far (ties: the lower id), so the work spreads evenly; fewer when fewer are
    eligible (one: incomplete for agreement; none: the case waits)."""
    counts: Counter[int] = Counter(load or {})
    chosen: dict[K, tuple[int, ...]] = {}
    for key, eligible in cases:
        picked = tuple(sorted(set(eligible), key=lambda u: (counts[u], u))[:per_case])
        counts.update(picked)
        chosen[key] = picked
    return chosen


def union(tags: Sequence[Collection[str]]) -> list[str]:
    """Every category any tagger chose, in the paper's order."""
    return [c for c in CODES if any(c in t for t in tags)]


def majority(tags: Sequence[Collection[str]]) -> list[str]:
    """The categories more than half of the taggers chose (two taggers: both)."""
    return [c for c in CODES if 2 * sum(c in t for t in tags) > len(tags)]


@dataclass(frozen=True)
class CategoryAgreement:
    code: str
    title: str
    complete: int  # cases with two tags, over which κ is computed
    incomplete: int  # cases with one tag (one tagger eligible, or the second not in yet)
    both: int  # complete cases both taggers gave this category
    either: int  # complete cases at least one tagger gave it
    agreement: float | None
    kappa: float | None  # None: undefined (no complete case, or no variation)


def agreement_by_category(cases: Sequence[Sequence[Collection[str]]]) -> list[CategoryAgreement]:
    """Cohen's κ per category, each a yes/no per case, over the cases with two submitted tags
    (the first two); cases with one tag are counted, never silently dropped."""
    pairs = [(tags[0], tags[1]) for tags in cases if len(tags) >= 2]
    incomplete = sum(len(tags) == 1 for tags in cases)
    result = []
    for category in CATEGORIES:
        a = [category.code in x for x, _ in pairs]
        b = [category.code in y for _, y in pairs]
        result.append(
            CategoryAgreement(
                code=category.code,
                title=category.title,
                complete=len(pairs),
                incomplete=incomplete,
                both=sum(x and y for x, y in zip(a, b, strict=True)),
                either=sum(x or y for x, y in zip(a, b, strict=True)),
                agreement=percent_agreement(a, b),
                kappa=cohen_kappa(a, b),
            )
        )
    return result


def category_counts(
    cases: Sequence[tuple[str, Sequence[Collection[str]]]],
) -> dict[str, tuple[int, Counter[str]]]:
    """subset (and "all") → (tagged cases, cases per category by the union of their tags)."""
    counts: dict[str, tuple[int, Counter[str]]] = {}
    for subset, tags in cases:
        if not tags:
            continue
        for key in (subset, "all"):
            n, per = counts.get(key, (0, Counter()))
            per.update(union(tags))
            counts[key] = (n + 1, per)
    return counts


def _share(n: int, of: int) -> str:
    return f"{n} ({100 * n / of:.0f} %)" if of else "—"


def markdown_table(
    counts: Mapping[str, tuple[int, Counter[str]]],
    kappas: Mapping[str, float | None],
    *,
    model: str,
) -> str:
    """The error types of one model's wrong answers per subset, as a dataset card cites them:
    cases per type (share of the tagged cases) and κ between taggers."""
    keys = [k for k in (*SUBSETS, *sorted(set(counts) - {*SUBSETS, "all"}), "all") if k in counts]
    header = ["Error type (SciVer App. C)", *(f"{k} (n={counts[k][0]})" for k in keys), "κ"]
    lines = [
        f"Error types of {model}'s wrong answers",
        "",
        "| " + " | ".join(header) + " |",
        "|" + "|".join("---" for _ in header) + "|",
    ]
    for category in CATEGORIES:
        kappa = kappas.get(category.code)
        cells = [_share(counts[k][1][category.code], counts[k][0]) for k in keys]
        shown = "—" if kappa is None else f"{kappa:.2f}"
        lines.append("| " + " | ".join([category.title, *cells, shown]) + " |")
    lines += [
        "",
        "Cases per type by the union of the taggers' types (a case may have several); "
        "κ: Cohen's kappa per type over cases with two taggers.",
    ]
    return "\n".join(lines)
