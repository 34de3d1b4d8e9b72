"""What reaches the database fits it: text a database accepts, lengths and integer ranges
checked against the model's columns before a row is written, never discovered by the database
in the middle of a crawl.

The ranges are PostgreSQL's (SQLite would store anything), so a paper is refused or fitted the
same way on either database.
"""

from __future__ import annotations

import hashlib
from collections.abc import Collection
from dataclasses import replace
from functools import cache
from typing import Any

from django.db import models
from django.db.backends.base.operations import BaseDatabaseOperations

from papers.models import Element, ElementPanel, Section
from papers.parsing import Element as ParsedElement
from papers.parsing import Panel, ParsedPaper
from papers.parsing import Section as ParsedSection
from papers.parsing.text import CONTROL


class Unstorable(Exception):
    """A value no column can hold as it is, and that may not be cut: `field` names the column
    (`Element.number`), `reason` says why, for people."""

    def __init__(self, field: str, reason: str):
        super().__init__(f"{field}: {reason}")
        self.field = field
        self.reason = reason


def storable_text(text: str) -> str:
    """`text` without NUL and the other control characters (tab and newline kept), lone
    surrogates and U+FFFE/U+FFFF: what PostgreSQL and lxml refuse."""
    return CONTROL.sub("", text) if CONTROL.search(text) else text


