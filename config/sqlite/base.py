"""SQLite with its writers queued in arrival order inside the process (the default shape's one
runserver process): a transaction waits on a fair in-process queue before BEGIN IMMEDIATE, so a
waiting writer is woken the moment the writer before it commits, instead of SQLite's busy
handler sleeping it up to 100 ms between tries (where a late arrival may take the lock first,
again and again). Writers of other processes still meet SQLite's own lock."""

from __future__ import annotations

import threading
from collections import deque

from django.db import OperationalError
from django.db.backends.sqlite3 import base


class _FairLock:
    def __init__(self) -> None:
        self._changed = threading.Condition()
        self._queue: deque[object] = deque()
        self._held = False

    def acquire(self, timeout: float) -> bool:
        me = object()
        with self._changed:
            self._queue.append(me)
            if self._changed.wait_for(
                lambda: not self._held and self._queue[0] is me, timeout=timeout
            ):
                self._queue.popleft()
                self._held = True
                return True
            self._queue.remove(me)
            self._changed.notify_all()
            return False

    def release(self) -> None:
        with self._changed:
            self._held = False
            self._changed.notify_all()


_WRITERS = _FairLock()


class DatabaseWrapper(base.DatabaseWrapper):
    _holds_writer = False

    def _start_transaction_under_autocommit(self) -> None:
        if not _WRITERS.acquire(timeout=float(self.settings_dict["OPTIONS"].get("timeout", 5))):
            raise OperationalError("database is locked")
        self._holds_writer = True
        try:
            super()._start_transaction_under_autocommit()  # type: ignore[misc]  # Django's, not in its stubs
        except BaseException:
            self._release_writer()
            raise

    def _release_writer(self) -> None:
        if self._holds_writer:
            self._holds_writer = False
            _WRITERS.release()

    def _commit(self) -> None:
        try:
            super()._commit()  # type: ignore[misc]  # Django's, not in its stubs
        finally:
            self._release_writer()

    def _rollback(self) -> None:
        try:
            super()._rollback()  # type: ignore[misc]  # Django's, not in its stubs
        finally:
            self._release_writer()

    def _close(self) -> None:
        try:
            super()._close()  # type: ignore[misc]  # Django's, not in its stubs
        finally:
            self._release_writer()
