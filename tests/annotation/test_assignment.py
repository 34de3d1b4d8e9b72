"""Assigning papers by subfield: eligibility, balance, reassignment, history, the command."""

from __future__ import annotations

from io import StringIO

import pytest
from django.core.management import CommandError, call_command
from django.db import IntegrityError, transaction

from annotation import access
from annotation.assignment import selectors as assignment_selectors
from annotation.assignment import services as assignment_services
from annotation.errors import AlreadyAssigned, IneligibleExpert, NotAssigned
from annotation.experts import selectors as expert_selectors
from annotation.models import Assignment, AssignmentEvent, PaperSubfield, Subfield
from papers.models import Paper
from tests.annotation.factories import make_expert, make_paper
from tests.factories import AdminFactory

pytestmark = pytest.mark.django_db


def test_the_eight_subfields_exist_and_admins_can_add_more():
    codes = set(Subfield.objects.values_list("code", flat=True))
    assert {"cs.CV", "cs.CL", "cs.RO", "cs.SE", "cs.LG", "cs.AI", "cs.IR", "cs.CR"} <= codes
    Subfield.objects.create(code="stat.ML", name="Machine Learning (Statistics)")
    expert = make_expert("stats", ("stat.ML",))
    assert [u.pk for u in expert_selectors.eligible_experts("stat.ML")] == [expert.pk]


def test_eligibility_is_explained_per_subfield():
    ok = make_expert("ok", ("cs.CL",))
    few = make_expert("few", ("cs.CL",), publications=1)
    untrained = make_expert("untrained", ("cs.CL",), trained=False)
    table = expert_selectors.eligibility_by_expert(
        [ok.pk, few.pk, untrained.pk], ["cs.CL", "cs.CV"]
    )
    assert table[ok.pk]["cs.CL"].eligible
    assert table[few.pk]["cs.CL"].explain() == "1 of 2 required publications in cs.CL"
    assert table[untrained.pk]["cs.CL"].explain() == "training not completed"
    assert "cs.CV is not among their subfields" in table[ok.pk]["cs.CV"].explain()
    assert [u.username for u in expert_selectors.eligible_experts("cs.CL")] == ["ok"]


def test_min_publications_is_a_setting(settings):
    make_expert("one", ("cs.CL",), publications=1)
    settings.MIN_PUBLICATIONS = 1
    assert [u.username for u in expert_selectors.eligible_experts("cs.CL")] == ["one"]


def test_a_papers_subfield_is_its_primary_category_unless_an_admin_chose_one():
    paper = make_paper(category="cs.LG")
    assert assignment_selectors.paper_subfield_codes([paper.pk]) == {paper.pk: "cs.LG"}
    assignment_services.set_paper_subfield(
        papers=[paper], subfield=Subfield.objects.get(code="cs.CL"), changed_by=AdminFactory()
    )
    assert assignment_selectors.paper_subfield_codes([paper.pk]) == {paper.pk: "cs.CL"}
    assert PaperSubfield.objects.get(paper=paper).subfield.code == "cs.CL"


def test_assign_to_one_eligible_expert_writes_history():
    admin = AdminFactory()
    alice = make_expert("alice", ("cs.CL",))
    paper = make_paper(category="cs.CL")
    result = assignment_services.assign_papers(papers=[paper], experts=[alice], assigned_by=admin)
    (assignment,) = result.created
    assert (assignment.expert, assignment.status, assignment.role) == (alice, "assigned", "writer")
    event = AssignmentEvent.objects.get(assignment=assignment)
    assert (event.from_status, event.to_status, event.actor) == ("", "assigned", admin)
    assert access.can_view_paper(alice, paper.pk)


def test_an_ineligible_expert_is_refused_with_the_reason_and_nothing_changes():
    untrained = make_expert("bob", ("cs.CL",), trained=False)
    cv_only = make_expert("carol", ("cs.CV",))
    papers = [make_paper(category="cs.CL"), make_paper(category="cs.CL")]
    with pytest.raises(IneligibleExpert, match="bob cannot take 2 .*training not completed"):
        assignment_services.assign_papers(papers=papers, experts=[untrained], assigned_by=None)
    with pytest.raises(IneligibleExpert, match="cs.CL is not among their subfields"):
        assignment_services.assign_papers(papers=papers, experts=[cv_only], assigned_by=None)
    assert not Assignment.objects.exists()


def test_spread_balances_by_open_workload():
    alice = make_expert("alice", ("cs.CL",))
    bob = make_expert("bob", ("cs.CL",))
    assignment_services.assign_papers(
        papers=[make_paper(), make_paper()], experts=[alice], assigned_by=None
    )
    papers = [make_paper() for _ in range(6)]
    result = assignment_services.assign_papers(
        papers=papers, experts=[alice, bob], assigned_by=None
    )
    assert result.count_by_expert() == {"alice": 2, "bob": 4}
    assert assignment_selectors.open_workload([alice.pk, bob.pk]) == {alice.pk: 4, bob.pk: 4}


def test_spread_over_mixed_subfields_sends_each_paper_to_an_eligible_expert():
    cl = make_expert("cl", ("cs.CL",))
    cv = make_expert("cv", ("cs.CV",))
    papers = [
        make_paper(category="cs.CL"),
        make_paper(category="cs.CV"),
        make_paper(category="cs.RO"),
    ]
    with pytest.raises(IneligibleExpert, match="1 paper.*cs.RO"):
        assignment_services.assign_papers(papers=papers, experts=[cl, cv], assigned_by=None)
    result = assignment_services.assign_papers(
        papers=papers[:2], experts=[cl, cv], assigned_by=None
    )
    assert {a.paper_id: a.expert for a in result.created} == {papers[0].pk: cl, papers[1].pk: cv}
    assert not result.not_eligible


