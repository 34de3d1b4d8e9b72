"""Inter-annotator agreement maths over plain data: labels, evidence sets, grouped reports."""

from __future__ import annotations

from collections import Counter
from collections.abc import Collection, Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

__all__ = [
    "AgreementItem",
    "EvidenceAgreement",
    "GroupReport",
    "LabelAgreement",
    "agreement_report",
    "annotator_pair_key",
    "cohen_kappa",
    "exact_match_rate",
    "fleiss_kappa",
    "is_agreed",
    "jaccard",
    "mean_jaccard",
    "percent_agreement",
]

OVERALL = "overall"


def _check_paired(a: Sequence[Hashable], b: Sequence[Hashable]) -> None:
    if len(a) != len(b):
        raise ValueError(
            f"the two raters labelled different numbers of items: {len(a)} != {len(b)}"
        )


def percent_agreement(a: Sequence[Hashable], b: Sequence[Hashable]) -> float | None:
    """Share of items on which the two raters gave the same label; None for no items."""
    _check_paired(a, b)
    if not a:
        return None
    return sum(x == y for x, y in zip(a, b, strict=True)) / len(a)


def cohen_kappa(
    a: Sequence[Hashable], b: Sequence[Hashable], *, undefined: float | None = None
) -> float | None:
    """Cohen's kappa for two raters and nominal labels: (p_o - p_e) / (1 - p_e).

    Computed from integer counts, κ = (n·agree − S) / (n² − S) with S = Σ_k n_a(k)·n_b(k), so
    identical labels give exactly 1.0 and swapping the raters gives exactly the same float.

    Degenerate case: p_e = 1 happens only when both raters used one and the same label for
    every item (then p_o = 1 too) and κ is 0/0. There is no label variation to measure
    agreement on, so kappa is *undefined*: we return `undefined` (default None) rather than
    pretend 1.0 (perfect beyond chance) or 0.0 (no better than chance); percent agreement
    (1.0) still describes such a group. No items at all is undefined as well.
    """
    _check_paired(a, b)
    n = len(a)
    if n == 0:
        return undefined
    agree = sum(x == y for x, y in zip(a, b, strict=True))
    count_a, count_b = Counter(a), Counter(b)
    chance = sum(count_a[k] * count_b[k] for k in count_a)
    denominator = n * n - chance
    if denominator == 0:
        return undefined
    return (n * agree - chance) / denominator


def fleiss_kappa(
    ratings: Sequence[Sequence[Hashable]], *, undefined: float | None = None
) -> float | None:
    """Fleiss' kappa: each row is one item's labels from the same number (≥ 2) of raters.

    Raters need not be the same people across items. Undefined (returns `undefined`) for no
    items or when every rating is the same label (P̄_e = 1), as for Cohen's kappa.
    """
    if not ratings:
        return undefined
    raters = len(ratings[0])
    if raters < 2 or any(len(row) != raters for row in ratings):
        raise ValueError("Fleiss' kappa needs the same number (at least two) of ratings per item")
    items = len(ratings)
    totals: Counter[Hashable] = Counter()
    observed = 0.0
    for row in ratings:
        counts = Counter(row)
        totals.update(counts)
        observed += (sum(c * c for c in counts.values()) - raters) / (raters * (raters - 1))
    if len(totals) == 1:  # every rating the same label: P̄_e = 1, κ = 0/0
        return undefined
    p_bar = observed / items
    all_ratings = items * raters
    p_e = sum((c / all_ratings) ** 2 for c in totals.values())
    return (p_bar - p_e) / (1 - p_e)


def jaccard(a: Iterable[Hashable], b: Iterable[Hashable]) -> float:
    """|A ∩ B| / |A ∪ B|; two empty evidence sets agree perfectly (1.0)."""
    set_a, set_b = set(a), set(b)
    union = set_a | set_b
    if not union:
        return 1.0
    return len(set_a & set_b) / len(union)


def exact_match_rate(
    pairs: Sequence[tuple[Collection[Hashable], Collection[Hashable]]],
) -> float | None:
    """Share of (A, B) evidence pairs that are equal as sets; None for no pairs."""
    if not pairs:
        return None
    return sum(set(a) == set(b) for a, b in pairs) / len(pairs)


def mean_jaccard(
    pairs: Sequence[tuple[Collection[Hashable], Collection[Hashable]]],
) -> float | None:
    """Mean Jaccard over (A, B) evidence pairs; None for no pairs."""
    if not pairs:
        return None
    return sum(jaccard(a, b) for a, b in pairs) / len(pairs)


def _check_threshold(threshold: float) -> None:
    if not 0.0 <= threshold <= 1.0:
        raise ValueError(f"the Jaccard threshold must lie in [0, 1], got {threshold}")


def is_agreed(
    label_a: Hashable,
    evidence_a: Collection[Hashable],
    label_b: Hashable,
    evidence_b: Collection[Hashable],
    *,
    jaccard_threshold: float = 1.0,
) -> bool:
    """Equal labels and evidence overlapping at least at the threshold (default 1.0: equal sets)."""
    _check_threshold(jaccard_threshold)
    return label_a == label_b and jaccard(evidence_a, evidence_b) >= jaccard_threshold


