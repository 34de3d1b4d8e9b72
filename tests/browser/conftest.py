"""Playwright driving Debian's Chromium against the live test server; failures leave a
screenshot and the page's HTML in var/test-artifacts/ (or $SCIVER_TEST_ARTIFACTS)."""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from django.core.management import call_command

from annotation.assignment import services as assignment_services
from annotation.curation import services as curation_services
from annotation.models import Subfield
from annotation.queue import work
from annotation.writing import services as writing
from papers.models import Element, Paper, Section
from papers.render.chromium import CHROMIUM_ARGS
from tests.annotation.claim_factories import submit
from tests.annotation.factories import make_expert
from tests.browser.pages import (
    _polled_from_python,
    sample_claim_task,
    sample_folder,
)
from tests.factories import AdminFactory
from tests.services import chromium_or_skip

ARTIFACTS = Path(
    os.environ.get(
        "SCIVER_TEST_ARTIFACTS", Path(__file__).resolve().parents[2] / "var" / "test-artifacts"
    )
)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo):
    """Remember each phase's report on the test item, for the fixtures' teardown."""
    report = yield
    setattr(item, f"rep_{report.when}", report)
    return report


def _failed(request: pytest.FixtureRequest) -> bool:
    return any(
        getattr(getattr(request.node, f"rep_{when}", None), "failed", False)
        for when in ("setup", "call")
    )


def _save_artifacts(request: pytest.FixtureRequest, pages: list) -> None:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    stem = re.sub(r"[^A-Za-z0-9_.-]+", "_", request.node.nodeid)[-150:]
    for index, page in enumerate(pages):
        if page.is_closed():
            continue
        name = f"{stem}-{index}" if len(pages) > 1 else stem
        try:
            page.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=True, timeout=10_000)
            (ARTIFACTS / f"{name}.html").write_text(page.content())
        except Exception as exc:  # the page may have crashed: say so, keep the test's own error
            (ARTIFACTS / f"{name}.error.txt").write_text(f"{page.url}: {exc}")


@pytest.fixture(scope="module")
def browser() -> Iterator[object]:
    path = chromium_or_skip()
    from playwright.sync_api import sync_playwright

    # Playwright's sync API runs an event loop in this thread while it is open, and Django then
    # refuses ORM calls here; the tests' own ORM calls are synchronous and safe, so allow them
    # for as long as the browser lives, and no longer.
    previous = os.environ.get("DJANGO_ALLOW_ASYNC_UNSAFE")
    os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
    try:
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(
                executable_path=path, args=list(CHROMIUM_ARGS), headless=True, timeout=30_000
            )
            yield browser
            browser.close()
    finally:
        if previous is None:
            os.environ.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)
        else:
            os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = previous


@pytest.fixture
def app_serves_media(monkeypatch: pytest.MonkeyPatch) -> None:
    """Django's live server answers /media/ itself, before any view: switch that off so media
    goes through the app's access check, as in production."""
    from django.test.testcases import _MediaFilesHandler

    monkeypatch.setattr(_MediaFilesHandler, "_should_handle", lambda self, path: False)


@pytest.fixture
def new_page(
    browser, live_server, app_serves_media, request: pytest.FixtureRequest
) -> Iterator[Callable[[], object]]:
    """Open a page in a fresh browser context (its own cookies: one per person)."""
    contexts, pages = [], []

    def open_page() -> object:
        context = browser.new_context(
            base_url=live_server.url, viewport={"width": 1280, "height": 900}
        )
        context.set_default_timeout(10_000)
        contexts.append(context)
        page = context.new_page()
        page.wait_for_function = _polled_from_python(page)
        pages.append(page)
        return page

    yield open_page
    if _failed(request):
        _save_artifacts(request, pages)
    for context in contexts:
        context.close()


@pytest.fixture
def page(new_page) -> object:
    return new_page()


@pytest.fixture
def task(settings):
    settings.USE_CHROMIUM = False
    return sample_claim_task()


@pytest.fixture
def pair(settings):
    settings.USE_CHROMIUM = False
    Subfield.ensure_sciver_subfields()
    with open(os.devnull, "w") as sink:
        call_command("import_arxiv_html", str(sample_folder()), "--images", "now", stdout=sink)
    paper = Paper.objects.get()
    people = {
        n: make_expert(n, (paper.primary_category,)) for n in ("alice", "bob", "carol", "dave")
    }
    AdminFactory(username="boss", password="pw-for-tests-1")
    assignment_services.assign_papers(papers=[paper], experts=[people["alice"]], assigned_by=None)
    body = Section.objects.filter(paper=paper, kind__in=["body", "abstract"])
    curation_services.save_curated_context(
        paper=paper,
        user=people["alice"],
        kept_section_ids=set(body.values_list("pk", flat=True)),
        kept_element_ids=set(Element.objects.filter(paper=paper).values_list("pk", flat=True)),
        not_chart_ids=(),
        latest_seen=None,
    )
    writing.create_claim_tasks(paper=paper, by=people["alice"], count=1, seed=11)
    return submit(work.next_item(user=people["alice"], kind="write"), people["alice"])
