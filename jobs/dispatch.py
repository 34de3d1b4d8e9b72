"""Run job functions through django-rq when REDIS_URL is set, else in-process.

A job function is a plain function `f(*, job: JobContext, **params)` that calls services.
The same function runs in an RQ worker, in a background thread (jobs started from a page)
or inline (management commands, tests), with the same `Job` progress records and cancellation.
"""

from __future__ import annotations

import importlib
import logging
import threading
import traceback
from collections.abc import Callable
from typing import Any, Literal

from django.conf import settings
from django.db import close_old_connections, connection, transaction
from django.utils import timezone

from jobs.models import Job

log = logging.getLogger(__name__)

Mode = Literal["auto", "inline", "thread"]


class JobCancelled(Exception):
    """Raised inside a job function when an admin asked to cancel it."""


class JobContext:
    """Handed to a job function: report progress, check for cancellation."""

    def __init__(self, job: Job):
        self.job = job

    def progress(self, done: int, total: int | None = None, message: str | None = None) -> None:
        fields: dict[str, Any] = {"progress_done": done, "heartbeat_at": timezone.now()}
        if total is not None:
            fields["progress_total"] = total
        if message is not None:
            fields["message"] = message[:2000]
        Job.objects.filter(pk=self.job.pk).update(**fields)
        for key, value in fields.items():
            setattr(self.job, key, value)

    def cancelled(self) -> bool:
        Job.objects.filter(pk=self.job.pk).update(heartbeat_at=timezone.now())
        return Job.objects.filter(pk=self.job.pk, cancel_requested=True).exists()

    def check_cancelled(self) -> None:
        if self.cancelled():
            raise JobCancelled()


def queues_enabled() -> bool:
    return bool(settings.REDIS_URL)


def start_job(
    *,
    kind: str,
    function: str | Callable[..., Any],
    params: dict[str, Any] | None = None,
    queue: str = "default",
    timeout: int = 3600,
    mode: Mode = "auto",
) -> Job:
    """Record a job and run it: on RQ with Redis, else inline or in a thread (`mode`); inline
    whatever `mode` says with the JOBS_INLINE setting."""
    path = function if isinstance(function, str) else f"{function.__module__}.{function.__name__}"
    job = Job.objects.create(kind=kind, function=path, params=params or {}, queue=queue)
    if settings.JOBS_INLINE:
        mode = "inline"
    if queues_enabled() and mode != "inline":
        import django_rq  # noqa: PLC0415 - only with REDIS_URL set

        def enqueue() -> None:
            rq_job = django_rq.get_queue(queue).enqueue(
                run_job, job.pk, job_timeout=timeout, result_ttl=86400, failure_ttl=7 * 86400
            )
            Job.objects.filter(pk=job.pk).update(rq_job_id=rq_job.id)

        # The worker must see the Job row: enqueue only once it is committed.
        transaction.on_commit(enqueue)
    elif mode == "thread":
        thread = threading.Thread(target=_run_in_thread, args=(job.pk,), daemon=True)
        transaction.on_commit(thread.start)
    else:
        run_job(job.pk)
        job.refresh_from_db()
    return job


def _run_in_thread(job_id: int) -> None:
    close_old_connections()
    try:
        run_job(job_id)
    finally:
        connection.close()


def run_job(job_id: int) -> None:
    """Entry point for every runner: marks the job running, calls its function, records the end."""
    job = Job.objects.get(pk=job_id)
    if job.status != Job.Status.QUEUED and job.status != Job.Status.RUNNING:
        log.info("job %s already %s", job_id, job.status)
        return
    if job.cancel_requested:
        _finish(job, Job.Status.CANCELLED, message="cancelled before it started")
        return
    now = timezone.now()
    Job.objects.filter(pk=job.pk).update(
        status=Job.Status.RUNNING, started_at=now, heartbeat_at=now
    )
    job.status = Job.Status.RUNNING
    module_name, _, func_name = job.function.rpartition(".")
    try:
        func = getattr(importlib.import_module(module_name), func_name)
        result = func(job=JobContext(job), **job.params)
    except JobCancelled:
        _finish(job, Job.Status.CANCELLED, message="cancelled")
    except Exception as exc:  # noqa: BLE001 - a job's failure is recorded, never lost
        log.exception("job %s failed", job_id)
        _finish(
            job,
            Job.Status.FAILED,
            error=f"{exc.__class__.__name__}: {exc}\n\n{traceback.format_exc()}",
        )
        if not queues_enabled():
            return
        raise
    else:
        _finish(job, Job.Status.FINISHED, result=result if isinstance(result, dict) else {})


def _finish(job: Job, status: str, **fields: Any) -> None:
    Job.objects.filter(pk=job.pk).update(status=status, finished_at=timezone.now(), **fields)


def request_cancel(job: Job) -> None:
    Job.objects.filter(pk=job.pk, status__in=Job.ACTIVE).update(cancel_requested=True)


def reconcile_jobs(*, stale_after: float | None = None) -> list[Job]:
    """Mark as failed the active jobs whose runner is gone, so no page shows them running forever.

    On RQ: the job vanished from Redis, or RQ itself recorded it failed, stopped or cancelled (a
    killed worker's job ends in RQ's failed registry). In-process (and as a last resort on RQ):
    a running job that showed no sign of life for `stale_after` seconds (JOB_STALE_SECONDS).
    """
    stale_after = stale_after if stale_after is not None else settings.JOB_STALE_SECONDS
    now = timezone.now()
    ended: list[Job] = []
    for job in Job.objects.filter(status__in=Job.ACTIVE):
        reason = _runner_gone(job)
        if reason is None and job.status == Job.Status.RUNNING:
            last = job.heartbeat_at or job.started_at or job.created_at
            if (now - last).total_seconds() > stale_after:
                reason = f"no sign of life for {int((now - last).total_seconds() // 60)} min"
        if reason is None:
            continue
        updated = Job.objects.filter(pk=job.pk, status__in=Job.ACTIVE).update(
            status=Job.Status.FAILED,
            finished_at=now,
            error=f"the job's worker stopped: {reason}",
        )
        if updated:
            job.refresh_from_db()
            ended.append(job)
    return ended


def _runner_gone(job: Job) -> str | None:
    if not job.rq_job_id or not queues_enabled():
        return None
    import django_rq  # noqa: PLC0415 - only with REDIS_URL set
    from rq.exceptions import NoSuchJobError  # noqa: PLC0415 - only with REDIS_URL set
    from rq.job import Job as RqJob  # noqa: PLC0415 - only with REDIS_URL set

    try:
        rq_job = RqJob.fetch(job.rq_job_id, connection=django_rq.get_connection(job.queue))
    except NoSuchJobError:
        return "its RQ job is gone from Redis"
    status = str(getattr(rq_job.get_status(refresh=True), "value", rq_job.get_status()))
    if status in ("failed", "stopped", "canceled"):
        return f"RQ reports the job {status}"
    return None
