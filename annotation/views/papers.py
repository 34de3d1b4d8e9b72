"""Read-only pages over the imported papers: the list, and one paper's context. They live in
annotation because who may see a paper depends on their assignments."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.db.models import Prefetch
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render

from annotation.selectors import can_view_paper, references, visible_papers
from annotation.views.common import forbidden
from papers.models import Element, ElementPanel, Paper, Section


@login_required
def paper_list(request: HttpRequest) -> HttpResponse:
    # Annotators see the papers assigned to them; admins see all.
    papers = visible_papers(request.user).order_by("-status", "arxiv_id").only(
        "arxiv_id", "version", "title", "primary_category", "status", "status_reason",
        "acceptance", "venue", "table_count", "chart_count", "paragraph_count", "degraded_count",
        "images_status", "synthetic",
    )  # fmt: skip
    synthetic = papers.filter(synthetic=True).count()
    return render(request, "papers/paper_list.html", {"papers": papers, "synthetic": synthetic})


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
