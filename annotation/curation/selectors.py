"""A paper's curation page and its curated contexts."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from django.db.models import (
    BooleanField,
    ExpressionWrapper,
    Prefetch,
    Q,
    QuerySet,
)

from annotation.assignment.selectors import papers_with_subfield
from annotation.curation.rules import (
    ContextCounts,
    Decisions,
    count_context,
    proposed_for_removal,
    sections_in_context,
)
from annotation.models import (
    CuratedContext,
    CuratedElement,
    CuratedSection,
)
from papers.models import Element, Paper, Section


def references() -> QuerySet[Element]:
    """Elements as another element's references (for `Prefetch`): by position only. The model's
    default ordering (paper, order) lets PostgreSQL walk the whole elements table along that
    index to join a handful of rows (issue 21 measured curation at 23 ms of SQL with 17,355
    elements against 0.5 ms with 646)."""
    return Element.objects.order_by("order", "id")


# --- Experts -------------------------------------------------------------------------------


@dataclass
class ElementState:
    element: Element
    kept: bool = True
    not_a_chart: bool = False


@dataclass
class SectionState:
    section: Section
    kept: bool
    proposed: bool
    elements: list[ElementState] = field(default_factory=list)
    in_context: bool = True
    proposal_root: bool = False


@dataclass
class CurationPage:
    paper: Paper
    sections: list[SectionState]
    versions: list[CuratedContext]
    shown: CuratedContext | None
    counts: ContextCounts
    unsaved: bool = False

    @property
    def latest(self) -> CuratedContext | None:
        return self.versions[0] if self.versions else None

    @property
    def proposal_pending(self) -> bool:
        return self.shown is None

    @property
    def proposed(self) -> list[SectionState]:
        """Proposed removals, outermost only (removing a section removes what it holds)."""
        return [s for s in self.sections if s.proposal_root]

    @property
    def proposed_inside(self) -> int:
        return sum(1 for s in self.sections if s.proposed and not s.proposal_root)


def curation_page(paper: Paper, version: int | None = None) -> CurationPage:
    """Everything the curation page shows, in a fixed number of queries whatever the paper's
    size: sections, elements (with the tables/charts each paragraph refers to), versions, and
    the decisions of the version shown (the latest unless `version` is given)."""

    versions = list(
        CuratedContext.objects.filter(paper=paper).select_related("created_by").order_by("-number")
    )
    shown = versions[0] if version is None and versions else None
    if version is not None:
        shown = next((v for v in versions if v.number == version), None)
        if shown is None:
            raise CuratedContext.DoesNotExist(f"{paper.versioned_id} has no context v{version}")
    sections = list(
        Section.objects.filter(paper=paper)
        .order_by("order")
        .only("id", "anchor", "number", "title", "level", "parent_id", "order", "kind")
    )
    elements = (
        Element.objects.filter(paper=paper)
        .order_by("order")
        .only(
            "id",
            "section_id",
            "kind",
            "anchor",
            "order",
            "label",
            "number",
            "caption",
            "text",
            "is_image_table",
            "degraded",
            "image",
            "vector",
            "image_error",
        )
        .annotate(has_table_html=ExpressionWrapper(~Q(table_html=""), output_field=BooleanField()))
        .prefetch_related(
            Prefetch("references", queryset=references().only("id", "anchor", "label"))
        )
    )
    section_kept: dict[int, bool] = {}
    element_state: dict[int, tuple[bool, bool]] = {}
    if shown is not None:
        section_kept = dict(
            CuratedSection.objects.filter(context=shown).values_list("section_id", "kept")
        )
        element_state = {
            row[0]: (row[1], row[2])
            for row in CuratedElement.objects.filter(context=shown).values_list(
                "element_id", "kept", "not_a_chart"
            )
        }
    states = {
        s.pk: SectionState(
            section=s,
            kept=section_kept.get(s.pk, True),
            proposed=proposed_for_removal(s.kind),
        )
        for s in sections
    }
    for state in states.values():
        parent = states.get(state.section.parent_id) if state.section.parent_id else None
        state.proposal_root = state.proposed and not (parent and parent.proposed)
    for element in elements:
        kept, not_a_chart = element_state.get(element.pk, (True, False))
        states[element.section_id].elements.append(ElementState(element, kept, not_a_chart))
    page = CurationPage(
        paper=paper,
        sections=[states[s.pk] for s in sections],
        versions=versions,
        shown=shown,
        counts=ContextCounts(0, 0, 0, 0),
    )
    return _recount(page)


def _recount(page: CurationPage) -> CurationPage:
    live = sections_in_context(
        {s.section.pk: s.section.parent_id for s in page.sections},
        {s.section.pk for s in page.sections if s.kept},
    )
    for state in page.sections:
        state.in_context = state.section.pk in live
    page.counts = count_context(
        (e.element.kind, e.not_a_chart)
        for s in page.sections
        if s.in_context
        for e in s.elements
        if e.kept
    )
    return page


def with_decisions(
    page: CurationPage, kept_sections: set[int], kept_elements: set[int], not_charts: set[int]
) -> CurationPage:
    """The page showing decisions that were posted but not saved (after a refused save)."""
    for section in page.sections:
        section.kept = section.section.pk in kept_sections
        for state in section.elements:
            state.kept = state.element.pk in kept_elements
            state.not_a_chart = state.element.pk in not_charts
    page.unsaved = True
    return _recount(page)


def latest_context(paper_id: int) -> CuratedContext | None:
    return CuratedContext.objects.filter(paper_id=paper_id).order_by("-number").first()


def papers_by_ids(ids: Iterable[int]) -> list[Paper]:
    return list(
        papers_with_subfield(Paper.objects.filter(pk__in=list(ids)).defer("raw_html_compressed"))
    )


def context_decisions(paper_id: int, number: int | None) -> Decisions | None:
    """What version `number` of a paper's curated context chose (None: no such version)."""
    if number is None:
        return None
    context = CuratedContext.objects.filter(paper_id=paper_id, number=number).only("id").first()
    if context is None:
        return None
    sections = CuratedSection.objects.filter(context=context, kept=True).values_list(
        "section_id", flat=True
    )
    elements, not_charts = set(), set()
    for pk, kept, not_a_chart in CuratedElement.objects.filter(context=context).values_list(
        "element_id", "kept", "not_a_chart"
    ):
        if kept:
            elements.add(pk)
        if not_a_chart:
            not_charts.add(pk)
    return Decisions(frozenset(sections), frozenset(elements), frozenset(not_charts))
