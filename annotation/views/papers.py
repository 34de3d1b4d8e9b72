"""Read-only pages over the imported papers: the list, and one paper's context. They live in
annotation because who may see a paper depends on their assignments."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.db.models import Prefetch, Q
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render

from annotation import archiving, lists
from annotation.access import can_view_paper, visible_papers
from annotation.curation.selectors import references
from annotation.views.common import forbidden
from papers.models import Element, ElementPanel, Paper, Section

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
        demo=archiving.demo_counts() if request.user.is_staff else None,
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
