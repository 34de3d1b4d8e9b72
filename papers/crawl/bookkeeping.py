"""The bookkeeping of one session of a crawl run: which errors end the run rather than one paper,
a pause or cancel asked for between steps, and the heartbeat, time spent and network figures
recorded after every step."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from django.db import DatabaseError, DataError, IntegrityError
from django.db.models import F
from django.utils import timezone
from redis.exceptions import RedisError

from papers.crawl.client import ArxivClient
from papers.crawl.gate import GateError
from papers.models import CrawlRun
from papers.storable import Unstorable

Progress = Callable[[str, int, int, str], None]  # phase, done, total, message
# Errors of our own infrastructure (gate, Redis, database) end the run instead of failing a
# paper; the run can be resumed once they are fixed. A database that refuses one paper's
# values (DataError, IntegrityError) is that paper's fault, not the database's: see
# is_infrastructure_error.
INFRASTRUCTURE_ERRORS: tuple[type[BaseException], ...] = (GateError, RedisError, DatabaseError)
PAPER_DATA_ERRORS: tuple[type[BaseException], ...] = (DataError, IntegrityError, Unstorable)


def is_infrastructure_error(exc: BaseException) -> bool:
    """Whether `exc` ends the run (the database is down, the gate is gone) rather than one
    paper (a value the database refused)."""
    return isinstance(exc, INFRASTRUCTURE_ERRORS) and not isinstance(exc, PAPER_DATA_ERRORS)


class StopRun(Exception):
    def __init__(self, action: str):
        super().__init__(action)
        self.action = action


class ExecutionState:
    """One session of a run (a run resumed three times has had four sessions): what it runs
    with, and what it records between steps."""

    def __init__(
        self,
        run: CrawlRun,
        *,
        client: ArxivClient,
        progress: Progress | None,
        should_stop: Callable[[], bool | str] | None,
    ):
        self.run = run
        self.client = client
        self.progress = progress
        self.should_stop = should_stop
        self.base_stats = dict(run.stats or {})
        self.last_tick = time.monotonic()

    def check_stop(self) -> None:
        """Between steps: a pause or cancel asked for on the run, or by the job's owner."""
        if self.should_stop is not None and (wish := self.should_stop()):
            raise StopRun(wish if wish in (CrawlRun.Stop.PAUSE, CrawlRun.Stop.CANCEL) else "cancel")
        stop = (
            CrawlRun.objects.filter(pk=self.run.pk).values_list("stop_requested", flat=True).first()
        )
        if stop:
            raise StopRun(stop)

    def tick(self) -> None:
        """Heartbeat, time spent and network figures, after every step."""
        now = time.monotonic()
        elapsed, self.last_tick = now - self.last_tick, now
        stats = self.merged_stats()
        CrawlRun.objects.filter(pk=self.run.pk).update(
            heartbeat_at=timezone.now(),
            active_seconds=F("active_seconds") + elapsed,
            stats=stats,
        )

    def merged_stats(self) -> dict[str, Any]:
        merged = dict(self.base_stats)
        current = self.client.stats.as_dict()
        for key, value in current.items():
            merged[key] = round(merged.get(key, 0) + value, 3)
        by_kind = dict(merged.get("by_kind", {}))
        for key, value in self.client.stats.by_kind.items():
            by_kind[key] = by_kind.get(key, 0) + value
        merged["by_kind"] = by_kind
        return merged

    def report(self, phase: str, done: int, total: int, message: str) -> None:
        if self.progress is not None:
            self.progress(phase, done, total, message)
