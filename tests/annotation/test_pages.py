"""The pages through HTTP: workspace, assignment, people, curation; escaping; query counts."""

from __future__ import annotations

import re

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from annotation.assignment import services as assignment_services
from annotation.curation import services as curation_services
from annotation.models import Assignment, CuratedContext, PaperSubfield, Publication, Subfield
from papers.models import Element, Section
from tests.annotation.factories import all_ids, make_expert, make_paper
from tests.corpus import corpus_folders, largest_corpus_folder
from tests.factories import AdminFactory

pytestmark = pytest.mark.django_db


def html(response) -> str:
    return response.content.decode()


def test_workspace_lists_papers_to_curate_and_curated_with_progress(client):
    alice = make_expert("alice", ("cs.CL",))
    first, second = make_paper(title="First paper"), make_paper(title="Second paper")
    assignment_services.assign_papers(papers=[first, second], experts=[alice], assigned_by=None)
    sections, elements = all_ids(first)
    curation_services.save_curated_context(
        paper=first,
        user=alice,
        kept_section_ids=sections,
        kept_element_ids=elements,
        not_chart_ids=(),
        latest_seen=None,
    )
    client.force_login(alice)
    page = html(client.get("/"))
    to_curate = page.split('id="to-curate"')[1].split('id="curated"')[0]
    curated = page.split('id="curated"')[1].split('id="eligibility"')[0]
    assert "Second paper" in to_curate and "First paper" not in to_curate
    assert "First paper" in curated and "v1" in curated and "ready for claims" in curated
    assert '<progress value="1" max="2"' in page and "50% of your papers curated" in page
    assert "cs.CL" in page.split('id="eligibility"')[1]
    assert "admin-summary" not in page


def test_workspace_says_why_someone_is_not_eligible(client):
    dave = make_expert("dave", ("cs.IR",), publications=1, trained=False)
    client.force_login(dave)
    page = html(client.get("/"))
    assert "not eligible: 1 of 2 required publications in cs.IR; training not completed" in page


def test_admin_home_shows_papers_waiting_per_subfield(client):
    make_paper(category="cs.CL")
    make_paper(category="math.OC")
    make_expert("alice", ("cs.CL",))
    client.force_login(AdminFactory())
    page = html(client.get("/")).split('id="admin-summary"')[1]
    assert "cs.CL" in page and "alice" in page and "math.OC" in page


def test_assignment_page_assigns_and_shows_the_overview(client):
    alice = make_expert("alice", ("cs.CL",))
    make_expert("bob", ("cs.CV",))
    paper = make_paper(category="cs.CL", acceptance="accepted")
    make_paper(category="cs.CV")
    client.force_login(AdminFactory())
    page = html(client.get("/manage/assignments/?subfield=cs.CL"))
    assert paper.versioned_id in page and page.count('name="papers"') == 1
    # Only active experts eligible for the subfield are offered (issue 20): bob (cs.CV) is not.
    options = page.split('id="id_expert"')[1].split("</select>")[0]
    assert f'value="{alice.pk}"' in options and "bob" not in options
    assert 'data-expert="bob"' in page  # the overview still lists him
    response = client.post(
        "/manage/assignments/",
        {
            "action": "assign",
            "papers": [paper.pk],
            "expert": alice.pk,
            "next": "/manage/assignments/?subfield=cs.CL",
        },
    )
    assert response.status_code == 302 and response.url == "/manage/assignments/?subfield=cs.CL"
    assert Assignment.objects.get().expert == alice
    page = html(client.get(response.url))
    assert "Assigned 1 paper(s): alice: 1." in page
    row = page.split('data-expert="alice"')[1].split("</tr>")[0]
    assert [c.split(">")[-1] for c in row.split("</td>")[2:6]] == ["1", "1", "0", "0"]


