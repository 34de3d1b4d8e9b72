"""The API's people routes: the People list and a person's page, assignment of papers (the
assignment page's form and services), and the figures admins watch (progress, agreement). A
refused input gets the page's own message; annotators get 403, no token 401."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.contrib.messages import get_messages
from django.test import Client
from django.urls import reverse

from annotation.models import Assignment, AssignmentStatus, PaperSubfield, Subfield
from tests.annotation.factories import make_expert, make_paper
from tests.annotation.review_factories import annotate, crew, written_pair
from tests.api.apiclient import Api
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def page(admin_api: Api) -> Client:
    """The same admin in a browser, to set a page's answer beside the API's."""
    client = Client()
    client.force_login(get_user_model().objects.get(username="api-admin"))
    return client


# --- Assignment ----------------------------------------------------------------------------


def test_papers_are_assigned_spread_unassigned_and_given_a_subfield(admin_api: Api):
    ann, bea = make_expert("ann"), make_expert("bea")
    papers = [make_paper() for _ in range(4)]
    ids = [p.pk for p in papers]

    answer = admin_api.post(
        "/api/assignments/", {"action": "assign", "papers": ids[:2], "expert": ann.pk}
    )
    assert answer.status == 200, answer.body
    body = answer.body
    assert body["action"] == "assign" and body["papers"] == ids[:2]
    assert body["by_expert"] == {"ann": 2} and body["reassigned"] == 0
    assert {(a["paper_id"], a["expert"]) for a in body["assigned"]} == {
        (ids[0], "ann"),
        (ids[1], "ann"),
    }
    assert {a["paper"] for a in body["assigned"]} == {p.versioned_id for p in papers[:2]}
    stored = Assignment.objects.filter(expert=ann, status=AssignmentStatus.ASSIGNED)
    assert {a.pk for a in stored} == {a["assignment_id"] for a in body["assigned"]}

    spread = admin_api.post(
        "/api/assignments/", {"action": "spread", "papers": ids[2:], "experts": [ann.pk, bea.pk]}
    ).body
    assert sum(spread["by_expert"].values()) == 2 and len(spread["assigned"]) == 2

    unassigned = admin_api.post("/api/assignments/", {"action": "unassign", "papers": ids[:1]})
    assert unassigned.status == 200 and unassigned.body["unassigned"] == 1
    assert unassigned.body["assigned"] == []
    assert not Assignment.objects.filter(paper=papers[0], status__in=Assignment.OPEN).exists()

    cv = Subfield.objects.get(code="cs.CV")
    chosen = admin_api.post(
        "/api/assignments/", {"action": "subfield", "papers": ids[:1], "subfield": cv.pk}
    ).body
    assert (chosen["subfield"], chosen["subfield_set"]) == ("cs.CV", 1)
    assert PaperSubfield.objects.get(paper=papers[0]).subfield == cv


def test_an_expert_the_services_refuse_is_a_conflict_and_nothing_changes(admin_api: Api):
    make_expert("ann")
    outsider = make_expert("cyd", ("cs.CV",))
    paper = make_paper(category="cs.CL")
    answer = admin_api.post(
        "/api/assignments/", {"action": "assign", "papers": [paper.pk], "expert": outsider.pk}
    )
    assert answer.status == 409, answer.body
    assert answer.body["message"] and "cyd" in answer.body["message"]
    assert not Assignment.objects.exists()


@pytest.mark.parametrize(
    ("fields", "papers"),
    [
        ({"action": "assign"}, "one"),
        ({"action": "spread"}, "one"),
        ({"action": "subfield"}, "one"),
        ({"action": "assign"}, "none"),
        ({"action": "teleport"}, "one"),
        ({"action": "assign", "expert": "1"}, "unknown"),
        ({"action": "assign", "expert": "0"}, "one"),
    ],
)
def test_a_refused_selection_gets_the_assignment_pages_messages(
    admin_api: Api, page: Client, fields: dict, papers: str
):
    make_expert("ann")
    paper = make_paper()
    data = {**fields, "papers": {"one": [str(paper.pk)], "none": [], "unknown": ["999999"]}[papers]}

    shown = page.post(reverse("annotation:assignments"), data)
    said = [str(m) for m in get_messages(shown.wsgi_request)]
    answer = admin_api.post("/api/assignments/", data)

    assert answer.status == 400 and answer.body["code"] == "invalid"
    assert said == [m for messages in answer.body["errors"].values() for m in messages]
    assert answer.body["message"] == said[0]
    field = next(iter(answer.body["errors"]))
    assert answer.body["field"] == ("" if field == "__all__" else field)
    assert not Assignment.objects.exists()


def test_the_missing_expert_is_named_by_its_field(admin_api: Api):
    paper = make_paper()
    answer = admin_api.post("/api/assignments/", {"action": "assign", "papers": [paper.pk]})
    assert answer.body["field"] == "expert"
    assert answer.body["message"] == "Choose the expert to assign the papers to."


# --- People --------------------------------------------------------------------------------


def test_people_are_listed_as_the_people_page_lists_them(admin_api: Api):
    ann = make_expert("ann", first_name="Ann", last_name="Lee")
    idle = make_expert("idle", active=False)
    plain = UserFactory(username="plain")
    paper = make_paper()
    Assignment.objects.create(paper=paper, expert=ann)

    answer = admin_api.get("/api/people/")
    assert answer.status == 200
    rows = {row["username"]: row for row in answer.body["results"]}
    assert "idle" not in rows and {"ann", "plain", "api-admin"} <= set(rows)
    row = rows["ann"]
    assert (row["id"], row["first_name"], row["last_name"]) == (ann.pk, "Ann", "Lee")
    assert row["eligible"] == ["cs.CL"] and row["open_workload"] == 1
    assert row["has_profile"] and row["profile_active"] and not row["archived"]
    assert row["url"] == f"http://testserver/api/people/{ann.pk}/"
    assert rows["plain"]["has_profile"] is False and rows["plain"]["eligible"] == []
    assert rows["plain"]["id"] == plain.pk

    def names(**params) -> set[str]:
        return {r["username"] for r in admin_api.get("/api/people/", params).body["results"]}

    assert names(show="inactive") == {idle.username}
    assert names(q="lee") == {"ann"}
    assert names(show="all", q="i") >= {"idle", "plain"}


@pytest.mark.parametrize("params", [{"show": "everyone"}, {"q": "x" * 201}])
def test_a_bad_people_filter_gets_the_people_pages_message(admin_api: Api, page: Client, params):
    shown = page.get(reverse("annotation:people"), params)
    assert shown.status_code == 400
    form = shown.context["filters"]
    errors = {name: list(messages) for name, messages in form.errors.items()}
    answer = admin_api.get("/api/people/", params)
    assert answer.status == 400 and answer.body["errors"] == errors
    field, messages = next(iter(errors.items()))
    assert (answer.body["field"], answer.body["message"]) == (field, messages[0])


def test_a_persons_page(admin_api: Api):
    ann = make_expert("ann", ("cs.CL", "cs.CV"), publications=2, email="ann@example.org")
    Assignment.objects.create(paper=make_paper(), expert=ann)
    answer = admin_api.get(f"/api/people/{ann.pk}/")
    assert answer.status == 200
    body = answer.body
    assert (body["username"], body["email"], body["is_active"]) == ("ann", "ann@example.org", True)
    assert body["active_expert"] is True and body["open_workload"] == 1
    assert body["profile"]["active"] is True and set(body["profile"]["subfields"]) == {
        "cs.CL",
        "cs.CV",
    }
    eligibility = {s["code"]: s for s in body["subfields"]}
    assert eligibility["cs.CL"]["eligible"] is True and eligibility["cs.CL"]["publications"] == 2
    ro = eligibility["cs.RO"]
    assert ro["eligible"] is False and "cs.RO is not among their subfields" in ro["reasons"]
    assert len(body["publications"]) == 4
    assert {p["subfield"] for p in body["publications"]} == {"cs.CL", "cs.CV"}
    assert [t["trainer"] for t in body["training"]] == ["t"]
    assert body["page_url"] == f"http://testserver/manage/people/{ann.pk}/"

    plain = UserFactory(username="plain")
    body = admin_api.get(f"/api/people/{plain.pk}/").body
    assert body["profile"] is None and body["active_expert"] is False
    assert all(not s["eligible"] for s in body["subfields"])
    assert admin_api.get("/api/people/999999/").status == 404


# --- Progress and agreement ----------------------------------------------------------------


def test_progress_counts_each_stage(admin_api: Api):
    people = crew("alice", "bob")
    written_pair(people["alice"], people["boss"])
    make_paper()  # waits for an expert
    answer = admin_api.get("/api/progress/")
    assert answer.status == 200
    body = answer.body
    assert body["papers"]["parsed"] == 2 and body["papers"]["archived"] == 0
    cl = next(s for s in body["assignment"]["subfields"] if s["code"] == "cs.CL")
    assert cl["waiting"] == 1 and cl["eligible_experts"] == ["alice", "bob"]
    alice = next(e for e in body["assignment"]["experts"] if e["username"] == "alice")
    assert alice["claim_pairs"] == 1 and alice["eligible"] == ["cs.CL"]
    assert body["writing"]["writers"] == [{"username": "alice", "pairs": 1, "held": 0}]
    assert body["writing"]["counts"]["done"] == 1
    assert body["review"]["states"]["second"] == 2
    assert body["validation"]["validated"] == 0 and body["validation"]["splittable"] == 0


def test_agreement_is_given_as_numbers(admin_api: Api):
    people = crew("alice", "bob", "carol")
    written_pair(people["alice"], people["boss"])
    annotate(people["bob"])
    annotate(people["carol"], flip=True)

    answer = admin_api.get("/api/agreement/")
    assert answer.status == 200
    body = answer.body
    overall = body["overall"]
    assert (overall["items"], overall["label_complete"]) == (2, 2)
    assert overall["label_percent"] == 0.5
    assert overall["evidence_mean_jaccard"] == 1.0
    assert overall["label_disagreements"] == 1 and overall["agreed"] == 1
    pairs = {r["value"]: r for r in body["groups"]["annotator_pair"]}
    assert set(pairs) == {"alice+bob", "alice+carol"}
    assert pairs["alice+bob"]["label_percent"] == 1.0
    assert pairs["alice+carol"]["label_percent"] == 0.0
    assert sum(r["items"] for r in body["groups"]["subset"]) == 2
    assert body["adjudication"]["compared_claims"] == 2
    assert body["progress"][-1]["written"] == 1 and body["progress"][-1]["annotated"] == 2
    assert body["archived_papers"] == 0


# Who may call them: tests/api/test_api_permissions.py (every route, every role).


def test_the_schema_documents_each_routes_answer(admin_api: Api):
    paths = Client().get("/api/schema/", {"format": "json"}).json()["paths"]
    expected = {
        ("/api/people/", "get"): "PaginatedPersonList",
        ("/api/people/{user_id}/", "get"): "PersonDetail",
        ("/api/assignments/", "post"): "AssignmentDone",
        ("/api/progress/", "get"): "ProgressFigures",
        ("/api/agreement/", "get"): "Agreement",
    }
    for (route, method), component in expected.items():
        answer = paths[route][method]["responses"]["200"]
        ref = answer["content"]["application/json"]["schema"]["$ref"]
        assert ref == f"#/components/schemas/{component}", route
    body = paths["/api/assignments/"]["post"]["requestBody"]["content"]["application/json"]
    assert body["schema"]["$ref"] == "#/components/schemas/AssignmentActionRequest"
