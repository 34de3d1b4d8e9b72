"""Table and SVG rendering: Chromium screenshots, the Pillow fallback, and choosing between them."""

from __future__ import annotations

import asyncio
import io
import logging
import threading
import time
import urllib.request
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from PIL import Image

from papers.parsing.document import Cell, Grid, GridTooLarge, grid_area, grid_occupancy
from papers.render.chromium import ChromiumRenderer, find_chromium
from papers.render.limits import MAX_GRID_SLOTS, RenderError, RenderUnavailable
from papers.render.mathtext import readable_math
from papers.render.pillow import PillowRenderer, render_table_pillow
from papers.render.renderer import open_table_renderer

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"

# Written by LaTeXML 0.8.7 (latexmlc --format=html5) from a booktabs/multirow table of our own.
LATEXML_TABLE = """
<table class="ltx_tabular ltx_centering ltx_guessed_headers ltx_align_middle">
<tbody class="ltx_tbody">
<tr class="ltx_tr">
<th class="ltx_td ltx_align_left ltx_th ltx_th_column ltx_border_tt" rowspan="2">Model</th>
<th class="ltx_td ltx_align_left ltx_th ltx_th_column ltx_border_tt" rowspan="2">Size</th>
<th class="ltx_td ltx_align_center ltx_th ltx_th_column ltx_border_tt" colspan="2">Accuracy</th>
<th class="ltx_td ltx_align_center ltx_th ltx_th_column ltx_border_tt">F1</th>
</tr>
<tr class="ltx_tr">
<th class="ltx_td ltx_align_center ltx_th ltx_th_column ltx_border_t">Dev</th>
<th class="ltx_td ltx_align_center ltx_th ltx_th_column ltx_border_t">Test</th>
<td class="ltx_td"></td>
</tr>
<tr class="ltx_tr">
<td class="ltx_td ltx_align_left ltx_border_t">BERT</td>
<td class="ltx_td ltx_align_left ltx_border_t">110M</td>
<td class="ltx_td ltx_align_center ltx_border_t">84.1</td>
<td class="ltx_td ltx_align_center ltx_border_t">83.2</td>
<td class="ltx_td ltx_align_center ltx_border_t"><math class="ltx_Math" alttext="0.81\\pm 0.02"
 display="inline"><mrow><mn>0.81</mn><mo>±</mo><mn>0.02</mn></mrow></math></td>
</tr>
<tr class="ltx_tr">
<td class="ltx_td ltx_align_left ltx_border_bb">RoBERTa</td>
<td class="ltx_td ltx_align_left ltx_border_bb">355M</td>
<td class="ltx_td ltx_align_center ltx_border_bb"><span class="ltx_text ltx_font_bold">88.4</span></td>
<td class="ltx_td ltx_align_center ltx_border_bb">87.9</td>
<td class="ltx_td ltx_align_center ltx_border_bb"><math class="ltx_Math" alttext="\\mathbf{0.86}"
 display="inline"><mn mathvariant="bold">0.86</mn></math></td>
</tr>
</tbody>
</table>
"""

# The same table as the parser's grid.
LATEXML_GRID: Grid = [
    [
        Cell("Model", rowspan=2, header=True),
        Cell("Size", rowspan=2, header=True),
        Cell("Accuracy", colspan=2, header=True),
        Cell("F1", header=True),
    ],
    [Cell("Dev", header=True), Cell("Test", header=True), Cell("")],
    [Cell("BERT"), Cell("110M"), Cell("84.1"), Cell("83.2"), Cell("$0.81\\pm 0.02$")],
    [Cell("RoBERTa"), Cell("355M"), Cell("88.4"), Cell("87.9"), Cell("$\\mathbf{0.86}$")],
]


def _image(png: bytes) -> Image.Image:
    assert png.startswith(PNG_SIGNATURE)
    image = Image.open(io.BytesIO(png))
    image.load()
    return image


