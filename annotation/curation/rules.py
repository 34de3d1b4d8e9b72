"""Curation rules (pure): SciVer's proposed removals, what a set of decisions keeps, and when a
save is refused (a page opened before the latest version, decisions not about the paper)."""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass

from annotation.errors import InvalidCuration, StaleContext
from annotation.models.curation import MIN_CONTEXT_VISUALS

# SciVer §3: the annotator removes related work, acknowledgments, references and appendix.
PROPOSED_REMOVAL_KINDS = frozenset({"related_work", "acknowledgments", "references", "appendix"})


def proposed_for_removal(kind: str) -> bool:
    return kind in PROPOSED_REMOVAL_KINDS


def sections_in_context(parents: Mapping[int, int | None], kept: Iterable[int]) -> set[int]:
    """Sections in the context: kept themselves and every ancestor kept."""
    kept_set = set(kept)
    result: set[int] = set()
    for section in parents:
        node: int | None = section
        seen: set[int] = set()
        while node is not None and node in kept_set and node not in seen:
            seen.add(node)
            node = parents.get(node)
        if node is None:
            result.add(section)
    return result


@dataclass(frozen=True)
class ContextCounts:
    tables: int
    charts: int
    not_charts: int
    paragraphs: int

    @property
    def visuals(self) -> int:
        return self.tables + self.charts

    @property
    def ready_for_claims(self) -> bool:
        return self.visuals >= MIN_CONTEXT_VISUALS


def count_context(kinds_in_context: Iterable[tuple[str, bool]]) -> ContextCounts:
    """Count (kind, marked not-a-chart) pairs of the elements in a context."""
    tables = charts = not_charts = paragraphs = 0
    for kind, not_a_chart in kinds_in_context:
        if kind == "table":
            tables += 1
        elif kind == "chart":
            if not_a_chart:
                not_charts += 1
            else:
                charts += 1
        else:
            paragraphs += 1
    return ContextCounts(tables=tables, charts=charts, not_charts=not_charts, paragraphs=paragraphs)


@dataclass(frozen=True)
class Decisions:
    """What one curation chose: the sections and elements kept, the figures marked not a
    chart."""

    sections: frozenset[int]
    elements: frozenset[int]
    not_charts: frozenset[int]

    def chose(self, kind: str, choice: str, pk: int) -> bool:
        if kind == "section":
            return pk in self.sections
        return pk in (self.elements if choice == "keep" else self.not_charts)


@dataclass(frozen=True)
class Difference:
    """One choice on which two curations differ, and what the version both started from had
    (`base`; None without one)."""

    kind: str  # "section" or "element"
    id: int
    choice: str  # "keep" or "not a chart"
    theirs: bool
    yours: bool
    base: bool | None

    @property
    def changed_by(self) -> str:
        """Who moved away from the version both started from: "them", "you" or "both"."""
        if self.base is None:
            return ""
        if self.base == self.yours:
            return "them"
        return "you" if self.base == self.theirs else "both"


def differences(
    items: Iterable[tuple[str, int]],
    theirs: Decisions,
    yours: Decisions,
    base: Decisions | None = None,
) -> list[Difference]:
    """Where `yours` differs from `theirs` (a version saved meanwhile), item by item in the
    order given ((kind, id): "section" or "element"), keep before not-a-chart."""
    found = []
    for kind, pk in items:
        for choice in ("keep",) if kind == "section" else ("keep", "not a chart"):
            mine, other = yours.chose(kind, choice, pk), theirs.chose(kind, choice, pk)
            if mine != other:
                was = base.chose(kind, choice, pk) if base is not None else None
                found.append(Difference(kind, pk, choice, other, mine, was))
    return found


def check_latest_seen(*, latest: int | None, saved_by: str | None, latest_seen: int | None) -> None:
    """Refuse a save from a page opened before someone saved version `latest` (by `saved_by`,
    None when unknown): nothing is overwritten (StaleContext)."""
    if latest == latest_seen:
        return
    if latest is None:
        raise StaleContext("The context changed since you opened the page; reload.")
    raise StaleContext(
        f"Version {latest} of this context was saved by {saved_by or 'someone'} since you "
        "opened the page. Nothing was overwritten, and your choices are still on this page, "
        f"not saved yet: keep them as version {latest + 1}, or take version {latest}."
    )


def check_decisions(
    decisions: Decisions, *, section_ids: Collection[int], element_kinds: Mapping[int, str]
) -> None:
    """Refuse decisions about sections or elements not of the paper, and 'not a chart' on
    anything but a figure (InvalidCuration)."""
    foreign = (decisions.sections - set(section_ids)) | (decisions.elements - element_kinds.keys())
    if foreign:
        raise InvalidCuration(f"Items {sorted(foreign)[:5]} are not part of this paper.")
    wrong = sorted(pk for pk in decisions.not_charts if element_kinds.get(pk) != "chart")
    if wrong:
        raise InvalidCuration(f"Only figures can be marked 'not a chart' (got {wrong[:5]}).")


@dataclass(frozen=True)
class ContextPlan:
    """What a set of decisions keeps: the sections in context, whether each element is, and
    the counts a context records."""

    live_sections: set[int]
    in_context: dict[int, bool]
    counts: ContextCounts
    removed_sections: int


def plan_context(
    decisions: Decisions,
    *,
    sections: Sequence[tuple[int, int | None, str]],
    elements: Iterable[tuple[int, int, str]],
) -> ContextPlan:
    """The context the decisions make of the paper's `sections` (id, parent, kind) and
    `elements` (id, section, kind): an element is in it when kept and its section is."""
    parents = {pk: parent for pk, parent, _ in sections}
    live = sections_in_context(parents, decisions.sections)
    elements = list(elements)
    in_context = {pk: pk in decisions.elements and section in live for pk, section, _ in elements}
    counts = count_context(
        (kind, pk in decisions.not_charts) for pk, _, kind in elements if in_context[pk]
    )
    return ContextPlan(live, in_context, counts, removed_sections=len(parents.keys() - live))
