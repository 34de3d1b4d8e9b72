"""Read-only pages over the imported papers: the list, and one paper's context."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.db.models import Prefetch
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render

from papers.models import Element, ElementPanel, Paper, Section


@login_required
def paper_list(request: HttpRequest) -> HttpResponse:
    papers = Paper.objects.order_by("-status", "arxiv_id").only(
        "arxiv_id", "version", "title", "primary_category", "status", "status_reason",
        "acceptance", "venue", "table_count", "chart_count", "paragraph_count", "degraded_count",
        "images_status",
    )  # fmt: skip
    return render(request, "papers/paper_list.html", {"papers": papers})


@login_required
def paper_detail(request: HttpRequest, arxiv_id: str, version: int) -> HttpResponse:
    # Until assignment exists (issue 4), the full context is a staff-only view.
    if not request.user.is_staff:
        return HttpResponse("Only admins can open papers that are not assigned to them.", status=403)
    paper = get_object_or_404(Paper, arxiv_id=arxiv_id, version=version)
    elements = Element.objects.filter(paper=paper).order_by("order").prefetch_related(
        Prefetch("panels", queryset=ElementPanel.objects.order_by("order")),
        Prefetch("references", queryset=Element.objects.only("anchor", "label")),
    )
    by_section: dict[int, list[Element]] = {}
    for element in elements:
        by_section.setdefault(element.section_id, []).append(element)
    sections = [
        (section, by_section.get(section.pk, []))
        for section in Section.objects.filter(paper=paper).order_by("order")
    ]
    return render(request, "papers/paper_detail.html", {"paper": paper, "sections": sections})
