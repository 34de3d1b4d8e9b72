"""The curation page: an assigned paper's context, the proposal, and saving a version."""

from __future__ import annotations

from dataclasses import dataclass

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse, HttpResponseBadRequest, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.template.loader import render_to_string
from django.utils.html import format_html
from django.utils.safestring import mark_safe

from annotation import access
from annotation import inputs as parse
from annotation.curation import rules as context_rules
from annotation.curation import selectors as curation_selectors
from annotation.curation import services as curation_services
from annotation.errors import AnnotationError, StaleContext
from annotation.limits import MAX_CONTEXT_NOTE
from annotation.models import CuratedContext
from annotation.views import refusals
from annotation.views.common import forbidden
from papers.models import Element, Paper

PAPER_FIELDS = (
    "id",
    "arxiv_id",
    "version",
    "title",
    "primary_category",
    "acceptance",
    "venue",
    "table_count",
    "chart_count",
    "paragraph_count",
    "degraded_count",
    "license_name",
    "license_url",
)


class CurationForm(parse.Form):
    """The curator's decisions: the sections and elements kept, the figures that are not
    charts, the latest version the page saw and the one it was based on, and a note."""

    keep_section = parse.IdsField(max_items=100_000)
    keep = parse.IdsField(max_items=100_000)
    not_chart = parse.IdsField(max_items=100_000)
    latest_seen = parse.WholeNumberField(min=1)
    based_on = parse.WholeNumberField(min=1)
    note = parse.TextField(MAX_CONTEXT_NOTE)


@login_required
def curate(request: HttpRequest, arxiv_id: str, version: int) -> HttpResponse:
    paper = get_object_or_404(Paper.objects.only(*PAPER_FIELDS), arxiv_id=arxiv_id, version=version)
    if not access.can_curate(request.user, paper.pk):
        return forbidden(request, f"{paper.versioned_id} is not assigned to you.")
    if request.method == "POST":
        return _save(request, paper)
    try:
        version = parse.parse_int(request.GET.get("version"), field="version", min=1)
        page = curation_selectors.curation_page(paper, version)
    except CuratedContext.DoesNotExist:
        return HttpResponseBadRequest("No such version of this paper's context.")
    return render(request, "annotation/curate.html", _page_context(page))


def _page_context(page: curation_selectors.CurationPage, **more) -> dict:
    """The page and the sections held out by a removed section around them: their keep boxes
    (and their elements') show "removed with its section", not their own ticked choice."""
    live = {s.section.pk for s in page.sections if s.in_context}
    held = {
        s.section.pk
        for s in page.sections
        if s.section.parent_id and s.section.parent_id not in live
    }
    return {"page": page, "held_sections": held, **more}


def _save(request: HttpRequest, paper: Paper) -> HttpResponse:
    problems: dict[str, str] = {}
    form = CurationForm.read(request.POST, errors=problems)
    decisions = (set(form["keep_section"]), set(form["keep"]), set(form["not_chart"]))
    try:
        if problems:
            raise AnnotationError(" ".join(problems.values()))
        context = curation_services.save_curated_context(
            paper=paper,
            user=request.user,
            kept_section_ids=decisions[0],
            kept_element_ids=decisions[1],
            not_chart_ids=decisions[2],
            latest_seen=form["latest_seen"],
            based_on=form["based_on"],
            note=form["note"],
        )
    except AnnotationError as exc:
        # Show the page again with what the curator chose, so nothing they did is lost (a form
        # that sent unreadable ids shows the context as it was: its choices cannot be read).
        page = curation_selectors.curation_page(paper)
        stale = isinstance(exc, StaleContext)
        found = _differences(paper, page, decisions, form["based_on"]) if stale else None
        if not problems:
            page = curation_selectors.with_decisions(page, *decisions)
        context = _page_context(page, error=exc.message, note=form["note"], stale=found)
        status = 409 if stale else 400
        if refusals.is_script(request):
            return JsonResponse(
                {
                    "error": exc.message,
                    "reason": exc.reason if stale else "invalid",
                    "message": exc.message,
                    "errors": problems,
                    "version": page.latest.number if stale and page.latest else None,
                    "html": render_to_string(
                        "annotation/_curation_refusal.html", context, request=request
                    ),
                },
                status=status,
            )
        return render(request, "annotation/curate.html", context, status=status)
    if context.number == form["latest_seen"]:
        messages.info(request, f"Nothing changed since context v{context.number}: nothing saved.")
        return refusals.done(
            request, redirect("annotation:curate", arxiv_id=paper.arxiv_id, version=paper.version)
        )
    verdict = (
        "ready for claims"
        if context.ready_for_claims
        else mark_safe("<strong>not ready for claims</strong>: fewer than three tables/charts")
    )
    messages.success(
        request,
        format_html(
            "Saved context v{}: {} tables and {} charts kept, {}.",
            context.number,
            context.table_count,
            context.chart_count,
            verdict,
        ),
    )
    return refusals.done(
        request, redirect("annotation:curate", arxiv_id=paper.arxiv_id, version=paper.version)
    )


@dataclass(frozen=True)
class StaleCuration:
    """A save refused because someone saved meanwhile: who, which version, and where it differs
    from what the curator chose (each line: the item, the choice, theirs, yours, who moved)."""

    latest: CuratedContext
    based_on: int | None
    lines: list[tuple[str, str, str, str, str]]


def _differences(
    paper: Paper, page: curation_selectors.CurationPage, decisions, based_on: int | None
) -> StaleCuration | None:
    """The newest version (what `page` shows) set against the curator's posted choices, and
    against the version they started from."""
    latest = page.latest
    if latest is None:
        return None
    theirs = curation_selectors.context_decisions(paper.pk, latest.number)
    yours = context_rules.Decisions(*(frozenset(d) for d in decisions))
    base = curation_selectors.context_decisions(paper.pk, based_on) if based_on else None
    names: dict[tuple[str, int], str] = {}
    for state in page.sections:
        section = state.section
        names["section", section.pk] = (
            f"Section {section.number} {section.title or section.anchor}".replace("  ", " ")
        )
        for element in state.elements:
            e = element.element
            names["element", e.pk] = e.display_name
    who = latest.created_by.get_username() if latest.created_by else "someone"
    moved = {
        "them": f"{who} changed it",
        "you": "you changed it",
        "both": "both changed it",
        "": "",
    }

    def shown(choice: str, value: bool) -> str:
        if choice == "keep":
            return "kept" if value else "removed"
        return "not a chart" if value else "a chart"

    lines = [
        (
            names.get((d.kind, d.id), str(d.id)),
            d.choice,
            shown(d.choice, d.theirs),
            shown(d.choice, d.yours),
            moved[d.changed_by],
        )
        for d in context_rules.differences(names, theirs, yours, base)
    ]
    return StaleCuration(latest=latest, based_on=based_on, lines=lines)


@login_required
def table_html(request: HttpRequest, arxiv_id: str, version: int, element_id: int) -> HttpResponse:
    """The HTML version of a table, loaded on demand (htmx) under its screenshot."""
    paper = get_object_or_404(Paper.objects.only("id"), arxiv_id=arxiv_id, version=version)
    if not access.can_view_paper(request.user, paper.pk):
        return forbidden(request, "This paper is not assigned to you.")
    element = get_object_or_404(
        Element.objects.only("id", "table_html"), pk=element_id, paper=paper, kind="table"
    )
    return render(request, "annotation/_table_html.html", {"element": element})
