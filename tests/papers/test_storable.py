"""What reaches the database fits it: text cleaned, lengths and ranges checked or fitted."""

from __future__ import annotations

import pytest

from papers.models import Element, ElementPanel, Paper, Section
from papers.parsing import Element as ParsedElement
from papers.parsing import FloatLoss, PageLicence, Panel, ParsedPaper
from papers.parsing import Section as ParsedSection
from papers.parsing.document import Cell
from papers.storable import (
    Unstorable,
    fit_key,
    fit_parsed,
    fit_row,
    fit_values,
    storable_json,
    storable_text,
)


def test_storable_text_strips_nul_and_control_characters_but_keeps_tab_and_newline():
    assert storable_text("a\x00b\x01c\x1bd\x7fe\x85f") == "abcdef"
    assert storable_text("tab\there\nnewline") == "tab\there\nnewline"
    assert storable_text("\ud800lone surrogate \ufffe\uffff") == "lone surrogate "
    assert storable_text("plain ünïcode ± ∞") == "plain ünïcode ± ∞"


def test_storable_json_cleans_every_string_keys_too():
    value = {"a\x00": ["x\x00y", {"k": "\x01v"}, 3, None, True]}
    assert storable_json(value) == {"a": ["xy", {"k": "v"}, 3, None, True]}


def test_fit_values_refuses_what_does_not_fit_and_says_which_column():
    with pytest.raises(Unstorable) as info:
        fit_values(Element, {"number": "7" * 33})
    assert info.value.field == "Element.number"
    assert "33 characters" in info.value.reason and "holds 32" in info.value.reason
    with pytest.raises(Unstorable, match="Paper.arxiv_id"):
        fit_values(Paper, {"arxiv_id": "2410." + "1" * 40})


def test_fit_values_checks_integer_ranges_as_postgresql_does():
    assert fit_values(ElementPanel, {"order": 32_767, "row": 0}) == {"order": 32_767, "row": 0}
    with pytest.raises(Unstorable) as info:
        fit_values(ElementPanel, {"row": 32_768})
    assert info.value.field == "ElementPanel.row" and "0..32767" in info.value.reason
    with pytest.raises(Unstorable, match="Section.level"):
        fit_values(Section, {"level": -1})
    with pytest.raises(Unstorable, match="Paper.version"):
        fit_values(Paper, {"version": 2**31})


def test_fit_values_cuts_only_what_it_may_and_notes_it():
    notes: list[str] = []
    fitted = fit_values(
        Element,
        {"label": "L" * 80, "caption": "c\x00" * 5},
        truncate={"label"},
        notes=notes,
        where="Table 3",
    )
    assert len(fitted["label"]) == 64 and fitted["label"].endswith("…")
    assert fitted["caption"] == "ccccc"
    assert notes == [f"Table 3: label cut to 64 characters (it had 80): {'L' * 60!r}…"]


def test_fit_row_fits_an_unsaved_row_in_place():
    row = Paper(arxiv_id="2410.00001", venue="V" * 250, title="T\x00itle", authors=["A\x00"])
    fit_row(row, truncate={"venue"})
    assert len(row.venue) == 200 and row.title == "Title" and row.authors == ["A"]
    with pytest.raises(Unstorable, match="Paper.venue"):
        fit_row(Paper(arxiv_id="2410.00001", venue="V" * 250))


def test_long_keys_keep_a_prefix_and_stay_distinct():
    one, two = fit_key("S" + "x" * 200 + "1", 100), fit_key("S" + "x" * 200 + "2", 100)
    assert len(one) == len(two) == 100 and one != two
    assert one.startswith("Sxxx") and fit_key("S1", 100) == "S1"
    assert fit_key("\x01S1", 100) == "S1"


def _parsed(**overrides) -> ParsedPaper:
    long_section = "S1" + "x" * 150
    sections = [
        ParsedSection(long_section, "1." * 20, "Intro\x00", 1, None, 0, "body"),
        ParsedSection(long_section + ".SS1", "1.1", "Sub", 2, long_section, 1, "body"),
        ParsedSection("\x01S2", "2", "Two", 1, None, 2, "body"),
        ParsedSection("S2", "3", "Three", 1, None, 3, "body"),
    ]
    table = long_section + ".T1"
    elements = [
        ParsedElement(
            "paragraph", long_section + ".p1", long_section, 0, text="See\x00", refs=[table]
        ),
        ParsedElement(
            "table",
            table,
            long_section + ".SS1",
            1,
            label="Tabelle" + "e" * 70 + " 1",
            number="1",
            grids=[[[Cell("a\x00")]]],
        ),
        ParsedElement(
            "chart",
            "S2.F1",
            "S2",
            2,
            label="Figure 1",
            number="1",
            panels=[Panel(src="x\x00.png", url="u", row=40_000)],
        ),
    ]
    values = {
        "title": "T\x00",
        "sections": sections,
        "elements": elements,
        "base_url": "",
        "warnings": ["w\x00"],
        "losses": [FloatLoss("Table\x00 9", "S9.T9", "gone")],
        "licence": PageLicence("CC\x00 BY", ""),
        "generator": "g\x00",
    }
    values.update(overrides)
    return ParsedPaper(**values)


def test_fit_parsed_maps_anchors_everywhere_they_are_named():
    parsed = _parsed()
    fitted = fit_parsed(parsed)
    anchors = [s.anchor for s in fitted.sections]
    assert all(len(a) <= 100 for a in anchors) and len(set(anchors)) == 4
    # Cleaning made "\x01S2" the same as "S2": the one that needed cleaning is told apart.
    assert anchors[2].startswith("S2~") and anchors[3] == "S2"
    assert fitted.sections[1].parent_anchor == anchors[0]
    paragraph, table, chart = fitted.elements
    assert table.section_anchor == anchors[1] and paragraph.refs == [table.anchor]
    assert len(table.anchor) <= 100 and chart.section_anchor == "S2"
    # What a person reads is cut, with a warning; the rest cleaned.
    assert len(table.label) == 64 and fitted.sections[0].number == "1." * 15 + "1…"
    assert chart.panels[0].row == 32_767 and chart.panels[0].src == "x.png"
    assert table.grids[0][0][0].text == "a" and paragraph.text == "See"
    assert (fitted.title, fitted.generator, fitted.licence.name) == ("T", "g", "CC BY")
    assert fitted.losses[0].label == "Table 9"
    assert fitted.warnings[0] == "w"
    notes = fitted.warnings[1:]
    assert any("label cut to 64" in n for n in notes)
    assert any("number cut to 32" in n for n in notes)
    assert any("layout row 40000" in n for n in notes)
    # The parse itself is left as it was.
    assert (
        parsed.sections[0].anchor.endswith("x" * 10) and parsed.elements[2].panels[0].row == 40_000
    )


def test_fit_parsed_refuses_a_number_too_long_for_its_column():
    parsed = _parsed()
    parsed.elements[1].number = "1" * 33
    with pytest.raises(Unstorable, match="Element.number"):
        fit_parsed(parsed)


def test_fit_parsed_refuses_more_panels_than_the_order_column_holds():
    many = [Panel(src="", url="", svg="<svg/>")] * 32_769
    parsed = _parsed()
    parsed.elements[2].panels = many
    with pytest.raises(Unstorable, match="ElementPanel.order"):
        fit_parsed(parsed)
