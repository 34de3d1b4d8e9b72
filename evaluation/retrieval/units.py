"""The retrievable units of a paper file, and which of them a claim's gold evidence is (pure).

A unit is one paragraph (a line of a paper-file section's `text`: the release writer joins a
section's paragraphs with newlines, and a parsed paragraph holds none), or one table or chart
(its caption, plus the entry's `description` where the paper file stores one; SciVer indexed a
GPT-4o description beside the caption, our releases store none). Ids: `4.1/p2` (the second
paragraph of section 4.1), `table/2`, `chart/3`.

A gold piece of our JSON Lines' `evidence` list maps to units so: a paragraph by its text
(whitespace collapsed) among the paper's paragraphs (every paragraph with that text, should the
paper repeat one: any of them retrieved finds it); a table or chart by its `image_path`, which
is one of the paths the record names (`type`/`item`/`image_path`, or `item1_*`/`item2_*`), so
the record gives its number; else by the writer's file name `images/<paperid>_<kind>_<n>.png`.
A piece that maps to no unit stays in the claim's count (it cannot be retrieved) and is counted
apart, so a release whose evidence and paper files disagree shows it.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from validation.release.formats import SCIVER_ROOT
from validation.release.reading import record_elements

__all__ = ["GoldPiece", "Unit", "gold_pieces", "paper_units"]

VISUAL = ("table", "chart")
_IMAGE_NAME = re.compile(r"_(table|chart)_([^/]+)\.png$")


@dataclass(frozen=True)
class Unit:
    """One piece of evidence a retriever can return; `text` is what is indexed."""

    id: str
    kind: str  # paragraph, table or chart
    text: str
    section_id: str = ""
    section_name: str = ""
    item: str = ""  # a table's or chart's number
    caption: str = ""


@dataclass(frozen=True)
class GoldPiece:
    """One piece of a claim's gold evidence and the units it is (empty: none of the paper's)."""

    kind: str
    label: str
    units: frozenset[str]


def _collapse(text: object) -> str:
    return " ".join(str(text or "").split())


def _entry(paper: Mapping[str, Any], key: str) -> Mapping[str, Any]:
    value = paper.get(key)
    return value if isinstance(value, Mapping) else {}


def paper_units(paper: Mapping[str, Any]) -> list[Unit]:
    """Every unit of a paper file, paragraphs in the file's order, then tables, then charts."""
    units: list[Unit] = []
    for section in paper.get("sections") or []:
        if not isinstance(section, Mapping):
            continue
        sid = str(section.get("section_id", ""))
        name = str(section.get("section_name", ""))
        lines = [line for line in str(section.get("text") or "").split("\n") if line.strip()]
        for n, line in enumerate(lines, start=1):
            units.append(Unit(f"{sid}/p{n}", "paragraph", line, sid, name))
    for kind, key, caption_key in (
        ("table", "tables", "capture"),
        ("chart", "image_paths", "caption"),
    ):
        for item, entry in _entry(paper, key).items():
            entry = entry if isinstance(entry, Mapping) else {}
            caption = str(entry.get(caption_key) or "")
            described = str(entry.get("description") or "")
            text = f"{caption}\n{described}" if described else caption
            units.append(Unit(f"{kind}/{item}", kind, text, item=str(item), caption=caption))
    return units


def _release_relative(path: str) -> str:
    prefix = SCIVER_ROOT + "/"
    return path[len(prefix) :] if path.startswith(prefix) else path


def _visual_unit(piece: Mapping[str, Any], record: Mapping[str, Any]) -> str | None:
    path = _release_relative(str(piece.get("image_path") or ""))
    for kind, item, named in record_elements(record):
        if path and _release_relative(named) == path:
            return f"{kind}/{item}"
    found = _IMAGE_NAME.search(path)
    return f"{found.group(1)}/{found.group(2)}" if found else None


def gold_pieces(
    evidence: Sequence[Mapping[str, Any]], record: Mapping[str, Any], units: Sequence[Unit]
) -> list[GoldPiece]:
    """The claim's gold evidence pieces, each with the units of its paper it is."""
    by_text: dict[str, set[str]] = {}
    for unit in units:
        if unit.kind == "paragraph":
            by_text.setdefault(_collapse(unit.text), set()).add(unit.id)
    ids = {unit.id for unit in units}
    pieces = []
    for piece in evidence:
        kind = str(piece.get("kind", ""))
        label = str(piece.get("label") or piece.get("anchor") or kind)
        if kind in VISUAL:
            unit = _visual_unit(piece, record)
            found = {unit} if unit in ids else set()
        else:
            found = by_text.get(_collapse(piece.get("text")), set())
        pieces.append(GoldPiece(kind, label, frozenset(found)))
    return pieces
