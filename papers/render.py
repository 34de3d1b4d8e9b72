"""Turn parsed tables (and inline SVG figures) into PNG images, with Chromium or with Pillow."""

from __future__ import annotations

import html
import io
import logging
import os
import re
import shutil
import subprocess
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from contextlib import contextmanager
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Protocol, TypeVar

from PIL import Image, ImageDraw, ImageFont

from papers.parsing.document import Grid, GridTooLarge, PlacedCell, grid_area, grid_occupancy

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

# Pillow canvases beyond this are a broken grid (absurd spans), not a table worth drawing.
MAX_PILLOW_PIXELS = 80_000_000
# Slots (rows x columns, spans counted) a table's grids may cover: a real table has a few
# thousand; a few KB of rowspan=1000 colspan=1000 cells cover millions, and laying them out
# costs seconds and gigabytes (in Pillow's planner or in Chromium) before any size check.
MAX_GRID_SLOTS = 100_000
# Text the Pillow drawing lays out for one table (its cells and caption) and the lines it may wrap
# into: a real table holds a few thousand characters; wrapping hundreds of megabytes of cell text
# word by word would hold a worker for minutes before any pixel check.
MAX_TABLE_TEXT = 200_000
MAX_TABLE_LINES = 20_000


class RenderError(Exception):
    """A table or figure could not be rendered; `reason` says why, for people."""

    def __init__(self, reason: str):
        super().__init__(reason)
        self.reason = reason


class RenderUnavailable(RenderError):
    """The renderer cannot do this at all (no Chromium, or Pillow asked to draw SVG)."""


def check_grid_budget(grids: Sequence[Grid], label: str) -> None:
    """Refuse, before anything is laid out, a table whose grids cover more than
    MAX_GRID_SLOTS slots (counted from the spans alone)."""
    slots = sum(grid_area(grid) for grid in grids)
    if slots > MAX_GRID_SLOTS:
        raise RenderError(
            f"{label or 'table'}: its cells would cover {slots} grid slots once their spans "
            f"are laid out (at most {MAX_GRID_SLOTS} are drawn); not rendered"
        )


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


# --- Math in plain text ----------------------------------------------------------------------

# The parser keeps inline math as "$alttext$"; an annotator reads "±" faster than "\pm".
# fmt: off
TEX_SYMBOLS = {
    "alpha": "α", "beta": "β", "gamma": "γ", "delta": "δ", "epsilon": "ε", "varepsilon": "ε",
    "zeta": "ζ", "eta": "η", "theta": "θ", "kappa": "κ", "lambda": "λ", "mu": "μ", "nu": "ν",
    "xi": "ξ", "pi": "π", "rho": "ρ", "sigma": "σ", "tau": "τ", "phi": "φ", "varphi": "φ",
    "chi": "χ", "psi": "ψ", "omega": "ω", "Gamma": "Γ", "Delta": "Δ", "Theta": "Θ",
    "Lambda": "Λ", "Sigma": "Σ", "Phi": "Φ", "Psi": "Ψ", "Omega": "Ω",
    "pm": "±", "mp": "∓", "times": "×", "cdot": "·", "div": "÷", "leq": "≤", "le": "≤",
    "geq": "≥", "ge": "≥", "neq": "≠", "ne": "≠", "approx": "≈", "sim": "~", "simeq": "≃",
    "infty": "∞", "to": "→", "rightarrow": "→", "leftarrow": "←", "Rightarrow": "⇒",
    "uparrow": "↑", "downarrow": "↓", "checkmark": "✓", "dagger": "†", "ddagger": "‡",
    "star": "⋆", "ast": "∗", "circ": "∘", "degree": "°", "in": "∈", "cap": "∩", "cup": "∪",
    "ell": "ℓ", "partial": "∂", "nabla": "∇", "sum": "Σ", "prod": "Π", "%": "%", "&": "&",
    "#": "#", "_": "_", "$": "$", ",": "\u2009", ";": " ", ":": " ", "!": "", " ": " ",
    "quad": " ", "qquad": "  ", "ldots": "…", "cdots": "⋯", "dots": "…", "prime": "′",
}
# fmt: on
TEX_OPERATORS = frozenset(
    "pm mp times div leq le geq ge neq ne approx simeq to rightarrow leftarrow Rightarrow".split()
)
TEX_WRAPPERS = re.compile(
    r"\\(?:mathbf|mathrm|mathit|mathsf|mathtt|boldsymbol|bm|text|textbf|textit|textrm|texttt"
    r"|textsc|operatorname|mathcal|mathbb|hat|bar|tilde|overline|underline|emph|mbox)\s*"
    r"\{([^{}]*)\}"
)
SUPERSCRIPTS = str.maketrans("0123456789+-=()n", "⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻⁼⁽⁾ⁿ")
SUBSCRIPTS = str.maketrans("0123456789+-=()", "₀₁₂₃₄₅₆₇₈₉₊₋₌₍₎")
INLINE_MATH = re.compile(r"(?<!\\)\$([^$]+?)(?<!\\)\$")


