"""Read-only pages over the imported papers: the list, and one paper's context. They sit above
the stages: who may see a paper depends on their assignments (`annotation.access`), and the
admins' list offers to archive the demo (`workspace.demo.archive`)."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.db.models import Prefetch, Q
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render
from django.views.decorators.http import require_POST

from annotation import archiving, lists
from annotation import inputs as parse
from annotation.access import can_view_paper, visible_papers
from annotation.curation.selectors import references
from annotation.errors import AnnotationError
from annotation.views.common import forbidden, redirect_back
from papers.access import staff_required
from papers.models import Element, ElementPanel, Paper, Section
from workspace.demo.archive import archive_demo, demo_counts, demo_strands, unarchive_demo

PAPERS_PER_PAGE = 100


@login_required
def paper_list(request: HttpRequest) -> HttpResponse:
    # Annotators see the papers assigned to them (never archived ones); admins see all, with
    # search, filters, pages and the archiving actions.
    filters = lists.PaperListForm(request.GET or None, status_choices=list(Paper.Status.choices))
    papers = visible_papers(request.user).only(
        "arxiv_id",
        "version",
        "title",
        "primary_category",
        "status",
        "status_reason",
        "acceptance",
        "venue",
        "table_count",
        "chart_count",
        "paragraph_count",
        "degraded_count",
        "images_status",
        "synthetic",
        "archived_at",
    )
    show = filters.value("show") if request.user.is_staff else lists.SHOW_LIVE
    papers = lists.archived_filter(papers, show)
    if query := filters.value("q"):
        papers = papers.filter(Q(arxiv_id__icontains=query) | Q(title__icontains=query))
    if status := filters.value("status"):
        papers = papers.filter(status=status)
    papers = papers.order_by("-status", "arxiv_id", "version")
    context = lists.page_of(request, papers, PAPERS_PER_PAGE)
    context.update(
        filters=filters,
        filtered=bool(filters.is_valid() and any(filters.cleaned_data.values())),
        synthetic=papers.filter(synthetic=True).count(),
        archived=(
            Paper.objects.filter(archived_at__isnull=False).count()
            if request.user.is_staff and show == lists.SHOW_LIVE
            else 0
        ),
        demo=demo_counts() if request.user.is_staff else None,
    )
    refused = filters.is_bound and not filters.is_valid()  # its errors show, unfiltered
    return render(request, "papers/paper_list.html", context, status=400 if refused else 200)


@login_required
def paper_detail(request: HttpRequest, arxiv_id: str, version: int) -> HttpResponse:
    paper = get_object_or_404(
        Paper.objects.defer("raw_html_compressed"), arxiv_id=arxiv_id, version=version
    )
    if not can_view_paper(request.user, paper.pk):
        return forbidden(request, "This paper is not assigned to you.")
    elements = (
        Element.objects.filter(paper=paper)
        .order_by("order")
        .prefetch_related(
            Prefetch("panels", queryset=ElementPanel.objects.order_by("order")),
            Prefetch("references", queryset=references().only("anchor", "label")),
        )
    )
    by_section: dict[int, list[Element]] = {}
    for element in elements:
        by_section.setdefault(element.section_id, []).append(element)
    sections = [
        (section, by_section.get(section.pk, []))
        for section in Section.objects.filter(paper=paper).order_by("order")
    ]
    return render(request, "papers/paper_detail.html", {"paper": paper, "sections": sections})


@staff_required
@require_POST
def archive(request: HttpRequest) -> HttpResponse:
    """Archive or un-archive the demo data or the selected papers. Archiving the demo is asked
    twice: without `confirm` the answer is the page saying what it would strand, and nothing is
    archived."""
    action = request.POST.get("action", "")
    if action == "archive_demo" and request.POST.get("confirm") != "yes":
        return render(
            request,
            "workspace/archive_demo_confirm.html",
            {"demo": demo_counts(), "strands": demo_strands()},
        )
    note = parse.parse_text(
        request.POST.get("note", ""), field="note", max_length=archiving.MAX_NOTE
    )
    try:
        _archive(request, action, note)
    except AnnotationError as exc:  # the service's own refusal (the note is checked above)
        messages.error(request, exc.message)
    return redirect_back(request, default="papers:list")


def _archive(request: HttpRequest, action: str, note: str) -> None:
    if action == "archive_demo":
        result = archive_demo(by=request.user)
        messages.success(
            request,
            f"Archived {result.papers} synthetic paper(s) and {len(result.accounts)} synthetic "
            "expert(s): hidden from lists, queues, statistics, agreement, splits and exports; "
            "nothing was deleted.",
        )
        for name, why in result.kept:
            messages.warning(request, f"Not archived: {name}: {why}")
    elif action == "unarchive_demo":
        result = unarchive_demo(by=request.user)
        messages.success(
            request,
            f"Un-archived {result.papers} synthetic paper(s) and {len(result.accounts)} "
            "synthetic expert(s) (they stay inactive).",
        )
    elif action in ("archive_papers", "unarchive_papers"):
        ids = parse.parse_id_list(request.POST.getlist("papers"), field="papers")
        papers = list(Paper.objects.filter(pk__in=ids).only("id"))
        if not papers:
            messages.error(request, "Select at least one paper.")
        elif action == "archive_papers":
            n = archiving.archive_papers(papers=papers, by=request.user, note=note)
            messages.success(request, f"Archived {n} paper(s); their work waits, untouched.")
        else:
            n = archiving.unarchive_papers(papers=papers, by=request.user, note=note)
            messages.success(request, f"Un-archived {n} paper(s), with their work as it was.")
    else:
        messages.error(request, "Unknown action.")
