"""Saving a paper's curated context (SciVer's context curation)."""

from __future__ import annotations

from collections.abc import Iterable

from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction

from annotation import access
from annotation.assignment.services import transition
from annotation.curation import rules
from annotation.curation import selectors as curation_selectors
from annotation.curation.rules import Decisions, proposed_for_removal
from annotation.errors import (
    NotAssigned,
)
from annotation.limits import MAX_CONTEXT_NOTE, refuse_long
from annotation.models import (
    Assignment,
    AssignmentStatus,
    CuratedContext,
    CuratedElement,
    CuratedSection,
    Role,
)
from papers.models import Element, Paper, Section


def _same_decisions(context: CuratedContext, decisions: Decisions) -> bool:
    """Whether `context` recorded these decisions."""
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
    return (kept_sections, kept_elements, flagged) == (
        decisions.sections,
        decisions.elements,
        decisions.not_charts,
    )


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
    refuse_long([("note", note, MAX_CONTEXT_NOTE)], nothing="Nothing was saved")
    paper = Paper.objects.select_for_update().only("id", "arxiv_id", "version").get(pk=paper.pk)
    if not access.can_curate(user, paper.pk):
        raise NotAssigned(f"{paper.versioned_id} is not assigned to you.")
    latest = curation_selectors.latest_context(paper.pk)
    rules.check_latest_seen(
        latest=latest.number if latest else None,
        saved_by=latest.created_by.get_username() if latest and latest.created_by else None,
        latest_seen=latest_seen,
    )
    sections = list(Section.objects.filter(paper=paper).values_list("pk", "parent_id", "kind"))
    elements = list(Element.objects.filter(paper=paper).values_list("pk", "section_id", "kind"))
    decisions = Decisions(
        frozenset(kept_section_ids), frozenset(kept_element_ids), frozenset(not_chart_ids)
    )
    rules.check_decisions(
        decisions,
        section_ids={pk for pk, _, _ in sections},
        element_kinds={pk: kind for pk, _, kind in elements},
    )
    if (
        latest is not None
        and note.strip() in ("", latest.note)
        and _same_decisions(latest, decisions)
    ):
        return latest  # nothing changed: no new version (the caller sees latest_seen again)
    plan = rules.plan_context(decisions, sections=sections, elements=elements)
    context = _next_version(paper, latest, plan, by=user, based_on=based_on, note=note)
    _write_decisions(context, decisions, sections, elements, plan)
    for assignment in Assignment.objects.select_for_update().filter(
        paper=paper, role=Role.WRITER, status=AssignmentStatus.ASSIGNED
    ):
        transition(
            assignment, AssignmentStatus.CURATED, actor=user, note=f"context v{context.number}"
        )
    return context


def _next_version(
    paper: Paper,
    latest: CuratedContext | None,
    plan: rules.ContextPlan,
    *,
    by: AbstractBaseUser,
    based_on: int | None,
    note: str,
) -> CuratedContext:
    """The paper's next context version, with the counts of its `plan`."""
    base = None
    if based_on is not None:
        base = CuratedContext.objects.filter(paper=paper, number=based_on).first()
    context = CuratedContext.objects.create(
        paper=paper,
        number=(latest.number + 1) if latest else 1,
        based_on=base or latest,
        created_by=by,
        note=note.strip(),
        table_count=plan.counts.tables,
        chart_count=plan.counts.charts,
        not_chart_count=plan.counts.not_charts,
        paragraph_count=plan.counts.paragraphs,
        removed_section_count=plan.removed_sections,
    )
    return context


def _write_decisions(
    context: CuratedContext,
    decisions: Decisions,
    sections: list[tuple[int, int | None, str]],
    elements: list[tuple[int, int, str]],
    plan: rules.ContextPlan,
) -> None:
    """One row per section and per element of the paper: what the curator decided of it."""
    CuratedSection.objects.bulk_create(
        CuratedSection(
            context=context,
            section_id=pk,
            kept=pk in decisions.sections,
            proposed_removal=proposed_for_removal(kind),
        )
        for pk, _, kind in sections
    )
    CuratedElement.objects.bulk_create(
        (
            CuratedElement(
                context=context,
                element_id=pk,
                kept=pk in decisions.elements,
                in_context=plan.in_context[pk],
                not_a_chart=pk in decisions.not_charts,
            )
            for pk, _, _ in elements
        ),
        batch_size=500,
    )
