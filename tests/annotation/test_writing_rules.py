"""The rules of claim writing that the services ask before writing (no database): claim task
requests and plans, a pair's draft and its history record, and a new perturbation."""

from __future__ import annotations

from collections import Counter

import pytest

from annotation.errors import AnnotationError, InvalidTransition
from annotation.writing.rules import (
    ContextElement,
    PairDraft,
    check_reperturbation_target,
    check_task_candidates,
    check_task_request,
    claim_fields,
    pair_draft,
    pair_submitted,
    perturbation_record,
    plan_tasks,
    reperturbation_errors,
)

TARGETS = {"direct": 0.25, "parallel": 0.25, "sequential": 0.25, "analytical": 0.25}


def test_claim_tasks_need_a_context_and_a_count_of_one_to_a_hundred():
    with pytest.raises(AnnotationError, match="2401.00001v1 has no curated context yet"):
        check_task_request(paper="2401.00001v1", has_context=False, count=3)
    for count in (0, 101):
        with pytest.raises(AnnotationError, match="between 1 and 100"):
            check_task_request(paper="p", has_context=True, count=count)
    check_task_request(paper="p", has_context=True, count=100)


def test_claim_tasks_need_three_tables_or_charts():
    with pytest.raises(AnnotationError, match="Context v2 keeps 2 tables/charts; claim tasks"):
        check_task_candidates(context_number=2, candidates=2)
    check_task_candidates(context_number=2, candidates=3)


def test_a_seeded_plan_is_the_same_twice_and_balances_the_subsets():
    elements = [ContextElement(i, 1, "table" if i < 5 else "paragraph", i) for i in range(8)]

    def plan():
        return plan_tasks(
            count=4,
            seed=7,
            candidates=[0, 1, 2, 3, 4],
            subset_counts=Counter(),
            targets=TARGETS,
            elements=elements,
            references={},
        )

    first = plan()
    assert first == plan()
    assert [p.seed for p in first] == [7, 8, 9, 10]
    assert all(len(set(p.sampled)) == 3 and set(p.sampled) <= {0, 1, 2, 3, 4} for p in first)
    assert sorted(p.subset for p in first) == sorted(TARGETS)


def test_the_refuted_claim_shares_the_entailed_evidence_unless_it_names_its_own():
    shared = pair_draft(
        subset="direct",
        entailed=" A. ",
        evidence=frozenset({1}),
        refuted=" B ",
        refuted_evidence=None,
        explanation=" why ",
        perturbation_kind="number",
    )
    assert (shared.entailed, shared.refuted, shared.explanation) == ("A.", "B", "why")
    assert shared.refuted_evidence == {1}
    own = pair_draft(
        subset="direct",
        entailed="A",
        evidence=frozenset({1}),
        refuted="B",
        refuted_evidence=frozenset({2}),
        explanation="e",
        perturbation_kind="number",
    )
    assert own.refuted_evidence == {2}


DRAFT = PairDraft("direct", "Entailed.", frozenset({2, 1}), "Refuted.", frozenset({3}), "Why.", "k")


def test_the_pairs_claims_and_its_history_record():
    assert claim_fields(DRAFT, " tip ") == {
        "entailed": {"text": "Entailed."},
        "refuted": {
            "text": "Refuted.",
            "perturbation_kind": "k",
            "suggestion": "tip",
            "explanation": "Why.",
        },
    }
    record = pair_submitted(DRAFT, suggestion="", reference_note="")
    assert record == {
        "subset": "direct",
        "entailed": {"text": "Entailed.", "evidence": [1, 2]},
        "refuted": {
            "text": "Refuted.",
            "evidence": [3],
            "perturbation_kind": "k",
            "suggestion": "",
            "explanation": "Why.",
        },
    }
    noted = pair_submitted(DRAFT, suggestion="", reference_note="Table 9 is the appendix's")
    assert noted["reference_note"] == "Table 9 is the appendix's"


def test_a_new_perturbation_needs_a_live_pair_and_a_claim_not_yet_replaced():
    with pytest.raises(InvalidTransition, match="Pair 4 was dropped"):
        check_reperturbation_target(pair=4, dropped=True, superseded=False)
    with pytest.raises(InvalidTransition, match="already replaced"):
        check_reperturbation_target(pair=4, dropped=False, superseded=True)
    check_reperturbation_target(pair=4, dropped=False, superseded=False)


def test_a_new_perturbation_is_judged_on_what_its_writer_controls():
    shared = PairDraft("direct", "Entailed.", frozenset({1}), "Old one.", frozenset({1}), "W", "k")
    errors = reperturbation_errors(
        {"evidence": "Cite one table.", "entailed": "Too short."}, draft=shared, replaced="old ONE."
    )
    assert set(errors) == {"refuted_evidence", "refuted"}
    assert "cannot share it: Cite one table. Cite different evidence." in errors["refuted_evidence"]
    assert errors["refuted"] == "This is the perturbation that turned out true: write a new one."
    same = PairDraft("direct", "Same.", frozenset({1}), "same.", frozenset({2}), "W", "k")
    assert (
        "must differ from the entailed"
        in reperturbation_errors({}, draft=same, replaced="x")["refuted"]
    )
    assert reperturbation_errors({}, draft=DRAFT, replaced="Other.") == {}


def test_a_perturbation_record_keeps_the_suggestion_only_of_the_new_claim():
    new = perturbation_record(
        5, text="T", evidence={3, 1}, perturbation_kind="k", explanation="E", suggestion=" s "
    )
    assert new == {
        "claim": 5,
        "text": "T",
        "evidence": [1, 3],
        "perturbation_kind": "k",
        "suggestion": "s",
        "explanation": "E",
    }
    old = perturbation_record(4, text="T", evidence=[], perturbation_kind="k", explanation="E")
    assert "suggestion" not in old
