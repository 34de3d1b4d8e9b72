"""Every numbering style CS papers print is read by one module, which the suggester reuses."""

from __future__ import annotations

import pytest

from annotation.writing.perturbation import REFERENCE, is_reference_number
from papers.parsing.numbering import (
    FloatNumber,
    cited_numbers,
    duplicate_numbers,
    read_tag,
    tag_kind,
)


@pytest.mark.parametrize(
    ("tag", "kind", "word", "number"),
    [
        ("TABLE I: ", "table", "TABLE", "I"),  # IEEEtran: upper-case roman numerals
        ("TABLE II: ", "table", "TABLE", "II"),
        ("TABLE III", "table", "TABLE", "III"),
        ("TABLE XLIV.", "table", "TABLE", "XLIV"),
        ("Table iv", "table", "Table", "iv"),  # roman in lower case
        ("Table 1:", "table", "Table", "1"),
        ("Table 12.", "table", "Table", "12"),
        ("Tab. 3", "table", "Tab.", "3"),
        ("Table 3.2:", "table", "Table", "3.2"),  # numbered within sections
        ("Table A.1:", "table", "Table", "A.1"),  # appendix
        ("Table A1:", "table", "Table", "A1"),
        ("Table S2:", "table", "Table", "S2"),  # supplementary
        ("Table A", "table", "Table", "A"),  # a letter
        ("Supplementary Table S1:", "table", "Supplementary Table", "S1"),
        ("Figure 1:", "chart", "Figure", "1"),
        ("Fig. 1.", "chart", "Fig.", "1"),  # IEEEtran
        ("FIG. 12", "chart", "FIG.", "12"),
        ("figure 7", "chart", "figure", "7"),
        ("Figure B3:", "chart", "Figure", "B3"),
        ("Figure S4", "chart", "Figure", "S4"),
        ("3:", "table", "Table", "3"),  # a class that prints no word takes the kind's
        ("Tabla 3:", "table", "Tabla", "3"),  # another language's word, the number as printed
    ],
)
def test_caption_tags_are_read_with_their_number_as_printed(tag, kind, word, number):
    assert read_tag(tag, kind) == FloatNumber(word=word, number=number)
    assert read_tag(tag, kind).label == f"{word} {number}"


@pytest.mark.parametrize("tag", ["(a)", "(b) ", "a)", "", "Table", "Fig.", "Table 3 (continued)"])
def test_panels_and_tags_without_a_number_are_not_read(tag):
    assert read_tag(tag, "table") is None


def test_tag_words_in_any_case():
    assert [tag_kind(w) for w in ("TABLE", "tab.", "Tables", "FIG.", "Figures", "Algorithm")] == [
        "table",
        "table",
        "table",
        "chart",
        "chart",
        None,
    ]


def test_prose_citations_in_every_style():
    text = (
        "TABLE IV and Fig. 2a agree with Tab. A.1, table iv and Figure~S3; the tables, i.e. "
        "the two of Table 3.2, and Figure B3."
    )
    assert cited_numbers(text) == [
        ("table", "IV"),
        ("chart", "2a"),
        ("table", "A.1"),
        ("table", "iv"),
        ("chart", "S3"),
        ("table", "3.2"),
        ("chart", "B3"),
    ]


@pytest.mark.parametrize(
    ("claim", "number"),
    [
        ("TABLE IV shows a BLEU of 31.2.", "IV"),
        ("As Table A.1 shows, accuracy is 73.2%.", "A.1"),
        ("In Table S2, recall is 0.81.", "S2"),
        ("Figure B3 shows 12 points.", "B3"),
        ("Tab. 3 reports 4 runs.", "3"),
    ],
)
def test_the_suggester_reads_the_same_numbers_and_never_changes_them(claim, number):
    from annotation.writing.perturbation import perturbation_suggestions

    assert any(m.group(4) == number for m in REFERENCE.finditer(claim))
    if number[-1].isdigit():
        start = claim.index(number) + len(number) - 1
        assert is_reference_number(claim, start, start + 1)
    for suggestion in perturbation_suggestions(claim):
        assert number in suggestion.text, suggestion


def test_two_floats_printing_one_number_are_found():
    floats = [
        ("table", "1", "S2.T1"),
        ("table", "2", "S3.T2"),
        ("chart", "1", "S2.F1"),  # a figure 1 beside a table 1 is fine
        ("table", "1", "S7.T1"),  # a supplement restarting at Table 1
        ("table", "", "S8.T3"),
    ]
    assert duplicate_numbers(floats) == {("table", "1"): ["S2.T1", "S7.T1"]}
