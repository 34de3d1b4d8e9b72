"""Suggest refuted rewrites of an entailed claim from its evidence: a pure function of the claim,
its tables (cells, caption, the paragraphs citing them) and its charts (caption, the paragraphs
citing them)."""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Literal

from annotation.writing.negation import pair_artifact
from papers.parsing import numbering

# The kinds a refuted claim records (`annotation.models.PerturbationKind`): a comparison flipped
# ("A beats B" → "B beats A") is a comparative flipped, its source says which.
PerturbationKind = Literal["number", "direction", "superlative", "entity"]
# Where a suggestion's new value comes from: a table cell, a caption, a paragraph citing the
# element, another row or column header of a table (an entity), or no new value at all.
SourceKind = Literal["cell", "caption", "paragraph", "header", "change"]


@dataclass(frozen=True, slots=True)
class EvidenceTable:
    """A table of the evidence, as rows of cell texts on the table's column grid (a spanned
    cell's text in every slot it covers), with its caption and the paragraphs citing it."""

    label: str
    rows: Sequence[Sequence[str]]
    caption: str = ""
    paragraphs: Sequence[str] = ()


@dataclass(frozen=True, slots=True)
class EvidenceChart:
    """A chart of the evidence: nobody reads exact values off its image, so its numbers are
    those its caption and the paragraphs citing it state."""

    label: str
    caption: str = ""
    paragraphs: Sequence[str] = ()


@dataclass(frozen=True, slots=True)
class Source:
    """Where a suggestion's new value comes from, for the writer to check it."""

    kind: SourceKind
    element: str = ""  # "Table 2", "Figure 1"
    row: str = ""  # a cell's row entity ("LoRA"); the header taken ("125M")
    column: str = ""  # a cell's column headers ("African chrF++"); "row header", "column header"
    excerpt: str = ""  # the caption's or paragraph's words around the value
    change: str = ""  # kind "change": what changed ("direction flipped")

    def __str__(self) -> str:
        if self.kind == "cell":
            return f"{self.element}, row “{self.row}”, column “{self.column}”"
        if self.kind == "header":
            return f"{self.element}, {self.column} “{self.row}”"
        if self.kind == "caption":
            return f"the caption of {self.element}: “{self.excerpt}”"
        if self.kind == "paragraph":
            return f"a paragraph citing {self.element}: “{self.excerpt}”"
        return f"no new value: {self.change}"


@dataclass(frozen=True, slots=True)
class Suggestion:
    text: str
    kind: PerturbationKind
    description: str  # what changed, e.g. "73.2 → 68.9"
    source: Source = Source("change")
    # The rewrite differs from the claim only by a negation ("reaches" → "does not reach"):
    # `negation.pair_artifact` reads it as "negation". Kept, marked and listed last: a dataset
    # of such pairs teaches a model that "not" means refuted (issue 43).
    negation_only: bool = False

    @property
    def rank(self) -> int:
        """0: a changed value, entity or comparison; 1: a flipped word (direction,
        superlative); 2: a negation only."""
        if self.negation_only:
            return 2
        if self.kind in ("number", "entity") or self.source.change.startswith("comparison"):
            return 0
        return 1


# --- Numbers that name something -----------------------------------------------------------

# A reference to a part of the paper: "Table 2", "Tab. 3", "Fig. 4a", "TABLE IV", "Section 3.2",
# "Sec 4", "§4.2", "Eq. (5)", "Eq 2", "Algorithm 1", "Listing 2", "Table A.1" (group 4 is its
# number). The suggester never changes one, and the no-op check (`checks.perturbation_problem`,
# part of `check_release`) reads a rewrite that differs only in one as stating the same facts.
# Table and figure numbers are the numbering styles `papers.parsing.numbering` reads in tags.
REFERENCE = re.compile(
    rf"(\b(?:{numbering.TAG_WORDS}|(?i:sections?|secs?\.?|eqs?\.?|equations?|algorithms?"
    rf"|alg\.?|listings?))|§)(\s*)(\(?)({numbering.CITED_NUMBER}){numbering.NUMBER_END}(\)?)"
)
# Other numbers that name something rather than state a value: more references of a list
# ("Tables 1 and 2"), other numbered parts (appendix, theorem, step, layer…), a citation
# ("[12]"), a setting ("k=2"), a metric's cut-off ("nDCG@10") or part of a name ("GPT-4",
# "Touché-2020"). Changing one makes a different claim, not a false one (a reviewer refuses it).
_NAMING_BEFORE = re.compile(
    r"(?:\b(?:appendix|theorem|lemma|definition|step|line|row|column|layer|task|stage|phase"
    r"|part|version|v)\s*[(~]?\s*"
    r"|\[[\d,;\s–-]*|[=≤≥<>@]\s*|[^\W\d_]-|[^\W\d_]'"
    rf"|(?:\b(?:{numbering.TAG_WORDS}|sections?|eqs?\.?)|§)\s*{numbering.CITED_NUMBER}"
    rf"(?:\s*(?:,|and|or|&|–|-)\s*{numbering.CITED_NUMBER})*\s*(?:,|and|or|&|–|-)\s*)$",
    re.I,
)
_NAMING_AFTER = re.compile(r"^[\d,;\s–-]*\]")


