"""Saving curated contexts: versions, inclusion by section, not-a-chart marks, readiness."""

from __future__ import annotations

import pytest
from django.core.management import CommandError

from annotation.assignment import services as assignment_services
from annotation.curation import selectors as curation_selectors
from annotation.curation import services as curation_services
from annotation.errors import InvalidCuration, NotAssigned, StaleContext
from annotation.models import Assignment, CuratedContext, CuratedElement
from papers.models import Element, Section
from tests.annotation.factories import all_ids, make_expert, make_paper
from tests.factories import AdminFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def assigned():
    alice = make_expert("alice")
    paper = make_paper()
    assignment_services.assign_papers(papers=[paper], experts=[alice], assigned_by=None)
    return alice, paper


def proposal(paper) -> set[int]:
    """The sections kept when the proposal is accepted."""
    return set(
        Section.objects.filter(paper=paper, kind__in=["abstract", "body"]).values_list(
            "pk", flat=True
        )
    )


def save(paper, user, *, sections, elements, not_charts=(), latest_seen=None, **kw):
    return curation_services.save_curated_context(
        paper=paper,
        user=user,
        kept_section_ids=sections,
        kept_element_ids=elements,
        not_chart_ids=not_charts,
        latest_seen=latest_seen,
        **kw,
    )


def test_accepting_the_proposal_keeps_the_body(assigned):
    alice, paper = assigned
    sections, elements = all_ids(paper)
    context = save(paper, alice, sections=proposal(paper), elements=elements, note="first pass")
    assert (context.number, context.created_by, context.note) == (1, alice, "first pass")
    in_context = Element.objects.filter(
        pk__in=CuratedElement.objects.filter(context=context, in_context=True).values("element")
    )
    assert set(in_context.values_list("section__kind", flat=True)) == {"abstract", "body"}
    # body: tables 1 (Method) + 1 (Experiments); charts 2 (Experiments)
    assert (context.table_count, context.chart_count) == (2, 2)
    assert context.ready_for_claims and context.removed_section_count == 5
    assignment = Assignment.objects.get(paper=paper)
    assert assignment.status == "curated"
    assert list(assignment.events.values_list("to_status", "note")) == [
        ("assigned", ""),
        ("curated", "context v1"),
    ]


def test_removing_a_parent_section_removes_its_subsections(assigned):
    alice, paper = assigned
    sections, elements = all_ids(paper)
    related = Section.objects.get(paper=paper, title="Related Work")
    context = save(paper, alice, sections=sections - {related.pk}, elements=elements)
    older = Section.objects.get(paper=paper, title="Older work")
    states = CuratedElement.objects.filter(context=context, element__section=older)
    assert states.count() == 2 and not states.filter(in_context=True).exists()
    assert states.filter(kept=True).count() == 2  # their own decision is kept for next time


def test_versions_are_kept_and_numbered(assigned):
    alice, paper = assigned
    sections, elements = all_ids(paper)
    first = save(paper, alice, sections=proposal(paper), elements=elements)
    charts = set(
        Element.objects.filter(paper=paper, kind="chart", section__kind="body").values_list(
            "pk", flat=True
        )
    )
    one_table = Element.objects.filter(paper=paper, kind="table", section__kind="body").first()
    second = save(
        paper,
        alice,
        sections=proposal(paper),
        elements=elements - {one_table.pk},
        not_charts=charts,
        latest_seen=1,
    )
    assert (second.number, second.based_on) == (2, first)
    assert (second.table_count, second.chart_count, second.not_chart_count) == (1, 0, 2)
    assert not second.ready_for_claims
    first.refresh_from_db()
    assert first.ready_for_claims and first.element_states.filter(in_context=True).count() > 0
    assert curation_selectors.latest_context(paper.pk) == second
    assert Assignment.objects.get(paper=paper).status == "curated"  # stays curated