def _dark_fraction(image: Image.Image, box: tuple[int, int, int, int] | None = None) -> float:
    grey = image.convert("L")
    if box:
        grey = grey.crop(box)
    histogram = grey.histogram()
    return sum(histogram[:96]) / max(1, grey.width * grey.height)


def _tabular(rows: list[list[str]], header_colspan: int = 0) -> str:
    """LaTeXML-shaped tabular markup; the first row is a header, optionally one spanning cell."""
    out = ["<table class='ltx_tabular ltx_centering'><tbody class='ltx_tbody'>"]
    for r, row in enumerate(rows):
        cells = []
        for c, text in enumerate(row):
            border = "ltx_border_tt" if r == 0 else ("ltx_border_bb" if r == len(rows) - 1 else "")
            span = f" colspan='{header_colspan}'" if r == 0 and c == 0 and header_colspan else ""
            cells.append(f"<td class='ltx_td ltx_align_center {border}'{span}>{text}</td>")
        out.append(f"<tr class='ltx_tr'>{''.join(cells)}</tr>")
    out.append("</tbody></table>")
    return "".join(out)


# --- Chromium ---------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def chromium(chromium_path: str) -> Iterator[ChromiumRenderer]:
    # chromium_path (tests/conftest.py) skips without Chromium, or fails under REQUIRE_SERVICES=1.
    # One browser for the module: launching costs about a second, a render a tenth of that.
    with ChromiumRenderer(executable_path=chromium_path) as renderer:
        yield renderer


@pytest.mark.browser
def test_chromium_table_screenshot_is_a_legible_png(chromium: ChromiumRenderer) -> None:
    png = chromium.render_table(
        table_html=LATEXML_TABLE,
        label="Table 1",
        caption="Main results on the test set, with $\\alpha=0.05$.",
    )
    image = _image(png)
    # Device scale 2: a five-column table and its caption are several hundred pixels each way.
    assert 600 <= image.width <= 2600
    assert 300 <= image.height <= 1200
    # Text and rules are there, but the image is mostly paper.
    assert 0.01 < _dark_fraction(image) < 0.35
    # Cropped with a white margin: the corners are background.
    grey = image.convert("L")
    for corner in [(0, 0), (image.width - 1, 0), (0, image.height - 1)]:
        assert grey.getpixel(corner) > 240
    # The caption sits below the table: the bottom fifth holds text.
    bottom = (0, int(image.height * 0.8), image.width, image.height)
    assert _dark_fraction(image, bottom) > 0.005


@pytest.mark.browser
def test_chromium_spanning_header_table_is_wider_than_one_column(
    chromium: ChromiumRenderer,
) -> None:
    one_column = _tabular([["Accuracy"], ["84.1"], ["88.4"]])
    three_columns = _tabular(
        [["Accuracy", "F1"], ["84.1", "83.2", "0.81"], ["88.4", "87.9", "0.86"]],
        header_colspan=2,
    )
    narrow = _image(chromium.render_table(table_html=one_column, label="", caption=""))
    wide = _image(chromium.render_table(table_html=three_columns, label="", caption=""))
    assert wide.width > narrow.width * 1.5
    assert abs(wide.height - narrow.height) < narrow.height * 0.2


@pytest.mark.browser
def test_chromium_renders_a_table_wider_than_its_viewport(chromium: ChromiumRenderer) -> None:
    header = [f"Column{c}" for c in range(30)]
    values = [f"{c * 1.5:.1f}" for c in range(30)]
    png = chromium.render_table(table_html=_tabular([header, values]), label="", caption="")
    image = _image(png)
    assert image.width > 2 * 1280  # the viewport is 1280 CSS px at scale 2
    # The last column was captured, not cut off at the viewport's edge.
    right = (int(image.width * 0.95), 0, image.width - 20, image.height)
    assert _dark_fraction(image, right) > 0.005