def is_reference_number(
    text: str, start: int, end: int, references: Sequence[tuple[int, int]] | None = None
) -> bool:
    """Whether the number at text[start:end] is part of a reference ("Table 3", "Fig. 2(b)",
    "Section 4.1", "Tables 1 and 2", "[12]", "Eq. (3)"), a setting ("k=2") or a name
    ("GPT-4", "nDCG@10"), not a value. `references`: the spans of the text's references'
    numbers, when the caller has them."""
    if references is None:
        references = [(m.start(4), m.end(4)) for m in REFERENCE.finditer(text)]
    if any(a <= start and end <= b for a, b in references):
        return True
    before = text[max(0, start - 24) : start]
    return bool(_NAMING_BEFORE.search(before) or _NAMING_AFTER.match(text[end : end + 24]))


# --- Reading numbers -------------------------------------------------------------------------

_NUMBER = re.compile(
    r"(?<![\w.])(?P<sign>[-+−])?(?P<int>\d{1,3}(?:,\d{3})+|\d+)(?P<frac>\.\d+)?"
    r"(?P<unit>\s?%|x|×|k|K|M|B)?(?![\w.]*\d)"
)
# A cell that holds a value: the number and at most a unit, a spread or markup around it
# ("73.2", "$-1.2$", "**84.0**", "+22.1%", "73.2 ± 0.4", "2 ms", "1.9M").
_VALUE_CELL = re.compile(
    r"^[\s$*{}\\]*(?:\\textbf|\\mathbf|\\underline)?[\s${}]*[-+−]?\s*"
    r"(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?\s*(?:%|\\%|x|×|k|K|M|B|ms|s|TB|GB|MB)?"
    r"(?:\s*(?:±|\\pm)\s*\d+(?:\.\d+)?)?[\s$*{}]*$"
)
_EMPTY_CELL = re.compile(r"^[\s$–—\-/.]*$|\\[cx]mark|\\checkmark|✓|✗")
_WORD = re.compile(r"[^\W_][\w+@'.-]*[\w+]|[^\W_]")
_GENERIC = frozenset(
    "the a an of on in at by for to and or with per from is are as its our ours avg avg. "
    "average mean method methods model models".split()
)


# The numbers of a text the suggester reads: a claim or paragraph holds far fewer, and a bound
# keeps a pasted page from costing seconds.
MAX_NUMBERS = 40
# The cells that state one number of the claim as well as each other (a value repeated in a
# table): the first few, in table order.
MAX_CELLS_PER_NUMBER = 3


@dataclass(frozen=True, slots=True)
class _Number:
    start: int  # the digits' span in their text (sign included)
    end: int
    written: str  # as written, without its unit: "12,597", "+32.1"
    value: float
    unit: str  # "%", "k", "M", "B", "x" or ""
    decimals: int


def _numbers(text: str, *, values_only: bool = True) -> list[_Number]:
    """The numbers of a text; with `values_only`, not those of references, names, settings or
    years."""
    found: list[_Number] = []
    references = [(m.start(4), m.end(4)) for m in REFERENCE.finditer(text)] if values_only else []
    for match in _NUMBER.finditer(text):
        if len(found) >= MAX_NUMBERS:
            break
        sign = match.group("sign") or ""
        start = match.start("sign") if sign else match.start("int")
        end = match.end("frac") if match.group("frac") else match.end("int")
        frac = match.group("frac") or ""
        unit = (match.group("unit") or "").strip().replace("×", "x").replace("K", "k")
        written = sign + match.group("int") + frac
        try:
            value = float((sign.replace("−", "-")) + match.group("int").replace(",", "") + frac)
        except ValueError:
            continue
        if values_only:
            if is_reference_number(text, start, end, references):
                continue
            if not unit and not frac and not sign and 1900 <= value <= 2100:
                continue  # a year: changing it makes a different, not a false, claim
        if abs(value) > 1e15:
            continue  # hundreds of digits: no number a claim can mean
        found.append(_Number(start, end, written, value, unit, max(0, len(frac) - 1)))
    return found


def value_spans(text: str) -> list[tuple[int, int]]:
    """The spans of the numbers of `text` that state a value (sign included, unit excluded):
    not those of references, names, settings or years, which `perturbation_suggestions` never
    changes either."""
    return [(n.start, n.end) for n in _numbers(text)]


def _cell_value(cell: str) -> _Number | None:
    """The value a cell holds, when it holds one ("73.2" in "73.2 ± 0.4", "$73.2$")."""
    if not _VALUE_CELL.match(cell):
        return None
    numbers = _numbers(cell.replace("\\%", "%"), values_only=False)
    return numbers[0] if numbers else None


def _words(text: str) -> set[str]:
    words = {w.casefold().strip(".'") for w in _WORD.findall(text)}
    return {w for w in words if len(w) > 1} - _GENERIC


# Words after a number that say nothing of what it counts ("0.187 to 0.151").
_FUNCTION_WORDS = frozenset(
    "to and or on in at for with from against than vs of the a an over by per while but is are "
    "was were as after before when where which that this".split()
)


def _counted(text: str, end: int) -> str:
    """What the number ending at `end` counts, when the next word says ("12 layers" → "layer")."""
    match = re.match(r"[\s-]*([^\W\d_][\w-]*)", text[end:])
    word = match.group(1).casefold() if match else ""
    return "" if word in _FUNCTION_WORDS else word.removesuffix("s")