def _tex_to_text(tex: str) -> str | None:
    out = tex
    for _ in range(4):  # nested wrappers: \mathbf{\text{x}}
        out = TEX_WRAPPERS.sub(r"\1", out)
    out = re.sub(r"\^\{?([0-9+\-=()n]+)\}?", lambda m: m.group(1).translate(SUPERSCRIPTS), out)
    out = re.sub(r"_\{?([0-9+\-=()]+)\}?", lambda m: m.group(1).translate(SUBSCRIPTS), out)
    out = re.sub(r"\^\{?\\circ\}?", "°", out)

    def symbol(m: re.Match[str]) -> str:
        name = m.group(1)
        if name in TEX_OPERATORS:
            return f" {TEX_SYMBOLS[name]} "  # TeX spaces binary operators and relations
        return TEX_SYMBOLS.get(name, m.group(0))

    out = re.sub(r"\\([A-Za-z]+|[%&#_$,;:! ])", symbol, out)
    if "\\" in out or "^" in out or "_" in out:
        return None  # something we cannot spell: better the TeX source than a wrong reading
    out = out.replace("{", "").replace("}", "")
    return re.sub(r"\s+", " ", out).strip()


def readable_math(text: str) -> str:
    """Spell simple inline TeX ("$0.81 \\pm 0.02$") as text ("0.81 ± 0.02"); leave the rest."""

    def replace(m: re.Match[str]) -> str:
        if m.group(1) != m.group(1).strip():
            return m.group(0)  # "$5 and $6" is prose about dollars, not math
        spelled = _tex_to_text(m.group(1))
        return m.group(0) if spelled is None else spelled

    return INLINE_MATH.sub(replace, text)


# --- HTML for Chromium ------------------------------------------------------------------------

