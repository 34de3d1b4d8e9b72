"""Crawl errors as an admin reads them (issue 20): arXiv unreachable says so in plain words
with what to do, the technical detail folded; nothing to fetch shows no full bar."""

from __future__ import annotations

from datetime import date

import pytest
from django.urls import reverse

from papers.crawl.explain import explain
from papers.crawl.runner import execute_crawl
from papers.crawl.services import create_crawl_run
from papers.models import CrawlRun
from tests.factories import AdminFactory
from tests.papers.crawl.messages import MAX_RETRIES


@pytest.mark.parametrize(
    ("message", "said"),
    [
        (MAX_RETRIES, "arXiv could not be reached"),
        ("NameResolutionError: Failed to resolve 'export.arxiv.org'", "looked up (DNS)"),
        ("Read timed out. (read timeout=30)", "did not answer in time"),
        ("HTTP 429 after 4 tries", "slow down"),
        ("HTTP 503 after 4 tries", "server error"),
        ("SSLError: certificate verify failed", "could not be verified"),
    ],
)
def test_technical_messages_read_as_what_failed_and_what_to_do(message, said):
    explained = explain(message)
    assert said in explained.summary
    assert explained.advice and explained.detail == message and explained.technical


def test_an_unknown_message_keeps_its_first_line_and_its_detail():
    explained = explain("Something odd\nTraceback (most recent call last): …")
    assert explained.summary == "Something odd" and explained.technical
    assert explain("licence not read", fallback_advice="").advice == ""


@pytest.mark.django_db
def test_with_arxiv_unreachable_the_page_says_so_plainly_and_shows_no_full_bar(
    client, arxiv_settings, standin
):
    standin.stop()  # arXiv is gone: every connection is refused
    run = create_crawl_run(
        date_from=date(2024, 10, 1),
        date_to=date(2024, 10, 31),
        categories=["cs.CL"],
        images="none",
    )
    run = execute_crawl(run_id=run.pk)
    assert run.status == CrawlRun.Status.FAILED
    client.force_login(AdminFactory())
    page = client.get(reverse("crawl:detail", args=[run.pk])).content.decode()
    assert "arXiv could not be reached" in page
    assert "What to do:" in page and "Resume" in page
    assert '<details class="technical"><summary>Technical detail</summary>' in page
    assert "<progress" not in page  # nothing to count: no bar, let alone a full one
    assert "0 of 0" not in page
    assert "No date range searched." in page or "No papers fetched" in page


@pytest.mark.django_db
def test_a_run_with_nothing_to_fetch_shows_no_full_bar(client, arxiv_settings):
    run = create_crawl_run(
        date_from=date(2024, 10, 1),
        date_to=date(2024, 10, 31),
        categories=["cs.CL"],
        images="none",
    )
    run = execute_crawl(run_id=run.pk)  # the stand-in has no papers
    assert run.status == CrawlRun.Status.FINISHED
    client.force_login(AdminFactory())
    page = client.get(reverse("crawl:progress", args=[run.pk])).content.decode()
    assert "<progress" not in page and "0 of 0" not in page
    assert "No papers to fetch: the search found none that match." in page
