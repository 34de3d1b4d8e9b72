"""SciVer's own reading of a release, in one place (pure): what a model is given for a record.

Written from the facts of SciVer's public input preparation, not from our export's section
mapping, so that a release is checked the way its consumer reads it: the context is every
paper-file section whose `section_id` has the same part before its first "." as one of the
record's `section` entries (so "3.2" reaches every section of 3; an anchor-style id such as
"S4.SS1.SSS0.Px1" is never matched; an empty list gives no text), each, in the paper file's
order, as `section_name + ":\\n" + text + "\\n"`, character for character as SciVer's loop
appends it (so every section's text ends with a newline, even an empty one, and the last word
of a section never runs into the next section's name); the images are the record's
`image_path` (direct, analytical) or `item1_path` and `item2_path` (parallel, sequential), each
with its caption from the paper file.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

TWO_ELEMENT_TYPES = ("parallel", "sequential")


def top_level(section_id: object) -> str:
    """The part of a section id before its first "." ("3.2" → "3", "S4.SS1" → "S4")."""
    return str(section_id).split(".", 1)[0]


# A record names sections by number ("4", "3.2", appendix "A.1", IEEE's roman "IV" or "II-A")
# or, for an unnumbered top-level section, by a lower-case slug ("abstract", "limitations").
_NUMBER_HEAD = re.compile(r"^(\d+|[A-Z]+)(-[A-Za-z0-9]+)*$")
_SLUG_HEAD = re.compile(r"^[a-z][a-z0-9-]*$")


def is_reachable(section_id: object) -> bool:
    """Whether a record could name this paper-file section so that SciVer's reading reaches
    it: its top-level part is a section number (digits; capital letters for an appendix "A"
    or a roman "IV", optionally "-A" as IEEE numbers subsections) or a lower-case slug (an
    unnumbered top-level section such as "abstract" or "limitations", and the blocks under
    it, "limitations.p1"). LaTeXML anchors ("S4.SS1.SSS0.Px1", "Sx1", "A1") are not: a
    record naming "4" never reaches "S4"."""
    head = top_level(section_id)
    return bool(_NUMBER_HEAD.match(head) or _SLUG_HEAD.match(head))


@dataclass(frozen=True)
class ModelImage:
    """One image a model is shown, with the caption SciVer's code puts beside it."""

    type: str  # "table" or "chart"
    item: str
    path: str
    caption: str


@dataclass(frozen=True)
class ModelInput:
    """What SciVer's code gives a model for one record."""

    context: str
    section_ids: tuple[str, ...]  # the paper-file sections whose text is in `context`
    images: tuple[ModelImage, ...]


def record_elements(record: Mapping[str, Any]) -> list[tuple[str, str, str]]:
    """The (type, item, image path) the record names, in its own fields' order."""
    if record.get("claim_type") in TWO_ELEMENT_TYPES:
        return [
            (
                str(record.get(f"item{n}_type", "")),
                str(record.get(f"item{n}", "")),
                str(record.get(f"item{n}_path", "")),
            )
            for n in (1, 2)
        ]
    return [
        (
            str(record.get("type", "")),
            str(record.get("item", "")),
            str(record.get("image_path", "")),
        )
    ]


def _caption(paper: Mapping[str, Any], element_type: str, item: str) -> str:
    if element_type == "table":
        entry = (paper.get("tables") or {}).get(item)
        key = "capture"  # sic: the public release's key for table captions
    else:
        entry = (paper.get("image_paths") or {}).get(item)
        key = "caption"
    return str(entry.get(key, "")) if isinstance(entry, Mapping) else ""


def model_input(record: Mapping[str, Any], paper: Mapping[str, Any]) -> ModelInput:
    """The context and images SciVer's code builds for `record` from its paper file."""
    sections = record.get("section") or []
    wanted = {top_level(s) for s in sections} if isinstance(sections, list) else set()
    chosen: list[Mapping[str, Any]] = [
        s
        for s in (paper.get("sections") or [])
        if isinstance(s, Mapping) and top_level(s.get("section_id", "")) in wanted
    ]
    # SciVer's loop: context += section_name + ":\n" + text + "\n", for every section reached.
    context = "".join(f"{s.get('section_name', '')}:\n{s.get('text', '')}\n" for s in chosen)
    images = tuple(
        ModelImage(t, item, path, _caption(paper, t, item))
        for t, item, path in record_elements(record)
    )
    return ModelInput(
        context=context,
        section_ids=tuple(str(s.get("section_id", "")) for s in chosen),
        images=images,
    )


def reached_section_ids(records: Sequence[Mapping[str, Any]]) -> set[str]:
    """The top-level section numbers any of `records` names."""
    return {top_level(s) for r in records for s in (r.get("section") or [])}
