"""API routes: papers (the assignment list, one paper's context, adding papers by arXiv id),
crawl runs and background jobs. Admins only, as the pages."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django.http import Http404
from django.shortcuts import get_object_or_404
from django.urls import URLPattern, path
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import status
from rest_framework.generics import GenericAPIView
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from annotation.assignment import selectors as assignment_selectors
from annotation.curation import selectors as curation_selectors
from annotation.forms import PaperFilterForm
from annotation.models import Subfield
from api import links
from api import serializers_papers as out
from api.errors import FormRefused
from api.forms import read
from api.pagination import Cursor
from jobs.models import Job
from papers.crawl.forms import IdCrawlForm
from papers.crawl.services import CrawlError
from papers.crawl.starting import progress_of, start_requested_crawl
from papers.models import CrawlRun, Paper

FILTERS = [
    OpenApiParameter("subfield", str, description="A subfield code (the admin's, else arXiv's)"),
    OpenApiParameter("status", str, description="found, parsed, … (absent: parsed; empty: any)"),
    OpenApiParameter("acceptance", str, description="accepted, workshop, under_review, unknown"),
    OpenApiParameter("state", str, description="unassigned, assigned (to curate), curated"),
    OpenApiParameter("min_tables", int),
    OpenApiParameter("min_charts", int),
    OpenApiParameter("q", str, description="In the arXiv id and the title"),
]


class PaperList(GenericAPIView):
    """The assignment page's papers (never archived ones), filtered by its form; newest first
    (by id, as every list of the API), not in the page's order of acceptance."""

    pagination_class = Cursor
    serializer_class = out.PaperSerializer

    @extend_schema(parameters=FILTERS, responses=out.PaperSerializer(many=True))
    def get(self, request: Request) -> Response:
        data = request.query_params.copy()
        if "status" not in data:
            data["status"] = Paper.Status.PARSED  # as the page: parsed papers unless told
        codes = list(Subfield.objects.values_list("code", flat=True))
        f = read(PaperFilterForm, data, subfield_codes=codes)
        papers = assignment_selectors.papers_for_assignment(
            subfield=f["subfield"],
            status=f["status"],
            acceptance=f["acceptance"],
            state=f["state"],
            min_tables=f["min_tables"],
            min_charts=f["min_charts"],
            search=f["q"].strip(),
        )
        page = self.paginate_queryset(papers)
        return self.get_paginated_response(
            out.PaperSerializer(page, many=True, context={"request": request}).data
        )


def _section(state: curation_selectors.SectionState, curated: bool) -> dict[str, Any]:
    section = state.section
    return {
        "id": section.pk,
        "anchor": section.anchor,
        "number": section.number,
        "title": section.title,
        "name": str(section),
        "level": section.level,
        "kind": section.kind,
        "parent": section.parent_id,
        "kept": state.kept if curated else None,
        "in_context": state.in_context if curated else None,
    }


def _element(
    state: curation_selectors.ElementState, curated: bool, context: dict[str, Any]
) -> dict[str, Any]:
    element = state.element
    row: dict[str, Any] = {
        "id": element.pk,
        "anchor": element.anchor,
        "section": element.section_id,
        "kept": state.kept if curated else None,
    }
    if element.kind == element.Kind.PARAGRAPH:
        row["text"] = element.text
        row["references"] = [r.pk for r in element.references.all()]
    else:
        row["label"] = element.label
        row["caption"] = element.caption
        row["image_url"] = links.media_url(context, element.picture)
        row["image_error"] = element.image_error
        row["not_a_chart"] = state.not_a_chart
    return row


class PaperDetail(APIView):
    """One paper's parsed context: sections, paragraphs, tables and charts, with what its
    latest curated context kept (as the curation page reads it)."""

    @extend_schema(responses=out.PaperDetailSerializer)
    def get(self, request: Request, arxiv_id: str, version: int) -> Response:
        paper = Paper.objects.defer("raw_html_compressed").filter(
            arxiv_id=arxiv_id, version=version
        )
        found = paper.first()
        if found is None:
            raise Http404(f"No paper {arxiv_id}v{version}.")
        page = curation_selectors.curation_page(found)
        curated = page.shown is not None
        context = {"request": request}
        elements: dict[str, list[dict[str, Any]]] = {"paragraph": [], "table": [], "chart": []}
        for state in page.sections:
            for element in state.elements:
                elements[element.element.kind].append(_element(element, curated, context))
        body = {
            "id": found.pk,
            "arxiv_id": found.arxiv_id,
            "version": found.version,
            "versioned_id": found.versioned_id,
            "title": found.title,
            "primary_category": found.primary_category,
            "status": found.status,
            "acceptance": found.acceptance,
            "archived": found.archived_at is not None,
            "table_count": found.table_count,
            "chart_count": found.chart_count,
            "paragraph_count": found.paragraph_count,
            "curated_version": page.shown.number if page.shown else None,
            "page_url": links.absolute(context, "papers:detail", found.arxiv_id, found.version),
            "sections": [_section(s, curated) for s in page.sections],
            "paragraphs": elements["paragraph"],
            "tables": elements["table"],
            "charts": elements["chart"],
        }
        return Response(out.PaperDetailSerializer(body).data)


