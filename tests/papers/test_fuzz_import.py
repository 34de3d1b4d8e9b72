"""Fuzzing the importer with mutated corpus pages, one hypothesis run per fault class.

Per mutated page: nothing but ParseError escapes the parser; what parses is imported into the
test database and every stored value is one PostgreSQL accepts (no NUL or control character,
every length and integer within its column: checked on SQLite too, which would store
anything); and every numbered caption tag of the page is a kept table or figure of that
number or a loss with a warning. Fixed examples, derandomized: the same pages every run.
"""

from __future__ import annotations

import itertools
import re
from collections import Counter
from pathlib import Path

import lxml.etree
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from papers.assets import FolderAssets
from papers.importing import import_paper
from papers.models import Element, ElementPanel, Paper, Section
from papers.parsing import ParsedPaper, ParseError, numbering, parse_paper
from papers.parsing.document import grid_area
from papers.parsing.text import collapse, control_bytes_to_spaces
from papers.render.limits import MAX_GRID_SLOTS
from papers.storable import fit_values
from tests.papers import fault_pages as faults

CORPUS = Path(__file__).resolve().parents[2] / "papers" / "corpus"
PAGES = sorted(CORPUS.glob("*/paper.html"))
PAGE_BYTES = {path: path.read_bytes() for path in PAGES}
EXAMPLES_PER_CLASS = 10

pytestmark = pytest.mark.django_db

_which = st.integers(0, 30)
STRATEGIES = {
    "long_values": st.fixed_dictionaries(
        {
            "target": st.sampled_from(faults.LONG_TARGETS),
            "which": _which,
            "length": st.integers(101, 400),
        }
    ),
    "huge_spans": st.fixed_dictionaries(
        {"which": _which, "cells": st.integers(1, 40), "insert": st.booleans()}
    ),
    "bad_base": st.fixed_dictionaries(
        {
            "url": st.sampled_from(faults.BAD_URLS),
            "target": st.sampled_from(["base", "img"]),
            "which": _which,
        }
    ),
    "control_names": st.fixed_dictionaries(
        {"which": _which, "count": st.integers(1, 12), "first": st.integers(0, 20)}
    ),
    "nul_characters": st.fixed_dictionaries(
        {
            "every": st.integers(1, 40),
            "where": st.sampled_from(["text", "attributes", "head"]),
            "first": st.integers(0, 20),
        }
    ),
    "deep_nesting": st.fixed_dictionaries(
        {
            "target": st.sampled_from(faults.NEST_TARGETS),
            "depth": st.integers(50, 3000),
            "which": _which,
        }
    ),
    "caption_tags": st.fixed_dictionaries(
        {"op": st.sampled_from(faults.CAPTION_OPS), "which": _which}
    ),
    "numbers": st.fixed_dictionaries({"style": st.sampled_from(faults.NUMBER_STYLES)}),
}
assert set(STRATEGIES) == set(faults.FAULT_CLASSES)
_ids = itertools.count(1)
# Faults that never cost the paper: the page is read, fitted and stored. (A bad URL is a
# ParseError that says so; nesting deeper than libxml2 or Python reads may be one.)
ALWAYS_READ = frozenset(
    {"long_values", "huge_spans", "control_names", "nul_characters", "caption_tags", "numbers"}
)


@pytest.fixture
def pillow_only(settings):
    settings.USE_CHROMIUM = False


@pytest.mark.parametrize("fault", faults.FAULT_CLASSES)
def test_mutated_pages_import_or_fail_with_a_reason(fault: str, pillow_only):
    outcomes: Counter[str] = Counter()

    @settings(
        max_examples=EXAMPLES_PER_CLASS,
        derandomize=True,
        deadline=None,
        database=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )
    @given(path=st.sampled_from(PAGES), params=STRATEGIES[fault])
    def run(path: Path, params: dict) -> None:
        original = PAGE_BYTES[path]
        mutated = faults.FAULTS[fault](original, **params)
        if mutated == original:
            outcomes["unchanged"] += 1  # nothing of the kind on this page (no image, say)
            return
        outcomes["generated"] += 1
        try:
            parsed = parse_paper(mutated, "https://arxiv.org/html/2409.00001v1")
        except ParseError as exc:
            assert fault not in ALWAYS_READ, f"{fault}: {exc.reason}"
            if fault == "bad_base":
                assert "not a usable URL" in exc.reason, exc.reason
            outcomes["parse_error"] += 1
            return
        assert_no_numbered_float_lost_silently(mutated, parsed)
        # Images: chart panels from the page's folder; table screenshots (Pillow) only where
        # the fault is about what the renderer is asked to draw.
        paper = import_paper(
            html=mutated,
            page_url="https://arxiv.org/html/2409.00001v1",
            assets=FolderAssets(path.parent),
            arxiv_id=f"2409.{next(_ids):05d}",
            version=1,
            images="now" if fault == "huge_spans" else "none",
        ).paper
        assert paper.status == Paper.Status.PARSED, paper.status_reason
        assert_storable(paper)
        if fault == "huge_spans":
            assert_huge_tables_refused(paper)
        outcomes["imported"] += 1

    run()
    # Each class was generated, and what it did is counted.
    assert outcomes["generated"] >= EXAMPLES_PER_CLASS // 2, outcomes
    if fault == "bad_base":
        assert outcomes["parse_error"] >= 1, outcomes
    else:
        assert outcomes["imported"] >= 1, outcomes


