"""The embedded default's database: an SQLite file in WAL mode (readers never wait for the
writer), each transaction taking the write lock at its start and waiting for it."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.services import postgres_or_skip

ROOT = Path(__file__).resolve().parent.parent

PROBE = (
    "from django.db import connection; c = connection.cursor(); "
    "print(c.execute('PRAGMA journal_mode').fetchone()[0], "
    "c.execute('PRAGMA synchronous').fetchone()[0], "
    "connection.settings_dict['OPTIONS']['transaction_mode'])"
)


def test_the_sqlite_default_runs_in_wal_mode(tmp_path):
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
    assert done.stdout.split()[-3:] == ["wal", "1", "IMMEDIATE"]  # synchronous=NORMAL is 1


@pytest.mark.django_db
def test_postgresql_connections_run_without_jit():
    """The workspace's one count over every stage is estimated costly: with JIT, PostgreSQL
    spent 2.7 s compiling it for a query that runs in 12 ms (3,000 waiting claims)."""
    from django.db import connection

    postgres_or_skip()
    with connection.cursor() as cursor:
        cursor.execute("SHOW jit")
        assert cursor.fetchone()[0] == "off"


@pytest.mark.django_db
def test_postgresql_plans_a_statement_a_connection_sends_often_once():
    """Statements are bound on the server, so psycopg prepares one the fifth time a connection
    sends it: PostgreSQL planned the blind submission's locking read for longer than it ran it."""
    from django.db import connection

    from annotation.models import WorkItem

    postgres_or_skip()
    for _ in range(6):
        list(WorkItem.objects.filter(key="no-such-item-prepared"))
    with connection.cursor() as cursor:
        cursor.execute("SELECT statement FROM pg_prepared_statements")
        prepared = [row[0] for row in cursor.fetchall()]
    assert any('FROM "annotation_workitem"' in s and "$1" in s for s in prepared), prepared
