"""Suggest refuted rewrites of an entailed claim: a pure function of the claim and its evidence."""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Literal

from papers.parsing import numbering

PerturbationKind = Literal["number", "direction", "superlative", "entity"]


@dataclass(frozen=True, slots=True)
class EvidenceTable:
    """A table of the evidence, as rows of cell texts on the table's column grid (a spanned
    cell's text in every slot it covers)."""

    label: str
    rows: Sequence[Sequence[str]]


@dataclass(frozen=True, slots=True)
class Suggestion:
    text: str
    kind: PerturbationKind
    description: str  # what changed, e.g. "73.2 → 68.9 (Table 2, same column)"


@dataclass(slots=True)
class _Collector:
    claim: str
    limit: int
    seen: set[str] = field(default_factory=set)
    out: list[Suggestion] = field(default_factory=list)

    def add(self, text: str, kind: PerturbationKind, description: str) -> None:
        key = _normalise(text)
        if key == _normalise(self.claim) or key in self.seen or len(self.out) >= self.limit:
            return
        self.seen.add(key)
        self.out.append(Suggestion(text=text, kind=kind, description=description))


# Directions and comparatives: each pair swaps both ways.
_DIRECTION_PAIRS = [
    ("higher", "lower"), ("more", "fewer"), ("better", "worse"), ("larger", "smaller"),
    ("greater", "smaller"), ("faster", "slower"), ("longer", "shorter"), ("stronger", "weaker"),
    ("outperforms", "underperforms"), ("outperform", "underperform"),
    ("outperformed", "underperformed"), ("increases", "decreases"), ("increase", "decrease"),
    ("increased", "decreased"), ("increasing", "decreasing"), ("improves", "degrades"),
    ("improve", "degrade"), ("improved", "degraded"), ("improvement", "degradation"),
    ("above", "below"), ("exceeds", "falls short of"), ("rises", "falls"), ("rise", "fall"),
    ("gains", "losses"), ("gain", "loss"), ("positive", "negative"), ("up", "down"),
    ("surpasses", "trails"), ("boosts", "reduces"), ("helps", "hurts"),
    ("consistently", "inconsistently"), ("more than", "less than"), ("at least", "at most"),
]  # fmt: skip
_SUPERLATIVE_PAIRS = [
    ("best", "worst"), ("highest", "lowest"), ("largest", "smallest"), ("most", "least"),
    ("fastest", "slowest"), ("maximum", "minimum"), ("top", "bottom"), ("strongest", "weakest"),
    ("greatest", "smallest"), ("longest", "shortest"),
]  # fmt: skip

_NUMBER = re.compile(
    r"(?<![\w.])(?P<sign>[-+−])?(?P<int>\d{1,3}(?:,\d{3})+|\d+)(?P<frac>\.\d+)?"
    r"(?P<unit>\s?%|x|×|k|K|M|B)?(?![\w.]*\d)"
)


# A reference to a part of the paper: "Table 2", "Tab. 3", "Fig. 4a", "TABLE IV", "Section 3.2",
# "Eq. (5)", "Algorithm 1", "Table A.1" (group 4 is its number). The suggester never changes
# one, and `check_release` refuses a refuted claim that differs only in one. Table and figure
# numbers are the numbering styles `papers.parsing.numbering` reads in caption tags.
REFERENCE = re.compile(
    rf"\b({numbering.TAG_WORDS}|(?i:sections?|secs?\.|eqs?\.|equations?|algorithms?|alg\.))"
    rf"(\s*)(\(?)({numbering.CITED_NUMBER}){numbering.NUMBER_END}(\)?)"
)
# Other numbers that name something rather than state a value: more references of a list
# ("Tables 1 and 2"), other numbered parts (appendix, theorem, step, layer…), a citation
# ("[12]"), a setting ("k=2") or part of a model's name ("GPT-4"). Changing one makes a
# different claim, not a false one (a reviewer refuses it).
_NAMING_BEFORE = re.compile(
    r"(?:\b(?:appendix|theorem|lemma|definition|step|line|row|column|layer)\s*[(~]?\s*"
    r"|\[[\d,\s–-]*|[=≤≥<>]\s*|[A-Za-z]-"
    rf"|\b(?:{numbering.TAG_WORDS}|sections?|eqs?\.)\s*{numbering.CITED_NUMBER}"
    rf"(?:\s*(?:,|and|or|&|–|-)\s*{numbering.CITED_NUMBER})*\s*(?:,|and|or|&|–|-)\s*)$",
    re.I,
)
_NAMING_AFTER = re.compile(r"^[\d,\s–-]*\]")


