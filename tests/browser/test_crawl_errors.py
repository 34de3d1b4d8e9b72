"""In a real browser (issue 20): a crawl that could not reach arXiv reads as what failed and
what to do, the technical detail folded; no full bar for "0 of 0"; long problems wrap inside
the table instead of widening the page."""

from __future__ import annotations

import os
from datetime import date

import pytest

from papers.models import CrawlEvent, CrawlRun
from tests.browser.pages import sign_in_to_workspace as sign_in
from tests.factories import AdminFactory
from tests.papers.crawl.messages import MAX_RETRIES

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_an_unreachable_arxiv_reads_plainly_and_the_page_keeps_its_width(page):
    AdminFactory(username="boss")
    run = CrawlRun.objects.create(
        date_from=date(2024, 10, 1),
        date_to=date(2024, 10, 31),
        categories=["cs.CL"],
        status=CrawlRun.Status.FAILED,
        phase=CrawlRun.Phase.SEARCH,
        search_chunks=0,
        error=f"search incomplete: {MAX_RETRIES}",
    )
    long_url = "https://export.arxiv.org/api/query?" + "search_query=cat%3Acs.CL" * 40
    for n in range(20):
        CrawlEvent.objects.create(
            run=run,
            level=CrawlEvent.Level.ERROR,
            kind="search",
            paper=f"2410.{n:05d}v1",
            message=f"search of 2024-10-01..2024-10-31 failed: {MAX_RETRIES} {long_url}",
        )
    sign_in(page, "boss")
    page.goto(f"/crawl/{run.pk}/")
    assert page.locator("progress").count() == 0
    assert "0 of 0" not in page.inner_text("#crawl-progress")
    error = page.locator("#crawl-error")
    assert "arXiv could not be reached" in error.inner_text()
    assert "What to do:" in error.inner_text()
    detail = error.locator("details.technical")
    assert not detail.locator("pre").is_visible()  # folded
    detail.locator("summary").click()
    assert "Max retries exceeded" in detail.locator("pre").inner_text()
    problems = page.locator("#crawl-problems")
    assert problems.locator("tbody tr").count() == 20
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    box = problems.bounding_box()
    assert box["x"] + box["width"] <= 1280
    if os.environ.get("SCIVER_SCREENSHOTS"):
        page.screenshot(path=os.environ["SCIVER_SCREENSHOTS"] + "/crawl-error.png", full_page=True)
