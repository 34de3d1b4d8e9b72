"""Writes on crawl runs: create, start (job), pause, cancel, resume; each logs a CrawlEvent."""

from __future__ import annotations

import os
import re
import socket
from datetime import date, timedelta
from typing import Any

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from jobs.dispatch import Mode, request_cancel, start_job
from jobs.models import Job
from papers.crawl.ids import ListedId, id_batches
from papers.models import CrawlEvent, CrawlListedId, CrawlRun
from papers.storable import storable_text

DEFAULT_CATEGORIES = ["cs.CV", "cs.CL", "cs.RO", "cs.SE", "cs.LG", "cs.AI", "cs.IR", "cs.CR"]
DEFAULT_WINDOW = (date(2024, 9, 1), date(2024, 11, 15))
CRAWL_JOB_TIMEOUT = 48 * 3600
_CATEGORY = re.compile(r"^[a-z][a-z\-]*(\.[A-Za-z][A-Za-z\-]*)?$")


class CrawlError(Exception):
    """A crawl request that cannot be honoured; `reason` says why, for people."""

    def __init__(self, reason: str):
        super().__init__(reason)
        self.reason = reason


class RunBusy(CrawlError):
    """The run is being executed by a live worker."""


def this_worker() -> str:
    return f"{socket.gethostname()}:{os.getpid()}"