def is_reference_number(text: str, start: int, end: int) -> bool:
    """Whether the number at text[start:end] is part of a reference ("Table 3", "Fig. 2(b)",
    "Section 4.1", "Tables 1 and 2", "[12]", "Eq. (3)"), a setting ("k=2") or a name
    ("GPT-4"), not a value."""
    if any(m.start(4) <= start and end <= m.end(4) for m in REFERENCE.finditer(text)):
        return True
    before = text[max(0, start - 24) : start]
    return bool(_NAMING_BEFORE.search(before) or _NAMING_AFTER.match(text[end:]))


def perturbation_suggestions(
    claim: str,
    *,
    tables: Sequence[EvidenceTable] = (),
    limit: int = 12,
) -> list[Suggestion]:
    """Rewrites of `claim` likely to be false given the evidence, best first.

    Numbers are replaced by other values of the same table column or row where the number
    appears there (values that make the claim false), otherwise by a nearby value in the same
    format; comparatives and directions are flipped; superlatives swapped; named entities swapped
    for others of the same table (row headers: models; column headers: datasets, metrics).
    """
    claim = claim.strip()
    collector = _Collector(claim=claim, limit=limit)
    if not claim:
        return []
    _numbers_from_tables(claim, tables, collector)
    _swaps(claim, _SUPERLATIVE_PAIRS, "superlative", collector)
    _swaps(claim, _DIRECTION_PAIRS, "direction", collector)
    _entities(claim, tables, collector)
    _numbers_nearby(claim, collector)
    return collector.out


def _normalise(text: str) -> str:
    return " ".join(text.split()).casefold()


def _parse_number(text: str) -> float | None:
    match = _NUMBER.search(text.replace("−", "-"))
    if not match:
        return None
    raw = (
        (match.group("sign") or "")
        + match.group("int").replace(",", "")
        + (match.group("frac") or "")
    )
    try:
        return float(raw.replace("−", "-"))
    except ValueError:
        return None


def _cell_number(cell: str) -> str | None:
    """The number a cell holds, as written ("73.2" in "73.2 ± 0.4", "$73.2$", "**73.2**")."""
    stripped = cell.replace("$", "").replace("*", "").strip()
    match = _NUMBER.search(stripped)
    if not match or match.start() > 2:
        return None
    return (match.group("sign") or "") + match.group("int") + (match.group("frac") or "")


def _number_span(match: re.Match[str]) -> tuple[int, int]:
    start = match.start("sign") if match.group("sign") else match.start("int")
    end = match.end("frac") if match.group("frac") else match.end("int")
    return start, end


def _numbers_from_tables(
    claim: str, tables: Sequence[EvidenceTable], collector: _Collector
) -> None:
    for match in _NUMBER.finditer(claim):
        written = (match.group("sign") or "") + match.group("int") + (match.group("frac") or "")
        start, end = _number_span(match)
        if is_reference_number(claim, start, end):
            continue
        for table in tables:
            for r, row in enumerate(table.rows):
                for c, cell in enumerate(row):
                    if _cell_number(cell) != written:
                        continue
                    for where, values in (
                        ("same column", _column_values(table.rows, c, skip_row=r)),
                        ("same row", _row_values(row, skip_col=c)),
                    ):
                        for other in values:
                            if other == written:
                                continue
                            text = _replace_span(claim, start, end, other)
                            collector.add(
                                text, "number", f"{written} → {other} ({table.label}, {where})"
                            )


def _column_values(rows: Sequence[Sequence[str]], col: int, *, skip_row: int) -> list[str]:
    values = []
    for r, row in enumerate(rows):
        if r != skip_row and col < len(row):
            number = _cell_number(row[col])
            if number is not None:
                values.append(number)
    return _unique(values)


