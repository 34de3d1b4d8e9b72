"""Which databases the production shape drops before making its own: a killed run's, never one
in use. (The dropping itself needs PostgreSQL: test_production_shape runs it, and says in its
output what it dropped and what it kept.)"""

from __future__ import annotations

from tests.production.shape import DATABASE_PREFIX, leftover_keep_reason

KILLED, RUNNING = 4242, 4343


def alive(pid: int) -> bool:
    return pid == RUNNING


def test_a_killed_runs_database_with_no_connection_is_dropped() -> None:
    assert leftover_keep_reason(f"{DATABASE_PREFIX}{KILLED}_0123abcd", 0, alive) is None


def test_a_database_in_use_or_of_a_live_run_or_not_the_shapes_is_kept() -> None:
    name = f"{DATABASE_PREFIX}{KILLED}_0123abcd"
    assert leftover_keep_reason(name, 3, alive) == "3 connection(s) to it"
    # Created by a run still alive here, which has not connected yet.
    assert leftover_keep_reason(f"{DATABASE_PREFIX}{RUNNING}_0123abcd", 0, alive) == (
        f"the run's process {RUNNING} is alive"
    )
    for other in (
        f"{DATABASE_PREFIX}backup",
        f"{DATABASE_PREFIX}{KILLED}_0123abcd_restored",
        f"{DATABASE_PREFIX}{KILLED}_XYZ",
    ):
        assert leftover_keep_reason(other, 0, alive) == "not named as this test names its databases"


def test_the_real_process_check_sees_this_process_alive() -> None:
    import os

    name = f"{DATABASE_PREFIX}{os.getpid()}_0123abcd"
    assert leftover_keep_reason(name, 0) == f"the run's process {os.getpid()} is alive"
