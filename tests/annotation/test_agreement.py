"""Agreement maths: hand-computed values, published worked examples, and properties."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from annotation.review.agreement import (
    AgreementItem,
    agreement_report,
    annotator_pair_key,
    cohen_kappa,
    exact_match_rate,
    fleiss_kappa,
    is_agreed,
    jaccard,
    mean_jaccard,
    percent_agreement,
)


def _from_table(table: dict[tuple[str, str], int]) -> tuple[list[str], list[str]]:
    a: list[str] = []
    b: list[str] = []
    for (label_a, label_b), count in table.items():
        a += [label_a] * count
        b += [label_b] * count
    return a, b


def test_cohen_kappa_wikipedia_worked_example():
    # Wikipedia, "Cohen's kappa", section "Simple example": 50 grant proposals read by two
    # readers A and B. Both yes 20, A yes / B no 5, A no / B yes 10, both no 15:
    # p_o = 0.7, p_e = 0.5·0.6 + 0.5·0.4 = 0.5, κ = (0.7 − 0.5) / (1 − 0.5) = 0.4.
    a, b = _from_table({("yes", "yes"): 20, ("yes", "no"): 5, ("no", "yes"): 10, ("no", "no"): 15})
    assert len(a) == 50
    assert percent_agreement(a, b) == pytest.approx(0.7)
    assert cohen_kappa(a, b) == pytest.approx(0.4)


@pytest.mark.parametrize(
    ("table", "kappa"),
    [
        # Wikipedia, "Cohen's kappa", "Same percentages but different numbers": both tables
        # have p_o = 0.6 but p_e = 0.54 and 0.46, so κ = 0.06/0.46 and 0.14/0.54.
        ({("y", "y"): 45, ("y", "n"): 15, ("n", "y"): 25, ("n", "n"): 15}, 0.1304),
        ({("y", "y"): 25, ("y", "n"): 35, ("n", "y"): 5, ("n", "n"): 35}, 0.2593),
    ],
)
def test_cohen_kappa_same_agreement_different_marginals(table, kappa):
    a, b = _from_table(table)
    assert percent_agreement(a, b) == pytest.approx(0.6)
    assert cohen_kappa(a, b) == pytest.approx(kappa, abs=5e-5)


def test_cohen_kappa_three_labels_by_hand():
    # 10 items, labels e(ntailed) r(efuted) u(nsure). Marginals A: e5 r3 u2, B: e4 r4 u2,
    # so p_e = (5·4 + 3·4 + 2·2)/100 = 0.36 in both cases below.
    a = list("eeeeerrruu")
    # 9 agreements: p_o = 0.9, κ = 0.54/0.64 = 0.84375.
    assert cohen_kappa(a, list("eeeerrrruu")) == pytest.approx(0.84375)
    # 7 agreements: p_o = 0.7, κ = 0.34/0.64 = 0.53125.
    assert cohen_kappa(a, list("eeerrrreuu")) == pytest.approx(0.53125)


def test_cohen_kappa_opposite_raters_is_minus_one():
    assert cohen_kappa([True, False] * 5, [False, True] * 5) == -1.0


def test_cohen_kappa_degenerate_cases_are_undefined():
    # Both raters say "entailed" for everything: p_o = p_e = 1, κ = 0/0.
    assert cohen_kappa(["e"] * 4, ["e"] * 4) is None
    assert cohen_kappa(["e"] * 4, ["e"] * 4, undefined=1.0) == 1.0
    assert cohen_kappa([], []) is None
    assert percent_agreement([], []) is None
    # One rater constant, the other not: p_e < 1, κ is defined (and 0 here: no information).
    assert cohen_kappa(["e"] * 4, ["e", "e", "r", "r"]) == 0.0


def test_unequal_lengths_are_an_error():
    with pytest.raises(ValueError, match="different numbers of items"):
        cohen_kappa(["e"], ["e", "r"])


def test_fleiss_kappa_wikipedia_worked_example():
    # Wikipedia, "Fleiss' kappa", "Worked example": 10 subjects, 14 raters, 5 categories;
    # P̄ = 0.378, P̄_e = 0.213, κ = 0.210.
    table = [
        [0, 0, 0, 0, 14],
        [0, 2, 6, 4, 2],
        [0, 0, 3, 5, 6],
        [0, 3, 9, 2, 0],
        [2, 2, 8, 1, 1],
        [7, 7, 0, 0, 0],
        [3, 2, 6, 3, 0],
        [2, 5, 3, 2, 2],
        [6, 5, 2, 1, 0],
        [0, 2, 2, 3, 7],
    ]
    ratings = [[cat for cat, n in enumerate(row) for _ in range(n)] for row in table]
    assert fleiss_kappa(ratings) == pytest.approx(0.210, abs=5e-4)


def test_fleiss_kappa_two_raters_is_scotts_pi():
    # Wikipedia 2×2 example again: pooled "yes" share (25 + 30)/100 = 0.55,
    # π_e = 0.55² + 0.45² = 0.505, π = (0.7 − 0.505)/(1 − 0.505) = 0.3939…
    a, b = _from_table({("y", "y"): 20, ("y", "n"): 5, ("n", "y"): 10, ("n", "n"): 15})
    assert fleiss_kappa(list(zip(a, b, strict=True))) == pytest.approx(0.195 / 0.495)
    assert fleiss_kappa([["e", "e"], ["e", "e"]]) is None
    with pytest.raises(ValueError, match="same number"):
        fleiss_kappa([["e", "e"], ["e"]])


def test_jaccard_and_evidence_rates_by_hand():
    assert jaccard({"p1", "t2"}, {"p1", "t2"}) == 1.0
    assert jaccard({"p1", "t2"}, {"p1", "c3"}) == pytest.approx(1 / 3)
    assert jaccard(set(), set()) == 1.0
    assert jaccard({"p1"}, set()) == 0.0
    pairs = [({"p1", "t2"}, {"p1", "t2"}), ({"p1"}, {"p1", "t2"}), (set(), {"c1"})]
    assert exact_match_rate(pairs) == pytest.approx(1 / 3)
    assert mean_jaccard(pairs) == pytest.approx((1 + 0.5 + 0) / 3)
    assert exact_match_rate([]) is None and mean_jaccard([]) is None


def test_is_agreed_default_needs_equal_sets():
    assert is_agreed("e", {"p1", "t2"}, "e", {"t2", "p1"})
    assert not is_agreed("e", {"p1", "t2"}, "e", {"p1"})
    assert is_agreed("e", {"p1", "t2"}, "e", {"p1"}, jaccard_threshold=0.5)
    assert not is_agreed("e", {"p1"}, "r", {"p1"}, jaccard_threshold=0.0)
    assert is_agreed("e", set(), "e", set())
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        is_agreed("e", set(), "e", set(), jaccard_threshold=1.5)


def _item(item_id, la, lb, ea=(), eb=(), **groups):
    return AgreementItem(
        item_id,
        la,
        lb,
        None if ea is None else frozenset(ea),
        None if eb is None else frozenset(eb),
        groups,
    )


def test_report_counts_complete_and_incomplete_per_group():
    items = [
        _item(1, "e", "e", {"p1"}, {"p1"}, subset="direct", annotator_pair="x+y"),
        _item(2, "e", "r", {"p1"}, {"p1"}, subset="direct", annotator_pair="x+y"),
        _item(3, "r", "r", {"p1", "t1"}, {"p1"}, subset="direct", annotator_pair="x+z"),
        _item(4, "r", None, {"p2"}, None, subset="parallel", annotator_pair="x+z"),
        _item(5, "r", "r", {"c1"}, None, subset="parallel"),
    ]
    reports = agreement_report(items)
    overall = reports["overall"]["all"]
    assert overall.items == 5
    assert (overall.label.complete, overall.label.incomplete) == (4, 1)
    assert (overall.evidence.complete, overall.evidence.incomplete) == (3, 2)
    # Labels of items 1, 2, 3, 5: e/e e/r r/r r/r. p_o = 0.75; A: e2 r2, B: e1 r3;
    # p_e = (2·1 + 2·3)/16 = 0.5; κ = 0.25/0.5 = 0.5.
    assert overall.label.percent == pytest.approx(0.75)
    assert overall.label.kappa == pytest.approx(0.5)
    assert overall.evidence.mean_jaccard == pytest.approx((1 + 1 + 0.5) / 3)
    assert overall.evidence.exact_match_rate == pytest.approx(2 / 3)
    assert (overall.agreed, overall.label_disagreements, overall.evidence_only_disagreements) == (
        1,
        1,
        1,
    )

    direct, parallel = reports["subset"]["direct"], reports["subset"]["parallel"]
    assert direct.items == 3 and direct.label.incomplete == 0
    assert parallel.items == 2 and parallel.label.complete == 1 and parallel.label.incomplete == 1
    assert parallel.evidence.complete == 0 and parallel.evidence.mean_jaccard is None
    assert parallel.label.kappa is None  # a single complete item: no variation, undefined
    assert list(reports["annotator_pair"]) == ["x+y", "x+z"]  # item 5 has no pair: left out
    assert reports["subfield"] == {}
    assert overall.as_dict()["label_incomplete"] == 1


def test_report_threshold_turns_evidence_disagreement_into_agreement():
    items = [_item(1, "e", "e", {"p1", "t1"}, {"p1"}), _item(2, "r", "r", {"p1"}, {"p2"})]
    strict = agreement_report(items, group_by=())["overall"]["all"]
    loose = agreement_report(items, group_by=(), jaccard_threshold=0.5)["overall"]["all"]
    assert (strict.agreed, strict.evidence_only_disagreements) == (0, 2)
    assert (loose.agreed, loose.evidence_only_disagreements) == (1, 1)


def test_report_rejects_duplicate_items():
    with pytest.raises(ValueError, match="appears twice"):
        agreement_report([_item(1, "e", "e"), _item(1, "e", "r")])


def test_annotator_pair_key_is_order_free():
    assert annotator_pair_key("b7", "a2") == annotator_pair_key("a2", "b7") == "a2+b7"


labels = st.sampled_from(["entailed", "refuted", "unsure"])
label_pairs = st.lists(st.tuples(labels, labels), min_size=1, max_size=60)


@given(label_pairs)
def test_kappa_is_at_most_one_and_at_least_minus_one(pairs):
    a, b = [x for x, _ in pairs], [y for _, y in pairs]
    kappa = cohen_kappa(a, b)
    assert kappa is None or -1.0 <= kappa <= 1.0


@given(label_pairs)
def test_kappa_is_symmetric_in_the_raters(pairs):
    a, b = [x for x, _ in pairs], [y for _, y in pairs]
    assert cohen_kappa(a, b) == cohen_kappa(b, a)
    assert percent_agreement(a, b) == percent_agreement(b, a)


@given(st.lists(labels, min_size=2, max_size=60).filter(lambda xs: len(set(xs)) > 1))
def test_kappa_is_one_for_identical_labels_with_variation(xs):
    assert cohen_kappa(xs, list(xs)) == 1.0


@given(st.sets(st.integers(0, 20)), st.sets(st.integers(0, 20)))
def test_jaccard_is_a_symmetric_similarity(a, b):
    value = jaccard(a, b)
    assert 0.0 <= value <= 1.0 and value == jaccard(b, a)
    assert (value == 1.0) == (a == b)
