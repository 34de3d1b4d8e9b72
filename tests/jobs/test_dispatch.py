"""Jobs run through the same records inline, in a thread, and on RQ with a real Redis."""

from __future__ import annotations

import time

import pytest
from django.db import transaction

from jobs.dispatch import request_cancel, run_job, start_job
from jobs.models import Job
from tests.services import redis_url_or_skip


@pytest.fixture
def no_redis(settings):
    settings.REDIS_URL = ""


def wait_until(predicate, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return
        time.sleep(0.05)
    raise AssertionError("condition not reached in time")


@pytest.mark.django_db
def test_inline_job_records_progress_and_result(no_redis):
    job = start_job(kind="count", function="tests.jobs.job_functions.count_to", params={"n": 3})
    assert job.status == Job.Status.FINISHED
    assert (job.progress_done, job.progress_total, job.message) == (3, 3, "step 3")
    assert job.result == {"counted": 3}
    assert job.percent == 100
    assert job.started_at and job.finished_at


@pytest.mark.django_db
def test_failed_job_keeps_its_error(no_redis):
    job = start_job(kind="explode", function="tests.jobs.job_functions.explode")
    assert job.status == Job.Status.FAILED
    assert "RuntimeError: boom" in job.error


@pytest.mark.django_db
def test_job_cancelled_before_start_never_runs(no_redis):
    job = Job.objects.create(kind="count", function="tests.jobs.job_functions.count_to",
                             params={"n": 2}, cancel_requested=True)
    run_job(job.pk)
    job.refresh_from_db()
    assert job.status == Job.Status.CANCELLED
    assert job.progress_done == 0


@pytest.mark.django_db(transaction=True)
def test_thread_job_can_be_cancelled_while_running(no_redis):
    job = start_job(
        kind="wait",
        function="tests.jobs.job_functions.wait_for_cancel",
        params={"seconds": 20},
        mode="thread",
    )
    wait_until(lambda: Job.objects.get(pk=job.pk).status == Job.Status.RUNNING)
    request_cancel(job)
    wait_until(lambda: Job.objects.get(pk=job.pk).status == Job.Status.CANCELLED)


@pytest.mark.services
@pytest.mark.django_db(transaction=True)
def test_job_runs_on_rq_through_redis(settings):
    url = redis_url_or_skip()
    settings.REDIS_URL = url
    settings.RQ_QUEUES = {"default": {"URL": url, "DEFAULT_TIMEOUT": 60}}
    import django_rq
    from rq import SimpleWorker

    queue = django_rq.get_queue("default")
    queue.empty()
    with transaction.atomic():
        job = start_job(
            kind="count", function="tests.jobs.job_functions.count_to", params={"n": 4}
        )
        assert Job.objects.get(pk=job.pk).rq_job_id == ""  # enqueued only after commit
    job.refresh_from_db()
    assert job.rq_job_id and job.status == Job.Status.QUEUED
    assert queue.count == 1
    # A real worker (no fork, so it sees this test's committed rows) takes it from Redis.
    SimpleWorker([queue], connection=queue.connection).work(burst=True)
    job.refresh_from_db()
    assert job.status == Job.Status.FINISHED
    assert job.result == {"counted": 4}