def _squash(text: str) -> str:
    return " ".join(text.split()).casefold()


def _core(name: str) -> str:
    """An entity's name without a trailing note ("RouteAdapt (ours)" → "RouteAdapt")."""
    core = re.sub(r"\s*\((?:ours|ours\)|proposed)\)\s*$", "", name.strip(), flags=re.I)
    return core.rstrip("*† ").strip() or name.strip()


def _entity_pattern(name: str) -> re.Pattern[str]:
    # "raw-confidence" names "Raw confidence" too.
    body = re.escape(name).replace(r"\ ", r"[\s-]+").replace(r"\-", r"[\s-]+")
    return re.compile(r"(?<![\w-])" + body + r"(?![\w-])", re.I)


def _named(name: str, claim: str) -> re.Match[str] | None:
    return _entity_pattern(name).search(claim) if name else None


# --- Tables as the suggester reads them ------------------------------------------------------


@dataclass(slots=True)
class _Grid:
    """A table split into header rows, label columns (entities) and value cells."""

    table: EvidenceTable
    header_rows: int
    label_cols: list[int]
    values: dict[tuple[int, int], _Number]
    percent: bool  # the caption or a header says the values are percentages
    _labels: dict[tuple[str, int], object] = field(default_factory=dict)
    _index: dict[str, dict] = field(default_factory=dict)

    @classmethod
    def read(cls, table: EvidenceTable) -> _Grid:
        rows = [list(r) for r in table.rows]
        width = max((len(r) for r in rows), default=0)
        for r in rows:
            r.extend([""] * (width - len(r)))
        values = {
            (r, c): v
            for r, row in enumerate(rows)
            for c, cell in enumerate(row)
            if (v := _cell_value(cell)) is not None
        }
        header_rows = next(
            (r for r, row in enumerate(rows) if any((r, c) in values for c in range(1, width))),
            1,
        )
        header_rows = max(1, header_rows)
        # A label column holds entities (names) in its data rows: the first column always,
        # and any other whose cells are text rather than values.
        label_cols = [
            c
            for c in range(width)
            if c == 0
            or any(
                (r, c) not in values and not _EMPTY_CELL.search(rows[r][c])
                for r in range(header_rows, len(rows))
            )
        ]
        for key in [k for k in values if k[1] in label_cols or k[0] < header_rows]:
            del values[key]
        headers = " ".join(" ".join(rows[r]) for r in range(header_rows))
        percent = "%" in headers or "(%)" in table.caption
        grid = cls(
            EvidenceTable(table.label, rows, table.caption, table.paragraphs),
            header_rows,
            label_cols,
            values,
            percent,
        )
        return grid

    @property
    def rows(self) -> Sequence[Sequence[str]]:
        return self.table.rows

    def row_label(self, r: int) -> str:
        key = ("row", r)
        if key not in self._labels:
            parts = [self.rows[r][c].strip() for c in self.label_cols]
            self._labels[key] = " ".join(
                dict.fromkeys(p for p in parts if p and not _EMPTY_CELL.fullmatch(p))
            )
        return self._labels[key]  # type: ignore[return-value]

    def column_label(self, c: int) -> str:
        key = ("column", c)
        if key not in self._labels:
            parts = [self.rows[r][c].strip() for r in range(self.header_rows)]
            self._labels[key] = " ".join(dict.fromkeys(p for p in parts if p))
        return self._labels[key]  # type: ignore[return-value]

    def metric(self, c: int) -> str:
        return _squash(self.rows[self.header_rows - 1][c])

    @property
    def by_size(self) -> dict[float, list[tuple[tuple[int, int], _Number]]]:
        """The value cells by the size of their value."""
        if "size" not in self._index:
            index: dict[float, list[tuple[tuple[int, int], _Number]]] = {}
            for key, v in self.values.items():
                index.setdefault(abs(v.value), []).append((key, v))
            self._index["size"] = index
        return self._index["size"]

    def in_line(self, r: int, c: int) -> list[tuple[tuple[int, int], _Number]]:
        """The value cells of row r and of column c, in table order."""
        if "lines" not in self._index:
            lines: dict[tuple[str, int], list[tuple[tuple[int, int], _Number]]] = {}
            for key, v in self.values.items():
                lines.setdefault(("row", key[0]), []).append((key, v))
                lines.setdefault(("column", key[1]), []).append((key, v))
            self._index["lines"] = lines
        lines = self._index["lines"]
        return [*lines.get(("column", c), []), *lines.get(("row", r), [])]

    def group_words(self, c: int) -> set[str]:
        """The words of the column's headers above its metric ("african" over chrF++)."""
        key = ("group", c)
        if key not in self._labels:
            self._labels[key] = _words(self.column_label(c)) - _words(self.metric(c))
        return self._labels[key]  # type: ignore[return-value]

    def is_percent(self, r: int, c: int) -> bool:
        return (
            self.values[(r, c)].unit == "%"
            or "%" in self.column_label(c)
            or (self.percent and not self.column_label(c))
        )

    def row_named(self, r: int, claim: str, claim_words: set[str]) -> bool:
        for c in self.label_cols:
            cell = self.rows[r][c].strip()
            if not cell or _EMPTY_CELL.fullmatch(cell):
                continue
            if _named(_core(cell), claim):
                return True
            words = _words(cell)
            if words and len(words & claim_words) * 2 >= len(words) + 1:
                return True
        return False

    def column_named(self, c: int, claim_words: set[str]) -> bool:
        return bool(_words(self.column_label(c)) & claim_words)


