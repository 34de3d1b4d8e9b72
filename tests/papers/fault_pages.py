"""Faulty LaTeXML pages, made from good ones: one function per fault class the importer must
survive (long values, huge spans, a bad `<base>`, control characters in names, NUL characters,
deep nesting, removed or duplicated caption tags, roman and appendix numbers).

Each takes the page's bytes and the fault's parameters and returns new bytes. The fuzz test
draws the parameters with hypothesis, the crawl containment test and `bench/parse.py
--faults` use EXAMPLES. Structural faults edit the lxml tree and serialise it again; faults
lxml cannot build (a control character in a name, a NUL byte) are edits of the bytes.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Callable
from typing import Any

import lxml.etree

_El = lxml.etree._Element
FAULT_CLASSES = (
    "long_values",
    "huge_spans",
    "bad_base",
    "control_names",
    "nul_characters",
    "deep_nesting",
    "caption_tags",
    "numbers",
)


# --- the tree ---------------------------------------------------------------------------------
def tree(data: bytes) -> _El:
    return lxml.etree.fromstring(data, lxml.etree.HTMLParser(encoding="utf-8", huge_tree=True))


def page(root: _El) -> bytes:
    return b"<!DOCTYPE html>\n" + lxml.etree.tostring(root, method="html", encoding="utf-8")


def _classes(el: _El) -> list[str]:
    return (el.get("class") or "").split()


def _article(root: _El) -> _El:
    for el in root.iter("article"):
        if "ltx_document" in _classes(el):
            return el
    raise ValueError("not a LaTeXML page")


def _pick(items: list[_El], which: int) -> _El | None:
    return items[which % len(items)] if items else None


def caption_tags_of(root: _El) -> list[_El]:
    """The caption tag spans of tables and figures ("Table 1: ", "Figure 2: "), not those of
    sub-figures ("(a)")."""
    return [
        span
        for span in _article(root).iter("span")
        if {"ltx_tag_table", "ltx_tag_figure"} & set(_classes(span))
        and not "".join(span.itertext()).strip().startswith("(")
    ]


def _set_text(el: _El, text: str) -> None:
    for child in list(el):
        el.remove(child)
    el.text = text


# --- the fault classes ------------------------------------------------------------------------
LONG_TARGETS = ("section_anchor", "element_anchor", "number", "label", "section_number")


def long_values(data: bytes, *, target: str, which: int = 0, length: int = 150) -> bytes:
    """A value longer than its column: a section or float id over 100 characters, a number
    over 32, a label over 64, a section number over 32."""
    root = tree(data)
    article = _article(root)
    if target == "section_anchor":
        el = _pick([s for s in article.iter("section") if s.get("id")], which)
        if el is not None:
            el.set("id", el.get("id") + "x" * length)
    elif target == "element_anchor":
        el = _pick([f for f in article.iter("figure") if f.get("id")], which)
        if el is not None:
            el.set("id", el.get("id") + "y" * length)
    elif target in ("number", "label"):
        span = _pick(caption_tags_of(root), which)
        if span is not None:
            word = "Table" if "ltx_tag_table" in _classes(span) else "Figure"
            if target == "number":
                _set_text(span, f"{word} {'7' * max(33, length)}: ")
            else:  # a tag word no class prints: the label is the word and the number
                _set_text(span, f"{word}{'e' * max(65, length)} 9: ")
    elif target == "section_number":
        spans = [s for s in article.iter("span") if "ltx_tag_section" in _classes(s)]
        span = _pick(spans, which)
        if span is not None:
            _set_text(span, "1." * max(17, length // 2) + " ")
    else:
        raise ValueError(f"unknown target {target!r}")
    return page(root)


def huge_spans(data: bytes, *, which: int = 0, cells: int = 6, insert: bool = False) -> bytes:
    """Cells of rowspan=1000 colspan=1000: in a table of the page, or (`insert`) a new 6 KB
    table float made of nothing else."""
    root = tree(data)
    article = _article(root)
    if insert:
        section = _pick([s for s in article.iter("section")], which)
        host = section if section is not None else article
        rows = "".join(
            "<tr>"
            + "".join(f'<td rowspan="1000" colspan="1000">{r}.{c}</td>' for c in range(cells))
            + "</tr>"
            for r in range(cells)
        )
        markup = (
            '<figure class="ltx_table" id="HUGE.T1"><figcaption class="ltx_caption">'
            '<span class="ltx_tag ltx_tag_table">Table 99: </span>Spans.</figcaption>'
            f'<table class="ltx_tabular"><tbody>{rows}</tbody></table></figure>'
        )
        host.append(lxml.etree.fromstring(markup, lxml.etree.HTMLParser()).find(".//figure"))
        return page(root)
    tables = [t for t in article.iter("table") if "ltx_tabular" in _classes(t)]
    table = _pick(tables, which)
    if table is not None:
        for cell in [c for c in table.iter("td", "th")][:cells]:
            cell.set("rowspan", "1000")
            cell.set("colspan", "1000")
    return page(root)


BAD_URLS = ("http://[::1", "http://[zz]/x.png", "https://a]b/", "http://a\uff03b/")


def bad_base(data: bytes, *, url: str = BAD_URLS[0], target: str = "base", which: int = 0) -> bytes:
    """A `<base href>` (or an image src) urllib refuses: `http://[::1`."""
    root = tree(data)
    if target == "base":
        head = root.find("head")
        for base in root.iter("base"):
            base.getparent().remove(base)
        base = lxml.etree.SubElement(head if head is not None else root, "base")
        base.set("href", url)
    else:
        images = [i for i in _article(root).iter("img") if i.get("src")]
        img = _pick(images, which)
        if img is not None:
            img.set("src", url)
    return page(root)


# Control bytes and U+FFFE: lxml refuses all of them in a name.
NAME_CHARACTERS = (b"\x01", b"\x00", b"\x1f", b"\x7f", b"\x0b", "\ufffe".encode())


def control_names(data: bytes, *, which: int = 0, count: int = 3, first: int = 0) -> bytes:
    """Control characters (and U+FFFE) in attribute and tag names inside a table: in `count`
    cells from the `which`-th table on, the characters and the kinds of name in turn."""
    starts = [m.start() for m in re.finditer(rb'<table class="ltx_tabular', data)]
    if not starts:
        return data
    start = starts[which % len(starts)]
    cells = [m.start() for m in re.finditer(rb"<t[dh][ >]", data[start:])][:count]
    # From the last cell backwards, so that each edit leaves the earlier offsets as they are.
    for n, offset in reversed(list(enumerate(cells))):
        char = NAME_CHARACTERS[(first + n) % len(NAME_CHARACTERS)]
        cell = start + offset
        after = data.find(b">", cell) + 1
        kind = (first + n) % 3
        if kind == 0:  # an attribute name
            insert, at = b" a" + char + b'b="1"', cell + 3
        elif kind == 1:  # a tag name
            insert, at = b"<sp" + char + b"an>x</sp" + char + b"an>", after
        else:  # an element named by the character alone, with an attribute like it
            insert, at = b"<x" + char + b" " + char + b'="v">y</x' + char + b">", after
        data = data[:at] + insert + data[at:]
    return data


NUL_FORMS = (b"\x00", b"&#1;", b"&#x1b;", b"\x1b", b"&#xfffe;", b"\x08", b"&#0;", b"&#x85;")


def nul_characters(data: bytes, *, every: int = 7, where: str = "text", first: int = 0) -> bytes:
    """NUL and other control characters, raw bytes and references in turn (NUL_FORMS from
    `first` on), in the page's text, in attribute values (ids, alttext, src, href), or in
    the comment and title LaTeXML writes."""
    forms = NUL_FORMS[first % len(NUL_FORMS) :] + NUL_FORMS[: first % len(NUL_FORMS)]
    turn = iter(range(10**9))

    def next_form() -> bytes:
        return forms[next(turn) % len(forms)]

    if where == "text":
        # After every `every`-th tag end, inside the text that follows it.
        parts = data.split(b">")
        last = len(parts) - 1  # what follows </html> is no text of the page
        return b">".join(
            p if i % every or i == last else next_form() + p for i, p in enumerate(parts)
        )
    if where == "attributes":
        return re.sub(rb'\b(?:id|alttext|src|href)="', lambda m: m.group(0) + next_form(), data)
    # the generator comment and the title
    data = data.replace(b"Generated on", b"Generated on " + b"".join(forms), 1)
    return re.sub(rb"<title>", lambda m: m.group(0) + b"".join(forms), data, count=1)


NEST_TARGETS = ("paragraph", "float", "cell", "caption")


def deep_nesting(
    data: bytes, *, target: str = "paragraph", depth: int = 600, which: int = 0
) -> bytes:
    """A paragraph's text, a float, a table cell or a caption wrapped in `depth` elements."""
    root = tree(data)
    article = _article(root)
    if target == "paragraph":
        candidates = [p for p in article.iter("p") if "ltx_p" in _classes(p)]
    elif target == "float":
        candidates = list(article.iter("figure"))
    elif target == "cell":
        candidates = list(article.iter("td"))
    else:
        candidates = list(article.iter("figcaption"))
    el = _pick(candidates, which)
    if el is None:
        return data
    if target == "float":
        parent, index = el.getparent(), el.getparent().index(el)
        outer = inner = lxml.etree.Element("div")
        for _ in range(depth - 1):
            inner = lxml.etree.SubElement(inner, "div")
        parent.remove(el)
        inner.append(el)
        parent.insert(index, outer)
        return page(root)
    children, text = list(el), el.text
    for child in children:
        el.remove(child)
    el.text = None
    inner = el
    for _ in range(depth):
        inner = lxml.etree.SubElement(inner, "span")
    inner.text = text
    for child in children:
        inner.append(child)
    return page(root)


