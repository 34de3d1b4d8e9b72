"""Error analysis pages: the admin starts one from a run and reads its report and downloads;
a tagger lists their cases and tags each (never seeing another tagger's tags)."""

from __future__ import annotations

import json
from typing import cast

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.contrib.auth.models import User
from django.contrib.auth.views import redirect_to_login
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_POST

from annotation import inputs as parse
from annotation.downloads import csv_download
from annotation.views.common import element_image
from evaluation.errors import report, rules, services
from evaluation.errors.models import ErrorAnalysis, ErrorCase, ErrorTag
from evaluation.models import EvaluationRun
from papers.access import forbidden, staff_required


class StartForm(parse.Form):
    sample_size = parse.WholeNumberField(min=1, max=rules.MAX_SAMPLE, default=rules.DEFAULT_SAMPLE)


class TagForm(parse.Form):
    categories = parse.ChoicesField(rules.CODES, max_items=len(rules.CODES))
    note = parse.TextField(services.MAX_NOTE)


def _user(request: HttpRequest) -> User:
    """The signed-in person (the views' decorators have made sure of it)."""
    return cast(User, request.user)


@staff_required
@require_POST
def start(request: HttpRequest, run_id: int) -> HttpResponse:
    run = get_object_or_404(EvaluationRun, pk=run_id)
    errors: dict[str, str] = {}
    data = StartForm.read(request.POST, errors=errors)
    try:
        if errors:
            raise rules.ErrorAnalysisRefused(next(iter(errors.values())))
        analysis = services.start_analysis(run=run, by=_user(request), sample_size=data.sample_size)
    except rules.ErrorAnalysisRefused as exc:
        messages.error(request, str(exc))
        return redirect("evaluation:run", run_id=run.pk)
    messages.success(request, f"Error analysis started: {analysis.cases.count()} cases.")
    return redirect("evaluation:error_analysis", analysis_id=analysis.pk)


@staff_required
def analyses(request: HttpRequest) -> HttpResponse:
    chosen = list(ErrorAnalysis.objects.select_related("run")[:50])
    context = {"analyses": chosen, "chart": report.overview_chart(chosen) if chosen else ""}
    return render(request, "evaluation/errors/analyses.html", context)


@staff_required
def analysis(request: HttpRequest, analysis_id: int) -> HttpResponse:
    item = get_object_or_404(ErrorAnalysis.objects.select_related("run"), pk=analysis_id)
    if request.method == "POST":
        added = services.assign_waiting(analysis=item, by=_user(request))
        messages.info(request, f"{added} tagger assignment(s) added.")
        return redirect("evaluation:error_analysis", analysis_id=item.pk)
    context = {
        "analysis": item,
        "run": item.run,
        "report": report.summary(item),
        "categories": rules.CATEGORIES,
    }
    return render(request, "evaluation/errors/analysis.html", context)


@staff_required
def tags_csv(request: HttpRequest, analysis_id: int) -> HttpResponse:
    item = get_object_or_404(ErrorAnalysis, pk=analysis_id)
    return csv_download(
        f"error-analysis-{item.pk}-tags.csv", report.TAG_COLUMNS, report.tag_rows([item])
    )


@staff_required
def cases_csv(request: HttpRequest, analysis_id: int) -> HttpResponse:
    item = get_object_or_404(ErrorAnalysis, pk=analysis_id)
    return csv_download(
        f"error-analysis-{item.pk}-cases.csv", report.CASE_COLUMNS, report.case_rows([item])
    )


@staff_required
def analysis_json(request: HttpRequest, analysis_id: int) -> HttpResponse:
    item = get_object_or_404(ErrorAnalysis.objects.select_related("run"), pk=analysis_id)
    response = HttpResponse(
        json.dumps(report.summary_json(item), indent=2, ensure_ascii=False),
        content_type="application/json; charset=utf-8",
    )
    response["Content-Disposition"] = f'attachment; filename="error-analysis-{item.pk}.json"'
    return response


@login_required
def my_cases(request: HttpRequest) -> HttpResponse:
    tags = (
        ErrorTag.objects.filter(tagger_id=request.user.pk)
        .select_related("case__outcome", "case__analysis__run", "case__claim")
        .order_by("submitted_at", "case__analysis", "case__subset", "case_id")
    )
    return render(request, "evaluation/errors/my_cases.html", {"tags": tags})


def _case_context(case: ErrorCase) -> dict:
    claim = case.claim
    return {
        "case": case,
        "claim": claim,
        "pair": claim.pair,
        "paper": claim.pair.paper,
        "outcome": case.outcome,
        "run": case.analysis.run,
        "evidence": claim.evidence.select_related("section")
        .defer("table_html", "cells")
        .order_by("order"),
        "categories": rules.CATEGORIES,
    }


def case(request: HttpRequest, case_id: int) -> HttpResponse:
    if not request.user.is_authenticated:
        return redirect_to_login(request.get_full_path())
    item = get_object_or_404(
        ErrorCase.objects.select_related("claim__pair__paper", "outcome", "analysis__run"),
        pk=case_id,
    )
    context = _case_context(item)
    mine = ErrorTag.objects.filter(case=item, tagger_id=request.user.pk).first()
    if request.user.is_staff and request.method == "GET" and (mine is None or mine.submitted):
        # Admins see every tagger's tags (an admin tagging the case: once theirs is in).
        every = item.tags.select_related("tagger")
        return render(
            request, "evaluation/errors/case.html", context | {"tag": mine, "all_tags": every}
        )
    try:
        tag = services.may_tag(item, request.user)
    except rules.ErrorAnalysisRefused as exc:
        return forbidden(request, str(exc))
    errors: dict[str, str] = {}
    status = 200
    if request.method == "POST":
        data = TagForm.read(request.POST, errors=errors)
        try:
            if errors:
                raise rules.ErrorAnalysisRefused(next(iter(errors.values())))
            services.submit_tag(
                case=item, by=request.user, categories=data.categories, note=data.note
            )
        except rules.ErrorAnalysisRefused as exc:
            errors.setdefault("", str(exc))
            tag.categories, tag.note, status = data.categories, data.note, 400
        else:
            messages.success(request, "Your tag is recorded.")
            return redirect("evaluation:my_error_cases")
    context |= {"tag": tag, "errors": errors, "all_tags": None}
    return render(request, "evaluation/errors/case.html", context, status=status)


@login_required
def case_image(request: HttpRequest, case_id: int, element_id: int) -> HttpResponse:
    """A table or chart the case's claim rests on, for those who may read the case: an admin,
    or a tagger of it who is still an eligible expert (the paper's files are not theirs
    otherwise). Any other element is not found, as for an id that names none."""
    item = get_object_or_404(ErrorCase.objects.select_related("claim__pair"), pk=case_id)
    if not request.user.is_staff:
        try:
            services.may_tag(item, _user(request))
        except rules.ErrorAnalysisRefused as exc:
            return forbidden(request, str(exc))
    if not item.claim.evidence.filter(pk=element_id, kind__in=("table", "chart")).exists():
        raise Http404("Not a table or chart this claim rests on.")
    return element_image(paper_id=item.claim.pair.paper_id, element_id=element_id)