@dataclass(frozen=True, slots=True)
class _Candidate:
    new: str  # the new value as its source writes it
    value: float
    source: Source


@dataclass(slots=True)
class _Reading:
    """One number of the claim and where the evidence states it."""

    number: _Number
    cells: list[tuple[_Grid, int, int]] = field(default_factory=list)
    candidates: list[_Candidate] = field(default_factory=list)


def _comparable(a: _Number, b: _Number, ratio: float = 4) -> bool:
    """Two numbers the claim may compare ("73.2 against 68.9"): the same unit, near in size."""
    if a.unit != b.unit:
        return False
    low, high = sorted((abs(a.value), abs(b.value)))
    return high == 0 or (low > 0 and high / low <= ratio)


def _alike(grid: _Grid, a: tuple[int, int], b: tuple[int, int]) -> bool:
    """Two cells that hold one quantity: written alike, near in value (a method's score in
    two columns, not a score and a latency)."""
    va, vb = grid.values[a], grid.values[b]
    return (
        va.decimals == vb.decimals
        and grid.is_percent(*a) == grid.is_percent(*b)
        and _comparable(va, vb, ratio=1.5)
    )


# Words that set two numbers of the claim against each other: "from 14.2% to 2.3%",
# "71.3 against 68.9", "lower than 0.106".
_LINKED = re.compile(r"^\W*(?:%|[^\W\d_]+)?[^\d]{0,40}?\b(?:to|against|than|vs\.?|versus|over)\b")


def _linked(claim: str, a: _Number, b: _Number) -> bool:
    first, second = sorted((a, b), key=lambda n: n.start)
    between = claim[first.end : second.start]
    return a.unit == b.unit and len(between) <= 48 and bool(_LINKED.match(between))


def _change(a: float, b: float) -> float | None:
    return abs(b - a) / abs(a) * 100 if a else None


def _keeps_the_claims_comparisons(
    new: float, old: _Number, numbers: Sequence[_Number], related: Sequence[_Number]
) -> bool:
    """The new value stands where the old one did against the claim's other numbers it may be
    compared with: "66.0, higher than 65.6" may not become "33.2, higher than 65.6", nor "from
    0.187 to 0.151, a 19% reduction" become "from 0.241 to 0.151" (false from the claim alone,
    without the evidence)."""
    for other in related:
        if new == other.value or (new > other.value) != (old.value > other.value):
            return False
        if old.unit == "%":
            continue
        first, second = (old, other) if old.start < other.start else (other, old)
        stated = _change(first.value, second.value)
        percents = [n for n in numbers if n.unit == "%" and n.value > 0]
        for percent in percents:
            if stated is not None and abs(stated - percent.value) <= 1.5:
                a = new if first is old else first.value
                b = new if second is old else second.value
                changed = _change(a, b)
                if changed is None or abs(changed - percent.value) > 3:
                    return False
    return True


def _binds(claim: str, number: _Number, words: set[str]) -> bool:
    """The claim names one of `words` beside its number ("45.9 chrF++ on the African
    directions")."""
    near = claim[max(0, number.start - 40) : number.end + 40]
    return bool(words & _words(near))


def _text_candidates(
    number: _Number,
    claim_words: set[str],
    texts: Iterable[tuple[str, str, str, list[_Number]]],
) -> tuple[int, str, list[_Candidate]]:
    """The caption or paragraph that states the claim's number (the one sharing most words with
    the claim around it), and its other values of the same unit counting the same thing,
    nearest in value first."""
    best: tuple[int, str, list[_Candidate]] = (0, "", [])
    for kind, element, text, stated in texts:
        for here in stated:
            if not _same_number(here, number):
                continue
            window = text[max(0, here.start - 80) : here.end + 80]
            score = len(_words(window) & claim_words)
            if score <= best[0]:
                continue
            counted = _counted(text, here.end)
            others = sorted(
                (
                    n
                    for n in stated
                    if abs(n.value) != abs(here.value)
                    and n.unit == here.unit
                    and (n.decimals > 0) == (here.decimals > 0)
                    and (not counted or _counted(text, n.end) in ("", counted))
                ),
                key=lambda n: abs(abs(n.value) - abs(here.value)),
            )
            candidates = [
                _Candidate(n.written, n.value, Source(kind, element, excerpt=_excerpt(text, n)))
                for n in others
            ]
            best = (score, element, _in_the_claims_sign(number, here, candidates))
    return best


def _same_number(stated: _Number, number: _Number) -> bool:
    """The evidence states the claim's number: the same value, or its size where the claim
    drops the sign ("costing 1.7" for a Δ of −1.7, "gains 20.6%" for +20.6%)."""
    if stated.unit != number.unit and not (number.unit == "%" or stated.unit == "%"):
        return False
    if stated.value == number.value:
        return True
    return number.written[:1] not in "+-−" and abs(stated.value) == number.value