@pytest.mark.browser
def test_chromium_draws_a_table_from_grids_when_there_is_no_html(
    chromium: ChromiumRenderer,
) -> None:
    image = _image(
        chromium.render_table(table_html="", grids=[LATEXML_GRID], label="Table 1", caption="X")
    )
    assert image.width > 400 and _dark_fraction(image) > 0.01
    with pytest.raises(RenderError):
        chromium.render_table(table_html="", grids=[], label="Table 2", caption="")


class _CountingHandler(BaseHTTPRequestHandler):
    hits: list[str] = []

    def do_GET(self) -> None:
        type(self).hits.append(self.path)
        self.send_response(200)
        self.send_header("Content-Type", "image/png")
        self.end_headers()

    def log_message(self, format: str, *args: object) -> None:
        return None


@pytest.fixture
def counting_server() -> Iterator[tuple[str, list[str]]]:
    hits: list[str] = []
    handler = type("Handler", (_CountingHandler,), {"hits": hits})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", hits
    finally:
        server.shutdown()
        server.server_close()


@pytest.mark.browser
def test_chromium_page_makes_no_network_request(
    chromium: ChromiumRenderer, counting_server: tuple[str, list[str]]
) -> None:
    base, hits = counting_server
    hostile = (
        f"<link rel='stylesheet' href='{base}/style.css'>"
        f"<table class='ltx_tabular'><tr class='ltx_tr'>"
        f"<td class='ltx_td'><img src='{base}/cell.png' alt='x'></td>"
        f"<td class='ltx_td' style=\"background:url('{base}/bg.png')\">1</td>"
        f"<td class='ltx_td'><iframe src='{base}/frame'></iframe></td>"
        f"<td class='ltx_td'><script src='{base}/script.js'></script>2</td>"
        f"<td class='ltx_td'><video poster='{base}/poster.png'></video></td>"
        f"</tr></table>"
    )
    png = chromium.render_table(table_html=hostile, label="Table 9", caption="Hostile")
    svg = (
        f"<svg xmlns='http://www.w3.org/2000/svg' width='40' height='40'>"
        f"<image href='{base}/svg.png' width='40' height='40'/></svg>"
    )
    chromium.rasterize_svg(svg=svg)
    time.sleep(0.3)  # anything the page started would have reached the server by now
    assert png.startswith(PNG_SIGNATURE)
    assert hits == []
    # The server does count what reaches it, so the empty list above means something.
    urllib.request.urlopen(f"{base}/probe", timeout=5).close()
    assert hits == ["/probe"]


@pytest.mark.browser
def test_chromium_leaves_the_callers_thread_free_for_the_django_orm(
    chromium: ChromiumRenderer,
) -> None:
    from django.utils.asyncio import async_unsafe

    chromium.render_table(table_html=LATEXML_TABLE, label="Table 1", caption="")
    # Playwright's sync API runs an event loop in the thread that drives it; Django's ORM
    # refuses to run in such a thread. The renderer must keep its loop on its own thread.
    with pytest.raises(RuntimeError):
        asyncio.get_running_loop()
    assert async_unsafe("orm")(lambda: "ran")() == "ran"


@pytest.mark.browser
def test_chromium_rasterizes_inline_svg(chromium: ChromiumRenderer) -> None:
    svg = (
        "<svg class='ltx_picture' xmlns='http://www.w3.org/2000/svg' width='120' height='60'>"
        "<rect x='0' y='0' width='120' height='60' fill='black'/></svg>"
    )
    image = _image(chromium.rasterize_svg(svg=svg))
    # 120x60 CSS px plus an 8 px margin each side, at device scale 2.
    assert abs(image.width - 2 * (120 + 16)) <= 4
    assert abs(image.height - 2 * (60 + 16)) <= 4
    assert 0.5 < _dark_fraction(image) < 0.9
    with pytest.raises(RenderError):
        chromium.rasterize_svg(svg="<p>no vector here</p>")


