"""The rules of validation (no database): which final claims are validated, and what a
validator's answer must meet."""

from __future__ import annotations

from validation import rules

KINDS = {1: "table", 2: "chart", 3: "paragraph", 4: "table"}


def test_only_a_live_claim_whose_label_held_is_validated():
    assert rules.validates(superseded=False, dropped=False, written="refuted", final="refuted")
    assert rules.validates(superseded=False, dropped=False, written="entailed", final="refuted")
    assert not rules.validates(superseded=True, dropped=False, written="x", final="x")
    assert not rules.validates(superseded=False, dropped=True, written="x", final="x")
    assert not rules.validates(superseded=False, dropped=False, written="refuted", final="entailed")


def test_an_entailed_claim_keeps_no_explanation_and_changes_are_listed_in_order():
    stored = rules.answer_fields(
        text="T", subset="direct", label="entailed", evidence={1}, explanation="old"
    )
    answer = rules.answer_fields(
        text="T2",
        subset="direct",
        label="entailed",
        evidence=[1],
        explanation="ignored",
        written="entailed",
    )
    assert answer["explanation"] == ""
    assert rules.changed_fields(stored, answer) == ["text", "explanation"]


def errors(**given):
    values = {
        "subset": "direct",
        "label": "refuted",
        "evidence": {1},
        "explanation": "why",
        "written": "refuted",
        "kinds": KINDS,
        "pair_subset": "direct",
        "sampled": {1, 2},
        "sibling_evidence": None,
    }
    return rules.answer_errors(**values | given)


def test_a_valid_answer_has_no_errors():
    assert errors() == {}


def test_each_field_says_what_is_wrong():
    assert set(errors(subset="x", label="x", evidence=set(), explanation="")) == {
        "subset",
        "label",
        "evidence",
        "explanation",
    }
    assert "not part of this paper" in errors(evidence={9})["evidence"]
    assert "exactly one table or chart" in errors(evidence={1, 4})["evidence"]
    assert errors(written="entailed", explanation="") == {}


def test_a_new_subset_must_fit_the_pairs_validated_other_claim():
    moved = errors(subset="parallel", evidence={1, 2}, sibling_evidence={1})
    assert "already validated, cites 1 table(s)/chart(s): as parallel" in moved["subset"]
    assert errors(subset="parallel", evidence={1, 2}, sibling_evidence={1, 2}) == {}
    assert errors(subset="parallel", evidence={1, 2}) == {}


def test_criteria_match_the_revision():
    assert "changed nothing" in rules.criteria_error(["atomic"], [])
    assert "tick the criteria" in rules.criteria_error([], ["text"])
    assert rules.criteria_error([], []) == rules.criteria_error(["atomic"], ["text"]) == ""


def test_a_revision_knows_what_it_changes_and_its_outcome():
    fields = {"text": "T", "subset": "direct", "label": "refuted", "evidence": [1]}
    stored = fields | {"explanation": "E"}
    passed = rules.Revision(stored, dict(stored), [])
    assert (passed.changed, passed.outcome) == ([], "passed")
    revised = rules.Revision(stored, stored | {"label": "entailed"}, ["label"])
    assert (revised.changed, revised.outcome) == (["label"], "revised")