def _in_the_claims_sign(
    number: _Number, stated: _Number, candidates: Iterable[_Candidate]
) -> list[_Candidate]:
    """Candidates written as the claim writes its number: without the sign when the claim has
    none (and only those of the stated value's sign)."""
    if number.written[:1] in "+-−":
        return list(candidates)
    out = []
    for cand in candidates:
        if (cand.value < 0) != (stated.value < 0):
            continue
        out.append(_Candidate(cand.new.lstrip("+-−"), abs(cand.value), cand.source))
    return out


def _excerpt(text: str, number: _Number, width: int = 60) -> str:
    start = max(0, number.start - width)
    end = min(len(text), number.end + width)
    if start > 0:
        start = text.find(" ", start) + 1 or start
    if end < len(text):
        end = text.rfind(" ", number.end, end) if text.rfind(" ", number.end, end) > 0 else end
    prefix = "…" if start > 0 else ""
    suffix = "…" if end < len(text) else ""
    return prefix + " ".join(text[start:end].split()) + suffix


def _cell_candidates(
    grid: _Grid, r: int, c: int, claim: str, number: _Number, claim_words: set[str] | None = None
) -> list[_Candidate]:
    """Other values of the cell's column (other entities), nearest in value first, then of its
    row in the same quantity: in a table with one header row, alike values (methods as
    columns); below grouped headers, the same metric of another group ("South Asian" for
    "African"), when the claim ties its number to its group."""
    old = grid.values[(r, c)]
    group = grid.group_words(c)
    bound = bool(group) and _binds(claim, number, group)
    claim_words = claim_words if claim_words is not None else _words(claim)
    label = grid.row_label(r)
    out: list[tuple[float, int, _Candidate]] = []
    for (r2, c2), v in grid.in_line(r, c):
        if (r2, c2) == (r, c) or v.value == old.value:
            continue
        if c2 == c:
            if label and _is_entity(label) and grid.row_label(r2) == label:
                continue  # the same entity in another setting: the claim may still hold
            rank = 0
        elif r2 == r:
            if grid.header_rows == 1:
                if not (grid.metric(c2) == grid.metric(c) or _alike(grid, (r, c), (r2, c2))):
                    continue  # another quantity: a latency is no BLEU score
            elif not (
                bound
                and grid.metric(c2) == grid.metric(c)
                and not grid.group_words(c2) & claim_words
            ):
                continue
            rank = 1
        else:
            continue
        source = Source(
            "cell", grid.table.label, row=grid.row_label(r2), column=grid.column_label(c2)
        )
        out.append((rank, abs(v.value - old.value), _Candidate(v.written, v.value, source)))
    return [cand for *_, cand in sorted(out, key=lambda t: (t[0], t[1]))]


def _read_numbers(
    claim: str,
    numbers: list[_Number],
    grids: Sequence[_Grid],
    charts: Sequence[EvidenceChart],
) -> list[_Reading]:
    claim_words = _words(claim)
    texts = [("caption", chart.label, chart.caption) for chart in charts if chart.caption]
    texts += [("paragraph", chart.label, p) for chart in charts for p in chart.paragraphs]
    texts += [("caption", g.table.label, g.table.caption) for g in grids if g.table.caption]
    texts += [("paragraph", g.table.label, p) for g in grids for p in g.table.paragraphs]
    stated = [(kind, element, text, _numbers(text)) for kind, element, text in texts]
    relative = bool(_RELATIVE.search(claim))
    readings = []
    for number in numbers:
        reading = _Reading(number)
        readings.append(reading)
        if relative and any(
            o is not number and (_comparable(o, number) or _linked(claim, o, number))
            for o in numbers
        ):
            continue  # "three times its latency, 121 ms against 40 ms": no value keeps that
        scored = []
        for grid in grids:
            for (r, c), v in grid.by_size.get(abs(number.value), ()):
                if not _same_number(v, number):
                    continue
                score = grid.row_named(r, claim, claim_words) + grid.column_named(c, claim_words)
                if grid.is_percent(r, c) != (number.unit == "%"):
                    score -= 1
                if number.unit in ("k", "M", "B", "x") and v.unit != number.unit:
                    score -= 1
                scored.append((score, grid, r, c))
        named = _label_candidates(grids, number, claim)
        text_score, text_element, text_candidates = _text_candidates(number, claim_words, stated)
        text_score = 2 if text_score >= 3 else 1 if text_score >= 1 else 0
        best = max((s for s, *_ in scored), default=0)
        # A table's own paragraphs repeat its cells: the cell says more (its row and column).
        tables = {grid.table.label for score, grid, *_ in scored if score == best}
        if best >= 1 and (best >= text_score or text_element in tables):
            for score, grid, r, c in [t for t in scored if t[0] == best][:MAX_CELLS_PER_NUMBER]:
                if score == best:
                    reading.cells.append((grid, r, c))
                    reading.candidates.extend(
                        _in_the_claims_sign(
                            number,
                            grid.values[(r, c)],
                            _cell_candidates(grid, r, c, claim, number, claim_words),
                        )
                    )
        elif named:
            reading.candidates.extend(named)
        elif text_score >= 1:
            reading.candidates.extend(text_candidates)
        related = [
            o
            for o in numbers
            if o is not number and (_comparable(number, o) or _linked(claim, number, o))
        ]
        taken = {o.value for o in numbers}
        reading.candidates = [
            cand
            for cand in _unique_candidates(reading.candidates)
            if cand.value not in taken
            and _keeps_the_claims_comparisons(cand.value, number, numbers, related)
        ]
    return readings