CAPTION_OPS = ("remove", "duplicate_tag", "duplicate_caption", "duplicate_float", "remove_caption")


def caption_tags(data: bytes, *, op: str = "remove", which: int = 0) -> bytes:
    """A caption tag removed or duplicated; a whole caption or float duplicated."""
    root = tree(data)
    span = _pick(caption_tags_of(root), which)
    if span is None:
        return data
    caption = next((a for a in span.iterancestors() if a.tag == "figcaption"), None)
    if op == "remove":
        tail = span.tail
        parent = span.getparent()
        prev = span.getprevious()
        parent.remove(span)
        if tail:  # keep the caption's text
            if prev is not None:
                prev.tail = (prev.tail or "") + tail
            else:
                parent.text = (parent.text or "") + tail
    elif op == "duplicate_tag":
        span.addnext(copy.deepcopy(span))
    elif op == "duplicate_caption" and caption is not None:
        caption.addnext(copy.deepcopy(caption))
    elif op == "remove_caption" and caption is not None:
        caption.getparent().remove(caption)
    elif op == "duplicate_float":
        node = next((a for a in span.iterancestors() if a.tag == "figure"), None)
        if node is not None:
            twin = copy.deepcopy(node)
            if twin.get("id"):
                twin.set("id", twin.get("id") + "dup")
            node.addnext(twin)
    return page(root)


