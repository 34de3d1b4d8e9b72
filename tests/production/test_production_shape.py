"""The production shape end to end: gunicorn with TLS, two RQ workers, PostgreSQL and Redis.

Everything runs as separate processes with `config.settings` as deployed (DEBUG off, Secure
cookies, the HTTPS redirect, HSTS), configured by environment variables only, against a fresh
PostgreSQL database and a Redis database number of its own. An admin signs in over HTTPS (the
certificate is the test's own CA's), crawls the stand-in arXiv (its delay lowered) on one
worker while the other draws the table screenshots, freezes a split and exports it, and
downloads the release; four annotators work through blind annotation meanwhile (bench/load.py's
clients). Then nothing may have failed, been lost or been handed to two.
"""

from __future__ import annotations

import argparse
import datetime as dt
import io
import json
import os
import re
import time
import zipfile
from collections import Counter
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest

from tests.production.shape import BIN, ROOT, Client, Shape, wait_for, with_path
from tests.services import redis_url_or_skip, require
from tests.standin import StandInArxiv, synthetic_paper

pytestmark = [pytest.mark.services, pytest.mark.timeout(300)]

ADMIN, ADMIN_PASSWORD = "release-manager", "production-shape-admin-9"
QUEUES = ("crawl", "render", "default")  # every worker takes every queue, as in compose
WORKERS = ("worker-one", "worker-two")
KEPT = ("2410.70001", "2410.70002", "2410.70003")  # two tables and two charts each
REJECTED = "2410.70004"  # one table: below MIN_TABLES
LOAD_CLIENTS, LOAD_SECONDS, LOAD_CLAIMS = 4, 5.0, 120


def postgres_url_or_skip() -> str:
    url = os.environ.get("DATABASE_URL", "")
    require(
        url.startswith(("postgres://", "postgresql://")),
        "DATABASE_URL does not point at PostgreSQL: the production shape needs PostgreSQL",
    )
    import psycopg

    try:
        psycopg.connect(with_path(url, "/postgres"), connect_timeout=3).close()
    except psycopg.OperationalError as exc:
        require(False, f"PostgreSQL at {url} does not answer: {exc}")
    return url


@pytest.fixture
def standin() -> Iterator[StandInArxiv]:
    october = datetime(2024, 10, 1, 12, 0, tzinfo=UTC)
    papers = [
        synthetic_paper(arxiv_id, title=f"Paper {arxiv_id}", published=october.replace(day=n))
        for n, arxiv_id in enumerate(KEPT, start=1)
    ]
    papers.append(synthetic_paper(REJECTED, tables=1, published=october.replace(day=9)))
    server = StandInArxiv(papers).start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def shape(tmp_path: Path, standin: StandInArxiv) -> Iterator[Shape]:
    postgres = postgres_url_or_skip()
    redis_url = redis_url_or_skip()
    require((BIN / "gunicorn").exists(), "gunicorn is not installed (pip install -e '.[dev]')")
    env = {
        **standin.settings(),  # ARXIV_API_URL, ARXIV_HTML_URL, ARXIV_ABS_URL
        "ARXIV_DELAY_SECONDS": "0.05",
        "ARXIV_SEARCH_CHUNK_DAYS": "31",  # one search for the month, not 31
    }
    deployed = Shape.create(tmp_path, postgres_url=postgres, redis_url=redis_url, env=env)
    try:
        yield deployed
    finally:
        deployed.close()


def test_production_shape(shape: Shape, standin: StandInArxiv, tmp_path: Path) -> None:
    started = time.monotonic()
    try:
        run_the_shape(shape, standin, tmp_path)
    except BaseException:
        print(shape.logs())
        raise
    finally:
        steps = ", ".join(f"{what} {seconds:.1f} s" for what, seconds in shape.commands)
        print(f"production shape: {time.monotonic() - started:.1f} s; commands: {steps}")


