"""Starting a crawl from an admin's request, and how far a run has got: what the crawl pages
and the API share, so that both start the same runs and report the same progress."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django.db import transaction

from papers.crawl.explain import explain
from papers.crawl.listed import listed_counts, listed_rows
from papers.crawl.services import create_crawl_run, start_crawl, worker_alive
from papers.models import CrawlEvent, CrawlRun


def start_requested_crawl(data: Mapping[str, Any], *, by_ids: bool, created_by: Any) -> CrawlRun:
    """Create and start the run that a valid crawl form's cleaned values ask for (`by_ids`: an
    IdCrawlForm's, else a CrawlForm's). Raises CrawlError (its reason for people) when it cannot
    be; then nothing is left behind."""
    if by_ids:
        parameters: dict[str, Any] = {"ids": data["ids"], "keep_all": data["keep_all"]}
    else:
        parameters = {
            "date_from": data["date_from"],
            "date_to": data["date_to"],
            "categories": data["all_categories"],
            "max_papers": data["max_papers"],
            "accepted_only": data["accepted_only"],
        }
    with transaction.atomic():
        run = create_crawl_run(
            **parameters,
            min_tables=data["min_tables"],
            min_charts=data["min_charts"],
            created_by=created_by,
        )
        # With Redis: an RQ job on the crawl queue; without: a thread here.
        start_crawl(run=run, mode="thread")
    return run


def progress_of(run: CrawlRun) -> dict[str, Any]:
    """What the run's page shows of it: counts, done of total (and the percent, None when there
    is no total yet), its error and problems explained, whether its worker is gone, and for a
    crawl by ids each listed line's outcome."""
    counts = run.counts()
    done, total, percent = run.progress(counts)
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
        **_listed(run),
    }


def _listed(run: CrawlRun) -> dict[str, Any]:
    if not run.by_ids:
        return {}
    rows = listed_rows(run)
    return {"listed": rows, "listed_counts": listed_counts(rows)}
