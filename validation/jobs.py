"""Background jobs of the release: a thin job that only calls the export service."""

from __future__ import annotations

from jobs.dispatch import JobContext
from validation import services


def export_release_job(*, job: JobContext, export_id: int) -> dict:
    def progress(done: int, total: int, message: str) -> None:
        job.progress(done, total, message)

    return services.run_export(export_id=export_id, progress=progress)