# Close to arXiv's LaTeXML CSS, except that \toprule/\bottomrule (ltx_border_tt/bb) are drawn as
# booktabs' heavier single rules rather than LaTeXML's double lines, which read as a grid.
TABLE_CSS = """
html, body { margin: 0; padding: 0; background: #fff; color: #000; }
body {
  font-family: "Latin Modern Roman", "LM Roman 10", "CMU Serif", "Computer Modern Serif",
    "Times New Roman", "Liberation Serif", "Nimbus Roman", "DejaVu Serif", serif;
  font-size: 16px; line-height: 1.3; font-kerning: normal;
}
math { font-family: "Latin Modern Math", "STIX Two Math", "DejaVu Math TeX Gyre", math; }
#sciver-box { display: table; margin: 12px; }
/* A short table's caption is set at a readable measure, not squeezed under the table. */
#sciver-box.sciver-captioned { min-width: 26em; }
/* An inline SVG would sit on the text baseline and gain a strip of white below it. */
#sciver-box > svg { display: block; }
.sciver-body { text-align: center; }
.sciver-body > * + * { margin-top: 0.8em; }
.sciver-caption {
  display: table-caption; caption-side: bottom; text-align: center;
  padding: 0.7em 0.2em 0 0.2em; font-size: 0.95em; line-height: 1.35;
}
.sciver-caption-text { display: inline-block; text-align: left; }
.ltx_tabular { display: inline-table; border-collapse: collapse; text-align: left; }
.ltx_tabular.ltx_centering { display: table; margin-left: auto; margin-right: auto; }
.ltx_tabular .ltx_tabular { width: 100%; }
.ltx_thead, .ltx_tfoot, .ltx_tbody { display: table-row-group; }
.ltx_tr { display: table-row; }
.ltx_td, .ltx_th { display: table-cell; }
.ltx_tabular .ltx_td, .ltx_tabular .ltx_th { padding: 0.2em 0.5em; vertical-align: middle; }
.ltx_th { font-weight: normal; }
.ltx_align_left { text-align: left; }
.ltx_align_right { text-align: right; }
.ltx_align_center { text-align: center; }
.ltx_align_justify { text-align: justify; }
.ltx_align_top { vertical-align: top; }
.ltx_align_bottom { vertical-align: bottom; }
.ltx_align_middle { vertical-align: middle; }
.ltx_align_baseline { vertical-align: baseline; }
.ltx_td.ltx_align_left, .ltx_th.ltx_align_left, .ltx_td.ltx_align_right,
.ltx_th.ltx_align_right, .ltx_td.ltx_align_center, .ltx_th.ltx_align_center { white-space: nowrap; }
.ltx_td.ltx_wrap, .ltx_th.ltx_wrap, .ltx_td.ltx_align_justify { white-space: normal; }
.ltx_nopad { padding: 0 !important; }
.ltx_nopad_l { padding-left: 0 !important; }
.ltx_nopad_r { padding-right: 0 !important; }
.ltx_border_t { border-top: 1px solid #000; }
.ltx_border_b { border-bottom: 1px solid #000; }
.ltx_border_l { border-left: 1px solid #000; }
.ltx_border_r { border-right: 1px solid #000; }
.ltx_border_tt { border-top: 1.5px solid #000; }
.ltx_border_bb { border-bottom: 1.5px solid #000; }
.ltx_border_ll { border-left: 3px double #000; }
.ltx_border_rr { border-right: 3px double #000; }
.ltx_border_T { border-top: 1px solid #888; }
.ltx_border_B { border-bottom: 1px solid #888; }
.ltx_border_L { border-left: 1px solid #888; }
.ltx_border_R { border-right: 1px solid #888; }
.ltx_framed { border: 1px solid #000; }
.ltx_font_bold { font-weight: bold; }
.ltx_font_medium { font-weight: normal; }
.ltx_font_italic { font-style: italic; }
.ltx_font_upright { font-style: normal; }
.ltx_font_slanted { font-style: oblique; }
.ltx_font_smallcaps { font-variant: small-caps; }
.ltx_font_serif { font-family: inherit; }
.ltx_font_sansserif { font-family: "Latin Modern Sans", "DejaVu Sans", sans-serif; }
.ltx_font_typewriter { font-family: "Latin Modern Mono", "DejaVu Sans Mono", monospace; }
.ltx_inline-block, .ltx_parbox, .ltx_minipage { display: inline-block; }
.ltx_p { margin: 0; }
.ltx_ERROR { color: #c00; }
.ltx_note_content { display: none; }
.ltx_flex_figure {
  display: flex; flex-flow: row wrap; justify-content: center; align-items: baseline;
  gap: 0.5em 1.5em;
}
.ltx_flex_figure .ltx_flex_break { flex-basis: 100%; height: 0; }
.sciver-body figure { margin: 0; }
.sciver-body figcaption { margin-top: 0.3em; }
img { max-height: 4em; }
"""

# JavaScript is off in the context too; the CSP stops even a stray request from being issued.
PAGE_CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:; font-src data:"


def _page(body: str) -> str:
    return (
        "<!DOCTYPE html><html><head><meta charset='utf-8'>"
        f'<meta http-equiv="Content-Security-Policy" content="{PAGE_CSP}">'
        f"<style>{TABLE_CSS}</style></head><body>{body}</body></html>"
    )


def table_document(*, table_html: str, label: str, caption: str) -> str:
    """The whole page Chromium renders for one table: the tabular(s) with the caption below."""
    tag = f"{html.escape(label)}: " if label else ""
    caption_html = ""
    if tag or caption:
        caption_html = (
            f"<div class='sciver-caption'><span class='sciver-caption-text'>"
            f"<span class='ltx_tag ltx_tag_table'>{tag}</span>{html.escape(readable_math(caption))}"
            f"</span></div>"
        )
    box_class = " class='sciver-captioned'" if caption_html else ""
    return _page(
        f"<div id='sciver-box'{box_class}><div class='sciver-body'>{table_html}</div>"
        f"{caption_html}</div>"
    )


