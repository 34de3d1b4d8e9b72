"""Refused writes over HTTP (issue 19): every refusal carries a reason code and a message, to a
form post and to the page's script alike; a submission refused because it was submitted
elsewhere shows what was recorded beside what was typed only when it was the requester's own,
and for a blind item nothing of another annotator's; one word count; a stale curation save
shows where the version saved meanwhile differs."""

from __future__ import annotations

import json
import re
import uuid

import pytest
from django.db import transaction
from django.test import Client
from django.utils import timezone

from annotation.assignment import services as assignment_services
from annotation.curation import services as curation_services
from annotation.models import ClaimPair, CuratedContext, WorkItem
from annotation.queue import work
from annotation.review import services as review
from annotation.writing import services as writing
from papers.models import Element, Section
from tests.annotation.claim_factories import ENTAILED, curated_paper, pair_fields
from tests.annotation.factories import all_ids, make_expert, make_paper
from tests.annotation.review_factories import crew, written_pair
from tests.factories import AdminFactory

pytestmark = pytest.mark.django_db
SCRIPT = {"HTTP_ACCEPT": "application/json", "HTTP_X_REQUESTED_WITH": "fetch"}


def client_for(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


@pytest.fixture
def task():
    alice, admin = make_expert("alice"), AdminFactory(username="boss")
    paper, _ = curated_paper(admin)
    assignment_services.assign_papers(papers=[paper], experts=[alice], assigned_by=admin)
    writing.create_claim_tasks(paper=paper, by=alice, count=1, seed=7)
    return alice, work.next_item(user=alice, kind="write")


def posted(item: WorkItem, **changes) -> dict:
    fields = pair_fields(item)
    data = {
        "version": item.version,
        "token": str(uuid.uuid4()),
        "entailed": fields["entailed"],
        "evidence": [str(pk) for pk in fields["evidence_ids"]],
        "refuted": fields["refuted"],
        "explanation": fields["explanation"],
        "perturbation_kind": "number",
    }
    return data | changes


def test_a_submission_from_another_tab_is_refused_beside_what_was_recorded(task):
    alice, item = task
    client = client_for(alice)
    url = f"/claims/write/{item.key}/"
    first = client.post(url, posted(item), **SCRIPT)  # tab A, by the page's script
    pair = ClaimPair.objects.get()
    assert first.json() == {"ok": True, "redirect": f"/claims/pairs/{pair.key}/"}

    mine = "A claim typed in the other tab, never recorded, about a BLEU of 73.2 for Ours."
    form = client.post(url, posted(item, entailed=mine))  # tab B, a plain form post
    assert form.status_code == 409
    html = form.content.decode()
    assert 'data-reason="submitted"' in html and "You submitted this item already" in html
    assert html.count(mine) >= 2  # in the text box and in the comparison
    assert 'class="won">' + ENTAILED in html
    script = client.post(url, posted(item, entailed=mine), **SCRIPT)
    answer = script.json()
    assert script.status_code == 409 and answer["reason"] == "submitted"
    assert "Nothing on this page was recorded" in answer["message"]
    assert mine in answer["html"] and ENTAILED in answer["html"]
    draft = client.post(
        f"{url}draft/",
        json.dumps({"version": item.version, "draft": {"entailed": mine}}),
        content_type="application/json",
    )
    assert draft.status_code == 409 and draft.json()["reason"] == "submitted"
    assert pair.claims.get(label="entailed").text == ENTAILED


def test_a_page_older_than_the_item_may_keep_its_text_as_the_draft(task):
    alice, item = task
    client = client_for(alice)
    work.release_item(item=item, user=alice, version=item.version)
    again = work.next_item(user=alice, kind="write")  # taken again, in another tab
    work.save_draft(item=again, user=alice, version=again.version, draft={"entailed": "B's"})
    body = {"version": item.version, "draft": {"entailed": "A's"}}
    stale = client.post(
        f"/claims/write/{item.key}/draft/", json.dumps(body), content_type="application/json"
    )
    answer = stale.json()
    assert stale.status_code == 409 and answer["reason"] == "stale"
    assert answer["version"] == again.version  # "keep this page's text" saves with it
    assert "changed since you opened the page" in answer["error"]
    assert ">A&#x27;s<" in answer["html"] and ">B&#x27;s<" in answer["html"]
    body["version"] = answer["version"]
    kept = client.post(
        f"/claims/write/{item.key}/draft/", json.dumps(body), content_type="application/json"
    )
    assert kept.status_code == 200
    assert WorkItem.objects.get(pk=item.pk).draft["entailed"] == "A's"


def test_a_lost_item_refuses_on_a_page_of_its_own_and_a_never_held_one_is_404(task):
    alice, item = task
    WorkItem.objects.filter(pk=item.pk).update(lease_expires_at=timezone.now())
    olga = make_expert("olga")
    work.assign(item, olga.pk, actor=None)  # handed on
    assert work.next_item(user=olga, kind="write").pk == item.pk
    mine = "A claim about a BLEU of 73.2 for Ours, typed after her lease ran out."
    response = client_for(alice).post(f"/claims/write/{item.key}/", posted(item, entailed=mine))
    html = response.content.decode()
    assert response.status_code == 403 and "Not recorded" in html
    assert "an admin handed it to someone else" in html
    assert mine in html and 'id="writing"' not in html  # her text, not the page
    nobody = make_expert("nobody")
    assert client_for(nobody).post(f"/claims/write/{item.key}/", posted(item)).status_code == 404


def _blind_world(label: str) -> dict[str, tuple]:
    """ann's lease on a blind item ran out and bob took it and labelled it `label`: what ann's
    autosave and submission are answered."""
    c = crew("wren", "ann", "bob", "cy")
    pair = written_pair(c["wren"], c["boss"], seed=5)
    item = review.take_next(user=c["ann"], kind="evidence")
    review.take_next(user=c["cy"], kind="evidence")  # the pair's other claim
    WorkItem.objects.filter(pk=item.pk).update(lease_expires_at=timezone.now())
    taken = review.take_next(user=c["bob"], kind="evidence")
    assert taken.pk == item.pk
    evidence = list(pair.task.sampled_ids[:1])
    review.submit_second_annotation(
        item=taken,
        user=c["bob"],
        version=taken.version,
        token=uuid.uuid4(),
        label=label,
        evidence_ids=evidence,
    )
    ann = client_for(c["ann"])
    mine = {"label": "entailed", "evidence": [str(pk) for pk in pair.task.sampled_ids[1:2]]}
    submission = mine | {"version": "1", "token": str(uuid.uuid4())}
    responses = {
        "draft": ann.post(
            f"/review/items/{item.key}/draft/",
            json.dumps({"version": 1, "draft": mine}),
            content_type="application/json",
        ),
        "script": ann.post(f"/review/annotate/{item.key}/", submission, **SCRIPT),
        "form": ann.post(f"/review/annotate/{item.key}/", submission),
    }
    answers = {}
    for name, response in responses.items():
        text = re.sub(
            r'name="csrfmiddlewaretoken" value="[^"]+"|"X-CSRFToken": "[^"]+"',
            "",
            response.content.decode(),
        )
        answers[name] = (response.status_code, text.replace(item.key, "<item>"))
    return answers


def test_submitted_elsewhere_reveals_nothing_of_the_other_annotators_label():
    """The same refusal whatever bob chose: nothing of his annotation reaches ann."""
    worlds = []
    for label in ("entailed", "refuted"):
        with transaction.atomic():
            worlds.append(_blind_world(label))
            transaction.set_rollback(True)
    first, second = worlds
    assert first == second
    status, text = first["script"]
    answer = json.loads(text)
    assert status == 409
    assert answer["reason"] == "submitted" and "someone else submitted it" in answer["message"]
    assert "won" not in answer["html"] and "recorded" in answer["message"]
    assert first["form"][0] == 409 and "Not recorded" in first["form"][1]


def test_the_server_counts_a_long_claim_whole_as_the_counter_does(task):
    alice, item = task
    client = client_for(alice)
    long_claim = " ".join(f"measurement{n}" for n in range(924))
    assert len(long_claim) > 5000
    answer = client.post(f"/claims/write/{item.key}/", posted(item, entailed=long_claim), **SCRIPT)
    assert answer.status_code == 400 and answer.json()["reason"] == "invalid"
    assert answer.json()["errors"]["entailed"] == "A claim has 6–120 words; this one has 924."
    huge = "word " * 12_000  # past the 50,000 characters a claim is read to
    answer = client.post(f"/claims/write/{item.key}/", posted(item, entailed=huge), **SCRIPT)
    assert answer.status_code == 400
    assert "this one has 12,000 (60,000 characters)" in answer.json()["errors"]["entailed"]
    assert not ClaimPair.objects.exists()


def test_a_stale_curation_save_shows_where_the_version_saved_meanwhile_differs():
    alice, boss = make_expert("alice"), AdminFactory(username="boss")
    paper = make_paper()
    assignment_services.assign_papers(papers=[paper], experts=[alice], assigned_by=None)
    sections, elements = all_ids(paper)
    method = Section.objects.get(paper=paper, title="Method")
    table = Element.objects.filter(paper=paper, kind="table", section__title="Experiments").get()
    curation_services.save_curated_context(
        paper=paper,
        user=alice,
        kept_section_ids=sections,
        kept_element_ids=elements,
        not_chart_ids=(),
        latest_seen=None,
    )
    curation_services.save_curated_context(
        paper=paper,
        user=boss,
        kept_section_ids=sections - {method.pk},
        kept_element_ids=elements,
        not_chart_ids=(),
        latest_seen=1,
    )
    mine = {
        "keep_section": sorted(sections),
        "keep": sorted(elements - {table.pk}),
        "latest_seen": "1",
        "based_on": "1",
    }
    client = client_for(alice)
    response = client.post(f"/curate/{paper.versioned_id}/", mine)
    html = response.content.decode()
    assert response.status_code == 409
    assert "Your changes were not saved; reload" not in html
    assert "keep them as version 3, or take version 2" in html and "Save as version 3" in html
    rows = re.findall(
        r'<tr class="differs"[^>]*><th>([^<]+)</th><td class="won">([^<]+)</td>'
        r'<td class="kept">([^<]+)</td><td class="muted small">([^<]*)</td>',
        html,
    )
    assert rows == [
        ("Section 5 Method", "removed", "kept", "boss changed it"),
        (table.label, "kept", "removed", "you changed it"),
    ]
    assert 'href="?version=2"' in html and "Keep mine as version 3" in html
    script = client.post(f"/curate/{paper.versioned_id}/", mine, **SCRIPT)
    assert script.status_code == 409 and script.json()["reason"] == "stale"
    assert script.json()["version"] == 2 and "curation-diff" in script.json()["html"]
    kept = client.post(f"/curate/{paper.versioned_id}/", mine | {"latest_seen": "2"}, **SCRIPT)
    assert kept.status_code == 200 and kept.json()["redirect"].startswith("/curate/")
    assert CuratedContext.objects.filter(paper=paper).count() == 3