def annotator_pair_key(first: Hashable, second: Hashable) -> str:
    """An order-free group key for two annotators, so (x, y) and (y, x) report together."""
    low, high = sorted((str(first), str(second)))
    return f"{low}+{high}"


@dataclass(frozen=True)
class AgreementItem:
    """One annotated item as seen by two raters; None marks an annotation not (yet) made.

    `groups` maps a group name (subset, subfield, annotator_pair, …) to this item's value;
    a missing or None value leaves the item out of that grouping (it still counts overall).
    """

    item_id: Hashable
    label_a: Hashable | None
    label_b: Hashable | None
    evidence_a: Collection[Hashable] | None = None
    evidence_b: Collection[Hashable] | None = None
    groups: Mapping[str, str | None] = field(default_factory=dict)


@dataclass(frozen=True)
class LabelAgreement:
    complete: int
    incomplete: int
    percent: float | None
    kappa: float | None


@dataclass(frozen=True)
class EvidenceAgreement:
    complete: int
    incomplete: int
    mean_jaccard: float | None
    exact_match_rate: float | None


@dataclass(frozen=True)
class GroupReport:
    """Agreement within one group value; `incomplete` items are left out of every statistic.

    `agreed` + `label_disagreements` + `evidence_only_disagreements` = items with both label
    and evidence complete; label disagreements are the severe kind (adjudicated first).
    """

    group: str
    value: str
    items: int
    label: LabelAgreement
    evidence: EvidenceAgreement
    agreed: int
    label_disagreements: int
    evidence_only_disagreements: int

    def as_dict(self) -> dict[str, Any]:
        """Flat, JSON- and CSV-friendly form."""
        return {
            "group": self.group,
            "value": self.value,
            "items": self.items,
            "label_complete": self.label.complete,
            "label_incomplete": self.label.incomplete,
            "label_percent": self.label.percent,
            "label_kappa": self.label.kappa,
            "evidence_complete": self.evidence.complete,
            "evidence_incomplete": self.evidence.incomplete,
            "evidence_mean_jaccard": self.evidence.mean_jaccard,
            "evidence_exact_match_rate": self.evidence.exact_match_rate,
            "agreed": self.agreed,
            "label_disagreements": self.label_disagreements,
            "evidence_only_disagreements": self.evidence_only_disagreements,
        }


def _report(
    group: str, value: str, items: Sequence[AgreementItem], threshold: float
) -> GroupReport:
    labelled = [i for i in items if i.label_a is not None and i.label_b is not None]
    labels_a = [i.label_a for i in labelled]
    labels_b = [i.label_b for i in labelled]
    evidence_pairs = [
        (i.evidence_a, i.evidence_b)
        for i in items
        if i.evidence_a is not None and i.evidence_b is not None
    ]
    agreed = label_disagreements = evidence_only = 0
    for item in labelled:
        if item.evidence_a is None or item.evidence_b is None:
            continue
        if item.label_a != item.label_b:
            label_disagreements += 1
        elif jaccard(item.evidence_a, item.evidence_b) >= threshold:
            agreed += 1
        else:
            evidence_only += 1
    return GroupReport(
        group=group,
        value=value,
        items=len(items),
        label=LabelAgreement(
            complete=len(labelled),
            incomplete=len(items) - len(labelled),
            percent=percent_agreement(labels_a, labels_b),
            kappa=cohen_kappa(labels_a, labels_b),
        ),
        evidence=EvidenceAgreement(
            complete=len(evidence_pairs),
            incomplete=len(items) - len(evidence_pairs),
            mean_jaccard=mean_jaccard(evidence_pairs),
            exact_match_rate=exact_match_rate(evidence_pairs),
        ),
        agreed=agreed,
        label_disagreements=label_disagreements,
        evidence_only_disagreements=evidence_only,
    )


def agreement_report(
    items: Iterable[AgreementItem],
    *,
    group_by: Sequence[str] = ("subset", "subfield", "annotator_pair"),
    jaccard_threshold: float = 1.0,
) -> dict[str, dict[str, GroupReport]]:
    """Reports overall and per value of each grouping: {"overall": {"all": …}, "subset": {…}}.

    Group values are sorted so that the output (and a CSV made from it) is stable.
    """
    _check_threshold(jaccard_threshold)
    items = list(items)
    seen: set[Hashable] = set()
    for item in items:
        if item.item_id in seen:
            raise ValueError(f"item {item.item_id!r} appears twice")
        seen.add(item.item_id)
    reports = {OVERALL: {"all": _report(OVERALL, "all", items, jaccard_threshold)}}
    for group in group_by:
        buckets: dict[str, list[AgreementItem]] = {}
        for item in items:
            value = item.groups.get(group)
            if value is not None:
                buckets.setdefault(str(value), []).append(item)
        reports[group] = {
            value: _report(group, value, buckets[value], jaccard_threshold)
            for value in sorted(buckets)
        }
    return reports
