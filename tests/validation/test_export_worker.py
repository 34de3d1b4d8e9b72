"""With Redis, the release export started from the admin page is an RQ job on the default
queue, taken by a real worker process: progress, the finished job, the zip to download, and a
release folder that passes check_release."""

from __future__ import annotations

import io
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from django.core.management import call_command
from django.db import connection

from jobs.models import Job
from papers.models import Paper
from tests.services import redis_url_or_skip
from tests.validation.factories import Team, validated_pairs
from validation.models import ReleaseExport, SplitVersion
from validation.release_check import check_release, inspect_release

ROOT = Path(__file__).resolve().parents[2]


def run_worker(url: str, queue, settings) -> str:
    """`manage.py rqworker default --burst` pointed at this test's database and media."""
    if connection.vendor == "sqlite":
        # The SQLite test database is in memory: only a worker in this process can see it.
        from rq import SimpleWorker

        SimpleWorker([queue], connection=queue.connection).work(burst=True)
        return ""
    db = connection.settings_dict
    database_url = (
        f"postgres://{db['USER']}:{db.get('PASSWORD') or ''}@{db['HOST'] or '127.0.0.1'}:"
        f"{db['PORT'] or 5432}/{db['NAME']}"
    )
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "config.settings",
        "SCIVER_TESTING": "1",
        "DATABASE_URL": database_url,
        "REDIS_URL": url,
        "MEDIA_ROOT": str(settings.MEDIA_ROOT),
        "RELEASE_DIR": str(settings.RELEASE_DIR),
        "PYTHONPATH": str(ROOT),
    }
    done = subprocess.run(
        [sys.executable, str(ROOT / "manage.py"), "rqworker", "default", "--burst"],
        env=env,
        capture_output=True,
        text=True,
        timeout=90,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout + done.stderr


@pytest.mark.services
@pytest.mark.django_db(transaction=True)
def test_export_from_the_admin_runs_on_a_real_rq_worker(settings, client, tmp_path):
    url = redis_url_or_skip()
    settings.REDIS_URL = url
    settings.RQ_QUEUES = {"default": {"URL": url, "DEFAULT_TIMEOUT": 60}}
    settings.RELEASE_DIR = tmp_path / "releases"
    import django_rq

    queue = django_rq.get_queue("default")
    queue.empty()
    team = Team()
    pairs = validated_pairs(team, 4)
    Paper.objects.filter(pk=pairs[0].paper_id).update(synthetic=True)
    call_command(
        "make_split",
        "--validation",
        "4",
        "--test",
        "4",
        "--seed",
        "13",
        "--name",
        "v1",
        stdout=io.StringIO(),
    )
    split = SplitVersion.objects.get(name="v1")
    client.force_login(team.admin)

    response = client.post(f"/manage/releases/splits/{split.pk}/export/", {"hide_test_labels": "1"})

    assert response.status_code == 302
    export = ReleaseExport.objects.select_related("job").get()
    job = export.job
    assert job.status == Job.Status.QUEUED and job.rq_job_id and job.queue == "default"
    rq_job = queue.fetch_job(job.rq_job_id)
    assert rq_job is not None and rq_job.timeout == 6 * 3600  # not RQ's 180 s default
    waiting = client.get(response.url).content.decode()
    assert "queued" in waiting and "hx-get" in waiting and "Download the release" not in waiting

    log = run_worker(url, queue, settings)

    if log:  # a worker process: its log names the job it took
        assert job.rq_job_id in log, log
    job.refresh_from_db()
    export.refresh_from_db()
    assert job.status == Job.Status.FINISHED, job.error
    assert job.rq_job_id and queue.count == 0
    assert (job.progress_done, job.progress_total, job.percent) == (1000, 1000, 100)
    assert job.message.startswith("wrote ") and job.message.endswith(" files")
    assert job.result["files"] == len(export.manifest["files"])
    assert job.started_at and job.finished_at and job.finished_at >= job.started_at
    done = client.get(response.url).content.decode()
    assert 'id="download"' in done and "hx-get" not in done
    assert f"{len(export.manifest['files'])} files" in done

    out = Path(export.out)
    assert out.parent.parent == settings.RELEASE_DIR and out.name == "SciVer"
    assert check_release(out) == []
    assert inspect_release(out).warnings[0].startswith("synthetic content: 1 of 4 papers")
    download = client.get(f"/manage/releases/exports/{export.pk}/download/")
    assert download.status_code == 200
    archive = zipfile.ZipFile(io.BytesIO(b"".join(download.streaming_content)))
    names = archive.namelist()
    assert "SciVer/valset.json" in names and "SciVer/manifest.json" in names
    assert all(n.startswith("SciVer/") for n in names)
    unpacked = tmp_path / "unpacked"
    archive.extractall(unpacked)
    assert check_release(unpacked / "SciVer") == []
    assert (unpacked / "SciVer" / "valset.json").read_bytes() == (out / "valset.json").read_bytes()


@pytest.mark.services
@pytest.mark.django_db(transaction=True)
def test_a_refused_export_on_the_worker_shows_what_to_fix(settings, client, tmp_path):
    url = redis_url_or_skip()
    settings.REDIS_URL = url
    settings.RQ_QUEUES = {"default": {"URL": url, "DEFAULT_TIMEOUT": 60}}
    settings.RELEASE_DIR = tmp_path / "releases"
    import django_rq

    from papers.models import Element

    queue = django_rq.get_queue("default")
    queue.empty()
    team = Team()
    pairs = validated_pairs(team, 2)
    call_command(
        "make_split",
        "--validation",
        "2",
        "--test",
        "2",
        "--seed",
        "1",
        "--name",
        "v1",
        stdout=io.StringIO(),
    )
    element = Element.objects.get(pk=pairs[0].task.sampled_ids[0])
    Element.objects.filter(pk=element.pk).update(image="")
    client.force_login(team.admin)
    response = client.post(f"/manage/releases/splits/{SplitVersion.objects.get().pk}/export/")

    run_worker(url, queue, settings)

    export = ReleaseExport.objects.select_related("job").get()
    assert export.job.status == Job.Status.FAILED
    page = client.get(response.url).content.decode()
    shown = page.split('id="export-error">')[1].split("</p>")[0]
    assert shown.startswith(
        f"The export failed: paper {pairs[0].paper.arxiv_id}: {element.label} (element "
        f"{element.anchor}, admin /admin/papers/element/{element.pk}/change/): it has no image."
    )
    assert "Traceback" not in shown and "Traceback" in page  # kept under "Technical details"
    assert not Path(export.out).exists() and not export.archive
