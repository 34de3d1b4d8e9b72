"""Table screenshots and SVG rasters with one headless Chromium driven by Playwright: a page
reused for many renders, every call on a private worker thread, each render within a time
budget, a crashed page replaced, and no request let out."""

from __future__ import annotations

import logging
import os
import shutil
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from typing import Any, TypeVar

from papers.parsing.document import Grid
from papers.render.limits import RenderError, RenderUnavailable, check_grid_budget
from papers.render.markup import grids_to_html, html_page, table_document

logger = logging.getLogger(__name__)

T = TypeVar("T")

CHROMIUM_CANDIDATES = ("/usr/bin/chromium", "chromium", "chromium-browser", "google-chrome")

# Without the background-networking flags Chromium keeps calling Google's hosts (refused here);
# --no-sandbox because workers may run as root.
CHROMIUM_ARGS = (
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
)

# Chromium's screenshots fail or come back blank beyond its texture size (16384 device px).
MAX_DEVICE_SIDE = 16_000


def find_chromium(configured: str = "") -> str | None:
    """The Chromium executable to drive: the configured one if it exists, else a system one."""
    if configured:
        if os.path.isfile(configured) and os.access(configured, os.X_OK):
            return configured
        logger.warning(
            "configured Chromium %r does not exist; looking for a system one", configured
        )
    for candidate in CHROMIUM_CANDIDATES:
        found = shutil.which(candidate)
        if found:
            return found
    return None


