"""Job functions used by the dispatcher tests (real functions, run by every runner)."""

from __future__ import annotations

import time

from jobs.dispatch import JobContext


def count_to(*, job: JobContext, n: int) -> dict[str, int]:
    for i in range(1, n + 1):
        job.progress(i, n, f"step {i}")
    return {"counted": n}


def explode(*, job: JobContext) -> None:
    raise RuntimeError("boom")


def wait_for_cancel(*, job: JobContext, seconds: float) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        job.check_cancelled()
        time.sleep(0.02)
