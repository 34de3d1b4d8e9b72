"""SQLite with its writers queued in arrival order inside the process (the default shape's one
runserver process): a transaction waits on a fair in-process queue before BEGIN IMMEDIATE, so a
waiting writer is woken the moment the writer before it commits, instead of SQLite's busy
handler sleeping it up to 100 ms between tries (where a late arrival may take the lock first,
again and again). Writers of other processes still meet SQLite's own lock."""

from __future__ import annotations

from django.db import OperationalError
from django.db.backends.sqlite3 import base

from serving.gate import FairGate

_WRITERS = FairGate(1)


class DatabaseWrapper(base.DatabaseWrapper):
    _holds_writer = False

    @property
    def queries_logged(self) -> bool:
        # Not under DEBUG alone (`make run`): Django would keep every query in memory and, on
        # SQLite, run a second statement for each to quote its parameters (its SQL logged),
        # inside the write lock. Tests that count queries force it (force_debug_cursor).
        return self.force_debug_cursor

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
