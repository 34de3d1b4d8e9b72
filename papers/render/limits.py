"""What a render refuses before anything is laid out (a table whose spans cover too many grid
slots, or too much text to wrap), and the errors a renderer raises, for people."""

from __future__ import annotations

from collections.abc import Sequence

from papers.parsing.document import Grid, grid_area

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


def check_text_budget(grids: Sequence[Grid], label: str, caption: str) -> None:
    """Refuse, before any text is measured or wrapped, a table whose cells and caption hold
    more than MAX_TABLE_TEXT characters."""
    total = len(caption) + sum(len(cell.text) for grid in grids for row in grid for cell in row)
    if total > MAX_TABLE_TEXT:
        raise RenderError(
            f"{label or 'table'}: its cells and caption hold {total:,} characters of text (at "
            f"most {MAX_TABLE_TEXT:,} are drawn); not rendered"
        )
