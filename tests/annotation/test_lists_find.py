"""Lists that find what admins type (issue 44, item 7): the claims list searches claim text,
People offers the inactive people a search matches, and *Allow someone* on the validation
overview offers only the experts who may take the item, preselecting nobody."""

from __future__ import annotations

import re

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from annotation.models import EvidenceAnnotation
from annotation.queue import work
from tests.annotation.factories import make_expert
from tests.annotation.review_factories import written_pair
from tests.factories import AdminFactory, UserFactory
from tests.validation.factories import Team, distinct_claims, final_pair

pytestmark = pytest.mark.django_db


def rows(html: str, attribute: str) -> list[str]:
    return re.findall(rf'{attribute}="([^"]+)"', html)


def test_the_claims_list_searches_the_entailed_and_the_refuted_claims_text(client):
    admin = AdminFactory(username="boss")
    writer = make_expert("writer")
    first = written_pair(writer, admin, seed=1, **distinct_claims(1))  # GateDepth: 41.7, 31.3
    second = written_pair(writer, admin, seed=2, **distinct_claims(2))  # ListKD: 43.4, 32.6
    client.force_login(admin)
    found = client.get("/manage/claims/?q=gatedepth").content.decode()  # any case
    assert rows(found, "data-pair") == [first.key]
    assert "GateDepth scores 41.7 AbsRel on KITTI" in found  # the claims that matched, shown
    refuted_only = client.get("/manage/claims/?q=32.6 ndcg").content.decode()
    assert rows(refuted_only, "data-pair") == [second.key]  # 32.6 is only in the refuted claim
    both = client.get("/manage/claims/?q=which is higher than").content.decode()
    assert set(rows(both, "data-pair")) == {first.key, second.key}

    # Bounded: the text search costs the same queries for one matching pair as for two.
    with CaptureQueriesContext(connection) as one:
        client.get("/manage/claims/?q=gatedepth")
    with CaptureQueriesContext(connection) as two:
        client.get("/manage/claims/?q=which is higher than")
    assert len(one) == len(two)


def test_people_search_offers_the_inactive_and_archived_people_it_matches(client):
    admin = AdminFactory(username="boss")
    make_expert("carla-resting", active=False)
    UserFactory(username="carla-gone", is_active=False)
    make_expert("dora")
    client.force_login(admin)
    page = client.get("/manage/people/?q=carla").content.decode()
    assert rows(page, "data-user") == []
    assert "Nobody matches these filters." in page
    assert "But 2 inactive people match:" in page
    assert 'href="?q=carla&amp;show=all" id="show-elsewhere">show them</a>' in page
    shown = rows(client.get("/manage/people/?q=carla&show=all").content.decode(), "data-user")
    assert sorted(shown) == ["carla-gone", "carla-resting"]
    nothing = client.get("/manage/people/?q=zelda").content.decode()
    assert "Nobody matches" in nothing and "show-elsewhere" not in nothing


@pytest.fixture
def waiting_validation():
    """A validation nobody eligible may take: third (who annotated the other claim) is
    disabled, second annotated this claim, writer wrote the pair."""
    team = Team(validators=0)
    pair, _ = final_pair(team)
    team.third.is_active = False
    team.third.save(update_fields=["is_active"])
    claim_id = EvidenceAnnotation.objects.get(claim__pair=pair, annotator=team.second).claim_id
    _, waiting = work.waiting_items(kind="validate")
    assert [w.item.claim_id for w in waiting] == [claim_id]
    return team, waiting[0].item


def waiting_row(page: str, item_key: str) -> str:
    table = re.search(r'<table class="grid" id="waiting">.*?</table>', page, re.S).group(0)
    return next(row for row in table.split("<tr") if f"· {item_key}</td>" in row)


def allow_options(page: str, item_key: str) -> list[str]:
    row = waiting_row(page, item_key)
    return re.findall(r"<option value=\"\d*\"[^>]*>([^<]+)</option>", row)


def test_allow_someone_offers_only_who_may_take_it_and_preselects_nobody(
    client, waiting_validation
):
    team, item = waiting_validation
    make_expert("vision", codes=("cs.CV",))  # never saw the pair
    client.force_login(team.admin)
    page = client.get("/manage/validation/").content.decode()
    assert allow_options(page, item.key) == ["choose who may take it", "vision"]
    assert '<option value="" selected>' in page and " selected>writer" not in page
    assert "writer: wrote the pair" in page and "second: annotated this claim" in page
    for expert in (team.writer, team.second):  # what the list leaves out, the server refuses
        assert work.refusal_for(item, expert.pk)

    response = client.post(
        f"/manage/review/items/{item.key}/allow/",
        {"expert": team.writer.pk, "note": "no one else"},
        follow=True,
    )
    assert "writer may not take this item: they wrote the pair." in response.content.decode()
    item.refresh_from_db()
    assert item.assignee_id is None
    response = client.post(f"/manage/review/items/{item.key}/allow/", {"note": "x"}, follow=True)
    assert f"Nobody was allowed to take item {item.key}: choose an expert." in (
        response.content.decode()
    )


def test_allow_someone_says_when_nobody_may_take_it(client, waiting_validation):
    team, item = waiting_validation
    client.force_login(team.admin)
    page = client.get("/manage/validation/").content.decode()
    row = waiting_row(page, item.key)
    assert "Nobody may take it" in row and "<select" not in row


def test_the_review_overviews_allow_offers_only_who_may_take_the_blind_item(client):
    """A blind annotation nobody of its subfield may take (its writer is its only expert): the
    review overview offers the expert who never saw the pair, not its writer, and no one
    preselected."""
    admin = AdminFactory(username="boss")
    writer = make_expert("writer")
    written_pair(writer, admin, seed=1)
    _, waiting = work.waiting_items(kind="evidence")
    item = waiting[0].item
    make_expert("vision", codes=("cs.CV",))
    client.force_login(admin)
    page = client.get("/manage/review/").content.decode()
    row = next(r for r in page.split("<tr") if f'data-item="{item.key}"' in r)
    offered = re.findall(r"<option value=\"\d*\"[^>]*>([^<]+)</option>", row)
    assert offered == ["choose who may take it", "vision"]
    assert '<option value="" selected>' in row and "writer: wrote the pair" in row