def test_assignment_page_shows_the_reason_when_refused(client):
    bob = make_expert("bob", ("cs.CL",), trained=False)
    paper = make_paper(category="cs.CL")
    client.force_login(AdminFactory())
    response = client.post(
        "/manage/assignments/",
        {"action": "assign", "papers": [paper.pk], "expert": bob.pk},
        follow=True,
    )
    assert "Nothing was changed. bob cannot take 1 of the selected papers" in html(response)
    assert "training not completed" in html(response)
    assert not Assignment.objects.exists()
    response = client.post(
        "/manage/assignments/", {"action": "assign", "expert": bob.pk}, follow=True
    )
    assert "Select at least one paper." in html(response)


def test_assignment_page_spreads_unassigns_and_sets_subfields(client):
    alice, bob = make_expert("alice"), make_expert("bob")
    papers = [make_paper() for _ in range(4)]
    client.force_login(AdminFactory())
    ids = [p.pk for p in papers]
    client.post(
        "/manage/assignments/", {"action": "spread", "papers": ids, "experts": [alice.pk, bob.pk]}
    )
    assert sorted(Assignment.objects.values_list("expert__username", flat=True)) == [
        "alice",
        "alice",
        "bob",
        "bob",
    ]
    client.post("/manage/assignments/", {"action": "unassign", "papers": ids[:1]})
    assert Assignment.objects.filter(status="unassigned").count() == 1
    cv = Subfield.objects.get(code="cs.CV")
    client.post(
        "/manage/assignments/", {"action": "subfield", "papers": ids[:2], "subfield": cv.pk}
    )
    assert PaperSubfield.objects.filter(subfield=cv).count() == 2
    page = html(client.get("/manage/assignments/?subfield=cs.CV"))
    assert page.count('name="papers"') == 2


def test_assignment_filters(client):
    make_paper(category="cs.CL", acceptance="accepted")
    make_paper(category="cs.CL", layout=[("body", "Only", None, "pt")])
    client.force_login(AdminFactory())
    assert html(client.get("/manage/assignments/?min_tables=2")).count('name="papers"') == 1
    assert html(client.get("/manage/assignments/?acceptance=accepted")).count('name="papers"') == 1
    assert html(client.get("/manage/assignments/?state=curated")).count('name="papers"') == 0
    assert html(client.get("/manage/assignments/?q=synthetic")).count('name="papers"') == 2


def test_people_pages_record_profile_publications_and_training(client):
    admin = AdminFactory()
    erin = make_expert("erin", (), publications=0, trained=False)
    client.force_login(admin)
    cl = Subfield.objects.get(code="cs.CL")
    assert (
        "cs.CL"
        not in html(client.get("/manage/people/")).split('data-user="erin"')[1].split("</tr>")[0]
    )
    client.post(f"/manage/people/{erin.pk}/profile/", {"subfields": [cl.pk], "active": "on"})
    for n in range(2):
        response = client.post(
            f"/manage/people/{erin.pk}/publications/",
            {"title": f"Work {n}", "venue": "ACL", "year": 2023, "subfield": cl.pk},
        )
        assert response.status_code == 302
    page = html(client.get(f"/manage/people/{erin.pk}/"))
    assert "training not completed" in page
    client.post(
        f"/manage/people/{erin.pk}/training/", {"completed_on": "2024-11-02", "trainer": "Ann"}
    )
    page = html(client.get(f"/manage/people/{erin.pk}/"))
    assert "✓ eligible" in page.split('data-subfield="cs.CL"')[1].split("</tr>")[0]
    assert "Completed 2024-11-02 with Ann" in page
    row = html(client.get("/manage/people/")).split('data-user="erin"')[1].split("</tr>")[0]
    assert "cs.CL" in row


def test_bad_expert_input_shows_errors_and_keeps_data(client):
    erin = make_expert("erin", ("cs.CL",), publications=1)
    client.force_login(AdminFactory())
    response = client.post(
        f"/manage/people/{erin.pk}/publications/",
        {"title": "Kept title", "venue": "", "year": 1800, "subfield": ""},
    )
    assert response.status_code == 400
    page = html(response)
    assert 'value="Kept title"' in page and "Venue: This field is required." in page
    assert Publication.objects.filter(expert__user=erin).count() == 1
    response = client.post(
        f"/manage/people/{erin.pk}/training/", {"completed_on": "2999-01-01", "trainer": "x"}
    )
    assert response.status_code == 400 and "once it has taken place" in html(response)
    # Every id on the expert's page is unique (two forms have a notes field).
    ids = re.findall(r'\sid="([^"]+)"', html(client.get(f"/manage/people/{erin.pk}/")))
    assert ids and len(ids) == len(set(ids)), sorted(i for i in ids if ids.count(i) > 1)


