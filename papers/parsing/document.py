"""Plain dataclasses that the parser returns: a paper's context, independent of Django."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from papers.parsing.stamp import GeneratorStamp

SectionKind = Literal[
    "abstract", "body", "related_work", "acknowledgments", "references", "appendix"
]
ElementKind = Literal["paragraph", "table", "chart"]
# "lost": a numbered table or figure that is not an element (a parse warning);
# "skipped": a numbered float deliberately not an element (algorithm, listing).
FloatLossKind = Literal["lost", "skipped"]


class ParseError(Exception):
    """The page cannot be turned into a context; `reason` says why, for people."""

    def __init__(self, reason: str):
        super().__init__(reason)
        self.reason = reason


@dataclass(slots=True)
class Cell:
    text: str
    rowspan: int = 1
    colspan: int = 1
    header: bool = False


# One tabular: rows of cells, as in the markup (spanned positions are not repeated).
Grid = list[list[Cell]]


@dataclass(frozen=True, slots=True)
class PlacedCell:
    cell: Cell
    row: int
    col: int
    rowspan: int
    colspan: int


# Browsers clamp colspan to 1000 (and rowspan to the rows that exist).
MAX_COLSPAN = 1000


class GridTooLarge(Exception):
    """A grid would cover more slots than the caller's budget; nothing was allocated."""

    def __init__(self, slots: int, limit: int):
        super().__init__(f"{slots} slots (budget {limit})")
        self.slots = slots
        self.limit = limit


def grid_area(grid: Grid) -> int:
    """How many slots the cells cover once laid out, from their spans alone (no allocation):
    a 6 KB table of rowspan=1000 colspan=1000 cells covers millions."""
    n_rows = len(grid)
    area = 0
    for r, row in enumerate(grid):
        below = n_rows - r
        for cell in row:
            area += max(1, min(cell.rowspan, below)) * max(1, min(cell.colspan, MAX_COLSPAN))
    return area


def grid_occupancy(
    grid: Grid, *, limit: int | None = None
) -> tuple[list[PlacedCell], list[list[int | None]]]:
    """Where each cell lands once rowspans and colspans are honoured, as HTML lays them out.

    Returns the placed cells and a matrix (rows x columns) holding, for each slot, the index of
    the placed cell covering it (None for a slot no cell covers: a short row). With `limit`,
    raises GridTooLarge before allocating anything when the slots (or the matrix) would
    exceed it.
    """
    if limit is not None:
        area = grid_area(grid)
        if area > limit:
            raise GridTooLarge(area, limit)
    taken: dict[tuple[int, int], int] = {}
    placed: list[PlacedCell] = []
    n_rows = len(grid)
    for r, row in enumerate(grid):
        c = 0
        for cell in row:
            while (r, c) in taken:
                c += 1
            rowspan = max(1, min(cell.rowspan, n_rows - r))
            colspan = max(1, min(cell.colspan, MAX_COLSPAN))
            index = len(placed)
            placed.append(PlacedCell(cell, r, c, rowspan, colspan))
            for dr in range(rowspan):
                for dc in range(colspan):
                    taken[(r + dr, c + dc)] = index
            c += colspan
    n_cols = max((c + 1 for _, c in taken), default=0)
    if limit is not None and n_rows * n_cols > limit:
        raise GridTooLarge(n_rows * n_cols, limit)  # short rows under a wide one
    matrix: list[list[int | None]] = [[None] * n_cols for _ in range(n_rows)]
    for (r, c), index in taken.items():
        matrix[r][c] = index
    return placed, matrix


def header_row_count(grid: Grid) -> int:
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


@dataclass(slots=True)
class Panel:
    """One image of a chart (or of a table that is an image)."""

    src: str  # the src attribute as written in the page
    url: str  # src resolved against the page's <base> and URL ("" when unresolvable)
    caption: str = ""  # the panel's own caption, e.g. "(a) Accuracy"
    row: int = 0  # row in the figure's layout (ltx_flex_break starts a new row)
    svg: str = ""  # inline SVG markup (TikZ) when the panel has no image file


@dataclass(slots=True)
class Element:
    kind: ElementKind
    anchor: str  # "S1.p1", "S3.T1", "S4.F2"
    section_anchor: str
    order: int  # reading order over the whole document, from 0
    text: str = ""  # paragraphs: clean text, math as $alttext$
    label: str = ""  # as printed: "Table 1", "TABLE II", "Fig. 3"
    number: str = ""  # as printed: "1", "II", "A.1", "S2" (the release's `item`)
    caption: str = ""  # caption without its "Table 1:" tag
    table_html: str = ""  # tables: sanitized HTML of the tabular(s)
    grids: list[Grid] = field(default_factory=list)  # tables: one grid per tabular
    panels: list[Panel] = field(default_factory=list)  # charts, image tables
    refs: list[str] = field(default_factory=list)  # paragraphs: anchors of tables/charts cited
    degraded: bool = False  # holds ltx_ERROR (unconverted LaTeX)
    degraded_reasons: list[str] = field(default_factory=list)

    @property
    def is_image_table(self) -> bool:
        return self.kind == "table" and not self.grids and bool(self.panels)


@dataclass(frozen=True, slots=True)
class FloatLoss:
    """A numbered float (or caption tag) that did not become an element, and why."""

    label: str  # "TABLE II", "Algorithm 1"
    anchor: str  # "S3.T2"; "" when the float has no id
    reason: str
    kind: FloatLossKind = "lost"

    def message(self) -> str:
        where = f" ({self.anchor})" if self.anchor else ""
        verb = "not kept" if self.kind == "lost" else "skipped"
        return f"{self.label}{where} {verb}: {self.reason}"

    def as_dict(self) -> dict[str, str]:
        return {"label": self.label, "anchor": self.anchor, "reason": self.reason}


@dataclass(frozen=True, slots=True)
class PageLicence:
    """The licence banner arXiv's 2026 pages carry (`a#license-tr`, "License: CC BY 4.0")."""

    name: str  # "CC BY 4.0"
    href: str  # the banner link's target, "" when none


@dataclass(slots=True)
class Section:
    anchor: str  # "S3", "S3.SS1", "A1", "Sx1", "bib", "abstract"
    number: str  # "3.1", "A", "" when unnumbered
    title: str
    level: int  # 1 for sections (and abstract/bibliography), 2 subsections, ...
    parent_anchor: str | None
    order: int
    kind: SectionKind


@dataclass(slots=True)
class ParsedPaper:
    title: str
    sections: list[Section]
    elements: list[Element]
    base_url: str  # the effective base against which assets resolve
    # For people: package alerts, numbered floats not kept, two floats with one number.
    warnings: list[str] = field(default_factory=list)
    losses: list[FloatLoss] = field(default_factory=list)
    # (kind, number) printed by more than one kept float -> their anchors
    duplicates: dict[tuple[str, str], list[str]] = field(default_factory=dict)
    licence: PageLicence | None = None
    generator: str = ""  # "Generated on … by LaTeXML (version 0.8.8) …" (the page's comment)
    stamp: GeneratorStamp | None = None  # the same comment, read: name, version, date

    def lost(self) -> list[FloatLoss]:
        return [loss for loss in self.losses if loss.kind == "lost"]

    def skipped(self) -> list[FloatLoss]:
        return [loss for loss in self.losses if loss.kind == "skipped"]

    def tables(self) -> list[Element]:
        return [e for e in self.elements if e.kind == "table"]

    def charts(self) -> list[Element]:
        return [e for e in self.elements if e.kind == "chart"]

    def paragraphs(self) -> list[Element]:
        return [e for e in self.elements if e.kind == "paragraph"]
