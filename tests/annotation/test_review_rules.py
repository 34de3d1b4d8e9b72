"""The review stage's rules (no database): what a second annotation and an adjudication must
give, and how a second annotation compares with the writer's."""

from __future__ import annotations

from annotation.review.rules import (
    Annotation,
    adjudication_errors,
    adjudication_evidence_problem,
    compare,
    context_evidence_problem,
    second_annotation_errors,
)

KINDS = {1: "table", 2: "chart", 3: "paragraph", 4: "table"}


def test_evidence_is_some_in_context_with_a_table_or_chart():
    assert "Mark the evidence" in context_evidence_problem(KINDS, set())
    assert "not part of this paper" in context_evidence_problem(KINDS, {1, 99})
    assert "at least one table or chart" in context_evidence_problem(KINDS, {3})
    assert context_evidence_problem(KINDS, {3}, any_visual=False) == ""
    assert context_evidence_problem(KINDS, {1, 3}) == ""


def test_a_second_annotation_needs_a_label_and_evidence():
    errors = second_annotation_errors("maybe", set(), KINDS)
    assert set(errors) == {"label", "evidence"}
    assert second_annotation_errors("refuted", {2}, KINDS) == {}


def compared(written_label="entailed", written=(1,), second_label="entailed", evidence=(1,)):
    return compare(
        written_label=written_label,
        written=set(written),
        second_label=second_label,
        evidence=set(evidence),
        subset="direct",
        kinds=KINDS,
        sampled={1, 2, 4},
        threshold=1.0,
    )


def test_agreement_is_unanimous_with_the_writers_label():
    result = compared()
    assert result.agreed and result.state == "unanimous"
    assert result.changes == {
        "evidence_jaccard": 1.0,
        "disagreement": "",
        "final_label": "entailed",
    }
    assert result.event == {"disagreement": "", "jaccard": 1.0, "threshold": 1.0}


def test_a_label_or_evidence_difference_goes_to_adjudication():
    label = compared(second_label="refuted")
    assert (label.agreed, label.state, label.changes["disagreement"]) == (
        False,
        "adjudication",
        "label",
    )
    evidence = compared(evidence=(4,))
    assert evidence.changes == {"evidence_jaccard": 0.0, "disagreement": "evidence"}


def test_evidence_that_breaks_the_rule_is_a_disagreement_named_in_the_history():
    result = compared(written=(1, 4), evidence=(1, 4))
    assert not result.agreed and result.changes["disagreement"] == "evidence"
    assert set(result.event["evidence_rule"]) == {"writer", "second annotator"}


def adjudicated(**given):
    values = {
        "decision": "decided",
        "label": "refuted",
        "confidence": "high",
        "reason": "writer_error",
        "notes": "",
        "final": Annotation("refuted", frozenset({1})),
        "evidence_problem": "",
        "annotations": [
            Annotation("entailed", frozenset({1})),
            Annotation("refuted", frozenset({1})),
        ],
    }
    return adjudication_errors(**values | given)


def test_a_decision_that_sides_with_one_annotation_needs_no_notes():
    assert adjudicated() == ({}, False)


def test_a_decision_against_both_annotations_needs_notes():
    errors, overrides = adjudicated(final=Annotation("refuted", frozenset({4})))
    assert overrides and set(errors) == {"notes"}
    assert adjudicated(final=Annotation("refuted", frozenset({4})), notes="why") == ({}, True)


def test_an_adjudication_names_every_missing_choice():
    errors, _ = adjudicated(decision="", confidence="", reason="")
    assert set(errors) == {"decision", "confidence", "reason"}
    errors, _ = adjudicated(label="", evidence_problem="Mark it.")
    assert errors == {"label": "Choose the final label.", "evidence": "Mark it."}
    errors, overrides = adjudicated(decision="unresolved", annotations=[])
    assert not overrides and "stays unresolved" in errors["notes"]


def test_the_adjudicators_evidence_is_held_to_the_evidence_rule():
    assert adjudication_evidence_problem({1}, kinds=KINDS, subset="direct", sampled={1}) == ""
    assert "not part" in adjudication_evidence_problem(
        {9}, kinds=KINDS, subset="direct", sampled={1}
    )
    assert "Table 1" in adjudication_evidence_problem(
        {1, 4}, kinds=KINDS, subset="direct", sampled={1}, labels={1: "Table 1", 4: "Table 4"}
    )