def grids_to_html(grids: Sequence[Grid]) -> str:
    """LaTeXML-like markup for bare grids, so Chromium can draw a table the parser kept no HTML for."""
    tables = []
    for grid in grids:
        header_rows = _header_row_count(grid)
        rows = []
        for r, row in enumerate(grid):
            cells = []
            for c, cell in enumerate(row):
                classes = ["ltx_td", "ltx_align_left" if c == 0 else "ltx_align_center"]
                if r == 0:
                    classes.append("ltx_border_tt")
                elif r == header_rows and header_rows < len(grid):
                    classes.append("ltx_border_t")
                if r + max(1, cell.rowspan) >= len(grid):
                    classes.append("ltx_border_bb")
                tag = "th" if cell.header else "td"
                spans = ""
                if cell.rowspan > 1:
                    spans += f" rowspan='{int(cell.rowspan)}'"
                if cell.colspan > 1:
                    spans += f" colspan='{int(cell.colspan)}'"
                bold = " style='font-weight:bold'" if cell.header else ""
                cells.append(
                    f"<{tag} class='{' '.join(classes)}'{spans}{bold}>"
                    f"{html.escape(readable_math(cell.text))}</{tag}>"
                )
            rows.append(f"<tr class='ltx_tr'>{''.join(cells)}</tr>")
        tables.append(
            "<table class='ltx_tabular ltx_centering'><tbody class='ltx_tbody'>"
            f"{''.join(rows)}</tbody></table>"
        )
    return "".join(tables)


# --- Chromium ---------------------------------------------------------------------------------


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
            _page(f"<div id='sciver-box' style='display:inline-block'>{svg}</div>"),
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


# --- Pillow -----------------------------------------------------------------------------------

FONT_FILES = {
    # Serif first: it is what a paper's table looks like.
    "regular": ("DejaVuSerif.ttf", "DejaVuSans.ttf"),
    "bold": ("DejaVuSerif-Bold.ttf", "DejaVuSans-Bold.ttf"),
}
FONT_DIRS = ("/usr/share/fonts", "/usr/local/share/fonts", os.path.expanduser("~/.fonts"))


@lru_cache(maxsize=1)
def _font_index() -> dict[str, str]:
    """File name -> path for the fonts installed here (fc-list, else a walk of the font dirs)."""
    index: dict[str, str] = {}
    fc_list = shutil.which("fc-list")
    if fc_list:
        try:
            out = subprocess.run(
                [fc_list, ":", "file"], capture_output=True, text=True, timeout=10, check=False
            ).stdout
        except (OSError, subprocess.SubprocessError):
            out = ""
        for line in out.splitlines():
            path = line.split(":", 1)[0].strip()
            if path:
                index.setdefault(os.path.basename(path), path)
    if not index:
        for root_dir in FONT_DIRS:
            for root, _dirs, files in os.walk(root_dir):
                for name in files:
                    index.setdefault(name, os.path.join(root, name))
    return index


def find_font_file(weight: str = "regular") -> str | None:
    index = _font_index()
    for name in FONT_FILES[weight]:
        if name in index:
            return index[name]
    return None


@lru_cache(maxsize=16)
def _font(size: int, bold: bool) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    path = find_font_file("bold" if bold else "regular")
    if path:
        try:
            return ImageFont.truetype(path, size)
        except OSError:
            logger.warning("cannot load font %s; using Pillow's default", path)
    try:
        return ImageFont.load_default(size=size)
    except TypeError:  # Pillow < 10.1 has only the small bitmap font
        return ImageFont.load_default()


def _header_row_count(grid: Grid) -> int:
    """Leading rows made only of header cells (blank cells aside), stretched over their rowspans."""
    count = 0
    for row in grid:
        filled = [cell for cell in row if cell.text.strip()]
        if not filled or not all(cell.header for cell in filled):
            break
        count += 1
    reach = count
    for r in range(count):
        for cell in grid[r]:
            if cell.header:
                reach = max(reach, r + max(1, cell.rowspan))
    return min(reach, len(grid))


# Pillow drawing metrics, at twice a 10-11 pt paper size so text stays legible when zoomed.
PILLOW_FONT_SIZE = 26
PILLOW_CAPTION_SIZE = 25
PAD_X, PAD_Y = 14, 7
MAX_CELL_WIDTH = 560
RULE_HEAVY, RULE_LIGHT = 3, 2
MARGIN = 24
GRID_GAP = 36
MIN_CAPTION_WIDTH = 700


def _text_width(font: Any, text: str) -> float:
    return font.getlength(text) if text else 0.0


def _wrap(font: Any, text: str, width: float) -> list[str]:
    lines: list[str] = []
    for paragraph in text.split("\n"):
        words = paragraph.split()
        if not words:
            lines.append("")
            continue
        line = words[0]
        for word in words[1:]:
            candidate = f"{line} {word}"
            if _text_width(font, candidate) <= width:
                line = candidate
            else:
                lines.append(line)
                line = word
        lines.append(line)
    return lines


