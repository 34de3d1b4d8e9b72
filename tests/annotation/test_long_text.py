"""No silent truncation of what experts and admins type on the annotation pages: text longer than
its field holds is refused with the limit and its length, the page comes back with the text as
typed (a JSON refusal with the reason to a page's script or autosave, the text staying in the
browser), nothing is recorded and nothing is cut; text exactly at the limit is taken whole."""

from __future__ import annotations

import json
import uuid

import pytest
from django.test import Client
from django.urls import reverse

from annotation.models import (
    Adjudication,
    Claim,
    ClaimPair,
    ClaimReview,
    PairReview,
    WorkAction,
    WorkEvent,
    WorkItem,
)
from annotation.queue import work
from annotation.review import services as review
from annotation.views import answers
from annotation.views import review as review_views
from tests.annotation.claim_factories import pair_fields
from tests.annotation.factories import make_expert
from tests.annotation.review_factories import adjudicate, annotate, crew, written_pair

pytestmark = pytest.mark.django_db
SCRIPT = {"HTTP_ACCEPT": "application/json", "HTTP_X_REQUESTED_WITH": "fetch"}
LIMIT = review_views.MAX_TEXT  # 5,000: notes, explanations and admins' notes alike


def text_of(length: int) -> str:
    """Plain words (nothing HTML escapes), `length` characters, ending in a full stop."""
    text = "Table 2 reports the BLEU of each model on the test set " * (length // 50 + 1)
    return text[: length - 1] + "."


def client_for(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def too_long(field: str, length: int, limit: int = LIMIT) -> str:
    return f"{field}: longer than {limit:,} characters (it has {length:,}); shorten it."


# --- Writing a pair: the refuted claim's explanation ---------------------------------------


@pytest.fixture
def writing():
    people = crew("alice")
    from annotation.assignment import services as assignment_services
    from annotation.writing import services as writing_services
    from tests.annotation.claim_factories import curated_paper

    paper, _ = curated_paper(people["boss"])
    assignment_services.assign_papers(
        papers=[paper], experts=[people["alice"]], assigned_by=people["boss"]
    )
    writing_services.create_claim_tasks(paper=paper, by=people["alice"], count=1, seed=7)
    return people["alice"], work.next_item(user=people["alice"], kind="write")


def _posted(item: WorkItem, **changes) -> dict:
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


def test_the_writing_page_refuses_a_long_explanation_keeps_it_and_takes_one_at_the_limit(writing):
    alice, item = writing
    client = client_for(alice)
    url = f"/claims/write/{item.key}/"
    long = text_of(LIMIT + 1)
    refused = client.post(url, _posted(item, explanation=long))
    page = refused.content.decode()
    assert refused.status_code == 400 and too_long("explanation", LIMIT + 1) in page
    assert f">{long}</textarea>" in page  # the whole text, back in its box
    assert not ClaimPair.objects.exists()
    # The page's script: the refusal's reason, message and the field's error, as JSON.
    script = client.post(url, _posted(item, explanation=long), **SCRIPT)
    answer = script.json()
    assert script.status_code == 400 and answer["reason"] == "invalid"
    assert answer["errors"] == {"explanation": too_long("explanation", LIMIT + 1)}
    assert too_long("explanation", LIMIT + 1) in answer["message"]
    # The autosave: refused whole (the text stays in the browser), the saved draft untouched.
    draft = {"version": item.version, "draft": {"explanation": "saved before"}}
    assert client.post(f"{url}draft/", draft, content_type="application/json").status_code == 200
    item.refresh_from_db()
    draft = {"version": item.version, "draft": {"explanation": long}}
    saved = client.post(f"{url}draft/", draft, content_type="application/json")
    assert saved.status_code == 400 and saved.json()["reason"] == "invalid"
    assert saved.json()["message"] == (
        f"The draft was not saved: {too_long('explanation', LIMIT + 1)}"
    )
    item.refresh_from_db()
    assert item.draft["explanation"] == "saved before"
    # Exactly at the limit: recorded whole.
    at_limit = text_of(LIMIT)
    assert client.post(url, _posted(item, explanation=at_limit)).status_code == 302
    assert Claim.objects.get(label="refuted").explanation == at_limit


# --- Adjudication: the notes, on the page, in its autosave and on "edit my last answer" ------


@pytest.fixture
def adjudication():
    people = crew("alice", "bob", "carol", "dave")
    pair = written_pair(people["alice"], people["boss"])
    annotate(people["bob"])
    annotate(people["carol"], flip=True)
    return people, pair, review.take_next(user=people["dave"], kind="adjudicate")


def test_the_adjudication_page_refuses_long_notes_keeps_them_and_takes_them_at_the_limit(
    adjudication,
):
    people, pair, item = adjudication
    client = client_for(people["dave"])
    url = f"/review/adjudicate/{item.key}/"
    data = {
        "token": str(uuid.uuid4()),
        "version": item.version,
        "decision": "decided",
        "label": "entailed",
        "confidence": "high",
        "reason": "ambiguous_claim",
        "evidence": [str(pair.task.sampled_ids[0])],
    }
    long = text_of(LIMIT + 1)
    refused = client.post(url, data | {"notes": long})
    page = refused.content.decode()
    assert refused.status_code == 400 and too_long("notes", LIMIT + 1) in page
    assert f">{long}</textarea>" in page and 'id="err-notes"' in page
    assert 'value="entailed" checked' in page  # everything else chosen stays too
    assert not Adjudication.objects.exists()
    draft_url = f"/review/items/{item.key}/draft/"
    saved = client.post(
        draft_url,
        {"version": item.version, "draft": {"notes": long}},
        content_type="application/json",
    )
    assert saved.status_code == 400 and saved.json()["reason"] == "invalid"
    assert saved.json()["errors"] == {"notes": too_long("notes", LIMIT + 1)}
    item.refresh_from_db()
    assert not item.draft or "notes" not in item.draft
    at_limit = text_of(LIMIT)
    assert client.post(url, data | {"notes": at_limit}).status_code == 302
    assert Adjudication.objects.get(item=item).notes == at_limit


def test_edit_my_last_adjudication_refuses_long_notes_keeps_them_and_takes_them_at_the_limit():
    people = crew("alice", "bob", "carol", "dave")
    written_pair(people["alice"], people["boss"])
    annotate(people["bob"], flip=True)
    annotate(people["carol"], flip=True)
    item = adjudicate(people["dave"], notes="first notes")
    claim = item.claim
    client = client_for(people["dave"])
    url = reverse("answers:edit", args=[item.key])
    evidence = [str(pk) for pk in claim.evidence.values_list("pk", flat=True)]
    data = {
        "label": claim.label,
        "evidence": evidence,
        "confidence": "medium",
        "reason": "ambiguous_claim",
    }
    limit = answers.MAX_NOTES
    assert limit == LIMIT  # the adjudication page's bound: notes it took are never refused here
    long = text_of(limit + 1)
    refused = client.post(url, data | {"notes": long})
    page = refused.content.decode()
    assert refused.status_code == 400 and too_long("notes", limit + 1, limit) in page
    assert f">{long}</textarea>" in page and 'id="err-notes"' in page
    answer = Adjudication.objects.get(item=item)
    assert answer.notes == "first notes" and answer.confidence == "high"
    assert not WorkEvent.objects.filter(item=item, action=WorkAction.ANSWER_EDITED)
    at_limit = text_of(limit)
    assert client.post(url, data | {"notes": at_limit}).status_code == 302
    answer.refresh_from_db()
    assert answer.notes == at_limit and answer.confidence == "medium"


# --- The admins' small forms: allow an expert, reopen, drop, hand a perturbation over -------


def _refused_form(response, *, url: str, name: str, text: str, limit: int = LIMIT) -> str:
    """A 400 page of its own: why, the form again posting to the same URL, the text whole."""
    page = response.content.decode()
    assert response.status_code == 400, page[:2000]
    assert "Nothing was recorded" in page and too_long(name, len(text), limit) in page
    assert f'action="{url}"' in page
    assert (
        f'name="{name}" rows="6" aria-invalid="true" aria-describedby="err-{name}">{text}' in page
    )
    return page


def test_an_admins_note_to_allow_an_expert_is_refused_whole_and_taken_at_the_limit():
    c = crew("alice")
    olga = make_expert("olga", ("cs.CV",))
    pair = written_pair(c["alice"], c["boss"])
    admin = client_for(c["boss"])
    item = WorkItem.objects.filter(pair=pair, kind="evidence").first()
    url = f"/manage/review/items/{item.key}/allow/"
    long = text_of(LIMIT + 1)
    page = _refused_form(
        admin.post(url, {"expert": olga.pk, "note": long}), url=url, name="note", text=long
    )
    assert f'<input type="hidden" name="expert" value="{olga.pk}">' in page  # sent again as is
    assert "olga" in page and "/manage/review/" in page
    script = admin.post(url, {"expert": olga.pk, "note": long}, **SCRIPT)
    assert script.status_code == 400 and script.json()["reason"] == "invalid"
    assert script.json()["errors"] == {"note": too_long("note", LIMIT + 1)}
    assert not WorkEvent.objects.filter(item=item, action=WorkAction.OVERRIDE)
    assert client_for(olga).post("/review/annotate/next/").url == "/"  # not allowed
    at_limit = text_of(LIMIT)
    assert admin.post(url, {"expert": olga.pk, "note": at_limit}).status_code == 302
    assert WorkEvent.objects.get(item=item, action=WorkAction.OVERRIDE).note == at_limit
    assert client_for(olga).post("/review/annotate/next/").url == f"/review/annotate/{item.key}/"


def test_an_admins_note_to_reopen_or_drop_is_refused_whole_and_taken_at_the_limit(adjudication):
    people, pair, item = adjudication
    review.submit_adjudication(
        item=item,
        user=people["dave"],
        version=item.version,
        token=uuid.uuid4(),
        decision="unresolved",
        label="",
        evidence_ids=[],
        confidence="low",
        reason="other",
        notes="cannot tell",
    )
    claim = item.claim
    admin = client_for(people["boss"])
    long = text_of(LIMIT + 1)
    reopen = f"/manage/review/claims/{claim.key}/reopen/"
    _refused_form(admin.post(reopen, {"note": long}), url=reopen, name="note", text=long)
    assert ClaimReview.objects.get(claim=claim).state == "unresolved"
    at_limit = text_of(LIMIT)
    assert admin.post(reopen, {"note": at_limit}).status_code == 302
    assert ClaimReview.objects.get(claim=claim).state == "adjudication"
    assert WorkEvent.objects.filter(note=at_limit).exists()
    drop = f"/manage/review/pairs/{pair.key}/drop/"
    _refused_form(admin.post(drop, {"reason": long}), url=drop, name="reason", text=long)
    assert not PairReview.objects.filter(pair=pair, dropped=True).exists()
    assert admin.post(drop, {"reason": at_limit}).status_code == 302
    assert PairReview.objects.get(pair=pair).drop_reason == at_limit


def test_an_admins_note_handing_a_new_perturbation_over_is_refused_whole_and_taken_at_the_limit():
    from tests.annotation.reperturbation import found_true, reperturb_item

    c, pair = found_true()
    item = reperturb_item(pair)
    admin = client_for(c["boss"])
    url = reverse("annotation:reassign_reperturbation", args=[item.key])
    long = text_of(LIMIT + 1)
    page = _refused_form(
        admin.post(url, {"expert": c["nia"].pk, "note": long}), url=url, name="note", text=long
    )
    assert f'<input type="hidden" name="expert" value="{c["nia"].pk}">' in page
    item.refresh_from_db()
    assert item.assignee == c["wendy"]
    at_limit = text_of(LIMIT)
    assert admin.post(url, {"expert": c["nia"].pk, "note": at_limit}).status_code == 302
    item.refresh_from_db()
    assert item.assignee == c["nia"]
    assert WorkEvent.objects.filter(item=item, action=work.OVERRIDE_ACTION, note=at_limit)


def test_a_draft_too_long_says_so_and_one_unreadable_still_says_it_could_not_be_read(writing):
    alice, item = writing
    client = client_for(alice)
    url = f"/claims/write/{item.key}/draft/"
    body = json.dumps({"version": item.version, "draft": {"suggestion": text_of(LIMIT + 2)}})
    answer = client.post(url, body, content_type="application/json").json()
    assert answer["message"].startswith("The draft was not saved: suggestion: longer than 5,000")
    body = json.dumps({"version": item.version, "draft": {"evidence": 5}})
    answer = client.post(url, body, content_type="application/json").json()
    assert answer["message"].startswith("The draft could not be read: evidence:")


def test_a_curation_note_too_long_is_refused_and_kept_and_one_at_the_limit_is_saved():
    from annotation.assignment import services as assignment_services
    from annotation.models import CuratedContext
    from tests.annotation.factories import all_ids, make_paper
    from tests.factories import AdminFactory

    alice, limit = make_expert("alice"), 2000
    paper = make_paper()
    assignment_services.assign_papers(papers=[paper], experts=[alice], assigned_by=AdminFactory())
    sections, elements = all_ids(paper)
    client = client_for(alice)
    url = f"/curate/{paper.versioned_id}/"
    form = {"keep_section": sorted(sections), "keep": sorted(elements)}
    long = text_of(limit + 1)
    refused = client.post(url, form | {"note": long})
    page = refused.content.decode()
    assert refused.status_code == 400 and too_long("note", limit + 1, limit) in page
    assert f">{long}</textarea>" in page
    assert not CuratedContext.objects.exists()
    script = client.post(url, form | {"note": long}, **SCRIPT)
    assert script.status_code == 400 and script.json()["reason"] == "invalid"
    assert script.json()["errors"] == {"note": too_long("note", limit + 1, limit)}
    at_limit = text_of(limit)
    assert client.post(url, form | {"note": at_limit}).status_code == 302
    assert CuratedContext.objects.get().note == at_limit
