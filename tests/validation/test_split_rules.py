"""The rules a split's freezing asks before writing (no database): its name and licences, the
pairs left out by licence, and a pool too small."""

from __future__ import annotations

import pytest

from annotation.errors import AnnotationError
from validation.split.rules import (
    SplitPair,
    check_new_split,
    chosen_licences,
    left_out_by_licence,
    shortfall_message,
)

KNOWN = {"cc-by-4.0", "cc0-1.0", "arxiv-nonexclusive"}


def test_a_new_split_needs_a_good_free_name_and_known_licences():
    assert check_new_split("v2", ["CC-BY-4.0"], known=KNOWN, taken=False) == ["cc-by-4.0"]
    with pytest.raises(AnnotationError, match="A split named v2 exists"):
        check_new_split("v2", [], known=KNOWN, taken=True)
    with pytest.raises(AnnotationError):
        check_new_split("no spaces allowed/", [], known=KNOWN, taken=False)
    with pytest.raises(AnnotationError):
        check_new_split("v3", ["gpl"], known=KNOWN, taken=False)


def test_no_licence_named_means_the_default():
    assert chosen_licences([" CC0-1.0", "", "cc0-1.0"], default=KNOWN) == (["cc0-1.0"], False)
    assert chosen_licences([], default={"b", "a"}) == (["a", "b"], True)


def test_pairs_left_out_are_counted_by_licence():
    pool = [
        SplitPair(1, "direct", licence="cc-by-4.0"),
        SplitPair(2, "direct", licence=None),
        SplitPair(3, "direct", licence="gpl"),
        SplitPair(4, "direct", licence="gpl"),
    ]
    assert left_out_by_licence(pool, ["cc-by-4.0"]) == {"gpl": 2, "unknown": 1}


def test_a_shortfall_names_the_pool():
    assert shortfall_message("Too few.", validated=10, pairs=4, waiting=0) == (
        "Too few. — 10 validated claims exist, 8 of them in 4 complete pair(s) that may take part."
    )
    assert "; 2 pair(s) wait for a new perturbation" in shortfall_message(
        "Too few.", validated=10, pairs=4, waiting=2
    )
