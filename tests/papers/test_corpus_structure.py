"""Each fixture paper parses to exactly the structure its LaTeX source says (expected.json)."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from papers.parsing import ParsedPaper, parse_paper

CORPUS = Path(__file__).resolve().parents[2] / "papers" / "corpus"
FOLDERS = sorted(p.parent for p in CORPUS.glob("*/expected.json"))


def test_the_corpus_is_there():
    # At least six papers, each with its page, its metadata and its expected structure.
    assert len(FOLDERS) >= 6
    for folder in FOLDERS:
        assert (folder / "paper.html").is_file() and (folder / "meta.json").is_file()


@pytest.fixture(params=FOLDERS, ids=lambda p: p.name)
def case(request) -> tuple[ParsedPaper, dict]:
    folder: Path = request.param
    meta = json.loads((folder / "meta.json").read_text())
    url = f"https://arxiv.org/html/{meta['arxiv_id']}v{meta['version']}"
    parsed = parse_paper((folder / "paper.html").read_bytes(), url)
    return parsed, json.loads((folder / "expected.json").read_text())


def test_sections(case):
    parsed, expected = case
    got = [
        {"anchor": s.anchor, "number": s.number, "title": s.title, "level": s.level, "kind": s.kind}
        for s in parsed.sections
    ]
    assert got == [
        {k: s[k] for k in ("anchor", "number", "title", "level", "kind")}
        for s in expected["sections"]
    ]


def test_paragraph_counts(case):
    parsed, expected = case
    counts = Counter(e.section_anchor for e in parsed.paragraphs())
    want = {k: v for k, v in expected["paragraph_counts"].items()}
    got = {anchor: counts.get(anchor, 0) for anchor in want}
    assert got == want
    # No paragraph lands in a section the expectation does not know of.
    assert set(counts) <= set(want)


def test_tables(case):
    parsed, expected = case
    got = []
    for t in parsed.tables():
        spans = [
            [r, c, cell.rowspan, cell.colspan]
            for grid in t.grids
            for r, row in enumerate(grid)
            for c, cell in enumerate(row)
            if cell.rowspan > 1 or cell.colspan > 1
        ]
        got.append(
            {
                "anchor": t.anchor,
                "section": t.section_anchor,
                "label": t.label,
                "number": t.number,
                "caption": t.caption,
                "grids": [[[cell.text for cell in row] for row in grid] for grid in t.grids],
                "spans": spans,
                "image": t.is_image_table,
                "degraded": t.degraded,
            }
        )
    assert got == [
        {
            k: t[k]
            for k in (
                "anchor",
                "section",
                "label",
                "number",
                "caption",
                "grids",
                "spans",
                "image",
                "degraded",
            )
        }
        for t in expected["tables"]
    ]


def test_charts(case):
    parsed, expected = case
    got = [
        {
            "anchor": c.anchor,
            "section": c.section_anchor,
            "label": c.label,
            "number": c.number,
            "caption": c.caption,
            "panels": len(c.panels),
            "svg": any(p.svg for p in c.panels),
        }
        for c in parsed.charts()
    ]
    assert got == [
        {k: c[k] for k in ("anchor", "section", "label", "number", "caption", "panels", "svg")}
        for c in expected["charts"]
    ]


def test_references(case):
    parsed, expected = case
    got = {e.anchor: e.refs for e in parsed.paragraphs() if e.refs}
    assert got == {k: sorted(set(v)) for k, v in expected["refs"].items()}


def test_nothing_else_is_a_table_or_chart(case):
    parsed, expected = case
    visual = {e.anchor for e in parsed.elements if e.kind != "paragraph"}
    for note in expected.get("not_elements", []):
        anchor = note.split()[0]
        assert anchor not in visual, note


def test_dropped_floats_are_not_elements_and_are_warned_about(case):
    # "dropped": numbered floats that are deliberately neither table nor chart (an algorithm,
    # a listing, a caption merged into another float). The admin is told about each one, by
    # its anchor or its printed label.
    parsed, expected = case
    anchors = {e.anchor for e in parsed.elements}
    for dropped in expected.get("dropped", []):
        if dropped["anchor"]:
            assert dropped["anchor"] not in anchors, dropped
        named = [dropped["label"]] + ([dropped["anchor"]] if dropped["anchor"] else [])
        assert any(n in w for w in parsed.warnings for n in named), (dropped, parsed.warnings)


def test_duplicate_printed_numbers_are_kept_and_warned_about(case):
    # Two tables (or charts) printing the same number (a supplement that restarts at
    # "Table 1") are both kept (test_tables/test_charts) and one warning names them all.
    parsed, expected = case
    if "warnings" not in expected:
        return  # papers written before the key existed
    for kind in ("tables", "charts"):
        by_label: dict[str, list[str]] = {}
        for item in expected[kind]:
            by_label.setdefault(item["label"], []).append(item["anchor"])
        for label, same in by_label.items():
            if len(same) > 1:
                assert any(all(a in w for a in same) for w in parsed.warnings), (
                    label,
                    same,
                    parsed.warnings,
                )
