"""The error analysis' rules without a database: the seeded sample per subset, the taggers a
case gets, κ per error type with the incomplete cases counted, and the card's table."""

from __future__ import annotations

import pytest

from evaluation.errors import rules
from evaluation.errors.rules import ErrorAnalysisRefused


def test_the_five_types_are_sciver_appendix_c_in_its_order_each_with_a_definition():
    assert [c.title for c in rules.CATEGORIES] == [
        "Failure to retrieve relevant information",
        "Visual element misinterpretation",
        "Heavy reliance on text modality",
        "Domain-specific misconceptions",
        "Other observation errors",
    ]
    assert all(len(c.definition) > 40 for c in rules.CATEGORIES)


def test_the_sample_is_per_subset_without_replacement_seeded_and_order_free():
    wrong = {"direct": list(range(1, 31)), "parallel": [40, 41, 42]}
    first = rules.sample_cases(wrong, size=10, seed=7)
    assert len(first["direct"]) == len(set(first["direct"])) == 10
    assert set(first["direct"]) <= set(wrong["direct"])
    assert first["parallel"] == [40, 41, 42]  # fewer wrong answers than asked: all of them
    shuffled = {"parallel": [42, 40, 41], "direct": list(reversed(range(1, 31)))}
    assert rules.sample_cases(shuffled, size=10, seed=7) == first
    assert rules.sample_cases(wrong, size=10, seed=8)["direct"] != first["direct"]


def test_each_case_gets_two_taggers_spread_evenly_one_or_none_when_fewer_are_eligible():
    cases = [(n, [1, 2, 3]) for n in range(6)] + [("solo", [9]), ("nobody", [])]
    chosen = rules.assign_taggers(cases)
    assert all(len(chosen[n]) == 2 and len(set(chosen[n])) == 2 for n in range(6))
    load = [sum(u in chosen[n] for n in range(6)) for u in (1, 2, 3)]
    assert load == [4, 4, 4]
    assert chosen["solo"] == (9,) and chosen["nobody"] == ()
    # Work already held counts: the busy expert gets the new case last.
    assert rules.assign_taggers([("x", [1, 2, 3])], load={1: 5}) == {"x": (2, 3)}


def test_kappa_per_type_by_hand_with_incomplete_cases_counted_apart():
    v, r = "visual", "retrieval"
    cases = [
        [{v}, {v}],
        [{v, r}, {v}],
        [{r}, {r}],
        [{r}, {v}],
        [{v}],  # one tagger only: counted, not in κ
        [],  # not tagged yet
    ]
    by_code = {a.code: a for a in rules.agreement_by_category(cases)}
    visual = by_code[v]
    # visual: a = T T F F, b = T T F T → agree 3 of 4; κ = (4·3 − (2·3 + 2·1)) / (16 − 8) = 0.5
    assert (visual.complete, visual.incomplete) == (4, 1)
    assert (visual.both, visual.either) == (2, 3)
    assert visual.agreement == 0.75 and visual.kappa == pytest.approx(0.5)
    # retrieval: a = F T T T, b = F F T F → agree 2 of 4; κ = (8 − (1·3 + 3·1)) / (16 − 6) = 0.2
    assert by_code[r].kappa == pytest.approx(0.2)
    # Nobody chose domain: no variation, κ undefined (never 1.0), agreement 100 %.
    assert by_code["domain"].kappa is None and by_code["domain"].agreement == 1.0


def test_majority_and_union_of_two_tags():
    tags = [{"visual", "other"}, {"visual", "domain"}]
    assert rules.majority(tags) == ["visual"]
    assert rules.union(tags) == ["visual", "domain", "other"]
    assert rules.majority([{"other"}]) == ["other"]


def test_a_tag_names_at_least_one_of_the_five_types():
    assert rules.check_categories(["other", "visual"]) == ["visual", "other"]
    with pytest.raises(ErrorAnalysisRefused, match="at least one"):
        rules.check_categories([])
    with pytest.raises(ErrorAnalysisRefused, match="Unknown"):
        rules.check_categories(["typo"])


def test_the_cards_table_gives_cases_per_type_and_subset_with_kappa():
    counts = rules.category_counts(
        [
            ("direct", [{"visual"}, {"visual", "other"}]),
            ("parallel", [{"retrieval"}]),
            ("direct", []),
        ]
    )
    assert counts["all"][0] == 2 and counts["direct"][1]["other"] == 1
    table = rules.markdown_table(counts, {"visual": 0.5}, model="qwen-vl")
    lines = table.splitlines()
    assert lines[0] == "Error types of qwen-vl's wrong answers"
    assert (
        lines[2] == "| Error type (SciVer App. C) | direct (n=1) | parallel (n=1) | all (n=2) | κ |"
    )
    assert "| Visual element misinterpretation | 1 (100 %) | 0 (0 %) | 1 (50 %) | 0.50 |" in lines
    assert "| Domain-specific misconceptions | 0 (0 %) | 0 (0 %) | 0 (0 %) | — |" in lines