def run_the_shape(shape: Shape, standin: StandInArxiv, tmp_path: Path) -> None:
    import redis

    # --- Deploy: migrate the fresh database, gather static files, check the configuration --
    shape.manage("migrate", "--noinput")
    shape.manage("collectstatic", "--noinput")
    checked = shape.manage("check", "--deploy", "--fail-level", "WARNING")
    assert "no issues" in checked, checked
    # The data a release needs, by the documented command, while the servers start and crawl.
    simulate = shape.launch(
        "manage.py",
        "simulate_annotation",
        "--papers",
        "6",
        "--seed",
        "13",
        "--no-leftovers",
        what="manage.py simulate_annotation",
    )
    base = shape.start_web()
    for name in WORKERS:
        shape.start_worker(name, QUEUES)
    shape.manage(
        "createsuperuser",
        "--noinput",
        "--username",
        ADMIN,
        "--email",
        "admin@example.org",
        env={"DJANGO_SUPERUSER_PASSWORD": ADMIN_PASSWORD},
    )
    connection = redis.Redis.from_url(shape.redis_url, socket_connect_timeout=2)
    wait_for(
        "both RQ workers", lambda: workers_listening(connection), timeout=60, alive=shape.alive
    )
    admin = Client(base, shape.certificates.ca)
    wait_for("gunicorn over HTTPS", lambda: healthy(admin), timeout=60, alive=shape.alive)

    # --- Sign in over HTTPS with the production cookie settings ----------------------------
    login = admin.get("/accounts/login/")
    assert login.status_code == 200, login.text[:2000]
    assert "max-age=31536000" in login.headers.get("Strict-Transport-Security", "")
    stylesheet = re.search(r'<link[^>]+href="(/static/[^"]+\.css)"', login.text)
    assert stylesheet and admin.get(stylesheet.group(1)).status_code == 200  # WhiteNoise
    sign_in(admin, ADMIN, ADMIN_PASSWORD)
    cookies = {c.name: c for c in admin.session.cookies}
    assert cookies["sessionid"].secure and cookies["csrftoken"].secure
    assert cookies["sessionid"].has_nonstandard_attr("HttpOnly")

    # --- A crawl of the stand-in arXiv, started from its page -------------------------------
    page = admin.page("/crawl/")
    form = page.form(field_name="date_from")
    form.fill("date_from", "2024-10-01")
    form.fill("date_to", "2024-10-31")
    form.check("categories", {"cs.CL"})
    form.fill("min_tables", "2")
    form.fill("min_charts", "2")
    response = admin.post(form.action, form.payload())
    assert response.status_code == 302, response.text[:3000]
    run_id = int(re.search(r"/crawl/(\d+)/", response.headers["Location"]).group(1))

    status = wait_for(
        "the crawl to end",
        lambda: ended(crawl_status(admin, run_id)),
        timeout=90,
        every=0.5,
        alive=shape.alive,
    )
    assert status == "finished", admin.get(f"/crawl/{run_id}/").text[-6000:]
    wait_for(
        "the table renders",
        lambda: queues_idle(connection, finished_renders=len(KEPT)),
        timeout=120,
        every=0.5,
        alive=shape.alive,
    )

    # --- The blind-annotation world of the load run (after the simulation: its synthetic
    # experts would otherwise take the world's items) ----------------------------------------
    shape.finish(simulate, timeout=180)
    world_file = tmp_path / "world.json"
    shape.run(
        "bench/loadworld.py",
        "build",
        "--checkout",
        str(ROOT),
        "--stage",
        "blind",
        "--claims",
        str(LOAD_CLAIMS),
        "--accounts",
        str(LOAD_CLIENTS),
        "--manifest",
        str(world_file),
        what="loadworld build",
    )

    # --- A split and its export, as the release manager does them ---------------------------
    page = admin.page("/manage/releases/")
    form = page.form(field_name="validation")
    assert int(form.values("validation")[0]) > 0 and int(form.values("test")[0]) > 0, (
        "the releases page offers no split of the simulated data"
    )
    form.fill("name", "production-shape")
    response = admin.post(form.action, form.payload())
    assert response.status_code == 302, response.text[-4000:]
    page = admin.page("/manage/releases/")
    export_form = page.form(field_name="hide_test_labels")
    assert export_form is not None, "no split to export on the releases page"
    response = admin.post(
        export_form.action, [(k, v) for k, v in export_form.payload() if k != "hide_test_labels"]
    )
    assert response.status_code == 302, response.text[-4000:]
    export_path = response.headers["Location"]

    # --- The load run, while the export job runs --------------------------------------------
    figures = load_run(shape, world_file)

    state = wait_for(
        "the export to end",
        lambda: ended(export_state(admin, export_path)),
        timeout=120,
        every=0.5,
        alive=shape.alive,
    )
    page = admin.page(export_path)
    assert state == "finished", page.text("//*[@id='export-status']")
    download = admin.get(page.doc.xpath("//a[@id='download']/@href")[0])
    assert download.status_code == 200, download.text[:2000]
    assert "attachment" in download.headers.get("Content-Disposition", "")
    check_the_release(download.content, tmp_path / "downloaded")

    # --- Nothing failed, nothing lost, each worker did its part -----------------------------
    queues_idle(connection, finished_renders=len(KEPT), require=True)
    records = shape.records("2410.7000")
    check_jobs(records, connection)
    check_the_crawl(records, admin, standin)
    check_the_load(figures)
    for process in shape.processes:
        assert "Traceback" not in process.text(), f"{process.name} logged a traceback"
    assert "Internal Server Error" not in shape.process("gunicorn").text()
    connection.close()


