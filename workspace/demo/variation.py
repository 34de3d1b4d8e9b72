"""Each synthetic copy gets its own values and names, so that copies of one fixture do not
repeat each other's claims (issue 43: 901 of 2,000 test claims of a 1,100-paper demo repeated a
validation claim).

`vary_copy` rewrites a copy's tables (cells and their HTML), captions and paragraphs the same way
everywhere, so every claim built from them stays true of the copy:

* **values**: every number that states a value (`annotation.writing.perturbation.value_spans`:
  not a reference, name, setting or year) is scaled by one factor of the copy, 0.86–0.97, and
  written with its own decimals (integers below 10, counts more often than values, are kept,
  and so is a relative change, "a 19% reduction", "by 8.4 points", the same at every scale).
  One increasing map: every order the paper states ("higher than", "the best") still holds;
  values stay within their bounds (a percentage stays at most 100, a ratio at most 1).
* **names**: the names in a table's first column that read as proper names (at least two
  capitals or digits: "RouteAdapt", "BM25", "TREC-COVID"), and the mixed-case names of the
  captions that head no table column ("SlipReG", "AFLNet"; "AbsRel" is a metric), are renamed,
  letters for letters (digits and hyphens kept), consistently across the copy, its title and
  abstract included.

The first copy of each fixture (copies 1–6) is left as the fixture is, so that it matches its
chart images and table screenshots, which later copies share (they keep the fixture's values:
a known limit of the synthetic data). Section titles are kept.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable

from annotation.writing.perturbation import value_spans
from papers.models import Element, Paper
from papers.synthetic import FIXTURES

_COPY_NUMBER = re.compile(r"(\d+)$")
_NAME = re.compile(r"^(?=(?:.*[A-Z0-9]){2})[A-Z][A-Za-z0-9+]*(?:-[A-Za-z0-9+]+)*$")
_NOTE = re.compile(r"\s*(?:\((?:ours|proposed)\)|[*†‡]+)$", re.I)
# A relative change ("a 19% reduction", "by 8.4 points"): the same for every scale, kept.
_RELATIVE_AFTER = re.compile(
    r"\s?%?\s*(?:points?\s+)?(?:relative\s+)?(?:reduction|improvement|increase|decrease|gain|drop"
    r"|fewer|more|less|lower|higher|faster|slower|better|worse|ahead|behind)\b",
    re.I,
)
_RELATIVE_BEFORE = re.compile(r"\bby\s+(?:about\s+|roughly\s+)?[+−-]?$", re.I)
_VOWELS = "aeiou"
_CONSONANTS = "bcdfgklmnprstvz"


def copy_number(paper: Paper) -> int:
    match = _COPY_NUMBER.search(paper.arxiv_id)
    return int(match.group(1)) if match else 0


def varies(paper: Paper) -> bool:
    """Copies after the first of their fixture are varied."""
    return bool(paper.synthetic) and copy_number(paper) > len(FIXTURES)


def scale_values(text: str, factor: float) -> str:
    """`text` with each value number scaled by `factor`, written with its decimals."""
    if not text or not any(c.isdigit() for c in text):
        return text
    out, last = [], 0
    for start, end in value_spans(text):
        out.append(text[last:start])
        relative = _RELATIVE_AFTER.match(text, end) or _RELATIVE_BEFORE.search(text, 0, start)
        out.append(text[start:end] if relative else _scaled(text[start:end], factor))
        last = end
    out.append(text[last:])
    return "".join(out)


def _scaled(written: str, factor: float) -> str:
    sign = written[0] if written[0] in "+-−" else ""
    digits = written[len(sign) :]
    grouped = "," in digits
    plain = digits.replace(",", "")
    decimals = len(plain.split(".")[1]) if "." in plain else 0
    try:
        value = float(plain)
    except ValueError:
        return written
    if not decimals and value < 10:
        return written
    new = value * factor
    text = f"{new:,.{decimals}f}" if grouped else f"{new:.{decimals}f}"
    return sign + text


def _invented(name: str, rng: random.Random) -> str:
    """A name written like `name`: each letter replaced by one of its case (consonants and
    vowels alternate in a lower-case run, so it reads as a word), digits and signs kept."""
    out = []
    for i, ch in enumerate(name):
        if ch.isupper():
            out.append(rng.choice(_CONSONANTS).upper() if i % 2 == 0 else rng.choice("AEIOU"))
        elif ch.islower():
            previous = out[-1].lower() if out else ""
            pool = _VOWELS if previous and previous not in _VOWELS else _CONSONANTS
            out.append(rng.choice(pool))
        else:
            out.append(ch)
    return "".join(out)


_MIXED = re.compile(r"(?<![\w-])([A-Z][a-z]+[A-Z][A-Za-z]*|[A-Z]{2,}[a-z][A-Za-z]*)(?![\w-])")


def _names(tables: list[Element], captions: list[str]) -> list[str]:
    """Names to rename: the proper names of tables' first columns, and the mixed-case names the
    captions use ("SlipReG", "AFLNet") that head no table column (a metric: "AbsRel")."""
    found: dict[str, None] = {}
    headers = {
        " ".join(str(cell.get("text", "")).split())
        for table in tables
        for grid in table.cells or []
        for cell in (grid[0] if grid else [])
    }
    for caption in captions:
        for name in _MIXED.findall(caption):
            if name not in headers:
                found[name] = None
    for table in tables:
        for grid in table.cells or []:
            for row in grid[1:]:
                if row:
                    cell = " ".join(str(row[0].get("text", "")).split())
                    cell = _NOTE.sub("", cell)
                    if _NAME.match(cell):
                        found[cell] = None
    return list(found)


def _renamer(names: list[str], rng: random.Random) -> Callable[[str], str]:
    if not names:
        return lambda text: text
    renamed: dict[str, str] = {}
    for name in names:
        new = _invented(name, rng)
        while new in renamed.values() or new == name:
            new = _invented(name, rng)
        renamed[name] = new
    pattern = re.compile(
        r"(?<![\w-])("
        + "|".join(re.escape(n) for n in sorted(names, key=len, reverse=True))
        + r")(?![\w-])"
    )
    return lambda text: pattern.sub(lambda m: renamed[m.group(1)], text) if text else text


_HTML_TEXT = re.compile(r">([^<]+)<")


def vary_copy(paper: Paper, seed: int) -> bool:
    """Give the copy its own values and names (see the module's docstring); whether it was
    varied. Call it once per copy, before anyone works on it: the caller makes that so (the
    simulator varies a copy in the transaction that first assigns it)."""
    if not varies(paper):
        return False
    rng = random.Random(f"{seed}:{paper.arxiv_id}")
    factor = rng.uniform(0.86, 0.97)
    elements = list(Element.objects.filter(paper=paper))
    tables = [e for e in elements if e.kind == Element.Kind.TABLE]
    rename = _renamer(_names(tables, [e.caption for e in elements if e.caption]), rng)

    def vary(text: str) -> str:
        return rename(scale_values(text, factor))

    for element in elements:
        element.caption = vary(element.caption)
        element.text = vary(element.text)
        if element.table_html:
            element.table_html = _HTML_TEXT.sub(
                lambda m: ">" + vary(m.group(1)) + "<", element.table_html
            )
        if element.cells:
            element.cells = [
                [
                    [{**cell, "text": vary(str(cell.get("text", "")))} for cell in row]
                    for row in grid
                ]
                for grid in element.cells
            ]
    Paper.objects.filter(pk=paper.pk).update(
        title=rename(paper.title), abstract=scale_values(rename(paper.abstract), factor)
    )
    Element.objects.bulk_update(
        elements, ["caption", "text", "table_html", "cells"], batch_size=200
    )
    return True
