"""Executing a crawl run: search, classify, store, fetch accepted papers first, import, licence.

Every step is recorded before the next one starts, so a run killed anywhere continues where
it stopped: searched date ranges are not searched again, and a paper stored by an earlier
attempt (parsed, rejected, no HTML) is not fetched or imported again. The search phase is
`search_phase`'s, the fetch phase `fetch_phase`'s, what is recorded between steps
`bookkeeping`'s; this module runs them in order and ends the run.
"""

from __future__ import annotations

import logging
import traceback
from collections.abc import Callable

from django.db import transaction
from django.db.models import F
from django.utils import timezone

from papers.crawl.bookkeeping import Progress, StopRun
from papers.crawl.client import ArxivClient
from papers.crawl.fetch_phase import FetchPhase
from papers.crawl.search_phase import SearchPhase
from papers.crawl.services import RunBusy, log_event, this_worker, worker_alive
from papers.models import CrawlEvent, CrawlRun

log = logging.getLogger(__name__)


class CrawlExecution(SearchPhase, FetchPhase):
    """One session of a run: the search phase, then the fetch phase."""

    def execute(self) -> None:
        # Only the date ranges (or batches of listed ids) not searched yet: none, once all are.
        if self.run.by_ids:
            self.look_up_listed()
        else:
            self.search()
        self.fetch_all()
        failed_chunks = self.run.search_chunks - len(self.run.search_done)
        if failed_chunks > 0:
            what = "batches of listed ids" if self.run.by_ids else "date ranges"
            raise _SearchIncomplete(
                f"search incomplete: {failed_chunks} of {self.run.search_chunks} {what} "
                "could not be read (see the log); resume the run to try them again"
            )


class _SearchIncomplete(Exception):
    pass


def execute_crawl(
    *,
    run_id: int,
    progress: Progress | None = None,
    should_stop: Callable[[], bool | str] | None = None,
    client: ArxivClient | None = None,
) -> CrawlRun:
    """Execute a queued run to its end (finished, paused, cancelled or failed).

    `should_stop` is asked between steps: truthy cancels the run, "pause" pauses it.
    """
    with transaction.atomic():
        run = CrawlRun.objects.select_for_update().get(pk=run_id)
        if run.status != CrawlRun.Status.QUEUED:
            if run.status == CrawlRun.Status.RUNNING and worker_alive(run):
                raise RunBusy(f"run #{run.pk} is already running in {run.worker}")
            log.info("crawl run %s is %s: nothing to do", run.pk, run.status)
            return run
        now = timezone.now()
        resumed = run.started_at is not None
        run.status = CrawlRun.Status.RUNNING
        run.worker = this_worker()
        run.started_at = run.started_at or now
        run.heartbeat_at = now
        run.save(update_fields=["status", "worker", "started_at", "heartbeat_at"])
        log_event(run, f"{'resumed' if resumed else 'started'} in {run.worker}")

    execution = CrawlExecution(
        run,
        client=client or ArxivClient.from_settings(),
        progress=progress,
        should_stop=should_stop,
    )
    status, error, message = CrawlRun.Status.FINISHED, "", "finished"
    try:
        execution.execute()
    except StopRun as stop:
        if stop.action == CrawlRun.Stop.PAUSE:
            status, message = CrawlRun.Status.PAUSED, "paused"
        else:
            status, message = CrawlRun.Status.CANCELLED, "cancelled"
    except _SearchIncomplete as exc:
        status, error, message = CrawlRun.Status.FAILED, str(exc), str(exc)
    except Exception as exc:
        log.exception("crawl run %s failed", run.pk)
        status, error = CrawlRun.Status.FAILED, f"{exc.__class__.__name__}: {exc}"
        message = f"failed: {error}\n\n{traceback.format_exc()}"
        _end(run, execution, status, error, message)
        raise
    _end(run, execution, status, error, message)
    run.refresh_from_db()
    return run


def _end(run: CrawlRun, execution: CrawlExecution, status: str, error: str, message: str) -> None:
    execution.tick()
    with transaction.atomic():
        CrawlRun.objects.filter(pk=run.pk).update(
            status=status,
            error=error,
            stop_requested="",
            finished_at=timezone.now(),
            phase=CrawlRun.Phase.DONE if status == CrawlRun.Status.FINISHED else F("phase"),
        )
        level = (
            CrawlEvent.Level.ERROR if status == CrawlRun.Status.FAILED else (CrawlEvent.Level.INFO)
        )
        log_event(run, message, level=level)