_LEADING_NUMBER = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([^\W\d_]*)")


def _label_candidates(grids: Sequence[_Grid], number: _Number, claim: str) -> list[_Candidate]:
    """A number that is part of an entity's name in a table ("the 12-layer student" for the
    row header "12 layers (110M)", "the 350M model" for "350M"): the same part of the other
    names of that column, written alike."""
    counted = number.unit.casefold() or _counted(claim, number.end)
    out = []
    for grid in grids:
        for c in grid.label_cols:
            leading = {}
            for r in range(grid.header_rows, len(grid.rows)):
                match = _LEADING_NUMBER.match(grid.rows[r][c])
                if match:
                    word = match.group(2).casefold().removesuffix("s")
                    cell = grid.rows[r][c].strip()
                    leading.setdefault(r, (match.group(1), float(match.group(1)), word, cell))
            mine = [r for r, (_, v, w, _) in leading.items() if v == number.value and w == counted]
            if not counted or not mine:
                continue
            for written, value, word, cell in leading.values():
                if word == counted and value != number.value:
                    source = Source("header", grid.table.label, row=cell, column="row header")
                    out.append(_Candidate(written, value, source))
    return out


def _unique_candidates(candidates: Iterable[_Candidate]) -> list[_Candidate]:
    seen: set[float] = set()
    out = []
    for cand in candidates:
        if cand.value not in seen:
            seen.add(cand.value)
            out.append(cand)
    return out


# --- Words -----------------------------------------------------------------------------------

# Directions and comparatives: each pair swaps both ways. Words whose flip reads as nonsense
# in many claims ("up to" → "down to", "gains" the verb → "losses", "top-5") are left out.
_DIRECTION_PAIRS = [
    ("higher", "lower"),
    ("more", "less"),
    ("better", "worse"),
    ("larger", "smaller"),
    ("greater", "smaller"),
    ("faster", "slower"),
    ("longer", "shorter"),
    ("stronger", "weaker"),
    ("outperforms", "underperforms"),
    ("outperform", "underperform"),
    ("outperformed", "underperformed"),
    ("outperforming", "underperforming"),
    ("increases", "decreases"),
    ("increase", "decrease"),
    ("increased", "decreased"),
    ("increasing", "decreasing"),
    ("raises", "lowers"),
    ("raise", "lower"),
    ("improves", "degrades"),
    ("improve", "degrade"),
    ("improved", "degraded"),
    ("above", "below"),
    ("exceeds", "falls short of"),
    ("rises", "falls"),
    ("rising", "falling"),
    ("ahead of", "behind"),
    ("harder", "easier"),
    ("maximises", "minimises"),
    ("maximizes", "minimizes"),
    ("surpasses", "trails"),
    ("more than", "less than"),
    ("at least", "at most"),
    ("fewer", "more"),
    ("with", "without"),
]
_SUPERLATIVE_PAIRS = [
    ("best", "worst"),
    ("highest", "lowest"),
    ("largest", "smallest"),
    ("most", "least"),
    ("fastest", "slowest"),
    ("maximum", "minimum"),
    ("strongest", "weakest"),
    ("greatest", "smallest"),
    ("longest", "shortest"),
]
# "improves over", "more than twice": the flip reads as nonsense or keeps the claim true.
_NOT_BEFORE = re.compile(r"^\s+(?:than\s+(?:twice|double|half))\b", re.I)
_IMPROVE = re.compile(r"^(?:improve|degrade)[sd]?$", re.I)
_NOT_AFTER_IMPROVE = re.compile(r"^\s+(?:over|on|upon)\b", re.I)
# A claim that quantifies how much ("eight times as much"): a flipped word contradicts it.
_RELATIVE = re.compile(r"\b(?:times|twice|half|double)\b", re.I)
# Words that say one entity stands against another: swapping the two makes the claim false.
_COMPARING = re.compile(
    r"\b(?:than|over|against|whereas|while|versus|vs\.?|outperform\w*|beat\w*|ahead|behind"
    r"|below|above|exceed\w*|close to|only)\b",
    re.I,
)
# A flip of "with" is only meaningful for the setting words of an ablation.
_WITH_WITHOUT = re.compile(r"\b(?:with|without)\s+(?:temperature|the\s+\w+|re-?weighting)", re.I)


def _flip_matches(
    claim: str, pairs: Sequence[tuple[str, str]]
) -> Iterator[tuple[int, int, str, str]]:
    mapping: dict[str, str] = {}
    for a, b in pairs:
        mapping.setdefault(a, b)
        mapping.setdefault(b, a)
    # Longest phrases first, so that "more than" wins over "more".
    words = sorted(mapping, key=len, reverse=True)
    pattern = re.compile(r"\b(" + "|".join(re.escape(w) for w in words) + r")\b", re.I)
    for match in pattern.finditer(claim):
        original = match.group(0)
        after = claim[match.end() :]
        if _NOT_BEFORE.match(after) or after[:1] == "-":
            continue
        if _IMPROVE.match(original) and _NOT_AFTER_IMPROVE.match(after):
            continue
        if original.lower() in ("with", "without") and not _WITH_WITHOUT.match(
            claim[match.start() :]
        ):
            continue
        yield match.start(), match.end(), original, _match_case(mapping[original.lower()], original)