NUMBER_STYLES = ("roman", "roman_lower", "appendix", "supplement", "letter")
_ROMAN = ["I", "II", "III", "IV", "V", "VI", "VII", "VIII", "IX", "X", "XI", "XII", "XIII", "XIV"]


def numbers(data: bytes, *, style: str = "roman") -> bytes:
    """Every caption tag renumbered as IEEEtran (`TABLE IV`), lower-case roman, appendix
    (`Table A.3`, `Figure B2`), supplement (`Table S1`) or bare letters print them."""
    root = tree(data)
    counts = {"table": 0, "figure": 0}
    for span in caption_tags_of(root):
        kind = "table" if "ltx_tag_table" in _classes(span) else "figure"
        counts[kind] += 1
        n = counts[kind]
        word = "Table" if kind == "table" else "Figure"
        if style == "roman":
            text = f"{'TABLE' if kind == 'table' else 'Fig.'} {_ROMAN[(n - 1) % len(_ROMAN)]}: "
        elif style == "roman_lower":
            text = f"{word} {_ROMAN[(n - 1) % len(_ROMAN)].lower()}: "
        elif style == "appendix":
            text = f"{word} A.{n}: " if kind == "table" else f"{word} B{n}: "
        elif style == "supplement":
            text = f"{word} S{n}: "
        else:
            text = f"{word} {chr(ord('A') + (n - 1) % 26)}: "
        _set_text(span, text)
    return page(root)


def panel_rows(data: bytes, *, breaks: int = 32_768, which: int = 0) -> bytes:
    """A figure whose image sits after `breaks` layout breaks (`ltx_flex_break`): a panel row
    beyond what the row column holds."""
    root = tree(data)
    figures = [f for f in _article(root).iter("figure") if any(True for _ in f.iter("img"))]
    figure = _pick(figures, which)
    if figure is None:
        return data
    img = next(figure.iter("img"))
    for _ in range(breaks):
        br = lxml.etree.Element("div", {"class": "ltx_flex_break"})
        img.addprevious(br)
    return page(root)


FAULTS: dict[str, Callable[..., bytes]] = {
    "long_values": long_values,
    "huge_spans": huge_spans,
    "bad_base": bad_base,
    "control_names": control_names,
    "nul_characters": nul_characters,
    "deep_nesting": deep_nesting,
    "caption_tags": caption_tags,
    "numbers": numbers,
}

# One representative of each class (and of its variants that differ in what they cost or in
# how the importer answers), for the benchmark and the crawl.
EXAMPLES: dict[str, tuple[str, dict[str, Any]]] = {
    "long anchors": ("long_values", {"target": "section_anchor", "length": 150}),
    "long float id": ("long_values", {"target": "element_anchor", "length": 150}),
    "long number": ("long_values", {"target": "number", "length": 40}),
    "long label": ("long_values", {"target": "label", "length": 80}),
    "long section number": ("long_values", {"target": "section_number", "length": 80}),
    "huge spans": ("huge_spans", {"cells": 12}),
    "huge spans table": ("huge_spans", {"cells": 12, "insert": True}),
    "bad base": ("bad_base", {"target": "base"}),
    "bad image src": ("bad_base", {"target": "img"}),
    "control chars in names": ("control_names", {"count": 6}),
    "NUL in text": ("nul_characters", {"where": "text"}),
    "&#1; in attributes": ("nul_characters", {"where": "attributes", "first": 1}),
    "NUL in comment": ("nul_characters", {"where": "head"}),
    "deep paragraph": ("deep_nesting", {"target": "paragraph", "depth": 600}),
    "deep float": ("deep_nesting", {"target": "float", "depth": 1500}),
    "caption tag removed": ("caption_tags", {"op": "remove"}),
    "caption tag twice": ("caption_tags", {"op": "duplicate_tag"}),
    "float twice": ("caption_tags", {"op": "duplicate_float"}),
    "roman numbers": ("numbers", {"style": "roman"}),
    "appendix numbers": ("numbers", {"style": "appendix"}),
}


def example(name: str, data: bytes) -> bytes:
    fault, params = EXAMPLES[name]
    return FAULTS[fault](data, **params)
