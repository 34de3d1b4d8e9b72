"""With Redis, the same crawl runs as a real RQ job on the `crawl` queue, taken by a worker."""

from __future__ import annotations

import os
import subprocess
import sys
from datetime import date
from pathlib import Path

import pytest
from django.db import connection

from jobs.models import Job
from papers.crawl.services import create_crawl_run, start_crawl
from papers.models import CrawlRun, Paper
from tests.papers.crawl.standin_papers import day, paper
from tests.services import redis_url_or_skip

ROOT = Path(__file__).resolve().parents[3]


def run_worker(url: str, queue, settings, tmp_path: Path) -> None:
    """A worker on the crawl queue pointed at the test database, in burst mode."""
    if connection.vendor == "sqlite":
        # The test database is in memory: only a worker in this process can see it.
        from rq import SimpleWorker

        SimpleWorker([queue], connection=queue.connection).work(burst=True)
        return
    db = connection.settings_dict
    database_url = (
        f"postgres://{db['USER']}:{db.get('PASSWORD') or ''}@{db['HOST'] or '127.0.0.1'}:"
        f"{db['PORT'] or 5432}/{db['NAME']}"
    )
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "tests.papers.crawl.crawl_settings",
        "SCIVER_TESTING": "1",
        "DATABASE_URL": database_url,
        "REDIS_URL": url,
        "MEDIA_ROOT": str(settings.MEDIA_ROOT),
        "ARXIV_API_URL": settings.ARXIV_API_URL,
        "ARXIV_HTML_URL": settings.ARXIV_HTML_URL,
        "ARXIV_ABS_URL": settings.ARXIV_ABS_URL,
        "ARXIV_DELAY_SECONDS": "0",
        "ARXIV_GATE_KEY": settings.ARXIV_GATE_KEY,
        "PYTHONPATH": str(ROOT),
    }
    done = subprocess.run(
        [sys.executable, str(ROOT / "manage.py"), "rqworker", "crawl", "--burst"],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr


@pytest.mark.services
@pytest.mark.django_db(transaction=True)
def test_crawl_runs_as_an_rq_job(settings, arxiv_settings, standin, tmp_path):
    url = redis_url_or_skip()
    settings.REDIS_URL = url
    settings.RQ_QUEUES = {"crawl": {"URL": url, "DEFAULT_TIMEOUT": 48 * 3600}}
    import django_rq

    queue = django_rq.get_queue("crawl")
    queue.empty()
    standin.add_paper(paper("2410.00001", published=day(1), comment="Accepted to ACL 2024"))
    standin.add_paper(paper("2410.00002", published=day(2), tables=1))
    run = create_crawl_run(
        date_from=date(2024, 10, 1), date_to=date(2024, 10, 31), categories=["cs.CL"], images="none"
    )

    job = start_crawl(run=run)

    job.refresh_from_db()
    assert job.rq_job_id and job.queue == "crawl"
    rq_job = queue.fetch_job(job.rq_job_id)
    assert rq_job is not None and rq_job.timeout == 48 * 3600
    assert CrawlRun.objects.get(pk=run.pk).status == CrawlRun.Status.QUEUED

    run_worker(url, queue, settings, tmp_path)

    job.refresh_from_db()
    run.refresh_from_db()
    assert job.status == Job.Status.FINISHED, job.error
    assert run.status == CrawlRun.Status.FINISHED, run.error
    assert job.result["kept"] == 1 and job.result["rejected"] == 1
    assert Paper.objects.get(arxiv_id="2410.00001").license_url
    assert job.progress_done == 2
    assert [r.path for r in standin.log if r.path.startswith("/html/2410.00001v1")][0]