def test_curation_page_shows_the_context_and_saves_a_version(client):
    alice = make_expert("alice")
    paper = make_paper()
    assignment_services.assign_papers(papers=[paper], experts=[alice], assigned_by=None)
    client.force_login(alice)
    page = html(client.get(f"/curate/{paper.versioned_id}/"))
    assert (
        "Accept proposal" in page
        and "Remove these 4 sections (and the 1 subsection inside)" in page
    )
    assert page.count('name="keep_section"') == Section.objects.filter(paper=paper).count()
    assert page.count('name="not_chart"') == paper.chart_count
    sections, elements = all_ids(paper)
    keep = set(Section.objects.filter(paper=paper, kind="body").values_list("pk", flat=True))
    chart = Element.objects.filter(paper=paper, kind="chart", section__kind="body").first()
    response = client.post(
        f"/curate/{paper.versioned_id}/",
        {
            "keep_section": sorted(keep),
            "keep": sorted(elements),
            "not_chart": [chart.pk],
            "latest_seen": "",
            "note": "first",
        },
        follow=True,
    )
    page = html(response)
    assert "Saved context v1: 2 tables and 1 charts kept, ready for claims." in page
    assert f'name="not_chart" value="{chart.pk}" checked' in page
    assert "Accept proposal" not in page and "Save as version 2" in page
    table = Element.objects.filter(paper=paper, kind="table").first()
    fragment = html(client.get(f"/curate/{paper.versioned_id}/tables/{table.pk}/"))
    assert "<table><tr><td>1</td></tr></table>" in fragment


def test_a_stale_save_keeps_the_choices_on_the_page(client):
    alice = make_expert("alice")
    paper = make_paper()
    assignment_services.assign_papers(papers=[paper], experts=[alice], assigned_by=None)
    sections, elements = all_ids(paper)
    curation_services.save_curated_context(
        paper=paper,
        user=AdminFactory(username="boss"),
        kept_section_ids=sections,
        kept_element_ids=elements,
        not_chart_ids=(),
        latest_seen=None,
    )
    client.force_login(alice)
    dropped = Element.objects.filter(paper=paper, kind="table").first()
    response = client.post(
        f"/curate/{paper.versioned_id}/",
        {
            "keep_section": sorted(sections),
            "keep": sorted(elements - {dropped.pk}),
            "latest_seen": "",
            "note": "my note",
        },
    )
    assert response.status_code == 409
    page = html(response)
    assert "saved by boss since you opened the page" in page and "my note" in page
    assert f'name="keep" value="{dropped.pk}" aria-label' in page  # unchecked, as she left it
    assert CuratedContext.objects.count() == 1
    response = client.post(f"/curate/{paper.versioned_id}/", {"keep": ["abc"], "latest_seen": "1"})
    assert response.status_code == 400 and "invalid item id" in html(response)


def test_an_older_version_can_be_shown(client):
    alice = make_expert("alice")
    paper = make_paper()
    assignment_services.assign_papers(papers=[paper], experts=[alice], assigned_by=None)
    sections, elements = all_ids(paper)
    for seen, note in ((None, ""), (1, "second look")):  # a new note makes a new version
        curation_services.save_curated_context(
            paper=paper,
            user=alice,
            kept_section_ids=sections,
            kept_element_ids=elements,
            not_chart_ids=(),
            latest_seen=seen,
            note=note,
        )
    client.force_login(alice)
    page = html(client.get(f"/curate/{paper.versioned_id}/?version=1"))
    assert "Showing v1; the latest is v2" in page and 'name="latest_seen" value="2"' in page
    assert client.get(f"/curate/{paper.versioned_id}/?version=7").status_code == 400


