"""Playwright driving Debian's Chromium against the live test server; failures leave a
screenshot and the page's HTML in var/test-artifacts/ (or $SCIVER_TEST_ARTIFACTS)."""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from papers.render import CHROMIUM_ARGS
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


def _polled_from_python(page) -> Callable[..., object]:
    """`page.wait_for_function` that works under the app's Content-Security-Policy. Playwright
    re-evaluates a predicate that is not yet true with `eval` inside the page, which the policy
    (no 'unsafe-eval') refuses; `page.evaluate` goes through the DevTools protocol, which the
    policy does not govern. Same arguments, the same timeout error."""
    import time

    from playwright.sync_api import Error, TimeoutError

    def wait_for_function(expression: str, *, arg=None, timeout: float | None = None, polling=None):
        limit = (timeout if timeout is not None else 10_000) / 1000
        deadline = time.monotonic() + limit
        while True:
            try:
                value = page.evaluate(expression, arg)
            except Error as exc:  # the page navigated while it was evaluated: try again
                if "context was destroyed" not in str(exc) and "navigat" not in str(exc):
                    raise
                value = None
            if value:
                return value
            if limit and time.monotonic() > deadline:
                raise TimeoutError(
                    f"Timeout {limit * 1000:.0f}ms exceeded waiting for {expression!r}"
                )
            page.wait_for_timeout(polling if isinstance(polling, (int, float)) else 50)

    return wait_for_function


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
