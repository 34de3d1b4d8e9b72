"""The embedded default's SQLite writers, in one process, take the write lock in the order they
asked for it (config/sqlite): a waiting writer is woken as the one before it commits, instead of
SQLite's busy handler sleeping it (up to 100 ms a try) while later writers take the lock first;
one that waits past the busy timeout is told the database is locked, and leaves the queue."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from django.db import OperationalError, connection

from config.sqlite import base as fair

pytestmark = pytest.mark.django_db

ROOT = Path(__file__).resolve().parent.parent
PROBE = "from django.db import connections; print(type(connections['default']).__module__)"


def _wrapper(path, timeout: float = 10):
    settings = dict(
        connection.settings_dict,
        ENGINE="config.sqlite",
        NAME=str(path),
        OPTIONS={"transaction_mode": "IMMEDIATE", "timeout": timeout},
    )
    return fair.DatabaseWrapper(settings, alias="fair-writers")


def _begin(db) -> None:
    db.set_autocommit(False, force_begin_transaction_with_broken_autocommit=True)


def _commit(db) -> None:
    db.commit()
    db.set_autocommit(True)


def _queued(n: int) -> None:
    deadline = time.monotonic() + 10
    while fair._WRITERS.waiting() < n:
        assert time.monotonic() < deadline, "a writer never queued"
        time.sleep(0.005)


def test_writers_take_the_write_lock_in_the_order_they_asked(tmp_path):
    path = tmp_path / "writers.sqlite3"
    setup = _wrapper(path)
    setup.cursor().execute("CREATE TABLE done (n INTEGER)")
    setup.close()
    holder = _wrapper(path)
    _begin(holder)
    order: list[int] = []

    def write(n: int) -> None:
        db = _wrapper(path)
        _begin(db)
        order.append(n)
        db.cursor().execute("INSERT INTO done VALUES (%s)", [n])
        _commit(db)
        db.close()

    threads = []
    for n in range(1, 6):
        threads.append(threading.Thread(target=write, args=(n,)))
        threads[-1].start()
        _queued(n)  # each asks after the one before it is waiting
    _commit(holder)
    for thread in threads:
        thread.join(20)
    assert order == [1, 2, 3, 4, 5]
    rows = holder.cursor().execute("SELECT n FROM done ORDER BY rowid").fetchall()
    assert [n for (n,) in rows] == [1, 2, 3, 4, 5]
    holder.close()


def test_a_writer_waiting_past_the_timeout_is_told_and_leaves_the_queue(tmp_path):
    path = tmp_path / "writers.sqlite3"
    holder = _wrapper(path)
    _begin(holder)
    refused: list[Exception] = []

    def write() -> None:
        db = _wrapper(path, timeout=0.2)
        try:
            _begin(db)
        except OperationalError as exc:
            refused.append(exc)
        db.close()

    waiter = threading.Thread(target=write)
    waiter.start()
    waiter.join(10)
    assert [str(e) for e in refused] == ["database is locked"]
    assert not fair._WRITERS.waiting()
    _commit(holder)
    late = _wrapper(path, timeout=0.2)
    _begin(late)  # the lock is free at once
    _commit(late)
    late.close()
    holder.close()


def test_the_embedded_default_queues_its_writers(tmp_path):
    """What `make run` serves (SCIVER_DEV, an SQLite file) runs on this backend."""
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "SCIVER_TESTING")}
    env |= {"SCIVER_DEV": "1", "DATABASE_URL": f"sqlite:///{tmp_path / 'db.sqlite3'}"}
    done = subprocess.run(
        [sys.executable, "manage.py", "shell", "-c", PROBE],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split()[-1] == "config.sqlite.base"


def test_debug_alone_keeps_no_query_log(tmp_path, settings):
    """Under DEBUG (`make run`) Django would keep every query and, on SQLite, run a second
    statement for each to quote its parameters, inside the write lock: not here. A test that
    counts queries still sees them."""
    settings.DEBUG = True
    db = _wrapper(tmp_path / "log.sqlite3")
    try:
        db.cursor().execute("SELECT 1")
        assert not db.queries_logged and len(db.queries_log) == 0
        db.force_debug_cursor = True
        db.cursor().execute("SELECT 2")
        assert [q["sql"] for q in db.queries_log] == ["SELECT 2"]
    finally:
        db.close()
