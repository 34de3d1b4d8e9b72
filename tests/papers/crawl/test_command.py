"""`manage.py crawl_arxiv`: a run in the terminal with a progress bar, resume, bad input."""

from __future__ import annotations

import io

import pytest
from django.core.management import CommandError, call_command

from papers.crawl.services import create_crawl_run, request_stop
from papers.models import CrawlRun, Paper
from tests.papers.crawl.standin_papers import day, paper

pytestmark = pytest.mark.django_db


def run_command(*args: str) -> tuple[str, str]:
    out, err = io.StringIO(), io.StringIO()
    call_command("crawl_arxiv", *args, stdout=out, stderr=err)
    return out.getvalue(), err.getvalue()


def test_crawl_in_the_terminal(arxiv_settings, standin, capsys):
    standin.add_paper(
        paper("2410.00001", published=day(1), comment="Accepted to ACL 2024", categories=["cs.CL"])
    )
    standin.add_paper(paper("2410.00002", published=day(2), charts=0, categories=["cs.CV"]))
    standin.add_paper(paper("2410.00003", published=day(3), categories=["cs.RO"]))

    out, _ = run_command(
        "--from",
        "2024-10-01",
        "--to",
        "2024-10-31",
        "--categories",
        "cs.CL,cs.CV",
        "--max-papers",
        "5",
        "--images",
        "none",
    )

    run = CrawlRun.objects.get()
    assert (run.categories, run.max_papers) == (["cs.CL", "cs.CV"], 5)
    assert "finished: found 2, fetched 2, kept 1, rejected 1" in out
    assert "too_few_charts: 1" in out
    progress = capsys.readouterr().err
    assert "fetch  [" in progress and "2/2" in progress  # the bar (a line when not a tty)
    assert Paper.objects.get(arxiv_id="2410.00001").status == Paper.Status.PARSED


def test_accepted_only_flag(arxiv_settings, standin):
    standin.add_paper(paper("2410.00001", published=day(1), comment="Accepted to ACL 2024"))
    standin.add_paper(paper("2410.00002", published=day(2)))
    out, _ = run_command(
        "--from",
        "2024-10-01",
        "--to",
        "2024-10-31",
        "--categories",
        "cs.CL",
        "--accepted-only",
        "--images",
        "none",
        "--no-progress",
    )
    assert "kept 1" in out and "excluded 1" in out


def test_resume_a_paused_run(arxiv_settings, standin):
    standin.add_paper(paper("2410.00001", published=day(1)))
    run = create_crawl_run(
        date_from=day(1).date(), date_to=day(3).date(), categories=["cs.CL"], images="none"
    )
    request_stop(run=run, action="pause")  # paused before it started

    out, _ = run_command("--resume", str(run.pk), "--no-progress")

    assert f"crawl run #{run.pk} finished" in out
    assert CrawlRun.objects.get(pk=run.pk).counts()["kept"] == 1


def test_resume_refuses_a_live_run(arxiv_settings):
    from django.utils import timezone

    from papers.crawl.services import this_worker

    run = create_crawl_run(date_from=day(1).date(), date_to=day(3).date(), categories=["cs.CL"])
    CrawlRun.objects.filter(pk=run.pk).update(
        status=CrawlRun.Status.RUNNING, worker=this_worker(), heartbeat_at=timezone.now()
    )
    with pytest.raises(CommandError, match="is running in"):
        run_command("--resume", str(run.pk))


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--from", "2024-13-01"], "not a date"),
        (["--from", "2024-11-01", "--to", "2024-10-01"], "window is empty"),
        (["--categories", "cs.CL,computer science"], "not arXiv categories"),
        (["--max-papers", "0"], "at least 1"),
        (["--resume", "999"], "no crawl run #999"),
    ],
)
def test_bad_input(arxiv_settings, args, message):
    with pytest.raises(CommandError, match=message):
        run_command(*args, "--no-progress")
    assert not CrawlRun.objects.exists()


def test_background_needs_redis(arxiv_settings, settings):
    settings.REDIS_URL = ""
    with pytest.raises(CommandError, match="needs REDIS_URL"):
        run_command("--background")
