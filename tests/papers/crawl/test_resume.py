"""Kill-and-resume: a crawl killed (SIGKILL) mid-way and resumed ends as an uninterrupted one.

The crawl runs in a real `manage.py crawl_arxiv` subprocess on an SQLite file; the stand-in
holds one chosen request so that the kill lands exactly there: in the search, while a page
is fetched, while its chart images are fetched (inside the import), or after the import
while the licence is read.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from collections import Counter
from datetime import date
from pathlib import Path

import pytest

from papers.crawl.runner import execute_crawl
from papers.crawl.services import create_crawl_run, prepare_resume, request_stop
from papers.models import CrawlRun
from tests.papers.crawl.standin_papers import day, paper
from tests.standin import Fault, StandInArxiv, StandInPaper, corpus_papers

ROOT = Path(__file__).resolve().parents[3]
CATEGORIES = "cs.CV,cs.CL,cs.RO,cs.SE,cs.LG,cs.AI,cs.IR,cs.CR"


def papers() -> list[StandInPaper]:
    found = corpus_papers()
    found += [
        paper("2410.00021", published=day(3), comment="Accepted at ICLR 2025"),
        paper("2410.00022", published=day(4), tables=1),
        paper("2410.00023", published=day(5)),
        paper("2410.00024", published=day(6), html=None),
        paper("2410.00025", published=day(7), comment="Under review"),
    ]
    return found


def environment(db: Path, tmp: Path, standin: StandInArxiv | None = None) -> dict[str, str]:
    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "tests.papers.crawl.crawl_settings",
        "SCIVER_TESTING": "1",
        "DATABASE_URL": f"sqlite:///{db}",
        "REDIS_URL": "",
        "MEDIA_ROOT": str(tmp / "media"),
        "ARXIV_DELAY_SECONDS": "0",
        "ARXIV_GATE_FILE": str(tmp / "gate"),
        "PYTHONPATH": str(ROOT),
    }
    if standin is not None:
        env.update(standin.settings())
    return env


def manage(*args: str) -> list[str]:
    return [sys.executable, str(ROOT / "manage.py"), *args]


CRAWL = (
    "crawl_arxiv",
    "--from",
    "2024-09-01",
    "--to",
    "2024-11-15",
    "--categories",
    CATEGORIES,
    "--images",
    "none",
    "--no-progress",
)


@pytest.fixture(scope="module")
def template_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    tmp = tmp_path_factory.mktemp("template")
    db = tmp / "db.sqlite3"
    subprocess.run(
        manage("migrate", "--noinput"),
        env=environment(db, tmp),
        check=True,
        timeout=90,
        capture_output=True,
    )
    return db


def fresh_db(template: Path, tmp: Path) -> Path:
    db = tmp / "db.sqlite3"
    shutil.copy(template, db)
    return db


def dump(db: Path) -> dict[str, list[tuple]]:
    with sqlite3.connect(db) as conn:
        q = conn.execute
        return {
            "papers": q(
                "SELECT arxiv_id, version, status, status_reason, table_count, chart_count,"
                " paragraph_count, license_url, license_name, acceptance, venue, title,"
                " raw_html_compressed IS NOT NULL FROM papers_paper ORDER BY arxiv_id, version"
            ).fetchall(),
            "elements": q(
                "SELECT p.arxiv_id, e.kind, e.anchor, e.caption FROM papers_element e"
                " JOIN papers_paper p ON p.id = e.paper_id ORDER BY p.arxiv_id, e.anchor"
            ).fetchall(),
            "panels": q(
                "SELECT p.arxiv_id, e.anchor, ep.\"order\", ep.image != '', ep.error"
                " FROM papers_elementpanel ep JOIN papers_element e ON e.id = ep.element_id"
                " JOIN papers_paper p ON p.id = e.paper_id ORDER BY 1, 2, 3"
            ).fetchall(),
            "items": q(
                "SELECT p.arxiv_id, i.outcome, i.reason_code, i.tables, i.charts"
                " FROM papers_crawlitem i JOIN papers_paper p ON p.id = i.paper_id ORDER BY 1"
            ).fetchall(),
            "runs": q("SELECT status, phase, search_done, error FROM papers_crawlrun").fetchall(),
        }


@pytest.fixture(scope="module")
def reference(template_db: Path, tmp_path_factory: pytest.TempPathFactory):
    tmp = tmp_path_factory.mktemp("reference")
    db = fresh_db(template_db, tmp)
    with StandInArxiv(papers()) as standin:
        done = subprocess.run(
            manage(*CRAWL),
            env=environment(db, tmp, standin),
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert done.returncode == 0, done.stderr
        log = [r.path for r in standin.log]
    return dump(db), log


# where to kill: (the request held when the process is killed, what may be fetched again:
# the requests of the paper in flight, whose import had not committed)
KILL_POINTS = {
    "search": (r"^/api/query.*start=3&", None),
    "html": (r"^/html/2410\.00023v1$", r"^/html/2410\.00023v1$"),
    "asset": (r"^/html/2410\.00021v1/x2\.png$", r"^/html/2410\.00021v1"),
    "licence": (r"^/abs/2410\.00021v1$", r"^/abs/2410\.00021v1$"),
}


def resume(env: dict[str, str]) -> subprocess.CompletedProcess:
    """`crawl_arxiv --resume 1` in a subprocess, as a person resumes a killed run."""
    return subprocess.run(
        manage("crawl_arxiv", "--resume", "1", "--no-progress"),
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )


@pytest.mark.parametrize("where", list(KILL_POINTS))
def test_killed_run_resumes_to_the_same_database(template_db, reference, tmp_path, where):
    expected, reference_log = reference
    pattern, in_flight = KILL_POINTS[where]
    assert any(re.search(pattern, path) for path in reference_log), "the kill point is reached"
    db = fresh_db(template_db, tmp_path)
    reached = threading.Event()
    with StandInArxiv(papers()) as standin:
        standin.add_fault(pattern, Fault("hold", seconds=30))
        standin.on_request.append(lambda path: re.search(pattern, path) and reached.set())
        env = environment(db, tmp_path, standin)
        with open(tmp_path / "killed.log", "w") as out:
            proc = subprocess.Popen(manage(*CRAWL), env=env, stdout=out, stderr=out)
            try:
                assert reached.wait(timeout=30), (tmp_path / "killed.log").read_text()
            finally:
                proc.send_signal(signal.SIGKILL)
                proc.wait(timeout=10)
        killed_status = dump(db)["runs"][0][0]
        assert killed_status == "running", "a killed run is left as it was"
        standin.clear_faults()
        before_resume = len(standin.log)

        resumed = resume(env)

        assert resumed.returncode == 0, resumed.stderr
        assert "finished" in resumed.stdout
        assert dump(db) == expected
        # Nothing stored before the kill is fetched again; only the request in flight is.
        fetched = Counter(
            r.path
            for r in standin.log
            if r.path.startswith(("/html/", "/abs/")) and r.status == 200
        )
        again = {p: n for p, n in fetched.items() if n > 1}
        assert all(in_flight and re.search(in_flight, p) for p in again), again
        assert all(n == 2 for n in again.values()), again
        assert len(standin.log) - before_resume < len(reference_log)


@pytest.mark.django_db
def test_pause_and_resume_in_process(arxiv_settings, standin):
    for n in range(1, 5):
        standin.add_paper(paper(f"2410.0000{n}", published=day(n)))
    run = create_crawl_run(
        date_from=date(2024, 10, 1), date_to=date(2024, 10, 31), categories=["cs.CL"], images="none"
    )
    reached = threading.Event()
    standin.on_request.append(lambda path: path == "/html/2410.00002v1" and reached.set())

    def admin_clicks_pause() -> bool:
        # What the pause button does, at the moment the second paper's page was asked for.
        if reached.is_set() and CrawlRun.objects.get(pk=run.pk).stop_requested == "":
            request_stop(run=run, action="pause")
        return False

    paused = execute_crawl(run_id=run.pk, should_stop=admin_clicks_pause)

    assert paused.status == CrawlRun.Status.PAUSED
    counts = paused.counts()
    assert counts["fetched"] == 2 and counts["pending"] == 2

    finished = execute_crawl(run_id=prepare_resume(run=paused).pk)

    assert finished.status == CrawlRun.Status.FINISHED
    assert finished.counts()["kept"] == 4
    assert Counter(standin.html_requests()) == {f"/html/2410.0000{n}v1": 1 for n in range(1, 5)}
    messages = list(finished.events.values_list("message", flat=True))
    assert "paused" in messages and any(m.startswith("resumed") for m in messages)


@pytest.mark.django_db
def test_a_paused_crawl_job_says_so(arxiv_settings, standin):
    from jobs.models import Job
    from papers.crawl.services import start_crawl

    standin.add_paper(paper("2410.00001", published=day(1)))
    run = create_crawl_run(
        date_from=date(2024, 10, 1), date_to=date(2024, 10, 31), categories=["cs.CL"], images="none"
    )
    request_stop(run=run, action="pause")
    job = Job.objects.get(pk=start_crawl(run=run, mode="inline").pk)
    assert CrawlRun.objects.get(pk=run.pk).status == CrawlRun.Status.PAUSED
    assert job.status == Job.Status.FINISHED  # the job ended; the crawl waits to be resumed
    assert "paused by request" in job.message and f"crawl run {run.pk} resumes" in job.message


def test_killed_while_drawing_screenshots_resumes_them(template_db, tmp_path):
    """Killed after the import committed, half-way through the table screenshots: the paper
    is parsed but short of images, and the resumed run draws the missing ones only."""
    db = fresh_db(template_db, tmp_path)
    media = tmp_path / "media"
    many = paper("2410.00031", published=day(3), tables=80, charts=2)
    crawl = [*CRAWL[: CRAWL.index("--images")], "--images", "now", "--no-progress"]
    with StandInArxiv([many]) as standin:
        env = {**environment(db, tmp_path, standin), "USE_CHROMIUM": "0"}
        with open(tmp_path / "killed.log", "w") as out:
            proc = subprocess.Popen(manage(*crawl), env=env, stdout=out, stderr=out)
            try:
                # Ten screenshots on disk: the import has committed and the drawing is under
                # way (Pillow draws the 80 tables in about a second).
                while len(list(media.rglob("S1.T*.png"))) < 10:
                    assert proc.poll() is None, (tmp_path / "killed.log").read_text()
                    time.sleep(0.002)
            finally:
                proc.send_signal(signal.SIGKILL)
                proc.wait(timeout=10)
        with sqlite3.connect(db) as conn:
            status, images = conn.execute(
                "SELECT status, images_status FROM papers_paper"
            ).fetchone()
            drawn = [
                name
                for (name,) in conn.execute(
                    "SELECT image FROM papers_element WHERE kind = 'table' AND image != ''"
                )
            ]
        assert (status, images) == ("parsed", "none")
        assert 9 <= len(drawn) < 80, "the kill landed while the screenshots were drawn"
        before = {name: (media / name).stat().st_mtime_ns for name in drawn}

        resumed = resume(env)

        assert resumed.returncode == 0, resumed.stderr
        with sqlite3.connect(db) as conn:
            q = conn.execute
            assert q("SELECT images_status, license_url != '' FROM papers_paper").fetchone() == (
                "done",
                1,
            )
            tables = q("SELECT image FROM papers_element WHERE kind = 'table'").fetchall()
            assert len(tables) == 80 and all(
                name and (media / name).is_file() for (name,) in tables
            )
            assert q("SELECT outcome FROM papers_crawlitem").fetchall() == [("kept",)]
            assert q("SELECT status FROM papers_crawlrun").fetchall() == [("finished",)]
            said = [m for (m,) in q("SELECT message FROM papers_crawlevent WHERE kind = 'asset'")]
        assert said == ["images not finished by an earlier session: rendered now"]
        # The screenshots drawn before the kill were not drawn again; the page not fetched again.
        assert {name: (media / name).stat().st_mtime_ns for name in drawn} == before
        assert Counter(standin.html_requests()) == {"/html/2410.00031v1": 1}


def test_a_killed_crawl_by_ids_resumes_to_the_same_outcomes(template_db, tmp_path):
    """A reading list, killed while its second page is fetched and resumed: every line ends
    with the outcome of an uninterrupted run, and no page stored before the kill is fetched
    again."""
    listed = [
        paper("2410.00041", published=day(3)),
        paper("2410.00042", published=day(4)),
        paper("2410.00043", published=day(5), tables=1),
    ]
    ids = ("--ids", "2410.00043,2410.00041,2410.09999,2410.00042", "--images", "none")
    outcomes = "SELECT line, outcome, detail FROM papers_crawllistedid ORDER BY line"
    uninterrupted = tmp_path / "uninterrupted"
    uninterrupted.mkdir()
    db = fresh_db(template_db, uninterrupted)
    with StandInArxiv(listed) as standin:
        done = subprocess.run(
            manage("crawl_arxiv", *ids, "--no-progress"),
            env=environment(db, uninterrupted, standin),
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert done.returncode == 0, done.stderr
    with sqlite3.connect(db) as conn:
        expected = conn.execute(outcomes).fetchall()
        expected_items = conn.execute("SELECT outcome FROM papers_crawlitem ORDER BY id").fetchall()

    db = fresh_db(template_db, tmp_path)
    pattern = r"^/html/2410\.00041v1$"  # the list's second page
    reached = threading.Event()
    with StandInArxiv(listed) as standin:
        standin.add_fault(pattern, Fault("hold", seconds=30))
        standin.on_request.append(lambda path: re.search(pattern, path) and reached.set())
        env = environment(db, tmp_path, standin)
        with open(tmp_path / "killed.log", "w") as out:
            proc = subprocess.Popen(
                manage("crawl_arxiv", *ids, "--no-progress"), env=env, stdout=out, stderr=out
            )
            try:
                assert reached.wait(timeout=30), (tmp_path / "killed.log").read_text()
            finally:
                proc.send_signal(signal.SIGKILL)
                proc.wait(timeout=10)
        standin.clear_faults()

        resumed = resume(env)

        assert resumed.returncode == 0, resumed.stderr
        assert "4 listed ids: kept 2, set aside 1, not found 1" in resumed.stdout
        with sqlite3.connect(db) as conn:
            assert conn.execute(outcomes).fetchall() == expected
            items = conn.execute("SELECT outcome FROM papers_crawlitem ORDER BY id").fetchall()
            assert items == expected_items
        pages = Counter(standin.html_requests())
        assert pages["/html/2410.00043v1"] == 1  # stored before the kill: not fetched again
        assert pages["/html/2410.00041v1"] == 2  # in flight at the kill: asked again, once
        assert len([r for r in standin.log if r.path.startswith("/api/query")]) == 1
