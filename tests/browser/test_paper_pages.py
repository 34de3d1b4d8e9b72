"""In a real browser: an admin signs in and reads an imported paper, with every image loaded."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from django.core.management import call_command

from papers.models import Paper
from tests.factories import AdminFactory

CORPUS = Path(__file__).resolve().parents[2] / "papers" / "corpus"
pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def sign_in(page, username: str, password: str = "pw-for-tests-1") -> None:
    page.goto("/accounts/login/")
    page.fill("#id_username", username)
    page.fill("#id_password", password)
    page.keyboard.press("Enter")
    page.wait_for_url("**/")


def broken_images(page) -> list[str]:
    return page.eval_on_selector_all(
        "img", "imgs => imgs.filter(i => !(i.complete && i.naturalWidth > 0)).map(i => i.src)"
    )


def test_admin_reads_a_paper_with_screenshots_and_charts(page, settings, chromium_path):
    settings.CHROMIUM_PATH = chromium_path
    folder = sorted(p.parent for p in CORPUS.glob("*/paper.html"))[0]
    call_command("import_arxiv_html", str(folder), "--images", "now", stdout=open(os.devnull, "w"))
    paper = Paper.objects.get()
    assert set(paper.elements.filter(kind="table").values_list("image_renderer", flat=True)) == {
        "chromium"
    }
    admin = AdminFactory()
    sign_in(page, admin.username)

    page.wait_for_selector("text=Your workspace")  # signed in; "/" is the workspace
    page.goto("/papers/")
    page.click(f"text={paper.versioned_id}")
    page.wait_for_selector("figure.ctx-table img")
    figures = page.locator("figure.ctx-table, figure.ctx-chart")
    assert figures.count() == paper.table_count + paper.chart_count
    page.evaluate("window.scrollTo(0, document.body.scrollHeight)")  # lazy images load
    page.wait_for_function("Array.from(document.images).every(i => i.complete)", timeout=10_000)
    assert broken_images(page) == []
    page.locator("figure.ctx-table details summary").first.click()
    assert page.locator("figure.ctx-table details .ltx-table table").first.is_visible()
    if os.environ.get("SCIVER_SCREENSHOTS"):
        page.screenshot(path=os.environ["SCIVER_SCREENSHOTS"] + "/paper.png", full_page=False)

    page.goto("/admin/papers/element/?kind__exact=table")
    assert page.locator("#result_list tbody tr").count() == paper.table_count
    assert broken_images(page) == []
