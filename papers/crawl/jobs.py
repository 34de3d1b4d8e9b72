"""The crawl's job function: a thin wrapper that runs the crawl service with job progress."""

from __future__ import annotations

from jobs.dispatch import JobCancelled, JobContext
from papers.crawl.runner import execute_crawl
from papers.models import CrawlRun


class CrawlFailed(Exception):
    """The run ended failed; its error is on the CrawlRun and in its log."""


def run_crawl(*, job: JobContext, run_id: int) -> dict[str, object]:
    def progress(phase: str, done: int, total: int, message: str) -> None:
        job.progress(done, total, f"{phase}: {message}")

    run = execute_crawl(run_id=run_id, progress=progress, should_stop=job.cancelled)
    if run.status == CrawlRun.Status.CANCELLED:
        raise JobCancelled()
    if run.status == CrawlRun.Status.FAILED:
        raise CrawlFailed(run.error)
    if run.status == CrawlRun.Status.PAUSED:
        # The job ends here; the crawl does not: its page resumes it (as a new job).
        counts = run.progress_counts()
        job.progress(
            counts["fetched"],
            run.target(counts),
            f"paused by request: crawl run {run.pk} resumes from its page, where it stopped",
        )
    return {"run_id": run.pk, "status": run.status, **run.counts()}
