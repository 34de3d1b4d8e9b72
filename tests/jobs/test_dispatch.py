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
    job = Job.objects.create(
        kind="count",
        function="tests.jobs.job_functions.count_to",
        params={"n": 2},
        cancel_requested=True,
    )
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
        job = start_job(kind="count", function="tests.jobs.job_functions.count_to", params={"n": 4})
        assert Job.objects.get(pk=job.pk).rq_job_id == ""  # enqueued only after commit
    job.refresh_from_db()
    assert job.rq_job_id and job.status == Job.Status.QUEUED
    assert queue.count == 1
    # A real worker (no fork, so it sees this test's committed rows) takes it from Redis.
    SimpleWorker([queue], connection=queue.connection).work(burst=True)
    job.refresh_from_db()
    assert job.status == Job.Status.FINISHED
    assert job.result == {"counted": 4}


@pytest.mark.django_db
def test_silent_running_job_is_marked_failed(no_redis):
    from datetime import timedelta

    from django.utils import timezone

    from jobs.dispatch import reconcile_jobs

    old = timezone.now() - timedelta(hours=2)
    dead = Job.objects.create(
        kind="x", function="f", status=Job.Status.RUNNING, started_at=old, heartbeat_at=old
    )
    alive = Job.objects.create(
        kind="x",
        function="f",
        status=Job.Status.RUNNING,
        started_at=old,
        heartbeat_at=timezone.now(),
    )
    queued = Job.objects.create(kind="x", function="f")
    assert [j.pk for j in reconcile_jobs(stale_after=1800)] == [dead.pk]
    dead.refresh_from_db()
    assert dead.status == Job.Status.FAILED and "no sign of life for 120 min" in dead.error
    assert Job.objects.get(pk=alive.pk).status == Job.Status.RUNNING
    assert Job.objects.get(pk=queued.pk).status == Job.Status.QUEUED


@pytest.mark.django_db
def test_progress_is_a_sign_of_life(no_redis):
    job = start_job(kind="count", function="tests.jobs.job_functions.count_to", params={"n": 2})
    assert job.heartbeat_at is not None and job.heartbeat_at >= job.started_at


@pytest.mark.services
@pytest.mark.django_db(transaction=True)
def test_job_whose_rq_job_vanished_or_failed_is_marked_failed(settings):
    url = redis_url_or_skip()
    settings.REDIS_URL = url
    settings.RQ_QUEUES = {"default": {"URL": url, "DEFAULT_TIMEOUT": 60}}
    import django_rq
    from rq.job import Job as RqJob

    from jobs.dispatch import reconcile_jobs

    queue = django_rq.get_queue("default")
    queue.empty()
    lost = start_job(kind="count", function="tests.jobs.job_functions.count_to", params={"n": 1})
    failed = start_job(kind="count", function="tests.jobs.job_functions.count_to", params={"n": 1})
    waiting = start_job(kind="count", function="tests.jobs.job_functions.count_to", params={"n": 1})
    for job in (lost, failed, waiting):
        job.refresh_from_db()
    # A worker killed mid-job: RQ moves the job to its failed registry; here, directly.
    RqJob.fetch(failed.rq_job_id, connection=queue.connection).set_status("failed")
    RqJob.fetch(lost.rq_job_id, connection=queue.connection).delete()
    ended = {j.pk: j.error for j in reconcile_jobs()}
    assert set(ended) == {lost.pk, failed.pk}
    assert "gone from Redis" in ended[lost.pk] and "RQ reports the job failed" in ended[failed.pk]
    assert Job.objects.get(pk=waiting.pk).status == Job.Status.QUEUED
    queue.empty()


@pytest.mark.django_db
def test_reconcile_command_reports(no_redis):
    from io import StringIO

    from django.core.management import call_command

    out = StringIO()
    call_command("reconcile_jobs", stdout=out)
    assert "0 job(s) marked failed" in out.getvalue()