@pytest.mark.browser
def test_chromium_renders_each_table_quickly(chromium: ChromiumRenderer) -> None:
    chromium.render_table(table_html=LATEXML_TABLE, label="Table 1", caption="warm-up")
    started = time.perf_counter()
    for n in range(10):
        chromium.render_table(table_html=LATEXML_TABLE, label=f"Table {n}", caption="Results.")
    mean = (time.perf_counter() - started) / 10
    # Target is 0.3 s; the bound leaves room for a loaded CI machine.
    assert mean < 1.0, f"{mean:.2f} s per table"


@pytest.mark.browser
def test_open_table_renderer_prefers_chromium(chromium_path: str) -> None:
    with open_table_renderer(chromium_path=chromium_path) as renderer:
        assert renderer.name == "chromium"
        png = renderer.render_table(
            table_html=LATEXML_TABLE, grids=[LATEXML_GRID], label="Table 1", caption="c"
        )
        assert png.startswith(PNG_SIGNATURE)


def test_open_table_renderer_falls_back_to_pillow_when_chromium_will_not_start(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    broken = tmp_path / "chromium"
    broken.write_text("#!/bin/sh\necho 'cannot start' >&2\nexit 1\n")
    broken.chmod(0o755)
    with caplog.at_level(logging.WARNING, logger="papers.render"):
        with open_table_renderer(chromium_path=str(broken)) as renderer:
            assert renderer.name == "pillow"
            png = renderer.render_table(
                table_html=LATEXML_TABLE, grids=[LATEXML_GRID], label="Table 1", caption="c"
            )
            assert png.startswith(PNG_SIGNATURE)
    assert any("Pillow" in record.getMessage() for record in caplog.records)


def test_open_table_renderer_gives_pillow_when_chromium_is_switched_off() -> None:
    with open_table_renderer(use_chromium=False) as renderer:
        assert renderer.name == "pillow"
        with pytest.raises(RenderUnavailable):
            renderer.rasterize_svg(svg="<svg width='1' height='1'></svg>")


def test_find_chromium_takes_an_existing_configured_path_else_a_system_one(
    tmp_path: Path,
) -> None:
    configured = tmp_path / "my-chromium"
    configured.write_text("#!/bin/sh\n")
    configured.chmod(0o755)
    assert find_chromium(str(configured)) == str(configured)
    assert find_chromium(str(tmp_path / "missing")) == find_chromium("")


def test_chromium_renderer_without_chromium_is_unavailable(tmp_path: Path) -> None:
    broken = tmp_path / "chromium"
    broken.write_text("#!/bin/sh\nexit 3\n")
    broken.chmod(0o755)
    with pytest.raises(RenderUnavailable):
        with ChromiumRenderer(executable_path=str(broken)):
            pass


# --- Pillow -----------------------------------------------------------------------------------


def test_pillow_table_is_a_png_with_text_and_rules() -> None:
    image = _image(
        render_table_pillow(grids=[LATEXML_GRID], label="Table 1", caption="Main results.")
    )
    assert 400 <= image.width <= 2000
    assert 0.01 < _dark_fraction(image) < 0.35
    # Booktabs rules: some pixel rows are dark across most of the table's width.
    grey = image.convert("L")
    full_rows = sum(
        1
        for y in range(grey.height)
        if sum(1 for x in range(grey.width) if grey.getpixel((x, y)) < 96) > grey.width * 0.6
    )
    assert full_rows >= 3 * 2  # top, mid and bottom rules, each at least 2 px thick


def test_pillow_spanning_header_table_is_wider_than_one_column() -> None:
    one_column: Grid = [[Cell("Accuracy", header=True)], [Cell("84.1")], [Cell("88.4")]]
    three_columns: Grid = [
        [Cell("Accuracy", colspan=2, header=True), Cell("F1", header=True)],
        [Cell("84.1"), Cell("83.2"), Cell("0.81")],
    ]
    narrow = _image(render_table_pillow(grids=[one_column], label="", caption=""))
    wide = _image(render_table_pillow(grids=[three_columns], label="", caption=""))
    assert wide.width > narrow.width * 1.3


def test_grid_occupancy_honours_rowspan_and_colspan() -> None:
    placed, matrix = grid_occupancy(LATEXML_GRID)
    assert len(matrix) == 4 and all(len(row) == 5 for row in matrix)
    texts = [[placed[i].cell.text if i is not None else None for i in row] for row in matrix]
    assert texts[0] == ["Model", "Size", "Accuracy", "Accuracy", "F1"]
    # Row 2 starts after the two cells spanning down from row 1.
    assert texts[1] == ["Model", "Size", "Dev", "Test", ""]
    assert texts[2][4] == "$0.81\\pm 0.02$"


def test_grid_occupancy_clamps_spans_that_run_off_the_grid() -> None:
    _placed, matrix = grid_occupancy([[Cell("a", rowspan=9), Cell("b")], [Cell("c")]])
    assert len(matrix) == 2
    assert matrix[1] == [0, 2]


# The table: about 6 KB of markup, every cell rowspan=1000 colspan=1000.
HUGE_SPANS: Grid = [
    [Cell(f"{r}.{c}", rowspan=1000, colspan=1000) for c in range(10)] for r in range(10)
]


def test_grid_area_counts_the_slots_from_the_spans_alone() -> None:
    assert grid_area(LATEXML_GRID) == 4 * 5  # the spans fill the 4 x 5 layout
    assert grid_area(HUGE_SPANS) == sum(10 * (10 - r) * 1000 for r in range(10))


def test_grid_occupancy_refuses_a_grid_over_its_budget_before_placing_a_cell() -> None:
    with pytest.raises(GridTooLarge) as info:
        grid_occupancy(HUGE_SPANS, limit=100_000)
    assert (info.value.slots, info.value.limit) == (550_000, 100_000)
    # Short rows under a wide one: few slots, a large matrix.
    wide_then_short = [[Cell("w", colspan=1000)]] + [[Cell("s")] for _ in range(200)]
    with pytest.raises(GridTooLarge):
        grid_occupancy(wide_then_short, limit=10_000)
    assert grid_occupancy(LATEXML_GRID, limit=100)[1] == grid_occupancy(LATEXML_GRID)[1]


def test_both_renderers_refuse_a_table_over_the_budget_before_laying_it_out() -> None:
    with pytest.raises(RenderError, match="550000 grid slots"):
        render_table_pillow(grids=[HUGE_SPANS], label="Table 1", caption="")
    # Chromium is never asked (here it is not even started).
    with pytest.raises(RenderError, match="grid slots"):
        ChromiumRenderer().render_table(
            table_html="<table></table>", grids=[HUGE_SPANS], label="Table 1", caption=""
        )
    assert MAX_GRID_SLOTS == 100_000


def test_pillow_rowspan_pushes_the_next_row_right() -> None:
    long_text = "a considerably longer cell"
    spanned: Grid = [[Cell("X", rowspan=2), Cell("wide enough")], [Cell(long_text)]]
    explicit: Grid = [[Cell("X"), Cell("wide enough")], [Cell(""), Cell(long_text)]]
    ignored: Grid = [[Cell("X"), Cell("wide enough")], [Cell(long_text)]]
    a, b, c = (
        _image(render_table_pillow(grids=[g], label="", caption=""))
        for g in (spanned, explicit, ignored)
    )
    # With the rowspan honoured the long cell shares the second column, as with an explicit
    # empty first cell; without it the long cell would widen the first column instead.
    assert a.size == b.size
    assert c.width > a.width


def test_pillow_stacks_several_grids_and_wraps_the_caption() -> None:
    one = _image(render_table_pillow(grids=[LATEXML_GRID], label="Table 1", caption="Short."))
    two = _image(
        render_table_pillow(grids=[LATEXML_GRID, LATEXML_GRID], label="Table 1", caption="Short.")
    )
    assert two.height > one.height * 1.6
    long_caption = "Accuracy of each model on the held-out test set, averaged over runs. " * 6
    wrapped = _image(
        render_table_pillow(grids=[LATEXML_GRID], label="Table 1", caption=long_caption)
    )
    assert wrapped.width < 1200  # wrapped, not one long line
    assert wrapped.height > one.height + 80


def test_pillow_refuses_a_table_without_cells() -> None:
    with pytest.raises(RenderError):
        render_table_pillow(grids=[], label="Table 3", caption="")
    with pytest.raises(RenderUnavailable):
        PillowRenderer().rasterize_svg(svg="<svg></svg>")


# --- Math in captions and cells ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("$0.81\\pm 0.02$", "0.81 ± 0.02"),
        ("$\\pm$1.2", "±1.2"),
        ("$\\mathbf{0.86}$", "0.86"),
        ("with $\\alpha=0.05$.", "with α=0.05."),
        ("$10^{3}$ tokens", "10³ tokens"),
        ("$73.2\\%$", "73.2%"),
        ("$\\uparrow$ is better", "↑ is better"),
        ("$\\frac{a}{b}$", "$\\frac{a}{b}$"),  # beyond us: keep the source
        ("costs $5 and $6", "costs $5 and $6"),  # prose about dollars
    ],
)
def test_readable_math(text: str, expected: str) -> None:
    assert readable_math(text) == expected


