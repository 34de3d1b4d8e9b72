"""The rules of assigning papers (no database): already-read papers, experts and their
eligibility in, the refusal or the candidates out."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User

from annotation.assignment import rules
from annotation.errors import AlreadyAssigned, IneligibleExpert
from annotation.experts.eligibility import Eligibility
from annotation.models import Assignment
from papers.models import Paper


def paper(pk: int, code: str = "cs.CL", **fields) -> Paper:
    made = Paper(pk=pk, arxiv_id=f"2401.0000{pk}", version=1, status="parsed", **fields)
    made.subfield_code = code
    return made


ANN, BO = User(pk=1, username="ann"), User(pk=2, username="bo")
OK = Eligibility(subfield="cs.CL", publications=3, required=2)
NO = Eligibility(subfield="cs.CL", publications=0, required=2, reasons=["no publications"])
ELIGIBILITY = {1: {"cs.CL": OK, "cs.CV": NO}, 2: {"cs.CL": NO, "cs.CV": NO}}


def test_a_selection_needs_papers_experts_and_no_paper_twice():
    with pytest.raises(IneligibleExpert, match="Select at least one paper"):
        rules.check_selection([], [ANN])
    with pytest.raises(IneligibleExpert, match="Choose at least one expert"):
        rules.check_selection([paper(1)], [])
    with pytest.raises(IneligibleExpert, match="listed twice"):
        rules.check_selection([paper(1), paper(1)], [ANN])
    rules.check_selection([paper(1), paper(2)], [ANN])


def test_only_parsed_papers_not_archived_are_assigned():
    with pytest.raises(IneligibleExpert, match="not parsed: 2401.00002v1"):
        rules.check_assignable([paper(1), Paper(pk=2, arxiv_id="2401.00002", version=1)])
    with pytest.raises(IneligibleExpert, match="un-archive them first"):
        rules.check_assignable([paper(1, archived_at="2026-01-01")])


def test_a_paper_assigned_is_refused_unless_reassigning():
    current = {1: Assignment(paper_id=1, expert=BO)}
    with pytest.raises(AlreadyAssigned, match=r"Already assigned: 2401.00001v1 \(bo\)"):
        rules.check_not_taken([paper(1), paper(2)], current, reassign=False)
    rules.check_not_taken([paper(1)], current, reassign=True)


def test_candidates_are_the_eligible_less_the_holder():
    papers = [paper(1), paper(2, "cs.CV"), paper(3)]
    current = {3: Assignment(paper_id=3, expert=ANN)}
    eligible = rules.eligible_by_paper(papers, [ANN, BO], ELIGIBILITY, current)
    assert eligible == {1: [ANN], 2: [], 3: []}
    with pytest.raises(IneligibleExpert) as refused:
        rules.check_single_expert(ANN, papers, eligible, ELIGIBILITY, current)
    assert str(refused.value) == (
        "ann cannot take 2 of the selected papers (2401.00002v1, 2401.00003v1): for "
        "2401.00002v1 (cs.CV): no publications."
    )
    with pytest.raises(IneligibleExpert, match="already assigned to them"):
        rules.check_single_expert(ANN, [papers[2]], eligible, ELIGIBILITY, current)


def test_papers_left_over_are_refused_with_their_subfields():
    rules.check_left_over([])
    with pytest.raises(IneligibleExpert, match=r"for 2 paper\(s\): .* \(subfield cs.CL, cs.CV\)"):
        rules.check_left_over([paper(1), paper(2, "cs.CV")])


def test_experts_given_none_are_named_with_why():
    eligible = {1: [ANN]}
    assert rules.given_none([ANN, BO], eligible, ELIGIBILITY, ["cs.CL"]) == [
        ("bo", "cs.CL: no publications")
    ]
    assert rules.given_none([ANN], {1: []}, {1: {"cs.CL": OK}}, ["cs.CL"]) == [
        ("ann", "the papers are already theirs")
    ]