def _joined_ids(data: Any) -> Any:
    """The body with `ids` given as a list of strings turned into the form's text, a line each."""
    if not isinstance(data, Mapping) or not isinstance(data.get("ids"), list):
        return data
    ids = data["ids"]
    if not all(isinstance(i, str) for i in ids):
        raise FormRefused({"ids": ['Give the ids as strings (e.g. "2410.00260").']})
    return {**data, "ids": "\n".join(ids)}


class PaperAdd(APIView):
    """Add papers by arXiv id: a crawl over the listed ids, started as the crawl page starts
    it. Answers at once (202); the crawl's route tells how it goes."""

    @extend_schema(request=out.NewPapers, responses={202: out.PaperAddedSerializer})
    def post(self, request: Request) -> Response:
        values = read(IdCrawlForm, _joined_ids(request.data), prefill=True)
        try:
            run = start_requested_crawl(values, by_ids=True, created_by=request.user)
        except CrawlError as exc:  # the page shows it above the form: no field
            raise FormRefused({"__all__": [exc.reason]}) from None
        url = links.absolute({"request": request}, "api:crawl", run.pk)
        body = {"crawl_id": run.pk, "crawl_url": url, "status": run.status, "job_id": run.job_id}
        return Response(
            out.PaperAddedSerializer(body).data,
            status=status.HTTP_202_ACCEPTED,
            headers={"Location": url},
        )


class CrawlList(GenericAPIView):
    """Crawl runs, newest first, with their found, fetched and kept counts."""

    pagination_class = Cursor
    serializer_class = out.CrawlSerializer

    @extend_schema(responses=out.CrawlSerializer(many=True))
    def get(self, request: Request) -> Response:
        page = self.paginate_queryset(CrawlRun.objects.with_item_counts())
        return self.get_paginated_response(
            out.CrawlSerializer(page, many=True, context={"request": request}).data
        )


class CrawlDetail(APIView):
    """A crawl run as its page shows it: counts, progress, problems, each listed id."""

    @extend_schema(responses=out.CrawlDetailSerializer)
    def get(self, request: Request, run_id: int) -> Response:
        run = get_object_or_404(CrawlRun, pk=run_id)
        shown = progress_of(run)
        context = {"request": request}
        error = shown["error"]
        listed = shown.get("listed")
        body = {
            "id": run.pk,
            "scope": run.scope,
            "by_ids": run.by_ids,
            "keep_all": run.keep_all,
            "categories": run.categories,
            "date_from": run.date_from,
            "date_to": run.date_to,
            "max_papers": run.max_papers,
            "min_tables": run.min_tables,
            "min_charts": run.min_charts,
            "status": run.status,
            "phase": run.phase,
            "finished": not run.is_active,
            "stale": shown["stale"],
            "counts": shown["counts"],
            "progress": {
                "done": shown["done"],
                "total": shown["total"],
                "percent": shown["percent"],
            },
            "error": vars(error) if error else None,
            "problems": [
                {
                    "id": event.pk,
                    "level": event.level,
                    "kind": event.kind,
                    "paper": event.paper,
                    "message": event.message,
                    "summary": said.summary,
                    "advice": said.advice,
                    "url": event.url,
                    "created_at": event.created_at,
                }
                for event, said in shown["problems"]
            ],
            "listed": (
                [
                    {
                        "line": row.line,
                        "requested": row.requested,
                        "outcome": row.outcome,
                        "label": row.label,
                        "detail": row.detail,
                        "newer": row.newer,
                        "text": row.text,
                    }
                    for row in listed
                ]
                if listed is not None
                else None
            ),
            "listed_counts": (
                [{"label": label, "count": n} for label, n in shown["listed_counts"]]
                if listed is not None
                else None
            ),
            "job_id": run.job_id,
            "job_url": links.absolute(context, "api:job", run.job_id) if run.job_id else None,
            "created_at": run.created_at,
            "started_at": run.started_at,
            "finished_at": run.finished_at,
            "page_url": links.absolute(context, "crawl:detail", run.pk),
        }
        return Response(out.CrawlDetailSerializer(body).data)


class JobDetail(APIView):
    """A background job: its status, progress, message, error and result."""

    @extend_schema(responses=out.BackgroundJobSerializer)
    def get(self, request: Request, job_id: int) -> Response:
        return Response(out.BackgroundJobSerializer(get_object_or_404(Job, pk=job_id)).data)


urlpatterns: list[URLPattern] = [
    path("papers/", PaperList.as_view(), name="papers"),
    path("papers/add/", PaperAdd.as_view(), name="papers_add"),
    path("papers/<arxiv:arxiv_id>v<id:version>/", PaperDetail.as_view(), name="paper"),
    path("crawls/", CrawlList.as_view(), name="crawls"),
    path("crawls/<int:run_id>/", CrawlDetail.as_view(), name="crawl"),
    path("jobs/<int:job_id>/", JobDetail.as_view(), name="job"),
]