def test_saving_the_same_decisions_again_writes_no_new_version(assigned, client):
    alice, paper = assigned
    sections, elements = all_ids(paper)
    first = save(paper, alice, sections=proposal(paper), elements=elements, note="first pass")
    again = save(paper, alice, sections=proposal(paper), elements=elements, latest_seen=1)
    assert again == first and CuratedContext.objects.filter(paper=paper).count() == 1
    # A note, or any decision, is a change.
    noted = save(
        paper,
        alice,
        sections=proposal(paper),
        elements=elements,
        latest_seen=1,
        note="checked the appendix",
    )
    assert noted.number == 2
    # The page says so.
    client.force_login(alice)
    url = f"/curate/{paper.versioned_id}/"
    data = {"keep_section": sorted(proposal(paper)), "keep": sorted(elements), "latest_seen": 2}
    page = client.post(url, data, follow=True).content.decode()
    assert "Nothing changed since context v2: nothing saved." in page
    assert CuratedContext.objects.filter(paper=paper).count() == 2


def test_a_stale_page_saves_nothing(assigned):
    alice, paper = assigned
    sections, elements = all_ids(paper)
    save(paper, alice, sections=sections, elements=elements)
    with pytest.raises(StaleContext, match="Version 1 .* saved by alice"):
        save(paper, alice, sections=sections, elements=elements, latest_seen=None)
    assert CuratedContext.objects.count() == 1


def test_bad_input_is_refused_and_saves_nothing(assigned):
    alice, paper = assigned
    sections, elements = all_ids(paper)
    other = make_paper()
    _, foreign = all_ids(other)
    with pytest.raises(InvalidCuration, match="not part of this paper"):
        save(paper, alice, sections=sections, elements=elements | foreign)
    table = Element.objects.filter(paper=paper, kind="table").first()
    with pytest.raises(InvalidCuration, match="Only figures"):
        save(paper, alice, sections=sections, elements=elements, not_charts={table.pk})
    assert not CuratedContext.objects.exists()
    assert Assignment.objects.get(paper=paper).status == "assigned"


def test_only_the_assigned_expert_or_an_admin_may_curate(assigned):
    alice, paper = assigned
    bob = make_expert("bob")
    sections, elements = all_ids(paper)
    with pytest.raises(NotAssigned):
        save(paper, bob, sections=sections, elements=elements)
    context = save(paper, AdminFactory(), sections=sections, elements=elements)
    assert context.number == 1
    assignment_services.unassign(papers=[paper], by=None)
    with pytest.raises(NotAssigned):
        save(paper, alice, sections=sections, elements=elements, latest_seen=1)


def test_the_page_shows_the_proposal_then_the_saved_version(assigned):
    alice, paper = assigned
    page = curation_selectors.curation_page(paper)
    assert page.proposal_pending and page.shown is None
    assert [s.section.title for s in page.proposed] == [
        "Related Work",
        "Acknowledgments",
        "References",
        "Appendix A",
    ]
    assert page.proposed_inside == 1 and all(s.kept for s in page.sections)
    sections, elements = all_ids(paper)
    chart = Element.objects.filter(paper=paper, kind="chart", section__kind="body").first()
    save(paper, alice, sections=proposal(paper), elements=elements, not_charts={chart.pk})
    page = curation_selectors.curation_page(paper)
    assert not page.proposal_pending and page.shown.number == 1
    kept = {s.section.title: s.kept for s in page.sections}
    assert not kept["Related Work"] and kept["Method"]
    marks = {e.element.pk: e.not_a_chart for s in page.sections for e in s.elements}
    assert marks[chart.pk] and sum(marks.values()) == 1
    assert (page.counts.tables, page.counts.charts, page.counts.not_charts) == (2, 1, 1)


def test_reimporting_a_curated_paper_is_refused_and_keeps_the_work(import_corpus):
    paper = import_corpus()
    alice = make_expert("alice", ("cs.CL", "cs.CV", "cs.IR", "cs.RO", "cs.LG", "cs.CR", "cs.SE"))
    assignment_services.assign_papers(papers=[paper], experts=[alice], assigned_by=None)
    sections, elements = all_ids(paper)
    save(paper, alice, sections=sections, elements=elements)
    with pytest.raises(CommandError):
        import_corpus()
    context = CuratedContext.objects.get(paper=paper)
    assert context.element_states.count() == len(elements)
    assert set(Element.objects.filter(paper=paper).values_list("pk", flat=True)) == elements