def _line_height(font: Any) -> int:
    ascent, descent = font.getmetrics() if hasattr(font, "getmetrics") else (11, 3)
    return int(ascent + descent + 2)


@dataclass(slots=True)
class _GridPlan:
    placed: list[PlacedCell]
    lines: list[list[str]]  # wrapped lines per placed cell
    col_widths: list[float]
    row_heights: list[float]
    header_rows: int

    @property
    def width(self) -> float:
        return sum(self.col_widths)

    @property
    def height(self) -> float:
        return sum(self.row_heights) + 2 * RULE_HEAVY


def _plan_grid(grid: Grid, regular: Any, bold: Any) -> _GridPlan:
    try:
        placed, matrix = grid_occupancy(grid, limit=MAX_GRID_SLOTS)
    except GridTooLarge as exc:
        raise RenderError(f"the grid would be {exc.slots} slots (at most {exc.limit})") from None
    n_rows, n_cols = len(matrix), len(matrix[0]) if matrix else 0
    line_h = _line_height(regular)
    lines = []
    wrapped = 0
    for p in placed:
        font = bold if p.cell.header else regular
        lines.append(_wrap(font, readable_math(p.cell.text).strip(), MAX_CELL_WIDTH))
        wrapped += len(lines[-1])
        if wrapped > MAX_TABLE_LINES:
            raise RenderError(
                f"its cells wrap into more than {MAX_TABLE_LINES:,} lines; not rendered"
            )

    def need_w(i: int) -> float:
        font = bold if placed[i].cell.header else regular
        return max((_text_width(font, line) for line in lines[i]), default=0) + 2 * PAD_X

    def need_h(i: int) -> float:
        return max(1, len(lines[i])) * line_h + 2 * PAD_Y

    col_widths = [2.0 * PAD_X] * n_cols
    row_heights = [float(line_h + 2 * PAD_Y)] * n_rows
    # Single-span cells size their column/row first; spanning cells then share any shortfall.
    for single in (True, False):
        for i, p in enumerate(placed):
            if (p.colspan == 1) == single:
                cols = range(p.col, p.col + p.colspan)
                short = need_w(i) - sum(col_widths[c] for c in cols)
                if short > 0:
                    for c in cols:
                        col_widths[c] += short / p.colspan
            if (p.rowspan == 1) == single:
                rows = range(p.row, p.row + p.rowspan)
                short = need_h(i) - sum(row_heights[r] for r in rows)
                if short > 0:
                    for r in rows:
                        row_heights[r] += short / p.rowspan
    return _GridPlan(placed, lines, col_widths, row_heights, _header_row_count(grid))


def _draw_grid(
    draw: ImageDraw.ImageDraw, plan: _GridPlan, left: float, top: float, regular: Any, bold: Any
) -> None:
    width = plan.width
    line_h = _line_height(regular)
    col_x = [left]
    for w in plan.col_widths:
        col_x.append(col_x[-1] + w)
    row_y = [top + RULE_HEAVY]
    for h in plan.row_heights:
        row_y.append(row_y[-1] + h)

    def rule(y: float, thickness: int) -> None:
        draw.rectangle([left, y, left + width - 1, y + thickness - 1], fill=(0, 0, 0))

    rule(top, RULE_HEAVY)
    if 0 < plan.header_rows < len(plan.row_heights):
        rule(row_y[plan.header_rows] - RULE_LIGHT / 2, RULE_LIGHT)
    rule(row_y[-1], RULE_HEAVY)

    for p, cell_lines in zip(plan.placed, plan.lines, strict=True):
        font = bold if p.cell.header else regular
        x0, x1 = col_x[p.col], col_x[p.col + p.colspan]
        y0, y1 = row_y[p.row], row_y[p.row + p.rowspan]
        block_h = len(cell_lines) * line_h
        y = y0 + (y1 - y0 - block_h) / 2
        for line in cell_lines:
            w = _text_width(font, line)
            # LaTeX tables usually set the label column flush left and the figures centred.
            if p.col == 0 and p.colspan == 1:
                x = x0 + PAD_X
            else:
                x = x0 + (x1 - x0 - w) / 2
            draw.text((x, y), line, font=font, fill=(0, 0, 0))
            y += line_h