def storable_json(value: Any) -> Any:
    """A JSON value with every string in it (keys too) made storable: PostgreSQL's jsonb
    refuses \\u0000."""
    if isinstance(value, str):
        return storable_text(value)
    if isinstance(value, dict):
        return {storable_text(str(k)): storable_json(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [storable_json(v) for v in value]
    return value


def cut(text: str, length: int) -> str:
    """`text` cut to `length` characters, the cut shown with an ellipsis."""
    return text if len(text) <= length else text[: length - 1] + "…"


def fit_key(key: str, length: int) -> str:
    """A key (an anchor) that fits `length`: cleaned, and when too long a prefix and a short
    hash of the whole, so that two long keys with one prefix stay apart."""
    key = storable_text(key)
    if len(key) <= length:
        return key
    digest = hashlib.sha1(key.encode("utf-8", "surrogatepass")).hexdigest()[:12]
    return f"{key[: length - 13]}~{digest}"


# --- columns --------------------------------------------------------------------------------

_RANGES = BaseDatabaseOperations.integer_field_ranges


@cache
def _columns(model: type[models.Model]) -> dict[str, tuple[str, int | None, tuple | None]]:
    """name -> (what it holds, max_length, integer range) for a model's
    concrete fields: "text", "json", "int" or "other"."""
    found: dict[str, tuple[str, int | None, tuple | None]] = {}
    for field in model._meta.concrete_fields:
        if field.is_relation:
            continue
        if isinstance(field, models.JSONField):
            spec: tuple[str, int | None, tuple | None] = ("json", None, None)
        elif isinstance(field, models.CharField | models.TextField):
            spec = ("text", field.max_length if isinstance(field, models.CharField) else None, None)
        elif isinstance(field, models.FileField):
            spec = ("text", field.max_length, None)
        elif isinstance(field, models.IntegerField):
            spec = ("int", None, _RANGES.get(field.get_internal_type()))
        else:
            spec = ("other", None, None)
        found[field.name] = spec
    return found


def fit_values(
    model: type[models.Model],
    values: dict[str, Any],
    *,
    truncate: Collection[str] = (),
    notes: list[str] | None = None,
    where: str = "",
) -> dict[str, Any]:
    """`values` for columns of `model`, made storable: text cleaned, JSON cleaned, lengths and
    integer ranges checked. A value too long for a column named in `truncate` is cut (and a
    note says so); anything else that does not fit raises Unstorable."""
    columns = _columns(model)
    out = dict(values)
    for name, value in values.items():
        spec = columns.get(name)
        if spec is None or value is None:
            continue
        kind, length, bounds = spec
        label = f"{model.__name__}.{name}"
        if kind == "text" and isinstance(value, str):
            value = storable_text(value)
            if length is not None and len(value) > length:
                if name not in truncate:
                    raise Unstorable(
                        label,
                        f"{len(value)} characters ({value[:60]!r}…), the column holds {length}"
                        + (f" ({where})" if where else ""),
                    )
                if notes is not None:
                    notes.append(
                        f"{where or model.__name__}: {name} cut to {length} characters "
                        f"(it had {len(value)}): {value[:60]!r}…"
                    )
                value = cut(value, length)
            out[name] = value
        elif kind == "json":
            out[name] = storable_json(value)
        elif kind == "int" and bounds is not None and isinstance(value, int):
            low, high = bounds
            if not low <= value <= high:
                raise Unstorable(
                    label,
                    f"{value} is outside what the column holds ({low}..{high})"
                    + (f" ({where})" if where else ""),
                )
    return out


def fit_row(
    row: models.Model,
    *,
    truncate: Collection[str] = (),
    notes: list[str] | None = None,
    where: str = "",
) -> models.Model:
    """The row's own field values made storable in place (see fit_values); returns it."""
    columns = _columns(type(row))
    values = {name: getattr(row, name) for name in columns}
    for name, value in fit_values(
        type(row), values, truncate=truncate, notes=notes, where=where
    ).items():
        if value is not values[name]:
            setattr(row, name, value)
    return row


# --- a parsed paper -------------------------------------------------------------------------


def fit_parsed(parsed: ParsedPaper) -> ParsedPaper:
    """The parse as the database can hold it (a copy; the parse is left as it was).

    Anchors longer than their column keep a prefix and a hash (they stay unique, and the
    sections, parents and cross-references that name them follow); a display label or a
    section number too long is cut, a panel row beyond its column is the last row, each with
    a warning; every text is cleaned. What cannot be fitted raises Unstorable.
    """

    notes: list[str] = []
    section_keys = _fitted_keys(
        [s.anchor for s in parsed.sections], Section._meta.get_field("anchor").max_length
    )
    element_keys = _fitted_keys(
        [e.anchor for e in parsed.elements], Element._meta.get_field("anchor").max_length
    )
    sections = [_fit_section(section, section_keys, notes) for section in parsed.sections]
    elements = [
        _fit_element(element, section_keys, element_keys, notes) for element in parsed.elements
    ]
    licence = parsed.licence
    if licence is not None:
        licence = replace(
            licence, name=storable_text(licence.name), href=storable_text(licence.href)
        )
    return replace(
        parsed,
        title=storable_text(parsed.title),
        sections=sections,
        elements=elements,
        warnings=[storable_text(w) for w in [*parsed.warnings, *notes]],
        losses=[
            replace(
                loss,
                label=storable_text(loss.label),
                anchor=storable_text(loss.anchor),
                reason=storable_text(loss.reason),
            )
            for loss in parsed.losses
        ],
        licence=licence,
        generator=storable_text(parsed.generator),
    )


# The parsed values a section's and an element's columns hold (the anchors are fitted apart).
_SECTION_VALUES = ("number", "title", "level", "order")
_ELEMENT_VALUES = (
    "label",
    "number",
    "caption",
    "text",
    "table_html",
    "order",
    "degraded_reasons",
)


def _fit_section(
    section: ParsedSection, section_keys: dict[str, str], notes: list[str]
) -> ParsedSection:
    """A parsed section with its anchor and parent's fitted, its number cut to its column."""
    values = fit_values(
        Section,
        {name: getattr(section, name) for name in _SECTION_VALUES},
        truncate={"number"},
        notes=notes,
        where=f"section {cut(section.anchor, 40)}",
    )
    parent = section_keys.get(section.parent_anchor) if section.parent_anchor else None
    return replace(section, anchor=section_keys[section.anchor], parent_anchor=parent, **values)


def _fit_element(
    element: ParsedElement,
    section_keys: dict[str, str],
    element_keys: dict[str, str],
    notes: list[str],
) -> ParsedElement:
    """A parsed element with its anchors (its own, its section's, its references') fitted, its
    label cut to its column, and its cells' and panels' texts cleaned."""
    where = cut(element.label or element.anchor, 40)
    values = fit_values(
        Element,
        {name: getattr(element, name) for name in _ELEMENT_VALUES},
        truncate={"label"},
        notes=notes,
        where=where,
    )
    return replace(
        element,
        anchor=element_keys[element.anchor],
        section_anchor=section_keys[element.section_anchor],
        grids=[
            [[replace(c, text=storable_text(c.text)) for c in row] for row in grid]
            for grid in element.grids
        ],
        panels=[
            _fit_panel(panel, index, where, notes) for index, panel in enumerate(element.panels)
        ],
        refs=[element_keys[r] for r in element.refs if r in element_keys],
        **values,
    )


def _fit_panel(panel: Panel, index: int, where: str, notes: list[str]) -> Panel:
    """A parsed panel with its texts cleaned; a layout row beyond the column is the last row."""
    fit_values(ElementPanel, {"order": index}, where=f"{where}, panel {index + 1}")
    row_high = _RANGES[ElementPanel._meta.get_field("row").get_internal_type()][1]
    row = panel.row
    if row > row_high:
        notes.append(
            f"{where}: panel {index + 1} is in layout row {row}; stored in row "
            f"{row_high}, the last a panel can be in"
        )
        row = row_high
    return replace(
        panel,
        src=storable_text(panel.src),
        url=storable_text(panel.url),
        caption=storable_text(panel.caption),
        svg=storable_text(panel.svg),
        row=row,
    )


def _fitted_keys(keys: list[str], length: int) -> dict[str, str]:
    """Each key -> a storable one of at most `length` characters, distinct as the keys are."""
    # Keys that fit as they are keep themselves; the others are fitted around them.
    out = {key: key for key in keys if fit_key(key, length) == key}
    taken = set(out)
    for key in keys:
        if key in out:
            continue
        fitted = fit_key(key, length)
        n = 1
        while fitted in taken:  # cleaning made two keys one ("\x01S1" and "S1")
            n += 1
            fitted = fit_key(f"{key}~{n}", length)
        taken.add(fitted)
        out[key] = fitted
    return out
