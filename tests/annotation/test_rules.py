"""The pure rules: eligibility wording, balanced spreading, proposals and context inclusion."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from annotation.assignment.spreading import spread_balanced
from annotation.curation.rules import count_context, proposed_for_removal, sections_in_context
from annotation.experts.eligibility import judge_eligibility


def test_eligibility_needs_publications_training_and_the_subfield():
    ok = judge_eligibility(
        subfield="cs.CL",
        has_profile=True,
        active=True,
        declared=True,
        publications=2,
        trained=True,
        required=2,
    )
    assert ok.eligible and ok.explain() == "eligible"
    not_ok = judge_eligibility(
        subfield="cs.CV",
        has_profile=True,
        active=False,
        declared=False,
        publications=1,
        trained=False,
        required=2,
    )
    assert not not_ok.eligible
    assert not_ok.reasons == [
        "expert profile inactive",
        "cs.CV is not among their subfields",
        "1 of 2 required publications in cs.CV",
        "training not completed",
    ]
    nobody = judge_eligibility(
        subfield="cs.CV",
        has_profile=False,
        active=False,
        declared=False,
        publications=0,
        trained=False,
        required=2,
    )
    assert nobody.reasons == ["no expert profile"]


def test_spread_goes_to_the_least_loaded_first_and_respects_the_cap():
    papers = ["p1", "p2", "p3", "p4", "p5"]
    eligible = {p: ["ann", "ben"] for p in papers}
    spread = spread_balanced(papers, eligible, {"ann": 3, "ben": 0}, per_expert=None)
    assert spread.count_by_expert() == {"ben": 4, "ann": 1}
    assert [spread.assigned[p] for p in papers[:3]] == ["ben", "ben", "ben"]
    capped = spread_balanced(papers, eligible, {"ann": 3, "ben": 0}, per_expert=2)
    assert capped.count_by_expert() == {"ben": 2, "ann": 2}
    assert capped.left_over == ["p5"]


def test_spread_leaves_papers_nobody_eligible_can_take():
    spread = spread_balanced(["a", "b"], {"a": ["x"], "b": []}, {"x": 0})
    assert spread.assigned == {"a": "x"} and spread.left_over == ["b"]


@given(
    loads=st.lists(st.integers(min_value=0, max_value=20), min_size=1, max_size=6),
    n_papers=st.integers(min_value=0, max_value=40),
    cap=st.one_of(st.none(), st.integers(min_value=1, max_value=10)),
)
def test_spread_property_balanced_and_capped(loads, n_papers, cap):
    experts = [f"e{i}" for i in range(len(loads))]
    load = dict(zip(experts, loads, strict=True))
    papers = list(range(n_papers))
    spread = spread_balanced(papers, {p: experts for p in papers}, load, per_expert=cap)
    given_ = spread.count_by_expert()
    assert len(spread.assigned) + len(spread.left_over) == n_papers
    if cap is not None:
        assert all(n <= cap for n in given_.values())
        assert len(spread.assigned) == min(n_papers, cap * len(experts))
    else:
        assert not spread.left_over
    final = {e: load[e] + given_.get(e, 0) for e in experts}
    # Whoever received a paper ended at most one above anyone who could still take more.
    for e in given_:
        for other in experts:
            if cap is None or given_.get(other, 0) < cap:
                assert final[e] - 1 <= final[other]


def test_sciver_proposes_removing_related_work_acknowledgments_references_appendix():
    assert {
        k
        for k in ("abstract", "body", "related_work", "acknowledgments", "references", "appendix")
        if proposed_for_removal(k)
    } == {"related_work", "acknowledgments", "references", "appendix"}


def test_a_section_is_in_context_only_if_all_its_ancestors_are():
    parents = {1: None, 2: 1, 3: 2, 4: None}
    assert sections_in_context(parents, {1, 2, 3, 4}) == {1, 2, 3, 4}
    assert sections_in_context(parents, {2, 3, 4}) == {4}  # parent 1 removed
    assert sections_in_context(parents, {1, 3}) == {1}
    assert sections_in_context({1: 2, 2: 1}, {1, 2}) == set()  # a cycle keeps nothing


def test_counts_leave_out_figures_that_are_not_charts():
    counts = count_context(
        [("table", False), ("chart", False), ("chart", True), ("paragraph", False)]
    )
    assert (counts.tables, counts.charts, counts.not_charts, counts.paragraphs) == (1, 1, 1, 1)
    assert not counts.ready_for_claims
    assert count_context([("table", False)] * 2 + [("chart", False)]).ready_for_claims
