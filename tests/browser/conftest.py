"""Playwright driving Debian's Chromium against the live test server."""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest

from tests.services import chromium_or_skip

CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
]


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
                executable_path=path, args=CHROMIUM_ARGS, headless=True, timeout=30_000
            )
            yield browser
            browser.close()
    finally:
        if previous is None:
            os.environ.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)
        else:
            os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = previous


@pytest.fixture
def page(browser, live_server) -> Iterator[object]:
    context = browser.new_context(base_url=live_server.url, viewport={"width": 1280, "height": 900})
    context.set_default_timeout(10_000)
    page = context.new_page()
    yield page
    context.close()
