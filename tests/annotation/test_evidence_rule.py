"""The one evidence rule (annotation.evidence), pure: exactly one table or chart for a direct or
analytical claim, exactly two for a parallel or sequential one, at least one of them sampled,
plus any paragraphs; and messages that say which rule and what to tick or untick."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from annotation.evidence import evidence_rule_problem, rule_text, visual_ids, visuals_needed

# 1-2 paragraphs, 3-5 sampled tables/charts, 6 a figure that is not a chart, 7-8 not sampled.
KINDS = {
    1: "paragraph",
    2: "paragraph",
    3: "table",
    4: "chart",
    5: "table",
    6: "figure",
    7: "table",
    8: "chart",
}
SAMPLED = (3, 4, 5)
LABELS = {3: "Table 1", 4: "Figure 2", 5: "Table 3", 7: "Table 4", 8: "Figure 5"}


def problem(subset, evidence, sampled=SAMPLED, labels=LABELS) -> str:
    return evidence_rule_problem(subset, set(evidence), KINDS, sampled, labels=labels)


def test_how_many_each_subset_needs():
    needed = [visuals_needed(s) for s in ("direct", "analytical", "parallel", "sequential")]
    assert needed == [1, 1, 2, 2]
    assert visual_ids([1, 3, 6, 4, 9], KINDS) == [3, 4]  # a figure or an unknown id is not one


@pytest.mark.parametrize(
    ("subset", "evidence"),
    [
        ("direct", {3}),
        ("direct", {1, 2, 4}),
        ("analytical", {5, 6}),  # a figure that is not a chart does not count
        ("parallel", {3, 4}),
        ("parallel", {3, 7, 1}),  # one sampled is enough
        ("sequential", {4, 8}),
    ],
)
def test_evidence_that_meets_the_rule(subset, evidence):
    assert problem(subset, evidence) == ""


@pytest.mark.parametrize(
    ("subset", "evidence", "says"),
    [
        (
            "direct",
            {3, 4},
            [
                "A direct claim rests on exactly one table or chart",
                "2 are marked (Table 1, Figure 2)",
                "Untick one",
            ],
        ),
        (
            "analytical",
            {3, 4, 5, 1},
            ["An analytical claim rests on exactly one", "3 are marked", "Untick two"],
        ),
        (
            "parallel",
            {3, 4, 5},
            ["A parallel claim rests on exactly two tables/charts", "3 are marked", "Untick one"],
        ),
        (
            "sequential",
            {3, 1},
            ["exactly two tables/charts", "1 is marked (Table 1)", "Mark one more"],
        ),
        ("direct", {1, 6}, ["none is marked", "Mark one of the three sampled"]),
        ("parallel", {1}, ["none is marked", "Mark two, at least one of them among the three"]),
        ("parallel", {7}, ["1 is marked (Table 4)", "Mark one of the three sampled"]),
        ("direct", {7}, ["one of the three sampled", "(Table 4) is not sampled", "Untick it"]),
        (
            "parallel",
            {7, 8},
            [
                "none of those marked (Table 4, Figure 5) is sampled",
                "Untick one and mark a sampled",
            ],
        ),
        (
            "direct",
            {7, 8},
            [
                "2 are marked",
                "None of them is one of the three sampled",
                "untick two and mark a sampled",
            ],
        ),
    ],
)
def test_evidence_that_breaks_the_rule_says_which_rule_and_what_to_do(subset, evidence, says):
    message = problem(subset, evidence)
    for part in says:
        assert part in message, message


def test_labels_are_optional_and_unknown_ones_are_named_by_id():
    assert "2 are marked. Untick one" in problem("direct", {3, 4}, labels=None)
    assert "(element 3, Figure 2)" in problem("direct", {3, 4}, labels={4: "Figure 2"})


def test_without_sampled_ids_only_the_count_is_checked():
    assert problem("direct", {7}, sampled=()) == ""
    assert "Mark two." in problem("parallel", set(), sampled=())


def test_the_rule_as_the_pages_state_it():
    assert rule_text("direct") == "A direct claim rests on exactly one table or chart"
    assert rule_text("analytical", whole=True) == (
        "An analytical claim rests on exactly one table or chart, one of the three sampled, "
        "plus any paragraphs"
    )
    assert rule_text("parallel", whole=True) == (
        "A parallel claim rests on exactly two tables/charts, at least one of them among the "
        "three sampled, plus any paragraphs"
    )


@given(
    subset=st.sampled_from(["direct", "analytical", "parallel", "sequential"]),
    evidence=st.sets(st.sampled_from(sorted(KINDS))),
)
def test_the_rule_holds_exactly_when_the_count_is_right_and_one_is_sampled(subset, evidence):
    visuals = visual_ids(evidence, KINDS)
    meets = len(visuals) == visuals_needed(subset) and bool(set(visuals) & set(SAMPLED))
    assert (problem(subset, evidence) == "") == meets