class ChromiumRenderer:
    """One headless Chromium and one page, reused for many renders.

    Playwright's sync API runs an event loop in the thread that drives it, and Django then
    refuses ORM calls from that thread; so every Playwright call happens on a private worker
    thread and the caller's thread stays loop-free.
    """

    name = "chromium"

    def __init__(
        self,
        *,
        executable_path: str = "",
        timeout: float = 10.0,
        launch_timeout: float = 30.0,
        device_scale_factor: float = 2.0,
        margin: int = 8,
    ):
        self.executable_path = executable_path
        self.timeout = timeout
        self.launch_timeout = launch_timeout
        self.device_scale_factor = device_scale_factor
        self.margin = margin
        self.requests_blocked = 0  # requests that got past the CSP and were aborted by the route
        self.launch_seconds = 0.0
        self._executor: ThreadPoolExecutor | None = None
        self._playwright: Any = None
        self._browser: Any = None
        self._context: Any = None
        self._page: Any = None
        self._lock = threading.Lock()

    # Lifecycle

    def __enter__(self) -> ChromiumRenderer:
        self.open()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def open(self) -> None:
        path = find_chromium(self.executable_path)
        if path is None:
            raise RenderUnavailable("no Chromium executable found")
        self.executable_path = path
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="chromium-render")
        started = time.perf_counter()
        try:
            self._call(self._launch, timeout=self.launch_timeout + 5)
        except Exception as exc:
            self.close()
            reason = exc.reason if isinstance(exc, RenderError) else str(exc)
            # Playwright appends the browser's whole log; the first lines say what went wrong.
            reason = reason if len(reason) <= 600 else reason[:600] + " …"
            raise RenderUnavailable(f"Chromium at {path} did not start: {reason}") from exc
        self.launch_seconds = time.perf_counter() - started

    def close(self) -> None:
        executor, self._executor = self._executor, None
        if executor is None:
            return
        future = executor.submit(self._shutdown)
        try:
            future.result(timeout=self.timeout + 5)
        except Exception:  # a browser that will not close must not keep the caller waiting
            logger.warning("Chromium did not shut down cleanly", exc_info=True)
        executor.shutdown(wait=False)

    # Public renders

    def render_table(
        self, *, table_html: str = "", label: str, caption: str, grids: Sequence[Grid] = ()
    ) -> bytes:
        """PNG of the table and its caption, cropped to them with a small white margin."""
        check_grid_budget(grids, label)
        if not table_html.strip():
            if not grids:
                raise RenderError(f"{label or 'table'} has neither HTML nor cells to render")
            table_html = grids_to_html(grids)
        document = table_document(table_html=table_html, label=label, caption=caption)
        return self._render(document, what=label or "table")

    def rasterize_svg(self, *, svg: str) -> bytes:
        """PNG of an inline SVG figure (e.g. LaTeXML's TikZ output), on white."""
        if "<svg" not in svg.lower():
            raise RenderError("the figure markup holds no <svg> element")
        return self._render(
            html_page(f"<div id='sciver-box' style='display:inline-block'>{svg}</div>"),
            what="SVG figure",
        )

    # Worker-thread side

    def _call(self, fn: Callable[..., T], *args: Any, timeout: float) -> T:
        if self._executor is None:
            raise RenderError("the Chromium renderer is not open")
        with self._lock:
            future = self._executor.submit(fn, *args)
            try:
                return future.result(timeout=timeout)
            except FutureTimeout as exc:
                raise RenderError(f"Chromium gave no answer within {timeout:.0f} s") from exc

    def _render(self, document: str, *, what: str) -> bytes:
        # One budget for the page, its box and its screenshot (`timeout`), and on a crash a
        # relaunch and one more: Playwright's own timeouts fire first, this one only guards
        # against a wedged driver.
        worst = 2 * self.timeout + self.launch_timeout + 5
        return self._call(self._render_in_worker, document, what, timeout=worst)

    def _launch(self) -> None:
        from playwright.sync_api import sync_playwright  # noqa: PLC0415 - Chromium's driver loads only when something is drawn

        self._playwright = sync_playwright().start()
        self._browser = self._playwright.chromium.launch(
            executable_path=self.executable_path,
            args=list(CHROMIUM_ARGS),
            headless=True,
            timeout=self.launch_timeout * 1000,
        )
        self._new_page()

    def _new_page(self) -> None:
        if self._context is not None:
            try:
                self._context.close()
            except Exception:
                logger.debug("closing a broken Chromium context failed", exc_info=True)
        self._context = self._browser.new_context(
            java_script_enabled=False,
            offline=True,
            service_workers="block",
            device_scale_factor=self.device_scale_factor,
            viewport={"width": 1280, "height": 900},
        )
        self._context.set_default_timeout(self.timeout * 1000)
        page = self._context.new_page()
        page.route("**/*", self._abort_request)
        self._page = page

    def _abort_request(self, route: Any) -> None:
        self.requests_blocked += 1
        logger.debug("blocked a request from a rendered page: %s", route.request.url)
        route.abort("blockedbyclient")

    def _render_in_worker(self, document: str, what: str) -> bytes:
        from playwright.sync_api import Error as PlaywrightError  # noqa: PLC0415 - Chromium's driver loads only when something is drawn
        from playwright.sync_api import TimeoutError as PlaywrightTimeout  # noqa: PLC0415 - Chromium's driver loads only when something is drawn

        try:
            return self._screenshot(document, time.monotonic() + self.timeout)
        except (PlaywrightTimeout, RenderError) as exc:
            # Over its budget (a page that reloads itself, or too much to draw): not tried again,
            # and the page it left behind is replaced before the next render.
            self._new_page()
            if isinstance(exc, RenderError):
                raise
            raise RenderError(
                f"Chromium did not finish drawing {what} within {self.timeout:.0f} s (a page "
                "that reloads itself, or too much to draw)"
            ) from None
        except PlaywrightError as exc:
            # A crashed page (or browser) should cost one table, not the rest of the run.
            logger.warning("Chromium failed on %s (%s); retrying on a fresh page", what, exc)
            try:
                if self._browser is None or not self._browser.is_connected():
                    self._shutdown()
                    self._launch()
                else:
                    self._new_page()
                return self._screenshot(document, time.monotonic() + self.timeout)
            except PlaywrightError as again:
                raise RenderError(f"Chromium could not render {what}: {again}") from again

    def _screenshot(self, document: str, deadline: float) -> bytes:
        """The PNG of `document`'s box, every step within what is left of one budget (ending at
        `deadline`): a page that navigates or reloads itself cannot extend it."""

        def left() -> float:
            ms = (deadline - time.monotonic()) * 1000
            if ms < 1:
                raise RenderError(f"the render ran over its {self.timeout:.0f} s budget")
            return ms

        page = self._page
        page.set_content(document, wait_until="load", timeout=left())
        box = page.locator("#sciver-box").bounding_box(timeout=left())
        if not box or box["width"] < 1 or box["height"] < 1:
            raise RenderError("the rendered content has no visible box")
        m = self.margin
        x, y = max(0.0, box["x"] - m), max(0.0, box["y"] - m)
        width, height = box["width"] + 2 * m, box["height"] + 2 * m
        scale = "device"
        if max(width, height) * self.device_scale_factor > MAX_DEVICE_SIDE:
            scale = "css"
        if max(width, height) > MAX_DEVICE_SIDE:
            logger.warning("cropping a %dx%d px render to %d px", width, height, MAX_DEVICE_SIDE)
            width, height = min(width, MAX_DEVICE_SIDE), min(height, MAX_DEVICE_SIDE)
        viewport = page.viewport_size or {"width": 0, "height": 0}
        # Capturing beyond the viewport is slower, so only pay for it when the box overflows.
        beyond = x + width > viewport["width"] or y + height > viewport["height"]
        return page.screenshot(
            clip={"x": x, "y": y, "width": width, "height": height},
            full_page=beyond,
            type="png",
            scale=scale,
            animations="disabled",
            caret="hide",
            timeout=left(),
        )

    def _shutdown(self) -> None:
        for closer in (
            lambda: self._browser and self._browser.close(),
            lambda: self._playwright and self._playwright.stop(),
        ):
            try:
                closer()
            except Exception:
                logger.debug("stopping Chromium failed", exc_info=True)
        self._playwright = self._browser = self._context = self._page = None
