"""Staff pages: start a crawl, watch its progress live (htmx polling), pause, cancel, resume."""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.db import transaction
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_POST

from papers.access import staff_required
from papers.crawl.forms import CrawlForm, IdCrawlForm
from papers.crawl.services import CrawlError, request_stop, resume_crawl
from papers.crawl.starting import progress_of, start_requested_crawl
from papers.models import CrawlRun


def _start(request: HttpRequest, form: CrawlForm | IdCrawlForm) -> CrawlRun | None:
    """Create the run the valid form asks for and start it; None (the reason on the form)
    when it cannot be."""
    try:
        return start_requested_crawl(
            form.cleaned_data, by_ids=isinstance(form, IdCrawlForm), created_by=request.user
        )
    except CrawlError as exc:
        form.add_error(None, exc.reason)
        return None


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
    status = 400 if request.method == "POST" else 200  # refused: its errors on the page
    return render(
        request,
        "papers/crawl/run_list.html",
        {"form": form, "id_form": id_form, **_runs()},
        status=status,
    )


def _runs() -> dict[str, Any]:
    """The latest runs, each with its progress (`done`, `total`, `percent`, as the run's own
    page has them): found, fetched, kept and pending counted in this one query (not counts()'s
    two queries per run); `active` when one is queued or running (the table polls then)."""
    # Annotated rows (items_*), given done, total and percent here.
    runs: list[Any] = list(CrawlRun.objects.with_item_counts().order_by("-created_at")[:50])
    for run in runs:
        counts = {"pending": run.items_pending, "fetched": run.items_fetched}
        run.done, run.total, run.percent = run.progress(counts)
    return {"runs": runs, "active": any(run.is_active for run in runs)}


@staff_required
def run_rows(request: HttpRequest) -> HttpResponse:
    """The runs table of the list page; htmx polls it while a run is active."""
    return render(request, "papers/crawl/_runs.html", _runs())


@staff_required
def run_detail(request: HttpRequest, run_id: int) -> HttpResponse:
    run = get_object_or_404(CrawlRun, pk=run_id)
    return render(request, "papers/crawl/run_detail.html", progress_of(run))


@staff_required
def run_progress(request: HttpRequest, run_id: int) -> HttpResponse:
    """The live part of the detail page; htmx polls it while the run is active."""
    run = get_object_or_404(CrawlRun, pk=run_id)
    return render(request, "papers/crawl/_progress.html", progress_of(run))


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
