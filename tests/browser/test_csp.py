"""In a real browser, under the Content-Security-Policy every response carries: the main pages of
an annotator and of an admin load their scripts, run htmx and show their inline SVG plots with
no violation (each one is recorded from the `securitypolicyviolation` event and the console)."""

from __future__ import annotations

import os

import pytest
from django.core.management import call_command

from tests.browser.pages import RECORDER, sample_claim_task, sign_in
from tests.factories import AdminFactory

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def world(settings):
    """A real paper curated by alice with a claim task waiting, and the demo's synthetic papers
    taken through every stage (so agreement and statistics have plots)."""
    settings.USE_CHROMIUM = False
    paper = sample_claim_task().paper
    with open(os.devnull, "w") as sink:
        call_command("simulate_annotation", "--papers", "6", "--seed", "13", stdout=sink)
    AdminFactory(username="boss")
    return paper


def watched(new_page):
    page = new_page()
    page.add_init_script(RECORDER)
    console: list[str] = []
    page.on(
        "console",
        lambda m: console.append(m.text) if "Content Security Policy" in m.text else None,
    )
    return page, console


def violations(page, console: list[str]) -> list[str]:
    page.wait_for_load_state("networkidle")
    return [*page.evaluate("window.__csp || []"), *console]


def visit(page, console: list[str], url: str) -> None:
    response = page.goto(url)
    assert response.status == 200, url
    assert "script-src 'self'" in response.headers["content-security-policy"]
    assert violations(page, console) == [], url
    # htmx is loaded and injected no <style> of its own (the policy would refuse it).
    assert (
        page.evaluate("typeof htmx !== 'undefined' && htmx.config.includeIndicatorStyles") is False
    )
    assert page.locator("style").count() == 0


def test_the_recorder_sees_a_violation(new_page, world):
    """The control: an inline script is refused, and recorded."""
    page, console = watched(new_page)
    page.goto("/accounts/login/")
    with pytest.raises(Exception):  # noqa: B017 - Playwright's error for a refused script
        page.add_script_tag(content="window.__inline = 1")
    assert page.evaluate("window.__inline") is None
    assert any("script-src" in v for v in violations(page, console))


def test_an_annotators_pages_run_under_the_policy(new_page, world):
    page, console = watched(new_page)
    sign_in(page, "alice")
    assert violations(page, console) == []
    vid = world.versioned_id
    for url in ("/", "/papers/", f"/papers/{vid}/", f"/curate/{vid}/"):
        visit(page, console, url)

    # htmx on the curation page: a table's HTML, loaded on demand.
    page.locator("details.table-html summary").first.click()
    page.locator("details.table-html .table-html-body table").first.wait_for()

    # The writing page: its scripts, htmx's whole context, the autosave.
    page.goto("/")
    page.keyboard.press("n")
    page.wait_for_url("**/claims/write/*/")
    page.keyboard.press("w")
    page.locator("#whole-context .context-body .ev-item").first.wait_for()
    page.fill("#id_entailed", "The proposed approach is better than every baseline in Table 1.")
    page.wait_for_function(
        "document.getElementById('draft-state').textContent.includes('Draft saved')"
    )
    assert violations(page, console) == []


def test_an_admins_pages_and_plots_run_under_the_policy(new_page, world):
    page, console = watched(new_page)
    sign_in(page, "boss")
    for url in (
        "/",
        "/manage/assignments/",
        "/manage/people/",
        "/manage/claims/",
        "/manage/review/",
        "/manage/validation/",
        "/manage/releases/",
        "/crawl/",
        "/admin/",
        "/admin/annotation/assignment/",
    ):
        visit(page, console, url)
    for url in ("/agreement/", "/manage/statistics/"):
        visit(page, console, url)
        plots = page.locator("svg.plot")
        assert plots.count() > 0, url
        assert plots.first.bounding_box()["width"] > 100, url  # drawn, not blocked
