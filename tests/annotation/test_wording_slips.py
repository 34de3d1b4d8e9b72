"""Wrong or internal words (issue 44, item 8), each where a person met it: an ordinary
adjudication said "reopened after 1 unresolved adjudication" (it counted itself); a writer who
left both claims empty read "Write the claim." twice; the flag page named "Table Table 1"; the
Django admin listed "Flag fixs"; a bad crawl category was not said beside its field; the
workspace said "Validations 0" beside "Continue validating"; the releases pages showed the
server's absolute folder."""

from __future__ import annotations

import uuid
from pathlib import Path

import pytest
from django.test import Client

from annotation.assignment import services as assignment_services
from annotation.models import WorkItem, WorkKind
from annotation.review import services as review
from annotation.writing import services as writing
from guidelines import services as guidelines
from papers.models import Element
from tests.annotation.claim_factories import curated_paper
from tests.annotation.factories import make_expert
from tests.annotation.review_factories import adjudicate, annotate, crew, written_pair
from tests.factories import AdminFactory
from tests.validation.factories import Team, final_pair
from validation import services as validation

pytestmark = pytest.mark.django_db


def _client(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def test_an_adjudication_counts_only_the_unresolved_ones_before_it():
    c = crew("alice", "bob", "carol", "dave", "erin")
    written_pair(c["alice"], c["boss"])
    annotate(c["bob"])
    disputed = annotate(c["carol"], flip=True)
    unresolved = adjudicate(
        c["dave"], decision="unresolved", label="", evidence_ids=[], notes="No rule says."
    )
    page = _client(c["dave"]).get(f"/review/adjudicate/{unresolved.key}/").content.decode()
    assert "reopened after" not in page  # the first adjudication, seen after it was recorded

    review.reopen_unresolved(claim=disputed.claim, by=c["boss"], note="try erin")
    second = review.take_next(user=c["erin"], kind=WorkKind.ADJUDICATE)
    erin = _client(c["erin"])
    before = erin.get(f"/review/adjudicate/{second.key}/").content.decode()
    assert "reopened after 1 unresolved adjudication" in before
    assert "reopened after 2" not in before


def test_both_empty_claims_are_each_named():
    alice, admin = make_expert("alice"), AdminFactory(username="boss")
    paper, _ = curated_paper(admin)
    assignment_services.assign_papers(papers=[paper], experts=[alice], assigned_by=admin)
    writing.create_claim_tasks(paper=paper, by=alice, count=1, seed=7)
    client = _client(alice)
    client.post("/claims/next/")
    item = WorkItem.objects.get(holder=alice)
    data = {"version": item.version, "token": str(uuid.uuid4()), "entailed": "", "refuted": ""}
    page = client.post(f"/claims/write/{item.key}/", data).content.decode()
    assert "Write the entailed claim." in page and "Write the refuted claim." in page
    assert "Write the claim." not in page


def test_the_flag_page_names_a_table_once_and_the_admin_says_flag_fixes():
    c = crew("writer", "second")
    written_pair(c["writer"], c["boss"])
    item = review.take_next(user=c["second"], kind=WorkKind.BLIND)
    table = Element.objects.filter(paper=item.paper, kind="table").exclude(label="").first()
    assert table.label.startswith("Table ")
    flag = guidelines.raise_flag(
        user=c["second"], kind="extraction", note="Cut off.", item=item, element_id=table.pk
    )
    admin = _client(c["boss"])
    page = admin.get(f"/flags/{flag.pk}/").content.decode()
    assert f'<h2 id="element-name">{table.label}</h2>' in page
    assert "Table Table" not in page
    index = admin.get("/admin/").content.decode()
    assert "Flag fixes" in index and "fixs" not in index


def test_a_bad_crawl_category_is_said_once_beside_its_field():
    client = _client(AdminFactory())
    form = {
        "date_from": "2024-10-01",
        "date_to": "2024-10-02",
        "categories": ["cs.CL"],
        "other_categories": "cs.LG, bogus!, bogus!",
        "min_tables": "2",
        "min_charts": "2",
    }
    page = client.post("/crawl/", form).content.decode()
    assert 'id="err-other-categories"' in page
    assert page.count("not arXiv categories") == 1 and page.count("bogus!,") == 1  # the input


def test_the_workspace_counts_the_held_validation():
    team = Team()
    final_pair(team)
    validator = team.validators[0]
    validation.take_next(user=validator)  # one claim held, one waiting
    page = _client(validator).get("/").content.decode()
    assert "Continue validating" in page
    assert 'id="validations-count">2<' in page  # the held claim and the waiting one


def test_the_releases_pages_show_no_absolute_server_folder(settings, tmp_path):
    from validation.templatetags.release_paths import release_path

    settings.RELEASE_DIR = tmp_path / "releases"
    assert release_path(str(tmp_path / "releases" / "v1")) == "v1"
    assert release_path("/srv/elsewhere/v2") == "v2"
    assert str(Path(settings.RELEASE_DIR)) not in release_path(str(tmp_path / "releases" / "v1"))
