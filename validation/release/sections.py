"""Paper-file section ids (pure): every block of a curated context gets an id a record can
name and SciVer's reading reaches, and every record names the sections of its evidence.

SciVer's reading matches a record's `section` entries to paper-file `section_id`s by the part
before the first "." (`validation.release.reading`). So a numbered section keeps its number
("4.3"); a block under an unnumbered heading (a `\\paragraph`, a `\\subsection*`) takes its
parent's id and a counter ("4.3.p2": its top-level part is "4", so a record naming it reaches
it, and its heading stays its own `section_name`); an unnumbered top-level section
("Limitations") gets a lower-case slug of its title, unique within the paper ("limitations");
the abstract is "abstract". LaTeXML anchors ("S4.SS3.SSS0.Px2", "Sx1") never appear: no
record could reach them.
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from validation.release.records import PaperSection

__all__ = ["SectionNode", "paper_sections", "record_sections", "section_ids", "slug"]

VISUAL = ("table", "chart")
SLUG_LENGTH = 48


@dataclass(frozen=True, slots=True)
class SectionNode:
    """What the ids need of one section of the paper (`papers.models.Section`)."""

    pk: int
    anchor: str
    number: str
    title: str
    parent: int | None
    order: int
    kind: str = "body"


def slug(title: str) -> str:
    """A title as an id: "Limitations and Ethics" → "limitations-and-ethics" (ASCII, from a
    letter)."""
    ascii_text = unicodedata.normalize("NFKD", title).encode("ascii", "ignore").decode()
    text = re.sub(r"[^a-z0-9]+", "-", ascii_text.lower()).strip("-")[:SLUG_LENGTH].strip("-")
    if text and not text[0].isalpha():
        text = f"section-{text}"
    return text


def section_ids(nodes: Iterable[SectionNode]) -> dict[int, str]:
    """Each section's paper-file id, from all the sections of one paper (not only the curated
    ones, so that curating a section away does not renumber the others)."""
    ids: dict[int, str] = {}
    taken: set[str] = set()
    unnumbered_children: Counter[int] = Counter()
    ordered = sorted(nodes, key=lambda n: (n.order, n.pk))
    for node in ordered:  # numbers first: a slug never takes a number's place
        if node.number.strip() and node.kind != "abstract":
            ids[node.pk] = node.number.strip()
            taken.add(ids[node.pk])
    for node in ordered:
        if node.pk in ids:
            continue
        if node.kind != "abstract" and node.parent is not None and node.parent in ids:
            unnumbered_children[node.parent] += 1
            ids[node.pk] = f"{ids[node.parent]}.p{unnumbered_children[node.parent]}"
            continue
        if node.kind == "abstract":
            base = "abstract"
        else:
            base = slug(node.title) or ("front" if node.anchor == "front" else "section")
        candidate, n = base, 1
        while candidate in taken:
            n += 1
            candidate = f"{base}-{n}"
        taken.add(candidate)
        ids[node.pk] = candidate
    return ids


def paper_sections(
    blocks: Iterable[tuple[int, str, str]],
    ids: Mapping[int, str],
    titles: Mapping[int, str],
) -> tuple[PaperSection, ...]:
    """The paper file's sections from the curated context's elements in reading order, as
    (section pk, kind, text): one entry per id in the order first met, its paragraphs' text
    joined by newlines (a section holding only tables or charts has an entry with no text)."""
    texts: dict[str, list[str]] = {}
    names: dict[str, str] = {}
    for section_pk, kind, text in blocks:
        key = ids[section_pk]
        names.setdefault(key, titles.get(section_pk, ""))
        texts.setdefault(key, [])
        if kind == "paragraph":
            texts[key].append(text)
    return tuple(PaperSection(k, names[k], "\n".join(v)) for k, v in texts.items())


def record_sections(
    evidence: Sequence[tuple[str, int]],
    ids: Mapping[int, str],
    order: Sequence[str] = (),
) -> tuple[str, ...]:
    """A record's `section`: the ids of its evidence paragraphs' sections or, when it has no
    paragraph evidence, of the sections holding its tables and charts; from (kind, section
    pk) pieces, in the paper file's order (`order`: its section ids), unknown ids last."""
    paragraphs = [pk for kind, pk in evidence if kind == "paragraph"]
    chosen = paragraphs or [pk for kind, pk in evidence if kind in VISUAL]
    position = {sid: i for i, sid in enumerate(order)}
    named = {ids[pk] for pk in chosen if pk in ids}
    return tuple(sorted(named, key=lambda sid: (position.get(sid, math.inf), sid)))
