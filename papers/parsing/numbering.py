"""Table and figure numbers as papers print them: read by the parser and the claim suggester.

The number is whatever follows the tag word, kept as printed: arabic (`3`, `3.1`), roman in
either case (`IV`, `iv`: IEEEtran prints `TABLE IV`), appendix and supplementary numbers
(`A.1`, `A1`, `S2`, `B3`, `A-1`) and bare letters (`A`). Tag words: Table, Tab., Figure, Fig.
in any case, optionally after "Supplementary" / "Extended Data".
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Literal

FloatKind = Literal["table", "chart"]

# Up to 399: more tables or figures than that in one paper is not a numbering style.
# The look-ahead after each keeps it from matching nothing ("i" of "i.e.").
ROMAN_UPPER = r"(?=[IVXLC])C{0,3}(?:XC|XL|L?X{0,3})(?:IX|IV|V?I{0,3})(?![IVXLCDM])"
ROMAN_LOWER = r"(?=[ivxlc])c{0,3}(?:xc|xl|l?x{0,3})(?:ix|iv|v?i{0,3})(?![ivxlcdm])"
_PREFIXED = r"[A-Z]{1,2}[.\-]?\d+(?:[.\-]\d+)*"  # A1, A.1, S2, SM3, B-2
_ARABIC = r"\d+(?:[.\-]\d+)*"  # 3, 3.1, 3-1
# A number as a caption tag prints it (no capturing groups: other patterns embed it).
NUMBER = rf"(?:{_PREFIXED}|{_ARABIC}|{ROMAN_UPPER}|{ROMAN_LOWER}|[A-Z])"
# A number as prose cites it: a sub-figure letter may follow ("Fig. 4a").
CITED_NUMBER = rf"(?:(?:{_PREFIXED}|{_ARABIC})[a-z]?|{ROMAN_UPPER}|{ROMAN_LOWER}|[A-Z])"
# The tag words, case-insensitive, singular or plural ("Tables 1 and 2").
TABLE_WORDS = r"(?i:tables?|tabs?\.?)"
FIGURE_WORDS = r"(?i:figures?|figs?\.?)"
TAG_WORDS = rf"(?:{TABLE_WORDS}|{FIGURE_WORDS})"
_QUALIFIER = r"(?i:(?:supplementary|supplemental|suppl\.|extended\s+data)\s+)"

_TAG = re.compile(rf"(?P<word>{_QUALIFIER}?{TAG_WORDS})?\s*(?P<number>{NUMBER})")
# Another language's or class's tag word ("Tabla 3", "Abbildung 2"): a word, then one token.
_OTHER_TAG = re.compile(r"(?:(?P<word>[^\W\d_][\w.]*)\s+)?(?P<number>\w[\w.\-]{0,15})")
_TABLE_WORD = re.compile(rf"(?:{_QUALIFIER})?{TABLE_WORDS}")
_FIGURE_WORD = re.compile(rf"(?:{_QUALIFIER})?{FIGURE_WORDS}")
# Not "i" of "tables i.e.": a number never runs on into a dotted word.
NUMBER_END = r"\b(?![.\-]\w)"
_CITED = re.compile(rf"\b(?P<word>{TAG_WORDS})(?:\s*|~)(?P<number>{CITED_NUMBER}){NUMBER_END}")


# A number as printed is never longer than this (the column that stores it holds as much):
# a longer one is not a numbering style but a broken page, read as no number.
MAX_NUMBER_LENGTH = 32


@dataclass(frozen=True, slots=True)
class FloatNumber:
    """A caption tag read: its word and number as printed ("TABLE", "II")."""

    word: str
    number: str

    @property
    def label(self) -> str:
        return f"{self.word} {self.number}"


@functools.lru_cache(maxsize=4096)  # the same few tags on every page; the answer is frozen
def read_tag(tag_text: str, kind: FloatKind) -> FloatNumber | None:
    """The number a caption tag ("TABLE II: ", "Fig. 3.", "Table A.1", "Figure S2") prints.

    None for a sub-figure panel's tag ("(a)"), for a tag that holds no number, and for a
    number longer than MAX_NUMBER_LENGTH. A tag without a word ("3:") takes the kind's usual
    word.
    """
    text = " ".join(tag_text.split()).rstrip(":.").strip()
    if not text or is_panel_tag(text):
        return None
    match = _TAG.fullmatch(text) or _OTHER_TAG.fullmatch(text)
    if match is None or tag_kind(match.group("number")) is not None:
        return None  # no number, or only a word ("Figure")
    if len(match.group("number")) > MAX_NUMBER_LENGTH:
        return None
    word = match.group("word") or ("Table" if kind == "table" else "Figure")
    return FloatNumber(word=word, number=match.group("number"))


def is_panel_tag(tag_text: str) -> bool:
    """A sub-figure's or sub-table's own tag: "(a)", "(b)", "a)"."""
    text = tag_text.strip()
    return text.startswith("(") or (len(text) <= 3 and text.endswith(")"))


def tag_kind(word: str) -> FloatKind | None:
    """ "table" for Table/Tab., "chart" for Figure/Fig. (any case), else None."""
    if _TABLE_WORD.fullmatch(word.strip()):
        return "table"
    if _FIGURE_WORD.fullmatch(word.strip()):
        return "chart"
    return None


def cited_numbers(text: str) -> list[tuple[FloatKind, str]]:
    """The tables and figures a text cites ("Table IV", "Fig. 2a", "Tab. A.1"), in order."""
    found: list[tuple[FloatKind, str]] = []
    for match in _CITED.finditer(text):
        kind = tag_kind(match.group("word"))
        if kind is not None:
            found.append((kind, match.group("number")))
    return found


def duplicate_numbers(
    floats: Iterable[tuple[str, str, str]],
) -> dict[tuple[str, str], list[str]]:
    """(kind, number) printed by more than one float -> their anchors, from (kind, number,
    anchor) triples: a supplement restarting at "Table 1" gives two tables numbered 1."""
    seen: dict[tuple[str, str], list[str]] = {}
    for kind, number, anchor in floats:
        if number:
            seen.setdefault((kind, number), []).append(anchor)
    return {key: anchors for key, anchors in seen.items() if len(anchors) > 1}


def duplicate_message(kind: str, number: str, anchors: Sequence[str]) -> str:
    what = "tables" if kind == "table" else "figures"
    return (
        f"{len(anchors)} {what} print the number {number} ({', '.join(anchors)}): give each a "
        "distinct number in the admin (Elements); until then an export whose context holds "
        "both refuses this paper (a release names tables and figures by number)"
    )
