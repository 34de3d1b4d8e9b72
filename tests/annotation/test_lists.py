"""Lists that scale (issue 20): search, filters (active only by default) and pages on papers,
people, assignment, claim pairs and validation; "assign to one expert" offers only active
eligible experts; every message true to its settings."""

from __future__ import annotations

import io
import re

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command

from annotation.models import ExpertProfile, Publication, Subfield
from papers.models import Paper
from tests.annotation.factories import make_expert
from tests.annotation.review_factories import written_pair
from tests.factories import AdminFactory, UserFactory
from tests.validation.factories import Team, validated_pairs
from workspace.management.commands.setup_demo import sign_in_address

pytestmark = pytest.mark.django_db


@pytest.fixture
def admin(client):
    user = AdminFactory(username="boss")
    client.force_login(user)
    return user


def rows(html: str, attribute: str) -> list[str]:
    return re.findall(rf'{attribute}="([^"]+)"', html)


def test_people_shows_active_accounts_by_default_with_search_and_pages(client, admin):
    for n in range(55):
        make_expert(f"person{n:02d}", publications=0, trained=False)
    make_expert("retiree", active=False)
    UserFactory(username="gone", is_active=False)
    page = client.get("/manage/people/").content.decode()
    shown = rows(page, "data-user")
    assert len(shown) == 50 and "retiree" not in shown and "gone" not in shown
    assert "56 people" in page and "page 1 of 2" in page  # 55 and the admin
    second = rows(client.get("/manage/people/?page=2").content.decode(), "data-user")
    assert len(set(shown) | set(second)) == 56 and not set(shown) & set(second)
    assert rows(client.get("/manage/people/?q=person07").content.decode(), "data-user") == [
        "person07"
    ]
    inactive = rows(client.get("/manage/people/?show=inactive").content.decode(), "data-user")
    assert sorted(inactive) == ["gone", "retiree"]
    # The pager keeps the filters.
    assert 'href="?q=person&amp;page=2"' in client.get("/manage/people/?q=person").content.decode()
    assert client.get("/manage/people/?show=nonsense").status_code == 400


def test_papers_list_pages_searches_and_filters_for_admins(client, admin):
    for n in range(105):
        Paper.objects.create(arxiv_id=f"2501.{n:05d}", title=f"Paper number {n}", status="parsed")
    Paper.objects.create(arxiv_id="2501.99999", title="Refused one", status="rejected")
    page = client.get("/papers/").content.decode()
    assert len(rows(page, "data-paper")) == 100 and "106 papers" in page
    assert len(rows(client.get("/papers/?page=2").content.decode(), "data-paper")) == 6
    assert rows(client.get("/papers/?q=number 42").content.decode(), "data-paper") == [
        "2501.00042v1"
    ]
    assert rows(client.get("/papers/?status=rejected").content.decode(), "data-paper") == [
        "2501.99999v1"
    ]
    assert "No papers match these filters." in client.get("/papers/?q=zzz").content.decode()


def test_an_annotators_empty_papers_page_says_what_to_do_as_an_annotator(client):
    client.force_login(make_expert("newcomer"))
    page = client.get("/papers/").content.decode()
    assert "No papers are assigned to you yet" in page
    assert "import_arxiv_html" not in page and "manage.py" not in page


def test_assign_to_one_expert_offers_only_active_eligible_experts(client, admin):
    make_expert("able")
    make_expert("resting", active=False)
    make_expert("learner", trained=False)
    make_expert("vision", codes=("cs.CV",))
    page = client.get("/manage/assignments/").content.decode()
    offered = re.findall(r'<option value="\d+">([a-z]+) ·', page)
    assert offered == ["able", "vision"]  # eligible for at least one subfield
    page = client.get("/manage/assignments/?subfield=cs.CL").content.decode()
    assert re.findall(r'<option value="\d+">([a-z]+) ·', page) == ["able"]
    overview = rows(page, "data-expert")
    assert "resting" not in overview and "able" in overview
    assert "resting" in rows(
        client.get("/manage/assignments/?experts=all").content.decode(), "data-expert"
    )


