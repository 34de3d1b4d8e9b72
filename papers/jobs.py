"""Background job functions of the papers app: thin wrappers that call services."""

from __future__ import annotations

from jobs.dispatch import JobContext
from papers.drawing import render_missing_images, render_paper_images


def render_images(
    *, job: JobContext, paper_id: int, only_missing: bool = False
) -> dict[str, object]:
    render = render_missing_images if only_missing else render_paper_images
    return render(
        paper_id=paper_id,
        progress=lambda done, total, message: job.progress(done, total, message),
    )
