"""Model evaluation pages (staff only): start a run on a finished export, follow its job,
compare runs side by side with plots, download outcomes and comparisons (thin: parse, call a
service, render)."""

from __future__ import annotations

import json

from django.contrib import messages
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_POST

from annotation import inputs as parse
from annotation.downloads import csv_text
from evaluation import plots, services
from evaluation.models import PARTS, EvaluationRun
from evaluation.release import EvaluationError
from evaluation.report import GROUP_TITLES, percent
from evaluation.retrieval import RETRIEVERS
from evaluation.scoring import CHANCE
from evaluation.selectors import human_baseline
from evaluation.services import OUTCOME_COLUMNS
from jobs.dispatch import request_cancel
from papers.access import staff_required

MAX_K = 50


class RunForm(parse.Form):
    """A model run: the export, its part, the endpoint and model, whether hidden test claims
    may go to a remote endpoint, and the context (the whole, or a retriever's top k)."""

    export = parse.WholeNumberField(min=1)
    part = parse.ChoiceField(PARTS)
    endpoint = parse.TextField(64)
    model = parse.TextField(services.MAX_MODEL)
    confirm_remote = parse.FlagField()
    context = parse.ChoiceField(("full", *RETRIEVERS))
    k = parse.WholeNumberField(min=1, max=MAX_K, default=5)


MAX_COMPARED = 8
CSV_COLUMNS = (
    "run",
    "model",
    "release",
    "part",
    "prompt_version",
    "context",
    "group",
    "key",
    "n",
    "correct",
    "accuracy",
    "low",
    "high",
    "unanswered",
    "official_accuracy",
)


@staff_required
def runs(request: HttpRequest) -> HttpResponse:
    form = {
        "export": "",
        "part": "validation",
        "endpoint": "",
        "model": "",
        "context": "full",
        "k": 5,
    }
    if request.method == "POST":
        data = RunForm.read(request.POST)
        form |= {k: data[k] for k in form}
        try:
            run = services.start_run_from(data, by=request.user)
        except EvaluationError as exc:
            messages.error(request, str(exc))
        else:
            messages.success(request, f"Run {run.pk} started.")
            return redirect("evaluation:run", run_id=run.pk)
    context = {
        "runs": EvaluationRun.objects.select_related("job")[:100],
        "exports": services.finished_exports()[:50],
        "endpoints": services.endpoint_choices(),
        "parts": PARTS,
        "retrievers": {name: r.title for name, r in RETRIEVERS.items()},
        "form": form,
    }
    return render(request, "evaluation/runs.html", context)


def _rows(run: EvaluationRun) -> list[dict]:
    human = human_baseline()
    rows = []
    for group, cells in (run.summary.get("breakdowns") or {}).items():
        for cell in cells:
            rows.append(
                cell
                | {
                    "title": GROUP_TITLES.get(group, group),
                    "shown": percent(cell["accuracy"]),
                    "interval": "—"
                    if cell["low"] is None
                    else f"{percent(cell['low'])}–{percent(cell['high'])}",
                    "official_shown": percent(cell["official_accuracy"]),
                    "human": percent(human.accuracy(group, cell["key"])),
                    "human_n": human.answers(group, cell["key"]),
                }
            )
    return rows


@staff_required
def run(request: HttpRequest, run_id: int) -> HttpResponse:
    item = get_object_or_404(EvaluationRun.objects.select_related("job", "export"), pk=run_id)
    template = (
        "evaluation/_run_status.html"
        if request.headers.get("HX-Request")
        else "evaluation/run.html"
    )
    context = {"run": item, "rows": _rows(item), "chance": percent(CHANCE)}
    return render(request, template, context)


@staff_required
@require_POST
def cancel(request: HttpRequest, run_id: int) -> HttpResponse:

    item = get_object_or_404(EvaluationRun.objects.select_related("job"), pk=run_id)
    if item.job is not None:
        request_cancel(item.job)
    return redirect("evaluation:run", run_id=item.pk)


def _outcomes(run: EvaluationRun) -> list[dict]:
    return list(services.run_outcomes(run).values(*OUTCOME_COLUMNS))


