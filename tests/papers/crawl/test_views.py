"""The crawl pages: staff only; start a run, watch it (htmx polling), pause, cancel, resume."""

from __future__ import annotations

from datetime import date

import pytest
from django.urls import reverse

import papers.admin_crawl  # noqa: F401 - registers the crawl models in the admin
from jobs.models import Job
from papers.crawl.runner import execute_crawl
from papers.crawl.services import create_crawl_run
from papers.models import CrawlRun
from tests.factories import AdminFactory, UserFactory
from tests.papers.crawl.standin_papers import day, paper

pytestmark = [pytest.mark.django_db]


@pytest.fixture
def run(arxiv_settings) -> CrawlRun:
    return create_crawl_run(
        date_from=date(2024, 10, 1), date_to=date(2024, 10, 31), categories=["cs.CL"], images="none"
    )


def pages(run: CrawlRun) -> list[tuple[str, str]]:
    return [
        ("get", reverse("crawl:list")),
        ("get", reverse("crawl:detail", args=[run.pk])),
        ("get", reverse("crawl:progress", args=[run.pk])),
        ("post", reverse("crawl:stop", args=[run.pk])),
        ("post", reverse("crawl:resume", args=[run.pk])),
    ]


def test_anonymous_is_sent_to_sign_in(client, run):
    for method, url in pages(run):
        response = getattr(client, method)(url)
        assert response.status_code == 302 and "/accounts/login/" in response["Location"], url


def test_signed_in_non_staff_is_refused(client, run):
    client.force_login(UserFactory())
    for method, url in pages(run):
        assert getattr(client, method)(url).status_code == 403, url
    assert CrawlRun.objects.get(pk=run.pk).status == CrawlRun.Status.QUEUED


def test_staff_starts_a_crawl(client, settings):
    settings.REDIS_URL = ""  # no Redis: the run goes to a thread of this process
    client.force_login(AdminFactory())
    response = client.post(
        reverse("crawl:list"),
        {
            "date_from": "2024-10-01",
            "date_to": "2024-10-31",
            "categories": ["cs.CL", "cs.CV"],
            "other_categories": "stat.ML",
            "max_papers": "20",
            "min_tables": "2",
            "min_charts": "1",
        },
    )
    run = CrawlRun.objects.get()
    assert response.status_code == 302
    assert response["Location"] == reverse("crawl:detail", args=[run.pk])
    assert run.categories == ["cs.CL", "cs.CV", "stat.ML"]
    assert (run.max_papers, run.min_tables, run.min_charts) == (20, 2, 1)
    assert run.job is not None and run.job.queue == "crawl" and run.job.kind == "crawl"
    assert run.job.params == {"run_id": run.pk}
    assert run.created_by is not None


def test_bad_input_is_shown_and_nothing_starts(client):
    client.force_login(AdminFactory())
    response = client.post(
        reverse("crawl:list"),
        {
            "date_from": "2024-11-01",
            "date_to": "2024-10-01",
            "categories": [],
            "other_categories": "",
            "min_tables": "2",
            "min_charts": "2",
        },
    )
    assert response.status_code == 400  # the form again, with what is wrong
    assert b"Choose at least one category" in response.content
    assert not CrawlRun.objects.exists() and not Job.objects.exists()


def test_bad_category_is_refused(client):
    client.force_login(AdminFactory())
    response = client.post(
        reverse("crawl:list"),
        {
            "date_from": "2024-10-01",
            "date_to": "2024-10-02",
            "other_categories": "CL; DROP",
            "min_tables": "2",
            "min_charts": "2",
        },
    )
    assert b"not arXiv categories" in response.content
    assert not CrawlRun.objects.exists()


