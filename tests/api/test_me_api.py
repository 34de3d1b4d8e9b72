"""The signed-in person's own routes: `me/` counts what their workspace home counts, and
`me/items/` lists the work items they finished and nothing else: not another annotator's items,
no claim text, no label, no evidence (a blind annotator must not learn the first one's answer)."""

from __future__ import annotations

import json
import re

import pytest

from annotation.assignment import services as assignment_services
from annotation.models import WorkItem, WorkKind
from annotation.queue import work
from annotation.review import services as review
from annotation.writing import services as writing
from tests.annotation.claim_factories import curated_paper, submit
from tests.api.apiclient import Api
from tests.validation.factories import Team, add_images, second_annotate

pytestmark = pytest.mark.django_db

ITEM_FIELDS = {"kind", "key", "finished", "paper", "paper_version"}


class HalfAnnotated:
    """A written pair: annotator A (`second`) has labelled one claim blind, annotator B
    (`third`) holds the other claim's blind item, not yet answered."""

    def __init__(self) -> None:
        self.team = team = Team()
        self.paper, _ = curated_paper(team.admin)
        assignment_services.assign_papers(
            papers=[self.paper], experts=[team.writer], assigned_by=team.admin
        )
        add_images(self.paper)
        writing.create_claim_tasks(paper=self.paper, by=team.writer, count=1, seed=1)
        self.write_item = work.next_item(user=team.writer, kind="write")
        self.pair = submit(self.write_item, team.writer)
        self.a_item = review.take_next(user=team.second, kind="evidence")
        claim = self.a_item.claim
        evidence = list(claim.evidence.values_list("pk", flat=True))
        second_annotate(self.a_item, team.second, label=claim.label, evidence=evidence)
        self.b_item = review.take_next(user=team.third, kind="evidence")


@pytest.fixture
def world() -> HalfAnnotated:
    return HalfAnnotated()


def _stage(body: dict, kind: str) -> dict:
    return next(s for s in body["stages"] if s["kind"] == kind)


def test_annotator_b_sees_only_their_own_items_and_nothing_of_as_answer(world):
    team = world.team
    a, b = Api.for_user(team.second), Api.for_user(team.third)
    assert world.b_item.claim_id != world.a_item.claim_id  # the pair's other claim

    mine = a.get("/api/me/items/")
    assert mine.status == 200
    assert [(i["kind"], i["key"]) for i in mine.body["results"]] == [
        (WorkKind.BLIND, world.a_item.key)
    ]
    item = mine.body["results"][0]
    assert set(item) == ITEM_FIELDS
    assert item["paper"] == world.paper.arxiv_id and item["finished"]

    theirs = b.get("/api/me/items/")
    assert theirs.status == 200 and theirs.body["results"] == []
    b_me = b.get("/api/me/")
    assert _stage(b_me.body, WorkKind.BLIND) | {"waiting": 0, "more": False} == {
        "kind": WorkKind.BLIND,
        "title": "annotate a claim blind",
        "waiting": 0,
        "more": False,
        "held": True,
        "done": 0,
    }
    assert _stage(a.get("/api/me/").body, WorkKind.BLIND)["done"] == 1
    # Nothing of A's item, of either claim's text, or of any label reaches B (nor A).
    claims = list(world.pair.claims.all())
    for answer in (theirs, b_me, mine, a.get("/api/me/")):
        text = json.dumps(answer.body)
        for claim in claims:
            assert claim.text not in text and claim.key not in text
        assert "entailed" not in text and "refuted" not in text
    assert world.a_item.key not in json.dumps(theirs.body) + json.dumps(b_me.body)

    # Each one's own list is every item they finished, and only theirs.
    writer_items = Api.for_user(team.writer).get("/api/me/items/").body["results"]
    done_by_writer = WorkItem.objects.filter(done_by=team.writer, status="done")
    assert (
        {i["key"] for i in writer_items}
        == {w.key for w in done_by_writer}
        == {world.write_item.key}
    )


def test_me_counts_what_the_workspace_home_counts(world, client):
    writer = world.team.writer
    body = Api.for_user(writer).get("/api/me/").body
    assert body["username"] == writer.username and body["is_admin"] is False
    assert body["pairs_written"] == 1 and _stage(body, WorkKind.WRITE)["done"] == 1
    assert {s["kind"] for s in body["stages"]} == set(WorkKind.values)
    client.force_login(writer)
    home = client.get("/").content.decode()
    shown = dict(
        (label, int(n)) for n, label in re.findall(r'<span class="n">(\d+)</span> ([a-z ]+)<', home)
    )
    assert shown["papers assigned"] == body["papers"]["assigned"] == 1
    assert shown["to curate"] == body["papers"]["to_curate"]
    assert shown["curated"] == body["papers"]["curated"]
    assert shown["ready for claims"] == body["papers"]["ready_for_claims"]
    assert shown["claim pairs written"] == body["pairs_written"]


def test_me_is_for_anyone_signed_in_and_only_them(world, annotator_api, admin_api):
    fresh = annotator_api.get("/api/me/")
    assert fresh.status == 200 and fresh.body["username"] == "api-annotator"
    assert all(s["done"] == 0 and not s["held"] for s in fresh.body["stages"])
    assert annotator_api.get("/api/me/items/").body["results"] == []
    assert admin_api.get("/api/me/").body["is_admin"] is True
    anonymous = Api(annotator_api.client).get("/api/me/")
    assert anonymous.status == 401
