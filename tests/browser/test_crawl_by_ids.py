"""In a real browser (issue 38): an admin pastes a reading list into the crawl page's box; a
line that is no id is named and the box keeps the text; the corrected list runs (a thread of
the server, against the stand-in arXiv) and the run's page fills in each line's outcome."""

from __future__ import annotations

import os
import re

import pytest

from papers.models import CrawlRun
from tests.browser.pages import sign_in_to_workspace as sign_in
from tests.factories import AdminFactory
from tests.papers.crawl.standin_papers import day, paper
from tests.standin import StandInArxiv

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def arxiv(settings, tmp_path):
    server = StandInArxiv(
        [
            paper("2410.00101", published=day(3)),
            paper("2410.00102", published=day(4), tables=1),
        ]
    ).start()
    server.point_crawler(settings, tmp_path)
    settings.REDIS_URL = ""  # the run goes to a thread of the server, as without Redis
    settings.USE_CHROMIUM = False  # table screenshots by Pillow: the browser here is the test's
    try:
        yield server
    finally:
        server.stop()


def test_an_admin_adds_papers_by_id_and_reads_each_outcome(page, arxiv):
    AdminFactory(username="boss")
    sign_in(page, "boss")
    page.goto("/crawl/")
    box = page.locator("#crawl-by-ids textarea[name=ids]")
    box.fill("2410.00101\n2410.0026\n2410.00102\n2410.09999")
    page.locator("#crawl-by-ids button[type=submit]").click()
    errors = page.locator("#crawl-ids-errors")
    assert errors.is_visible() and _in_view(page, "#crawl-ids-errors")  # not below the fold
    assert "line 2: '2410.0026': ids of 2024 have 5 digits" in errors.inner_text()
    assert (
        page.locator("#crawl-by-ids textarea[name=ids]")
        .input_value()
        .startswith("2410.00101\n2410.0026")
    )
    assert not CrawlRun.objects.exists() and arxiv.log == []
    if os.environ.get("SCIVER_SCREENSHOTS"):
        page.screenshot(path=os.environ["SCIVER_SCREENSHOTS"] + "/crawl-ids-refused.png")

    box = page.locator("#crawl-by-ids textarea[name=ids]")
    box.fill("2410.00101\n2410.00102\n2410.09999  # not on arXiv")
    page.locator("#crawl-by-ids button[type=submit]").click()
    page.wait_for_url(re.compile(r"/crawl/\d+/"))  # (the fragment of the form stays on)
    # The page polls while the run is active; the last line is filled in when it is done.
    page.locator('#crawl-listed tr[data-outcome="set_aside"]').wait_for(timeout=30_000)
    rows = page.locator("#crawl-listed tbody tr")
    outcomes = [rows.nth(i).get_attribute("data-outcome") for i in range(rows.count())]
    assert outcomes == ["kept", "set_aside", "not_found"]
    assert "1 table, 2 charts" in rows.nth(1).inner_text()
    assert "kept 1 · set aside 1 · not found 1" in page.inner_text("#crawl-listed-counts")
    if os.environ.get("SCIVER_SCREENSHOTS"):
        page.screenshot(path=os.environ["SCIVER_SCREENSHOTS"] + "/crawl-by-ids.png", full_page=True)


def _in_view(page, selector: str) -> bool:
    return page.evaluate(
        """(s) => { const r = document.querySelector(s).getBoundingClientRect();
                    return r.top >= 0 && r.bottom <= window.innerHeight; }""",
        selector,
    )