@pytest.mark.browser
def test_a_page_that_reloads_itself_cannot_extend_the_render_budget(
    chromium_path: str, counting_server: tuple[str, list[str]]
) -> None:
    """A drawn figure holding a meta refresh (in a foreignObject: HTML inside the SVG) is drawn
    or refused within one budget for the whole render (issue 45: it cost 20 s, two tries of
    10), makes no request, and the renderer draws the next figure as before."""
    base, hits = counting_server
    budget = 1.0
    plain = "<svg xmlns='http://www.w3.org/2000/svg' width='40' height='20'><rect width='40' height='20'/></svg>"
    with ChromiumRenderer(executable_path=chromium_path, timeout=budget) as renderer:
        for target in ("", f";url={base}/away"):
            refresh = (
                "<svg xmlns='http://www.w3.org/2000/svg' width='40' height='20'>"
                "<foreignObject width='40' height='20'>"
                f"<meta http-equiv='refresh' content='0{target}'></foreignObject>"
                "<rect width='40' height='20'/></svg>"
            )
            started = time.monotonic()
            try:
                renderer.rasterize_svg(svg=refresh)
            except RenderError as exc:
                assert "within 1 s" in str(exc) or "budget" in str(exc), exc
            assert time.monotonic() - started < 2 * budget + 1  # one budget, not a retry's two
            assert renderer.rasterize_svg(svg=plain).startswith(PNG_SIGNATURE)
    assert hits == []


def test_pillow_refuses_a_table_whose_text_would_take_minutes_to_lay_out() -> None:
    """Issue 45: a table of about 220 MB of cell text hung the Pillow renderer. Its text and
    its wrapped lines have caps of their own, checked before anything is drawn."""
    from papers.render.limits import MAX_TABLE_LINES, MAX_TABLE_TEXT

    started = time.monotonic()
    huge = [[[Cell("word " * (MAX_TABLE_TEXT // 5 + 1))]]]
    with pytest.raises(RenderError, match=r"Table 7: its cells and caption hold [\d,]+ characters"):
        render_table_pillow(grids=huge, label="Table 7", caption="")
    many = [[[Cell("\n".join(["x"] * 600))] for _ in range(40)]]  # few characters, many lines
    assert sum(len(c.text) for row in many[0] for c in row) <= MAX_TABLE_TEXT
    with pytest.raises(RenderError, match=f"more than {MAX_TABLE_LINES:,} lines"):
        render_table_pillow(grids=many, label="Table 8", caption="")
    assert time.monotonic() - started < 30  # refused, not laid out (a hang took minutes)