def _row_values(row: Sequence[str], *, skip_col: int) -> list[str]:
    values = [n for c, cell in enumerate(row) if c != skip_col and (n := _cell_number(cell))]
    return _unique(values)


def _unique(values: Iterable[str]) -> list[str]:
    # Table order: the annotator reads the alternatives as the paper lists them.
    return list(dict.fromkeys(values))


def _replace_span(text: str, start: int, end: int, new: str) -> str:
    return text[:start] + new + text[end:]


def _numbers_nearby(claim: str, collector: _Collector) -> None:
    """A value in the same format that changes the claim's meaning: used when no table helps."""
    for match in _NUMBER.finditer(claim):
        int_part = match.group("int").replace(",", "")
        frac = match.group("frac") or ""
        unit = (match.group("unit") or "").strip()
        try:
            value = float(int_part + frac)
        except ValueError:
            continue
        if not math.isfinite(value):
            continue  # hundreds of digits: no number a claim can mean
        if unit == "" and not frac and 1900 <= value <= 2100:
            continue  # a year: changing it makes a different, not a false, claim
        if is_reference_number(claim, *_number_span(match)):
            continue
        decimals = len(frac) - 1 if frac else 0
        for factor in (0.8, 1.25):
            new_value = value * factor
            if unit == "%" and new_value > 100:
                new_value = value - (100 - value) / 2 if value < 100 else value * 0.8
            new = f"{new_value:.{decimals}f}"
            if new == f"{value:.{decimals}f}":
                new = f"{value + 10**-decimals:.{decimals}f}" if decimals else str(int(value) + 1)
            start, end = match.start("int"), (match.end("frac") if frac else match.end("int"))
            text = _replace_span(claim, start, end, new)
            written = int_part + frac
            collector.add(text, "number", f"{written} → {new}")


def _swaps(
    claim: str,
    pairs: Sequence[tuple[str, str]],
    kind: PerturbationKind,
    collector: _Collector,
) -> None:
    mapping: dict[str, str] = {}
    for a, b in pairs:
        mapping.setdefault(a, b)
        mapping.setdefault(b, a)
    # Longest phrases first, so that "more than" wins over "more".
    words = sorted(mapping, key=len, reverse=True)
    pattern = re.compile(r"\b(" + "|".join(re.escape(w) for w in words) + r")\b", re.I)
    for match in pattern.finditer(claim):
        original = match.group(0)
        replacement = _match_case(mapping[original.lower()], original)
        text = _replace_span(claim, match.start(), match.end(), replacement)
        collector.add(text, kind, f"{original} → {replacement}")


def _match_case(word: str, template: str) -> str:
    if template.isupper() and len(template) > 1:
        return word.upper()
    if template[:1].isupper():
        return word[:1].upper() + word[1:]
    return word


def _entities(claim: str, tables: Sequence[EvidenceTable], collector: _Collector) -> None:
    for table in tables:
        if not table.rows:
            continue
        # The corner cell ("Model", "Method") names the row headers; it is neither group.
        groups = [
            ("row header", [row[0] for row in table.rows[1:] if row]),
            ("column header", list(table.rows[0][1:])),
        ]
        for where, names in groups:
            candidates = list(dict.fromkeys(n.strip() for n in names if _is_entity(n)))
            found = []
            for name in candidates:
                match = _entity_pattern(name).search(claim)
                if match:
                    found.append((match.start(), match.end(), name))
            for start, end, name in sorted(found):  # in the order the claim names them
                for other in candidates:
                    if other == name or _entity_pattern(other).search(claim):
                        continue
                    text = _replace_span(claim, start, end, other)
                    collector.add(text, "entity", f"{name} → {other} ({table.label}, {where})")


def _entity_pattern(name: str) -> re.Pattern[str]:
    return re.compile(r"(?<![\w-])" + re.escape(name) + r"(?![\w-])")


def _is_entity(text: str) -> bool:
    text = text.strip()
    return 2 <= len(text) <= 60 and _cell_number(text) is None and any(c.isalpha() for c in text)