def test_a_chosen_expert_eligible_for_none_of_the_papers_is_named_with_why(client):
    cl, dave = make_expert("cl", ("cs.CL",)), make_expert("dave", ("cs.CL",), trained=False)
    papers = [make_paper(category="cs.CL"), make_paper(category="cs.CL")]
    result = assignment_services.assign_papers(papers=papers, experts=[cl, dave], assigned_by=None)
    assert result.count_by_expert() == {"cl": 2}
    assert result.not_eligible == [("dave", "cs.CL: training not completed")]
    # The page says so beside what it assigned.
    others = [make_paper(category="cs.CL")]
    client.force_login(AdminFactory())
    page = client.post(
        "/manage/assignments/",
        {"action": "spread", "papers": [p.pk for p in others], "experts": [cl.pk, dave.pk]},
        follow=True,
    ).content.decode()
    assert "Assigned 1 paper(s): cl: 1." in page
    assert (
        "Given none, not eligible for these papers: dave (cs.CL: training not completed)." in page
    )


def test_double_assignment_is_refused_unless_reassigning():
    alice, bob = make_expert("alice"), make_expert("bob")
    paper = make_paper()
    assignment_services.assign_papers(papers=[paper], experts=[alice], assigned_by=None)
    with pytest.raises(AlreadyAssigned, match=f"{paper.versioned_id} \\(alice\\)"):
        assignment_services.assign_papers(papers=[paper], experts=[bob], assigned_by=None)
    with pytest.raises(IneligibleExpert, match="already assigned to them"):
        assignment_services.assign_papers(
            papers=[paper], experts=[alice], assigned_by=None, reassign=True
        )
    result = assignment_services.assign_papers(
        papers=[paper], experts=[bob], assigned_by=None, reassign=True
    )
    old = Assignment.objects.get(expert=alice)
    assert old.status == "unassigned" and result.created[0].expert == bob
    assert list(old.events.values_list("to_status", "note")) == [
        ("assigned", ""),
        ("unassigned", "reassigned to bob"),
    ]
    assert result.created[0].events.get().note == "reassigned from alice"
    assert not access.can_view_paper(alice, paper.pk)


def test_the_database_refuses_two_open_assignments_of_a_paper():
    alice, bob = make_expert("alice"), make_expert("bob")
    paper = make_paper()
    Assignment.objects.create(paper=paper, expert=alice)
    with pytest.raises(IntegrityError), transaction.atomic():
        Assignment.objects.create(paper=paper, expert=bob)
    Assignment.objects.filter(expert=alice).update(status="unassigned")
    Assignment.objects.create(paper=paper, expert=bob)  # a closed one does not count


def test_unassign_closes_and_keeps_history():
    alice = make_expert("alice")
    paper = make_paper()
    assignment_services.assign_papers(papers=[paper], experts=[alice], assigned_by=None)
    with pytest.raises(NotAssigned):
        assignment_services.unassign(papers=[make_paper()], by=None)
    (closed,) = assignment_services.unassign(papers=[paper], by=None, note="on leave")
    assert closed.status == "unassigned" and closed.events.last().note == "on leave"


def test_only_parsed_papers_can_be_assigned():
    alice = make_expert("alice")
    rejected = make_paper(status=Paper.Status.REJECTED)
    with pytest.raises(IneligibleExpert, match="Only parsed papers"):
        assignment_services.assign_papers(papers=[rejected], experts=[alice], assigned_by=None)


def run(*args: str) -> str:
    out = StringIO()
    call_command("assign_papers", *args, stdout=out)
    return out.getvalue()


def test_assign_papers_command_spreads_accepted_first_with_a_cap():
    alice, bob = make_expert("alice"), make_expert("bob")
    make_expert("carol", ("cs.CV",))
    accepted = [make_paper(acceptance="accepted") for _ in range(3)]
    others = [make_paper() for _ in range(3)]
    make_paper(category="cs.CV")
    output = run("--subfield", "cs.CL", "--per-expert", "2")
    assert "Assigned 4 cs.CL paper(s); 2 still waiting" in output
    assigned = set(Assignment.objects.values_list("paper_id", flat=True))
    assert {p.pk for p in accepted} <= assigned and len(assigned & {p.pk for p in others}) == 1
    assert assignment_selectors.open_workload() == {alice.pk: 2, bob.pk: 2}
    assert "Assigned 2 cs.CL paper(s)" in run("--subfield", "cs.CL")
    assert "No cs.CL papers are waiting" in run("--subfield", "cs.CL")


def test_assign_papers_command_errors_clearly():
    make_expert("alice")
    make_expert("dave", trained=False)
    with pytest.raises(CommandError, match="No subfield 'cs.XX'"):
        run("--subfield", "cs.XX")
    with pytest.raises(CommandError, match="Nobody is eligible for cs.RO"):
        run("--subfield", "cs.RO")
    with pytest.raises(CommandError, match="Not eligible for cs.CL .*: dave"):
        run("--subfield", "cs.CL", "--experts", "alice,dave")
    make_paper()
    assert "alice" in run("--subfield", "cs.CL", "--dry-run") and not Assignment.objects.exists()