def worker_alive(run: CrawlRun) -> bool:
    """Whether the process recorded as running `run` still is (same host: by pid)."""
    if not run.worker:
        return False
    host, _, pid = run.worker.rpartition(":")
    stale_after = float(getattr(settings, "CRAWL_STALE_SECONDS", 1800))
    recent = run.heartbeat_at is not None and (
        (timezone.now() - run.heartbeat_at).total_seconds() < stale_after
    )
    if host != socket.gethostname():
        return recent  # another machine: only its heartbeat can tell
    try:
        os.kill(int(pid), 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass  # exists, under another user
    except ValueError:
        return False
    # A pid can be reused after a restart: an old heartbeat means it is not our worker.
    return recent


def log_event(
    run: CrawlRun,
    message: str,
    *,
    kind: str = "status",
    level: str = CrawlEvent.Level.INFO,
    paper: str = "",
    item_id: int | None = None,
    url: str = "",
) -> CrawlEvent:
    # A message quotes what a page or a server said: it may hold what no column takes.
    return CrawlEvent.objects.create(
        run=run,
        item_id=item_id,
        paper=storable_text(paper)[:48],
        level=level,
        kind=kind[:32],
        message=storable_text(message)[:10000],
        url=storable_text(url)[:2000],
    )


def create_crawl_run(
    *,
    date_from: date | None = None,
    date_to: date | None = None,
    categories: list[str] | None = None,
    max_papers: int | None = None,
    accepted_only: bool = False,
    min_tables: int | None = None,
    min_charts: int | None = None,
    chunk_days: int | None = None,
    retry_failed: bool = False,
    images: str = "auto",
    created_by: Any = None,
    ids: list[ListedId] | None = None,
    keep_all: bool = False,
) -> CrawlRun:
    """Record a crawl run (status queued) after checking its parameters: a window of days and
    categories, or `ids` (a list read by papers.crawl.ids, which has refused what is no id)."""
    if ids is not None:
        return _create_id_run(
            ids,
            max_papers=max_papers,
            min_tables=min_tables,
            min_charts=min_charts,
            retry_failed=retry_failed,
            images=images,
            created_by=created_by,
            keep_all=keep_all,
        )
    date_from = date_from or DEFAULT_WINDOW[0]
    date_to = date_to or DEFAULT_WINDOW[1]
    categories = [c.strip() for c in (categories or DEFAULT_CATEGORIES) if c.strip()]
    if date_from > date_to:
        raise CrawlError(f"the window is empty: {date_from} is after {date_to}")
    if not categories:
        raise CrawlError("no categories to crawl")
    bad = [c for c in categories if not _CATEGORY.match(c)]
    if bad:
        raise CrawlError(f"not arXiv categories: {', '.join(bad)} (e.g. cs.CL)")
    common = _common(max_papers, min_tables, min_charts, retry_failed, images, created_by)
    chunk_days = chunk_days or int(getattr(settings, "ARXIV_SEARCH_CHUNK_DAYS", 1))
    if chunk_days < 1:
        raise CrawlError("the search range must be at least 1 day")
    with transaction.atomic():
        run = CrawlRun.objects.create(
            date_from=date_from,
            date_to=date_to,
            categories=list(dict.fromkeys(categories)),
            accepted_only=accepted_only,
            chunk_days=chunk_days,
            search_chunks=len(date_chunks(date_from, date_to, chunk_days)),
            keep_all=keep_all,
            **common,
        )
        log_event(run, "created")
    return run


def _common(
    max_papers: int | None,
    min_tables: int | None,
    min_charts: int | None,
    retry_failed: bool,
    images: str,
    created_by: Any,
) -> dict[str, Any]:
    """The fields every run has, checked: CrawlError for a value no run can take."""
    if max_papers is not None and max_papers < 1:
        raise CrawlError("max papers must be at least 1")
    if images not in ("auto", "now", "job", "none"):
        raise CrawlError(f"unknown images mode {images!r}")
    return {
        "max_papers": max_papers,
        "min_tables": settings.MIN_TABLES if min_tables is None else min_tables,
        "min_charts": settings.MIN_CHARTS if min_charts is None else min_charts,
        "retry_failed": retry_failed,
        "images": images,
        "created_by": created_by if getattr(created_by, "pk", None) else None,
    }


def _create_id_run(
    ids: list[ListedId],
    *,
    max_papers: int | None,
    min_tables: int | None,
    min_charts: int | None,
    retry_failed: bool,
    images: str,
    created_by: Any,
    keep_all: bool,
) -> CrawlRun:
    """A run over listed ids: no window, no categories, no accepted-first order; an id listed
    twice (in any version) is looked up once, the later line says where the first is."""
    if not ids:
        raise CrawlError("the list holds no id")
    common = _common(max_papers, min_tables, min_charts, retry_failed, images, created_by)
    first_line: dict[str, int] = {}
    rows = []
    for listed in sorted(ids, key=lambda i: i.line):
        first = first_line.setdefault(listed.arxiv_id, listed.line)
        duplicate = first != listed.line
        rows.append(
            CrawlListedId(
                line=listed.line,
                arxiv_id=listed.arxiv_id,
                version=listed.version,
                outcome=(
                    CrawlListedId.Outcome.DUPLICATE if duplicate else CrawlListedId.Outcome.PENDING
                ),
                detail=f"also on line {first}: looked up once" if duplicate else "",
            )
        )
    looked_up = [row.line for row in rows if row.outcome == CrawlListedId.Outcome.PENDING]
    with transaction.atomic():
        run = CrawlRun.objects.create(
            date_from=None,
            date_to=None,
            by_ids=True,
            categories=[],
            search_chunks=len(id_batches(looked_up)),
            keep_all=keep_all,
            **common,
        )
        for row in rows:
            row.run = run
        CrawlListedId.objects.bulk_create(rows)
        twice = len(rows) - len(looked_up)
        log_event(
            run,
            f"created: {len(rows)} listed ids"
            + (f" ({twice} listed twice, looked up once)" if twice else ""),
        )
    return run


def start_crawl(*, run: CrawlRun, mode: Mode = "auto") -> Job:
    """Run it as a job on the `crawl` queue (RQ with Redis; else inline or a thread)."""
    if run.status != CrawlRun.Status.QUEUED:
        raise CrawlError(f"run #{run.pk} is {run.status}, not queued")
    with transaction.atomic():
        job = start_job(
            kind="crawl",
            function="papers.crawl.jobs.run_crawl",
            params={"run_id": run.pk},
            queue="crawl",
            timeout=CRAWL_JOB_TIMEOUT,
            mode=mode,
        )
        CrawlRun.objects.filter(pk=run.pk).update(job=job)
    run.refresh_from_db()
    return job


def request_stop(*, run: CrawlRun, action: str) -> CrawlRun:
    """Pause (resumable) or cancel a run; one not yet started stops at once."""
    if action not in (CrawlRun.Stop.PAUSE, CrawlRun.Stop.CANCEL):
        raise CrawlError(f"unknown stop action {action!r}")
    with transaction.atomic():
        run = CrawlRun.objects.select_for_update().get(pk=run.pk)
        if run.status == CrawlRun.Status.QUEUED:
            final = CrawlRun.Status.PAUSED if action == "pause" else CrawlRun.Status.CANCELLED
            run.status = final
            run.stop_requested = ""
            run.finished_at = timezone.now()
            run.save(update_fields=["status", "stop_requested", "finished_at"])
            log_event(run, f"{final} before it started")
        elif run.status == CrawlRun.Status.RUNNING:
            run.stop_requested = action
            run.save(update_fields=["stop_requested"])
            log_event(run, f"{action} requested")
        else:
            raise CrawlError(f"run #{run.pk} is {run.status}: nothing to {action}")
        if action == CrawlRun.Stop.CANCEL and run.job_id:
            request_cancel(Job.objects.get(pk=run.job_id))
    return run


def prepare_resume(*, run: CrawlRun, force: bool = False) -> CrawlRun:
    """Make a paused, failed, cancelled or killed run queued again, to continue where it was."""
    with transaction.atomic():
        run = CrawlRun.objects.select_for_update().get(pk=run.pk)
        if run.status == CrawlRun.Status.QUEUED:
            return run
        if run.status not in CrawlRun.RESUMABLE:
            raise CrawlError(f"run #{run.pk} is {run.status}: nothing left to resume")
        if run.status == CrawlRun.Status.RUNNING and not force and worker_alive(run):
            raise RunBusy(
                f"run #{run.pk} is running in {run.worker} (heartbeat {run.heartbeat_at}); "
                "stop that worker first, or force the resume"
            )
        previous = run.status
        run.status = CrawlRun.Status.QUEUED
        run.stop_requested = ""
        run.error = ""
        run.finished_at = None
        run.save(update_fields=["status", "stop_requested", "error", "finished_at"])
        log_event(run, f"resume requested (was {previous})")
    return run


def resume_crawl(*, run: CrawlRun, mode: Mode = "auto", force: bool = False) -> Job:
    run = prepare_resume(run=run, force=force)
    return start_crawl(run=run, mode=mode)


def date_chunks(start: date, end: date, days: int) -> list[tuple[date, date]]:
    """[start, end] cut into consecutive ranges of `days` days (the last may be shorter)."""
    chunks = []
    current = start
    while current <= end:
        last = min(end, current + timedelta(days=days - 1))
        chunks.append((current, last))
        current = last + timedelta(days=1)
    return chunks


def chunk_key(chunk: tuple[date, date]) -> str:
    return f"{chunk[0]:%Y%m%d}-{chunk[1]:%Y%m%d}"