def test_progress_polls_while_active_and_stops_when_done(client, run, arxiv_settings, standin):
    client.force_login(AdminFactory())
    detail = client.get(reverse("crawl:detail", args=[run.pk]))
    assert b'hx-trigger="every 2s"' in detail.content
    assert b"htmx-2.0.11.min.js" in detail.content
    standin.add_paper(paper("2410.00001", published=day(1)))
    standin.add_paper(paper("2410.00002", published=day(2), tables=0))
    execute_crawl(run_id=run.pk)

    partial = client.get(reverse("crawl:progress", args=[run.pk]))

    assert partial.status_code == 200
    assert b"hx-trigger" not in partial.content, "a finished run is not polled"
    text = partial.content.decode()
    assert "Finished" in text or "finished" in text
    assert "too_few_tables 1" in text
    assert "<html" not in text, "the partial is a fragment"


def test_a_capped_run_says_what_it_left_and_a_paused_one_is_not_finished(
    client, run, arxiv_settings, standin
):
    client.force_login(AdminFactory())
    for n in (1, 2, 3):
        standin.add_paper(paper(f"2410.0000{n}", published=day(n)))
    CrawlRun.objects.filter(pk=run.pk).update(max_papers=1)
    execute_crawl(run_id=run.pk)
    text = client.get(reverse("crawl:progress", args=[run.pk])).content.decode()
    assert "Not fetched (cap of 1 reached)" in text and "To fetch" not in text
    CrawlRun.objects.filter(pk=run.pk).update(status=CrawlRun.Status.PAUSED)
    text = client.get(reverse("crawl:progress", args=[run.pk])).content.decode()
    assert " · paused " in text and " · finished " not in text and "To fetch" in text


def test_cancel_a_queued_run(client, run):
    client.force_login(AdminFactory())
    response = client.post(reverse("crawl:stop", args=[run.pk]), {"action": "cancel"})
    assert response.status_code == 302
    run.refresh_from_db()
    assert run.status == CrawlRun.Status.CANCELLED
    assert run.events.filter(message__contains="cancelled").exists()


def test_pause_a_running_run_then_resume(client, run, settings):
    settings.REDIS_URL = ""
    client.force_login(AdminFactory())
    CrawlRun.objects.filter(pk=run.pk).update(status=CrawlRun.Status.RUNNING)
    client.post(reverse("crawl:stop", args=[run.pk]), {"action": "pause"})
    assert CrawlRun.objects.get(pk=run.pk).stop_requested == "pause"
    CrawlRun.objects.filter(pk=run.pk).update(status=CrawlRun.Status.PAUSED, stop_requested="")

    client.post(reverse("crawl:resume", args=[run.pk]))

    run.refresh_from_db()
    assert run.status == CrawlRun.Status.QUEUED and run.job is not None


def test_cannot_resume_a_finished_run(client, run):
    client.force_login(AdminFactory())
    CrawlRun.objects.filter(pk=run.pk).update(status=CrawlRun.Status.FINISHED)
    response = client.post(reverse("crawl:resume", args=[run.pk]), follow=True)
    assert b"nothing left to resume" in response.content


def test_admin_lists_runs(client, run):
    client.force_login(AdminFactory())
    response = client.get(reverse("admin:papers_crawlrun_changelist"))
    assert response.status_code == 200 and str(run.categories[0]).encode() in response.content
    assert client.get(reverse("admin:papers_crawlrun_change", args=[run.pk])).status_code == 200


def test_a_run_whose_worker_died_can_be_resumed(client, run, settings):
    settings.REDIS_URL = ""
    client.force_login(AdminFactory())
    CrawlRun.objects.filter(pk=run.pk).update(
        status=CrawlRun.Status.RUNNING, worker="this-host-is-gone:1", heartbeat_at=None
    )
    page = client.get(reverse("crawl:detail", args=[run.pk]))
    assert b"is gone; resume it" in page.content

    client.post(reverse("crawl:resume", args=[run.pk]))

    assert CrawlRun.objects.get(pk=run.pk).status == CrawlRun.Status.QUEUED