def _match_case(word: str, template: str) -> str:
    if template.isupper() and len(template) > 1:
        return word.upper()
    if template[:1].isupper():
        return word[:1].upper() + word[1:]
    return word


# --- Entities --------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Entity:
    name: str  # as the claim may write it (without "(ours)")
    grid: _Grid
    group: str  # "row header" or "column header"
    index: int  # its row (row headers) or column (column headers)
    level: int = 0  # column headers: the header row


def _entity_groups(grid: _Grid) -> list[list[_Entity]]:
    """Names of one kind in a table: the entities of each label column (models, datasets) and
    of each header row over value columns (datasets, metrics, methods)."""
    groups = []
    for c in grid.label_cols:
        names: dict[str, _Entity] = {}
        for r in range(grid.header_rows, len(grid.rows)):
            name = _core(grid.rows[r][c])
            if _is_entity(name) and name not in names:
                names[name] = _Entity(name, grid, "row header", r)
        groups.append(list(names.values()))
    value_cols = [
        c
        for c in range(len(grid.rows[0]))
        if c not in grid.label_cols and any(key[1] == c for key in grid.values)
    ]
    for r in range(grid.header_rows):
        names = {}
        for c in value_cols:
            name = _core(grid.rows[r][c])
            if _is_entity(name) and name not in names:
                names[name] = _Entity(name, grid, "column header", c, level=r)
        if len(names) > 1:
            groups.append(list(names.values()))
    return groups


def _is_entity(text: str) -> bool:
    text = text.strip()
    return (
        2 <= len(text) <= 60
        and any(c.isalpha() for c in text)
        and not _EMPTY_CELL.search(text)
        and "$" not in text
        and "\\" not in text
    )


def _numeric_shape(name: str) -> bool:
    return any(c.isdigit() for c in name)


def _swap_falsifies(entity: _Entity, other: _Entity, r: int, c: int, number: _Number) -> bool:
    """Whether the table gives `other`, where `entity` holds the claim's number (row r, column
    c), another value of the same quantity: then the swapped claim is false. Column headers
    swap within one quantity: groups above the same metric ("African" and "South Asian" over
    chrF++), or methods heading a table's only header row whose values are alike."""
    grid = entity.grid
    if entity.group == "row header":
        key = (other.index, c)
    else:
        key = (r, other.index)
        if key not in grid.values:
            return False
        if entity.level < grid.header_rows - 1:
            if grid.metric(other.index) != grid.metric(c):
                return False
        elif grid.header_rows > 1 or not _alike(grid, (r, c), key):
            return False
    v = grid.values.get(key)
    return v is not None and v.value != number.value


# --- The suggester ---------------------------------------------------------------------------


@dataclass(slots=True)
class _Collector:
    claim: str
    limit: int
    seen: set[str] = field(default_factory=set)
    out: list[Suggestion] = field(default_factory=list)

    @property
    def full(self) -> bool:
        return len(self.out) >= self.limit

    def add(self, text: str, kind: PerturbationKind, description: str, source: Source) -> None:
        key = _squash(text)
        if key == _squash(self.claim) or key in self.seen or len(self.out) >= self.limit:
            return
        self.seen.add(key)
        negation_only = pair_artifact(self.claim, text) == "negation"
        self.out.append(Suggestion(text, kind, description, source, negation_only))


def perturbation_suggestions(
    claim: str,
    *,
    tables: Sequence[EvidenceTable] = (),
    charts: Sequence[EvidenceChart] = (),
    limit: int = 12,
) -> list[Suggestion]:
    """Rewrites of `claim` that the evidence makes false, best first, each saying where its
    new value comes from: changed values, entities and comparisons first, then flipped words
    (direction, superlative), and last any rewrite that only adds or removes a negation
    (`Suggestion.negation_only`, kept and marked, never dropped).

    A number becomes another value the evidence states for it: another cell of its table's
    column (another entity) or of its row in the same quantity, or another number of the
    caption or paragraph (of a chart or table) that states it, in the same unit. Never a number
    that names something (a reference, citation, setting, year or model name), never an
    invented value, and never one that makes the claim contradict its own comparisons.
    Without numbers to change: two entities of a comparison swapped, an entity swapped for
    another of its table where the table gives it another value, a superlative or a direction
    flipped.
    """
    claim = claim.strip()
    if not claim:
        return []
    collector = _Collector(claim=claim, limit=limit)
    grids = [_Grid.read(t) for t in tables if t.rows]
    numbers = _numbers(claim)
    readings = _read_numbers(claim, numbers, grids, charts)
    numeric = [[(reading.number, cand) for cand in reading.candidates] for reading in readings]
    words = list(_comparisons(claim, grids)) + list(_entity_swaps(claim, readings, grids))
    flips = [] if _flips_contradict(numbers, claim) else list(_flips(claim))
    # Evidence values first, one per number of the claim in turn; then the changes of words.
    for number, cand in _round_robin(numeric):
        if collector.full:
            return collector.out
        text = claim[: number.start] + cand.new + claim[number.end :]
        collector.add(text, "number", f"{number.written} → {cand.new}", cand.source)
    for text, kind, description, source in [*words, *flips]:
        if collector.full:
            break
        collector.add(text, kind, description, source)
    return ordered(collector.out)