def test_claim_pairs_search_and_filter(client, admin):
    writer = make_expert("writer")
    first = written_pair(writer, admin, seed=1)
    second = written_pair(writer, admin, seed=2)
    page = client.get("/manage/claims/").content.decode()
    assert set(rows(page, "data-pair")) == {first.key, second.key}
    found = client.get(f"/manage/claims/?q={first.paper.arxiv_id}").content.decode()
    assert rows(found, "data-pair") == [first.key]
    for subset in ("direct", "parallel", "sequential", "analytical"):
        shown = rows(client.get(f"/manage/claims/?subset={subset}").content.decode(), "data-pair")
        assert shown == [p.key for p in (second, first) if p.subset == subset]
    assert client.get("/manage/claims/?subset=visual").status_code == 400
    Paper.objects.filter(pk=first.paper_id).update(archived_at="2026-01-01T00:00Z")
    page = client.get("/manage/claims/").content.decode()
    assert rows(page, "data-pair") == [second.key]
    assert "1 claim pair of archived papers hidden" in page


def test_validation_list_searches_and_pages(client):
    team = Team(validators=1)
    pairs = validated_pairs(team, 2)
    client.force_login(team.admin)
    page = client.get("/manage/validation/").content.decode()
    assert len(rows(page, "data-claim")) == 4 and "4 validated claims" in page
    found = client.get(f"/manage/validation/?q={pairs[0].paper.arxiv_id}").content.decode()
    assert len(rows(found, "data-claim")) == 2
    assert client.get("/manage/validation/?q=%00").status_code == 400  # said, not ignored


@pytest.mark.parametrize(
    ("run_addr", "address"),
    [
        (None, "http://127.0.0.1:8000/"),
        ("8080", "http://127.0.0.1:8080/"),
        ("0.0.0.0:9000", "http://127.0.0.1:9000/"),
        ("localhost:8001", "http://localhost:8001/"),
        ("[::1]:8002", "http://[::1]:8002/"),
    ],
)
def test_setup_demo_prints_the_address_run_addr_serves(monkeypatch, run_addr, address):
    if run_addr is None:
        monkeypatch.delenv("RUN_ADDR", raising=False)
    else:
        monkeypatch.setenv("RUN_ADDR", run_addr)
    assert sign_in_address() == address


def test_setup_demo_output_names_run_addr(monkeypatch, settings, tmp_path):
    (tmp_path / "SAMPLES").write_text("")
    settings.SAMPLE_PAPERS_DIR = tmp_path
    monkeypatch.setenv("RUN_ADDR", "127.0.0.1:8123")
    out = io.StringIO()
    call_command("setup_demo", stdout=out)
    assert "sign in at http://127.0.0.1:8123/" in out.getvalue()
    assert ":8000" not in out.getvalue()


def test_a_long_publication_title_is_stored_whole_and_a_too_long_one_refused(client, admin):
    person = get_user_model().objects.create(username="scholar")
    title = "A " + "very " * 130 + "long title"  # 660 characters
    Subfield.ensure_sciver_subfields()
    code = Subfield.objects.get(code="cs.CL").pk
    form = {"title": title, "venue": "ACL", "year": 2024, "subfield": code}
    page = client.get(f"/manage/people/{person.pk}/").content.decode()
    assert 'maxlength="500"' not in page  # a browser would cut a pasted title there
    client.post(f"/manage/people/{person.pk}/publications/", form)
    assert Publication.objects.get(expert__user=person).title == title
    response = client.post(
        f"/manage/people/{person.pk}/publications/", form | {"title": "x" * 2001}
    )
    assert response.status_code == 400
    assert "This title has 2,001 characters; at most 2,000 are accepted" in (
        response.content.decode()
    )
    assert Publication.objects.filter(expert__user=person).count() == 1
    assert ExpertProfile.objects.filter(user=person).exists()
