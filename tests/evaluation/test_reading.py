"""The reading of a response: the table of realistic responses, SciVer's rule beside it."""

from __future__ import annotations

import pytest

from evaluation.reading import official_correct, official_reading, read_response
from tests.evaluation.responses import CASES


@pytest.mark.parametrize("case", CASES, ids=[f"{i}-{c.family}" for i, c in enumerate(CASES)])
def test_each_response_reads_as_its_right_reading(case):
    assert read_response(case.response) == case.right, case.why or case.response[:80]


def test_the_table_is_as_rich_as_the_issue_asks():
    families = {c.family for c in CASES}
    misread = [c for c in CASES if c.right is not None and official_reading(c.response) != c.right]
    assert len(CASES) >= 60
    assert len(families) >= 3, families
    assert len(misread) >= 15, len(misread)
    assert sum(c.right is None for c in CASES) >= 10


def test_sciver_rule_is_a_substring_test_and_empty_is_wrong_both_ways():
    assert official_correct("The eyes have it.", True) is True
    assert official_correct("Yesterday it was refuted.", False) is False
    assert official_correct("No.", False) is True
    assert official_correct("", True) is False and official_correct("", False) is False
    assert official_correct(None, False) is False
    assert official_reading("YES") == "entailed" and official_reading("no") == "refuted"


@pytest.mark.parametrize(
    "text",
    [
        "eyes",
        "yesterday",
        "Bayesian",
        "supportive",
        "truest",
        "incorrectly labelled axes",
        "Notably, the table has three rows.",
        "nobody knows",
    ],
)
def test_words_inside_other_words_say_nothing(text):
    assert read_response(text) is None


def test_the_readme_gives_the_tables_disagreement_figure():
    from pathlib import Path

    differ = sum(official_reading(c.response) != read_response(c.response) for c in CASES)
    root = Path(__file__).resolve().parents[2]  # the README and the guides it links (docs/)
    pages = [root / "README.md", *sorted((root / "docs").glob("*.md"))]
    readme = " ".join(" ".join(page.read_text() for page in pages).split())
    share = round(100 * differ / len(CASES))
    assert f"The two readings differ on {differ} of the {len(CASES)} ({share} %)" in readme
