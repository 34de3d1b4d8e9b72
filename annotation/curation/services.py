"""Saving a paper's curated context (SciVer's context curation)."""

from __future__ import annotations

from collections.abc import Iterable

from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction

from annotation import access
from annotation.assignment.services import transition
from annotation.curation import selectors as curation_selectors
from annotation.curation.rules import count_context, proposed_for_removal, sections_in_context
from annotation.errors import (
    InvalidCuration,
    NotAssigned,
    StaleContext,
)
from annotation.models import (
    Assignment,
    AssignmentStatus,
    CuratedContext,
    CuratedElement,
    CuratedSection,
    Role,
)
from papers.models import Element, Paper, Section


def _same_decisions(
    context: CuratedContext, sections: set[int], elements: set[int], not_charts: set[int]
) -> bool:
    kept_sections = set(
        CuratedSection.objects.filter(context=context, kept=True).values_list(
            "section_id", flat=True
        )
    )
    kept_elements, flagged = set(), set()
    for pk, kept, not_a_chart in CuratedElement.objects.filter(context=context).values_list(
        "element_id", "kept", "not_a_chart"
    ):
        if kept:
            kept_elements.add(pk)
        if not_a_chart:
            flagged.add(pk)
    return (kept_sections, kept_elements, flagged) == (sections, elements, not_charts)


@transaction.atomic
def save_curated_context(
    *,
    paper: Paper,
    user: AbstractBaseUser,
    kept_section_ids: Iterable[int],
    kept_element_ids: Iterable[int],
    not_chart_ids: Iterable[int],
    latest_seen: int | None,
    based_on: int | None = None,
    note: str = "",
) -> CuratedContext:
    """Save the curator's decisions as the paper's next context version. `latest_seen` is the
    newest version when the page was opened: if someone saved since, nothing is written. The
    same decisions as the latest version (and no new note) write nothing and return it."""
    paper = Paper.objects.select_for_update().only("id", "arxiv_id", "version").get(pk=paper.pk)
    if not access.can_curate(user, paper.pk):
        raise NotAssigned(f"{paper.versioned_id} is not assigned to you.")
    latest = curation_selectors.latest_context(paper.pk)
    if (latest.number if latest else None) != latest_seen:
        raise StaleContext(
            f"Version {latest.number} of this context was saved by "
            f"{latest.created_by.get_username() if latest.created_by else 'someone'} since you "
            "opened the page. Nothing was overwritten, and your choices are still on this page, "
            f"not saved yet: keep them as version {latest.number + 1}, or take version "
            f"{latest.number}."
            if latest
            else "The context changed since you opened the page; reload."
        )
    sections = list(Section.objects.filter(paper=paper).values_list("pk", "parent_id", "kind"))
    elements = list(Element.objects.filter(paper=paper).values_list("pk", "section_id", "kind"))
    section_ids = {pk for pk, _, _ in sections}
    element_kind = {pk: kind for pk, _, kind in elements}
    kept_sections, kept_elements, not_charts = (
        set(kept_section_ids),
        set(kept_element_ids),
        set(not_chart_ids),
    )
    foreign = (kept_sections - section_ids) | (kept_elements - element_kind.keys())
    if foreign:
        raise InvalidCuration(f"Items {sorted(foreign)[:5]} are not part of this paper.")
    wrong = sorted(pk for pk in not_charts if element_kind.get(pk) != Element.Kind.CHART)
    if wrong:
        raise InvalidCuration(f"Only figures can be marked 'not a chart' (got {wrong[:5]}).")

    if (
        latest is not None
        and note.strip() in ("", latest.note)
        and _same_decisions(latest, kept_sections, kept_elements, not_charts)
    ):
        return latest  # nothing changed: no new version (the caller sees latest_seen again)

    live_sections = sections_in_context({pk: parent for pk, parent, _ in sections}, kept_sections)
    in_context = {
        pk: pk in kept_elements and section_id in live_sections for pk, section_id, _ in elements
    }
    counts = count_context((kind, pk in not_charts) for pk, _, kind in elements if in_context[pk])
    base = None
    if based_on is not None:
        base = CuratedContext.objects.filter(paper=paper, number=based_on).first()
    context = CuratedContext.objects.create(
        paper=paper,
        number=(latest.number + 1) if latest else 1,
        based_on=base or latest,
        created_by=user,
        note=note.strip(),
        table_count=counts.tables,
        chart_count=counts.charts,
        not_chart_count=counts.not_charts,
        paragraph_count=counts.paragraphs,
        removed_section_count=len(section_ids - live_sections),
    )
    CuratedSection.objects.bulk_create(
        CuratedSection(
            context=context,
            section_id=pk,
            kept=pk in kept_sections,
            proposed_removal=proposed_for_removal(kind),
        )
        for pk, _, kind in sections
    )
    CuratedElement.objects.bulk_create(
        (
            CuratedElement(
                context=context,
                element_id=pk,
                kept=pk in kept_elements,
                in_context=in_context[pk],
                not_a_chart=pk in not_charts,
            )
            for pk, _, _ in elements
        ),
        batch_size=500,
    )
    for assignment in Assignment.objects.select_for_update().filter(
        paper=paper, role=Role.WRITER, status=AssignmentStatus.ASSIGNED
    ):
        transition(
            assignment, AssignmentStatus.CURATED, actor=user, note=f"context v{context.number}"
        )
    return context