# --- what must hold ----------------------------------------------------------------------------
_CHROME_TAGS = {"nav", "footer", "a"}
_CHROME_CLASSES = {"ltx_TOC", "ltx_page_navbar", "ltx_page_footer", "ltx_toclist"}


def numbered_caption_tags(data: bytes) -> list[tuple[str, str, set[str]]]:
    """(kind, text, ids of its ancestors) of every caption tag of a table or figure in the
    article, read with lxml alone (as the parser reads the bytes: control bytes as spaces)."""
    parser = lxml.etree.HTMLParser(encoding="utf-8", huge_tree=True)
    root = lxml.etree.fromstring(control_bytes_to_spaces(data), parser)
    article = next(
        (a for a in root.iter("article") if "ltx_document" in (a.get("class") or "").split()),
        None,
    )
    found = []
    for span in article.iter("span") if article is not None else ():
        classes = set((span.get("class") or "").split())
        kind = (
            "table"
            if "ltx_tag_table" in classes
            else "chart"
            if "ltx_tag_figure" in classes
            else ""
        )
        if not kind:
            continue
        ancestors = list(span.iterancestors())
        if any(
            a.tag in _CHROME_TAGS or _CHROME_CLASSES & set((a.get("class") or "").split())
            for a in ancestors
        ):
            continue
        text = collapse("".join(span.itertext()))
        if text and not numbering.is_panel_tag(text):
            found.append((kind, text, {a.get("id") for a in ancestors if a.get("id")}))
    return found


def assert_no_numbered_float_lost_silently(data: bytes, parsed: ParsedPaper) -> None:
    kept = {(e.kind, e.number) for e in parsed.elements if e.kind != "paragraph"}
    labels = {loss.label for loss in parsed.losses}
    anchors = {loss.anchor for loss in parsed.losses if loss.anchor}
    for kind, text, ancestor_ids in numbered_caption_tags(data):
        read = numbering.read_tag(text, kind)  # type: ignore[arg-type]
        accounted = (
            (read is not None and (kind, read.number) in kept)
            or (read is not None and read.label in labels)
            or text.rstrip(":. ") in labels
            or bool(anchors & ancestor_ids)  # its float was reported whole
        )
        assert accounted, f"{text!r} ({kind}) is neither kept nor reported: {parsed.warnings}"


_MODELS = (
    (Paper, lambda paper: Paper.objects.filter(pk=paper.pk)),
    (Section, lambda paper: Section.objects.filter(paper=paper)),
    (Element, lambda paper: Element.objects.filter(paper=paper)),
    (ElementPanel, lambda paper: ElementPanel.objects.filter(element__paper=paper)),
)


# What PostgreSQL refuses (NUL in text, \u0000 in jsonb, lone surrogates in UTF-8) and the
# other control characters the importer promises to leave out (the test's own list).
_REFUSED = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\ud800-\udfff\ufffe\uffff]")


def _strings(value: object):
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield str(key)
            yield from _strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)


def assert_storable(paper: Paper) -> None:
    """Every stored value is one PostgreSQL takes, read back as stored."""
    for model, rows in _MODELS:
        fields = [f.attname for f in model._meta.concrete_fields if not f.is_relation]
        for values in rows(paper).values(*fields):
            fit_values(model, values)  # raises Unstorable for a length or an integer range
            for name, value in values.items():
                for text in _strings(value):
                    bad = _REFUSED.search(text)
                    assert bad is None, f"{model.__name__}.{name} holds {bad.group()!r}: {text!r}"


def assert_huge_tables_refused(paper: Paper) -> None:
    """A table whose spans cover more than the renderer's budget has no screenshot and says
    why; the others are drawn, or say why not (a canvas too large)."""
    for element in paper.elements.filter(kind=Element.Kind.TABLE, is_image_table=False):
        slots = sum(grid_area(grid) for grid in element.cell_grids())
        if slots > MAX_GRID_SLOTS:
            assert not element.image and "grid slots" in element.image_error, element.anchor
        else:
            assert element.image or element.image_error, element.anchor
