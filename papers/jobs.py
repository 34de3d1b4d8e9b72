"""Background job functions of the papers app: thin wrappers that call services."""

from __future__ import annotations

from jobs.dispatch import JobContext
from papers.services import render_paper_images


def render_images(*, job: JobContext, paper_id: int) -> dict[str, object]:
    return render_paper_images(
        paper_id=paper_id,
        progress=lambda done, total, message: job.progress(done, total, message),
    )
