"""A table float's tabulars: their cell grids (spans read, math as `$alttext$`), whether a
tabular is a grid of images rather than data, and its markup sanitized for the screenshot."""

from __future__ import annotations

from collections.abc import Iterator

import lxml.etree

from papers.parsing.document import Cell, Grid
from papers.parsing.nodes import El, class_names, text_of
from papers.parsing.sanitize import sanitize_fragment
from papers.parsing.text import collapse, strip_control


def _span(raw: str) -> int:
    """A rowspan/colspan value: 1 when unreadable, at most 1000."""
    try:
        value = int(raw.strip())
    except ValueError:
        return 1
    return min(max(value, 1), 1000)


def outer_tabulars(node: El) -> Iterator[El]:
    for child in node:
        if not isinstance(child.tag, str) or child.tag == "figcaption":
            continue
        if child.tag == "table" and "ltx_tabular" in class_names(child):
            yield child
        else:
            yield from outer_tabulars(child)


def _rows(tabular: El) -> Iterator[El]:
    for child in tabular:
        if child.tag == "tr":
            yield child
        elif child.tag in ("thead", "tbody", "tfoot"):
            for row in child:
                if row.tag == "tr":
                    yield row


def table_grid(tabular: El) -> Grid:
    grid: Grid = []
    for tr in _rows(tabular):
        row = []
        for cell in tr:
            tag = cell.tag
            if tag != "td" and tag != "th":
                continue
            rowspan = colspan = 1
            header = tag == "th"
            # One walk over the attributes is cheaper than three lookups by name.
            for name, value in cell.items():
                if name == "class":
                    header = header or "ltx_th" in value
                elif name == "rowspan":
                    rowspan = _span(value)
                elif name == "colspan":
                    colspan = _span(value)
            row.append(Cell(_cell_text(cell), rowspan, colspan, header))
        grid.append(row)
    return grid


def _cell_text(cell: El) -> str:
    """text_of(cell), with the two shapes most cells have (bare text; one formula) inlined."""
    count = len(cell)
    text = cell.text
    if count == 0:
        return collapse(text) if text else ""
    if count == 1 and (not text or text.isspace()):
        child = cell[0]
        tail = child.tail
        if child.tag == "math" and (not tail or tail.isspace()):
            alt = child.get("alttext")
            if alt is not None:
                return collapse(f"${alt.strip()}$")
    return text_of(cell)


def is_image_grid(tabular: El) -> bool:
    """A tabular whose cells hold images and no text: a figure grid, not a data table."""
    has_image = False
    for cell in tabular.iter("td", "th"):
        if any(True for _ in cell.iter("img")):
            has_image = True
        elif text_of(cell):
            return False
    return has_image


def table_fragment(tabular: El, panel_caption: str) -> str:
    html = sanitize_fragment(tabular, in_place=True)
    if panel_caption:
        caption = lxml.etree.Element("div", {"class": "ltx_panel_caption"})
        caption.text = strip_control(panel_caption)  # lxml refuses to set a control character
        html = lxml.etree.tostring(caption, method="html", encoding="unicode") + html
    return f'<div class="ltx_tabular_block">{html}</div>'
