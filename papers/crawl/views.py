"""Staff pages: start a crawl, watch its progress live (htmx polling), pause, cancel, resume."""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.db import transaction
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_POST

from papers.access import staff_required
from papers.crawl.explain import explain
from papers.crawl.forms import CrawlForm, IdCrawlForm
from papers.crawl.listed import listed_counts, listed_rows
from papers.crawl.services import (
    CrawlError,
    create_crawl_run,
    request_stop,
    resume_crawl,
    start_crawl,
    worker_alive,
)
from papers.models import CrawlEvent, CrawlRun


def _start(request: HttpRequest, form: CrawlForm | IdCrawlForm) -> CrawlRun | None:
    """Create the run the valid form asks for and start it; None (the reason on the form)
    when it cannot be."""
    data = form.cleaned_data
    if isinstance(form, IdCrawlForm):
        parameters: dict[str, Any] = {"ids": data["ids"], "keep_all": data["keep_all"]}
    else:
        parameters = {
            "date_from": data["date_from"],
            "date_to": data["date_to"],
            "categories": data["all_categories"],
            "max_papers": data["max_papers"],
            "accepted_only": data["accepted_only"],
        }
    try:
        with transaction.atomic():
            run = create_crawl_run(
                **parameters,
                min_tables=data["min_tables"],
                min_charts=data["min_charts"],
                created_by=request.user,
            )
            # With Redis: an RQ job on the crawl queue; without: a thread here.
            start_crawl(run=run, mode="thread")
    except CrawlError as exc:
        form.add_error(None, exc.reason)
        return None
    return run


@staff_required
def run_list(request: HttpRequest) -> HttpResponse:
    form, id_form = CrawlForm(), IdCrawlForm()
    if request.method == "POST":
        by_ids = request.POST.get("kind") == "ids"
        bound: CrawlForm | IdCrawlForm = (
            IdCrawlForm(request.POST) if by_ids else CrawlForm(request.POST)
        )
        if bound.is_valid() and (run := _start(request, bound)) is not None:
            messages.success(request, f"Crawl run #{run.pk} started.")
            return redirect("crawl:detail", run_id=run.pk)
        if by_ids:
            id_form = bound  # type: ignore[assignment]
        else:
            form = bound  # type: ignore[assignment]
    # Found, fetched and kept counted in this one query (not counts()'s two queries per run).
    runs = CrawlRun.objects.with_item_counts().order_by("-created_at")[:50]
    status = 400 if request.method == "POST" else 200  # refused: its errors on the page
    return render(
        request,
        "papers/crawl/run_list.html",
        {"form": form, "id_form": id_form, "runs": runs},
        status=status,
    )


def _progress_context(run: CrawlRun) -> dict[str, Any]:
    counts = run.counts()
    total = run.target(counts)
    if run.phase == CrawlRun.Phase.SEARCH:
        done, total = len(run.search_done), run.search_chunks
    else:
        done = int(counts["fetched"])  # type: ignore[call-overload]
    # Nothing to do is not "all done": with no total the page shows no bar, and says why.
    percent = min(100, round(100 * done / total)) if total else None
    problems = list(run.events.exclude(level=CrawlEvent.Level.INFO).order_by("-id")[:20])
    return {
        "run": run,
        "counts": counts,
        "done": done,
        "total": total,
        "percent": percent,
        "error": explain(run.error) if run.error else None,
        "problems": [(e, explain(e.message, fallback_advice="")) for e in problems],
        # "running" but its worker is gone (killed, machine restarted): offer to resume it.
        "stale": run.status == CrawlRun.Status.RUNNING and not worker_alive(run),
        **_listed_context(run),
    }


def _listed_context(run: CrawlRun) -> dict[str, Any]:
    if not run.by_ids:
        return {}
    rows = listed_rows(run)
    return {"listed": rows, "listed_counts": listed_counts(rows)}


@staff_required
def run_detail(request: HttpRequest, run_id: int) -> HttpResponse:
    run = get_object_or_404(CrawlRun, pk=run_id)
    return render(request, "papers/crawl/run_detail.html", _progress_context(run))


@staff_required
def run_progress(request: HttpRequest, run_id: int) -> HttpResponse:
    """The live part of the detail page; htmx polls it while the run is active."""
    run = get_object_or_404(CrawlRun, pk=run_id)
    return render(request, "papers/crawl/_progress.html", _progress_context(run))


@staff_required
@require_POST
def run_stop(request: HttpRequest, run_id: int) -> HttpResponse:
    run = get_object_or_404(CrawlRun, pk=run_id)
    action = request.POST.get("action", "cancel")
    try:
        request_stop(run=run, action=action)
    except CrawlError as exc:
        messages.error(request, exc.reason)
    else:
        messages.info(request, f"Crawl run #{run.pk}: {action} requested.")
    return redirect("crawl:detail", run_id=run.pk)


@staff_required
@require_POST
def run_resume(request: HttpRequest, run_id: int) -> HttpResponse:
    run = get_object_or_404(CrawlRun, pk=run_id)
    try:
        with transaction.atomic():
            resume_crawl(run=run, mode="thread")
    except CrawlError as exc:
        messages.error(request, exc.reason)
    else:
        messages.success(request, f"Crawl run #{run.pk} resumed.")
    return redirect("crawl:detail", run_id=run.pk)
