"""Background jobs of the release: a thin job that only calls the export service."""

from __future__ import annotations

from jobs.dispatch import JobContext
from validation.export import services as export_services
from validation.export.build import BUILDING

# Share of the progress bar for building the records; writing the files takes the rest.
BUILDING_SHARE = 30
STEPS = 1000


def overall_step(done: int, total: int, message: str) -> int:
    """One bar for the whole export (0…STEPS): the records first, then the files. The export
    reports each phase on its own scale (records built of all, files written of all)."""
    fraction = done / total if total else 1.0
    if message.startswith(BUILDING):
        return round(STEPS * BUILDING_SHARE / 100 * fraction)
    return round(STEPS * (BUILDING_SHARE + (100 - BUILDING_SHARE) * fraction) / 100)


def export_release_job(*, job: JobContext, export_id: int) -> dict:
    reached = 0

    def progress(done: int, total: int, message: str) -> None:
        nonlocal reached
        reached = max(reached, overall_step(done, total, message))
        # The service's own one-step messages ("wrote 12 files") need no count.
        job.progress(reached, STEPS, f"{message}: {done:,} of {total:,}" if total > 1 else message)

    return export_services.run_export(export_id=export_id, progress=progress)