# --- Steps ---------------------------------------------------------------------------------


def healthy(client: Client) -> bool:
    import requests

    try:
        return client.get("/healthz", timeout=2).status_code == 200
    except requests.RequestException:
        return False


def workers_listening(connection) -> bool:
    from rq import Worker

    return {w.name for w in Worker.all(connection=connection)} >= set(WORKERS)


def sign_in(client: Client, username: str, password: str) -> None:
    page = client.page("/accounts/login/")
    form = page.form(field_name="password")
    form.fill("username", username)
    form.fill("password", password)
    response = client.post(form.action, form.payload())
    assert response.status_code == 302, response.text[-3000:]
    assert client.get(response.headers["Location"]).status_code == 200


def ended(status: str) -> str:
    """The status once it is no longer queued or running, else ""."""
    return "" if status in ("", "queued", "running") else status


def crawl_status(client: Client, run_id: int) -> str:
    page = client.page(f"/crawl/{run_id}/progress/")
    badge = page.doc.xpath("//span[contains(@class,'badge')]/@class")
    return badge[0].replace("badge", "").strip() if badge else ""


def export_state(client: Client, path: str) -> str:
    return client.page(path).text("//*[@id='export-state']")


def queues_idle(connection, *, finished_renders: int, require: bool = False) -> bool:
    """Every queue empty with nothing running or failed, and the renders all finished."""
    from rq import Queue
    from rq.registry import FailedJobRegistry, FinishedJobRegistry, StartedJobRegistry

    state = {}
    for name in QUEUES:
        queue = Queue(name, connection=connection)
        state[name] = {
            "queued": queue.count,
            "started": StartedJobRegistry(queue=queue).count,
            "failed": FailedJobRegistry(queue=queue).count,
            "finished": FinishedJobRegistry(queue=queue).count,
        }
    failed = {name: s["failed"] for name, s in state.items() if s["failed"]}
    assert not failed, f"RQ jobs failed: {failed}"
    idle = all(s["queued"] == 0 and s["started"] == 0 for s in state.values())
    done = idle and state["render"]["finished"] >= finished_renders
    if require:
        assert done, state
    return done


def load_run(shape: Shape, world_file: Path) -> dict:
    """bench/load.py's annotators against this server: sign in, then loop on blind annotation."""
    from bench.load import World, drive, summarize

    manifest = json.loads(world_file.read_text())
    world = World(ROOT, "production", "production-shape", shape.database_url, manifest)
    args = argparse.Namespace(
        clients=LOAD_CLIENTS,
        stage="blind",
        disagree=0.06,
        timeout=30.0,
        fresh_connections=False,
        warmup=1.0,
        seconds=LOAD_SECONDS,
    )
    since = dt.datetime.now(dt.UTC)
    outcome = drive(shape.base, world, args, verify=str(shape.certificates.ca))
    check_file = world_file.with_name("check.json")
    shape.run(
        "bench/loadworld.py",
        "check",
        "--checkout",
        str(ROOT),
        "--stage",
        "blind",
        "--since",
        since.isoformat(),
        "--out",
        str(check_file),
        what="loadworld check",
    )
    server_log = shape.process("gunicorn").log
    return summarize(outcome, json.loads(check_file.read_text()), server_log, args)