def ordered(suggestions: Iterable[Suggestion]) -> list[Suggestion]:
    """`suggestions` by `Suggestion.rank`, keeping their order within a rank."""
    return sorted(suggestions, key=lambda s: s.rank)


def _round_robin(lists: Sequence[Sequence[tuple[_Number, _Candidate]]]):
    for depth in range(max((len(x) for x in lists), default=0)):
        for items in lists:
            if depth < len(items):
                yield items[depth]


def _flips_contradict(numbers: Sequence[_Number], claim: str) -> bool:
    """The claim's own numbers (two comparable ones) or a quantifier ("eight times") state the
    direction: flipping a word would make it contradict itself."""
    if _RELATIVE.search(claim):
        return True
    return any(_comparable(a, b) for i, a in enumerate(numbers) for b in numbers[i + 1 :])


def _flips(claim: str) -> Iterator[tuple[str, PerturbationKind, str, Source]]:
    for pairs, kind, what in (
        (_SUPERLATIVE_PAIRS, "superlative", "superlative swapped"),
        (_DIRECTION_PAIRS, "direction", "direction flipped"),
    ):
        for start, end, original, replacement in _flip_matches(claim, pairs):
            text = claim[:start] + replacement + claim[end:]
            yield text, kind, f"{original} → {replacement}", Source("change", change=what)


def _named_entities(claim: str, group: Sequence[_Entity]) -> list[tuple[re.Match[str], _Entity]]:
    found = [(m, e) for e in group if (m := _named(e.name, claim))]
    # A name inside a longer one ("MostPopular" in "MostPopular-LTR") is not named itself.
    return [
        (m, e)
        for m, e in found
        if not any(
            o is not e
            and o2.start() <= m.start()
            and m.end() <= o2.end()
            and len(o.name) > len(e.name)
            for o2, o in found
        )
    ]


def _comparisons(
    claim: str, grids: Sequence[_Grid]
) -> Iterator[tuple[str, PerturbationKind, str, Source]]:
    """Two entities of one kind that the claim sets against each other, exchanged."""
    if not _COMPARING.search(claim):
        return
    for grid in grids:
        for group in _entity_groups(grid):
            named = sorted(_named_entities(claim, group), key=lambda t: t[0].start())
            for (m1, _), (m2, _) in zip(named, named[1:], strict=False):
                if m1.end() > m2.start() or _article_clash(claim, m1, m2):
                    continue
                text = (
                    claim[: m1.start()]
                    + m2.group(0)
                    + claim[m1.end() : m2.start()]
                    + m1.group(0)
                    + claim[m2.end() :]
                )
                yield (
                    text,
                    "direction",
                    f"{m1.group(0)} ⇄ {m2.group(0)}",
                    Source("change", change=f"comparison flipped ({grid.table.label})"),
                )


def _article_clash(claim: str, a: re.Match[str], b: re.Match[str]) -> bool:
    """One name follows an article and the other is a proper name: "the baseline" and
    "GateDepth" exchanged give "the GateDepth"."""

    def article(m: re.Match[str]) -> bool:
        return bool(re.search(r"\b(?:the|a|an)\s+$", claim[: m.start()], re.I))

    def proper(m: re.Match[str]) -> bool:
        name, before = m.group(0), claim[: m.start()].rstrip()
        starts_sentence = not before or before[-1] in ".:;"
        return any(c.isupper() for c in name[1:]) or (name[:1].isupper() and not starts_sentence)

    return (article(a) and proper(b)) or (article(b) and proper(a))


def _entity_swaps(
    claim: str, readings: Sequence[_Reading], grids: Sequence[_Grid]
) -> Iterator[tuple[str, PerturbationKind, str, Source]]:
    """An entity the claim gives a number of (its row or column holds the number) swapped for
    another of its group that the table gives another value there: the number is then false."""
    for grid in grids:
        cells = [(r, c, rd.number) for rd in readings for g, r, c in rd.cells if g is grid]
        for group in _entity_groups(grid):
            named = _named_entities(claim, group)
            for match, entity in named:
                mine = [
                    (r, c, n)
                    for r, c, n in cells
                    if (r if entity.group == "row header" else c) == entity.index
                ]
                if not mine:
                    continue
                for other in group:
                    if other is entity or _named(other.name, claim):
                        continue
                    if _numeric_shape(other.name) != _numeric_shape(entity.name):
                        continue  # "the 350M model" may become "the 125M model", not "Rules"
                    if not all(_swap_falsifies(entity, other, r, c, n) for r, c, n in mine):
                        continue
                    text = claim[: match.start()] + other.name + claim[match.end() :]
                    yield (
                        text,
                        "entity",
                        f"{match.group(0)} → {other.name}",
                        Source("header", grid.table.label, row=other.name, column=entity.group),
                    )


__all__ = [
    "REFERENCE",
    "EvidenceChart",
    "EvidenceTable",
    "PerturbationKind",
    "Source",
    "Suggestion",
    "is_reference_number",
    "ordered",
    "perturbation_suggestions",
    "value_spans",
]