def check_text_budget(grids: Sequence[Grid], label: str, caption: str) -> None:
    """Refuse, before any text is measured or wrapped, a table whose cells and caption hold
    more than MAX_TABLE_TEXT characters."""
    total = len(caption) + sum(len(cell.text) for grid in grids for row in grid for cell in row)
    if total > MAX_TABLE_TEXT:
        raise RenderError(
            f"{label or 'table'}: its cells and caption hold {total:,} characters of text (at "
            f"most {MAX_TABLE_TEXT:,} are drawn); not rendered"
        )


def render_table_pillow(*, grids: Sequence[Grid], label: str, caption: str) -> bytes:
    """PNG of the table's cell grids (stacked) with the caption below, drawn with Pillow only."""
    check_grid_budget(grids, label)
    check_text_budget(grids, label, caption)
    regular, bold = _font(PILLOW_FONT_SIZE, False), _font(PILLOW_FONT_SIZE, True)
    cap_regular = _font(PILLOW_CAPTION_SIZE, False)
    plans = [_plan_grid(grid, regular, bold) for grid in grids if grid]
    if not plans:
        raise RenderError(f"{label or 'table'} has no cells to draw")

    tables_w = max(plan.width for plan in plans)
    caption_text = readable_math(f"{label}: {caption}" if label else caption)
    caption_w = max(tables_w, MIN_CAPTION_WIDTH)
    caption_lines = _wrap(cap_regular, caption_text.strip(), caption_w) if caption_text else []
    cap_line_h = _line_height(cap_regular)
    tables_h = sum(plan.height for plan in plans) + GRID_GAP * (len(plans) - 1)
    caption_h = (len(caption_lines) * cap_line_h + 16) if caption_lines else 0
    text_w = max((_text_width(cap_regular, line) for line in caption_lines), default=0)
    canvas_w = int(max(tables_w, text_w) + 2 * MARGIN + 1)
    canvas_h = int(tables_h + caption_h + 2 * MARGIN + 1)
    if canvas_w * canvas_h > MAX_PILLOW_PIXELS:
        raise RenderError(f"{label or 'table'} would be a {canvas_w}x{canvas_h} px image")

    image = Image.new("RGB", (canvas_w, canvas_h), (255, 255, 255))
    draw = ImageDraw.Draw(image)
    y = float(MARGIN)
    for plan in plans:
        _draw_grid(draw, plan, (canvas_w - plan.width) / 2, y, regular, bold)
        y += plan.height + GRID_GAP
    y += 16 - GRID_GAP
    # Short captions are centred under the table, long ones wrap flush left as LaTeX sets them.
    cap_left = (canvas_w - text_w) / 2
    for line in caption_lines:
        draw.text((cap_left, y), line, font=cap_regular, fill=(0, 0, 0))
        y += cap_line_h

    out = io.BytesIO()
    image.save(out, format="PNG")
    return out.getvalue()


class PillowRenderer:
    """The fallback when Chromium is missing: tables from their cell grids, no SVG."""

    name = "pillow"

    def __enter__(self) -> PillowRenderer:
        return self

    def __exit__(self, *exc_info: object) -> None:
        return None

    def render_table(
        self, *, table_html: str = "", label: str, caption: str, grids: Sequence[Grid] = ()
    ) -> bytes:
        return render_table_pillow(grids=grids, label=label, caption=caption)

    def rasterize_svg(self, *, svg: str) -> bytes:
        raise RenderUnavailable("SVG figures need Chromium, which is not available")


# --- Choosing a renderer ----------------------------------------------------------------------


class TableRenderer(Protocol):
    name: str

    def render_table(
        self, *, table_html: str = "", label: str, caption: str, grids: Sequence[Grid] = ()
    ) -> bytes: ...

    def rasterize_svg(self, *, svg: str) -> bytes: ...


@contextmanager
def open_table_renderer(
    *, chromium_path: str = "", use_chromium: bool = True
) -> Iterator[TableRenderer]:
    """Chromium when it is wanted and starts; otherwise Pillow, with a warning saying why."""
    renderer: ChromiumRenderer | PillowRenderer = PillowRenderer()
    if use_chromium:
        chromium = ChromiumRenderer(executable_path=chromium_path)
        try:
            chromium.open()
        except RenderUnavailable as exc:
            logger.warning("%s; tables will be drawn with Pillow (no SVG figures)", exc.reason)
        else:
            renderer = chromium
    try:
        yield renderer
    finally:
        if isinstance(renderer, ChromiumRenderer):
            renderer.close()