@staff_required
def outcomes_csv(request: HttpRequest, run_id: int) -> HttpResponse:
    item = get_object_or_404(EvaluationRun, pk=run_id)
    text = csv_text(OUTCOME_COLUMNS, _outcomes(item))
    return _download(text, f"run-{item.pk}-outcomes.csv", "text/csv")


@staff_required
def outcomes_json(request: HttpRequest, run_id: int) -> HttpResponse:
    item = get_object_or_404(EvaluationRun, pk=run_id)
    body = {"run": _about(item), "outcomes": _outcomes(item)}
    return _download(json.dumps(body, indent=2), f"run-{item.pk}-outcomes.json", "application/json")


def _download(text: str, name: str, kind: str) -> HttpResponse:
    response = HttpResponse(text, content_type=f"{kind}; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{name}"'
    return response


def _about(run: EvaluationRun) -> dict:
    return {
        "id": run.pk,
        "model": run.model,
        "release": run.release_name,
        "part": run.part,
        "source": run.source,
        "endpoint": run.endpoint_name,
        "prompt_version": run.prompt_version,
        "settings": run.settings,
        "context": run.context,
        "retriever": run.retriever or None,
        "k": run.top_k,
        "records": run.records,
        "created_at": run.created_at.isoformat(),
    }


def _compared(request: HttpRequest) -> list[EvaluationRun]:
    ids = parse.parse_id_list(request.GET.getlist("run"), field="run", max_items=MAX_COMPARED)
    chosen = services.latest_runs(ids)
    return [r for r in chosen if r.scored]


def _legend(run: EvaluationRun) -> str:
    """A plot's name for the run: a RAG run says its retriever and k, briefly ("· BM25@5")."""
    if run.context == "full":
        return run.label
    return f"{run.label} · {run.context_label.replace(' top ', '@')}"


@staff_required
def compare(request: HttpRequest) -> HttpResponse:
    chosen = _compared(request)
    series = [
        (_legend(r), {c["key"]: c["accuracy"] for c in r.summary["breakdowns"]["subset"]})
        for r in chosen
    ]
    curves = [
        (_legend(r), {c["key"]: c["accuracy"] for c in r.summary["breakdowns"]["evidence"]})
        for r in chosen
    ]
    table: dict[tuple[str, str], dict] = {}
    for index, r in enumerate(chosen):
        for row in _rows(r):
            entry = table.setdefault(
                (row["title"], row["key"]),
                {
                    "title": row["title"],
                    "key": row["key"],
                    "cells": [None] * len(chosen),
                    "human": row["human"],
                    "human_n": row["human_n"],
                },
            )
            entry["cells"][index] = row
    query = "&".join(f"run={r.pk}" for r in chosen)
    context = {
        "chosen": chosen,
        "rows": list(table.values()),
        "chance": percent(CHANCE),
        "subset_plot": plots.subset_bars(series) if chosen else "",
        "evidence_plot": plots.evidence_curve(curves) if chosen else "",
        "query": query,
    }
    return render(request, "evaluation/compare.html", context)


def _comparison(chosen: list[EvaluationRun]) -> list[dict]:
    return [
        {
            "run": r.pk,
            "model": r.model,
            "release": r.release_name,
            "part": r.part,
            "prompt_version": r.prompt_version,
            "context": r.context_label,
            **{k: c.get(k) for k in CSV_COLUMNS[6:]},
        }
        for r in chosen
        for cells in r.summary["breakdowns"].values()
        for c in cells
    ]


@staff_required
def compare_csv(request: HttpRequest) -> HttpResponse:
    text = csv_text(CSV_COLUMNS, _comparison(_compared(request)))
    return _download(text, "evaluation-comparison.csv", "text/csv")


@staff_required
def compare_json(request: HttpRequest) -> JsonResponse:
    chosen = _compared(request)
    body = {"runs": [_about(r) | {"breakdowns": r.summary["breakdowns"]} for r in chosen]}
    response = JsonResponse(body, json_dumps_params={"indent": 2})
    response["Content-Disposition"] = 'attachment; filename="evaluation-comparison.json"'
    return response