def test_text_from_arxiv_and_users_is_escaped(client):
    evil = "<script>alert(1)</script>"
    alice = make_expert("alice")
    paper = make_paper(title=f"Title {evil}")
    Element.objects.filter(paper=paper, kind="paragraph").update(text=f"Para {evil}")
    Section.objects.filter(paper=paper).update(title=f"Sec {evil}")
    assignment_services.assign_papers(papers=[paper], experts=[alice], assigned_by=None, note=evil)
    Publication.objects.create(
        expert=alice.expert,
        title=f"Pub {evil}",
        venue=evil,
        year=2023,
        subfield=Subfield.objects.get(code="cs.CL"),
    )
    client.force_login(alice)
    pages = [html(client.get("/")), html(client.get(f"/curate/{paper.versioned_id}/"))]
    client.force_login(AdminFactory())
    pages += [
        html(client.get("/manage/assignments/")),
        html(client.get(f"/manage/people/{alice.pk}/")),
    ]
    for page in pages:
        assert evil not in page and "&lt;script&gt;" in page


@pytest.mark.parametrize("size", ["largest corpus paper", "synthetic 400 elements"])
def test_curation_page_runs_a_constant_number_of_queries(
    client, import_corpus, django_assert_max_num_queries, size
):
    alice = make_expert("alice", ("cs.CL", "cs.CV", "cs.RO", "cs.LG", "cs.IR", "cs.CR", "cs.SE"))
    small = import_corpus(min(corpus_folders(), key=lambda f: (f / "paper.html").stat().st_size))
    if size == "largest corpus paper":
        big = import_corpus(largest_corpus_folder())
    else:
        layout = [("body", f"S{i}", None, "ppptpc") for i in range(65)] + [
            ("appendix", "A", None, "pt")
        ]
        big = make_paper(category="cs.CL", layout=layout)
    assignment_services.assign_papers(papers=[small, big], experts=[alice], assigned_by=None)
    for paper in (small, big):  # with a saved version too: its decisions are read as well
        sections, elements = all_ids(paper)
        curation_services.save_curated_context(
            paper=paper,
            user=alice,
            kept_section_ids=sections,
            kept_element_ids=elements,
            not_chart_ids=(),
            latest_seen=None,
        )
    client.force_login(alice)
    counts = []
    for paper in (small, big):
        with CaptureQueriesContext(connection) as queries:
            assert client.get(f"/curate/{paper.versioned_id}/").status_code == 200
        counts.append(len(queries))
    assert counts[0] == counts[1], counts
    with django_assert_max_num_queries(12):
        response = client.get(f"/curate/{big.versioned_id}/")
    assert (
        response.content.decode().count('name="keep"') == Element.objects.filter(paper=big).count()
    )


def _queries(client, url: str) -> int:
    with CaptureQueriesContext(connection) as queries:
        assert client.get(url).status_code == 200
    return len(queries)


def test_workspace_assignment_and_people_pages_do_not_grow_with_the_data(client):
    admin = AdminFactory()
    client.force_login(admin)
    urls = ["/", "/manage/assignments/", "/manage/people/", "/manage/assignments/?subfield=cs.CL"]

    def grow(n: int) -> None:
        experts = [make_expert(codes=("cs.CL", "cs.CV")) for _ in range(n)]
        papers = [make_paper() for _ in range(2 * n)]
        assignment_services.assign_papers(papers=papers, experts=experts, assigned_by=admin)
        for paper in papers[:n]:
            sections, elements = all_ids(paper)
            curation_services.save_curated_context(
                paper=paper,
                user=admin,
                kept_section_ids=sections,
                kept_element_ids=elements,
                not_chart_ids=(),
                latest_seen=None,
            )

    grow(2)
    before = [_queries(client, url) for url in urls]
    grow(6)
    assert [_queries(client, url) for url in urls] == before
    expert = make_expert("queue", codes=("cs.CL",))
    client.force_login(expert)
    assignment_services.assign_papers(papers=[make_paper()], experts=[expert], assigned_by=None)
    before = _queries(client, "/")
    assignment_services.assign_papers(
        papers=[make_paper() for _ in range(5)], experts=[expert], assigned_by=None
    )
    assert _queries(client, "/") == before