def check_the_release(archive: bytes, folder: Path) -> None:
    """The zip a release manager downloads: a release SciVer's loader reads (check_release)."""
    from validation.release_check import inspect_release

    with zipfile.ZipFile(io.BytesIO(archive)) as zipped:
        assert zipped.testzip() is None
        names = set(zipped.namelist())
        zipped.extractall(folder)
    manifest = json.loads((folder / "SciVer" / "manifest.json").read_text())
    assert manifest["files"], manifest
    missing = [path for path in manifest["files"] if f"SciVer/{path}" not in names]
    assert not missing, missing
    report = inspect_release(folder / "SciVer")
    assert not report.problems, report.problems[:20]


def check_jobs(records: dict, connection) -> None:
    """Every job the app recorded finished, on one of the two workers; the crawl on one and at
    least one render on the other."""
    from rq.job import Job as RqJob
    from rq.job import JobStatus

    jobs = records["jobs"]
    assert Counter(j["kind"] for j in jobs) == {
        "crawl": 1,
        "render_images": len(KEPT),
        "export_release": 1,
    }, jobs
    unfinished = [j for j in jobs if j["status"] != "finished"]
    assert not unfinished, unfinished
    ran_on: dict[int, str] = {}
    for job in jobs:
        assert job["rq_job_id"], job
        rq_job = RqJob.fetch(job["rq_job_id"], connection=connection)
        assert rq_job.get_status() == JobStatus.FINISHED, (job, rq_job.get_status())
        assert rq_job.worker_name in WORKERS, (job, rq_job.worker_name)
        ran_on[job["id"]] = rq_job.worker_name
    crawler = next(ran_on[j["id"]] for j in jobs if j["kind"] == "crawl")
    renderers = {ran_on[j["id"]] for j in jobs if j["kind"] == "render_images"}
    assert renderers - {crawler}, f"every render ran on {crawler}, the crawl's worker: {ran_on}"
    assert set(ran_on.values()) == set(WORKERS), ran_on


def check_the_crawl(records: dict, admin: Client, standin: StandInArxiv) -> None:
    (run,) = records["crawl_runs"]
    assert run["status"] == "finished", run
    counts = run["counts"]
    assert (counts["kept"], counts["rejected"], counts["failed"], counts["pending"]) == (
        len(KEPT),
        1,
        0,
        0,
    ), counts
    papers = {p["paper"]: p for p in records["crawled_papers"]}
    for arxiv_id in KEPT:
        paper = papers[f"{arxiv_id}v1"]
        assert (paper["status"], paper["images_status"]) == ("parsed", "done"), paper
        assert paper["licence"], paper
    tables = records["crawled_tables"]
    assert len(tables) == 2 * len(KEPT), tables
    assert all(t["stored"] and t["renderer"] and not t["error"] for t in tables), tables
    # The web process serves what the render worker wrote (one MEDIA_ROOT for both).
    image = admin.get(f"/media/{tables[0]['image']}")
    assert image.status_code == 200 and image.content.startswith(b"\x89PNG"), image.status_code
    # The workers reached the stand-in, as the crawler identifies itself.
    assert standin.requests("/api/query") and standin.requests(f"/html/{KEPT[0]}v1")
    assert all("SciVerStudio" in r.user_agent for r in standin.log)


def check_the_load(figures: dict) -> None:
    summary = {
        k: figures[k]
        for k in (
            "cycles",
            "signed_in",
            "error_total",
            "errors",
            "lost",
            "recorded_not_acknowledged",
            "items_held_by_two",
            "items_submitted_twice",
            "submitted_without_holding",
            "client_side_overlaps",
            "inconsistencies",
            "unconfirmed",
            "unreadable_pages",
            "server_log",
            "still_leased",
        )
    }
    print(f"load run: {json.dumps(summary)}")
    assert figures["signed_in"] == LOAD_CLIENTS, summary
    assert figures["cycles"] > 0, summary
    for name in (
        "error_total",
        "lost",
        "recorded_not_acknowledged",
        "items_held_by_two",
        "items_submitted_twice",
        "submitted_without_holding",
        "client_side_overlaps",
        "inconsistencies",
        "unconfirmed",
        "still_leased",
    ):
        assert figures[name] == 0, (name, summary)
    assert not figures["unreadable_pages"], summary
    assert figures["server_log"] == {
        "http_500_logged": 0,
        "database_is_locked": 0,
        "tracebacks": 0,
        "worker_timeouts": 0,
    }, summary
