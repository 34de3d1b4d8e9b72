"""Tables drawn from their cell grids with Pillow alone, the fallback when Chromium is missing:
booktabs-like rules, wrapped cells, the caption below; no SVG."""

from __future__ import annotations

import io
import logging
import os
import shutil
import subprocess
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from PIL import Image, ImageDraw, ImageFont

from papers.parsing.document import Grid, GridTooLarge, PlacedCell, grid_occupancy, header_row_count
from papers.render.limits import (
    MAX_GRID_SLOTS,
    MAX_TABLE_LINES,
    RenderError,
    RenderUnavailable,
    check_grid_budget,
    check_text_budget,
)
from papers.render.mathtext import readable_math

logger = logging.getLogger(__name__)

# Pillow canvases beyond this are a broken grid (absurd spans), not a table worth drawing.
MAX_PILLOW_PIXELS = 80_000_000

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
    return _GridPlan(placed, lines, col_widths, row_heights, header_row_count(grid))


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
