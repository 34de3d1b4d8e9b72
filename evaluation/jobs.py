"""Background job of the evaluation: a thin job that only calls the service."""

from __future__ import annotations

from evaluation import services
from jobs.dispatch import JobCancelled, JobContext


def evaluate_release_job(*, job: JobContext, run_id: int) -> dict:
    def progress(done: int, total: int) -> None:
        job.progress(done, total, f"{done:,} of {total:,} records answered")

    result = services.run_endpoint(run_id=run_id, progress=progress, cancelled=job.cancelled)
    if result["cancelled"]:
        raise JobCancelled()  # what was answered is scored and kept; the cache keeps the rest
    return result
