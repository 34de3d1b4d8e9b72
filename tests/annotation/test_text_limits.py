"""Every free-text field has its limit in the form and in the service (issue 44, item 2): the
notes of the admins' actions (assignment, allow, reopen, drop, hand over), a claim's text, its
explanation, suggestion and reference note, an adjudication's notes and a curated context's
note. A page refuses text over the limit naming the field and the limit, and so does the
service a script calls; nothing is stored. Each field carries its limit (`data-max`, the
counter of static/js/counter.js), never a `maxlength` at which a browser cuts a paste."""

from __future__ import annotations

import uuid
from collections.abc import Callable
from dataclasses import dataclass

import pytest
from django.test import Client
from django.urls import reverse

from annotation.assignment import services as assignment_services
from annotation.curation import services as curation_services
from annotation.errors import AnnotationError
from annotation.limits import MAX_CLAIM, MAX_CONTEXT_NOTE, MAX_LINE_NOTE, MAX_NOTE
from annotation.models import (
    Adjudication,
    Assignment,
    ClaimPair,
    CuratedContext,
    PairState,
    ReviewState,
    WorkAction,
    WorkEvent,
    WorkItem,
)
from annotation.queue import work
from annotation.review import edits as review_edits
from annotation.review import services as review
from annotation.writing import services as writing
from papers.models import CrawlRun
from tests.annotation.claim_factories import curated_paper, pair_fields
from tests.annotation.factories import all_ids, make_expert, make_paper
from tests.annotation.reperturbation import found_true, reperturb_form, reperturb_item
from tests.annotation.review_factories import adjudicate, annotate, crew, written_pair

pytestmark = pytest.mark.django_db


def over(limit: int) -> str:
    """Plain words, one character past `limit`, none of them long enough to break the word
    rule of a claim: it has six to 120 words."""
    words = ["Table", "2", "reports", "a", "BLEU", "of", "73.2", "for", "Ours."]
    text = " ".join(words * (limit // 20 + 1))
    return text[:limit] + "."


def long_claim(limit: int = MAX_CLAIM) -> str:
    """A claim of eight words (within the word rule) and `limit` + 1 characters."""
    word = "x" * ((limit - 7) // 8 + 1)
    return " ".join([word] * 8)[: limit + 1]


def said(field: str, limit: int, text: str) -> str:
    return f"{field}: longer than {limit:,} characters (it has {len(text):,})"


def client_for(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


# --- The worlds the rows act on ---------------------------------------------------------------


@dataclass
class Row:
    """One field: how a page posts it and how a script calls its service, and what must stay
    unstored; `field` and `limit` are what the refusal names."""

    field: str
    limit: int
    post: Callable[[dict, str], object]  # (world, text) -> response
    call: Callable[[dict, str], object]  # (world, text) -> the service's answer
    stored: Callable[[dict], bool]


def assigned_world() -> dict:
    boss, alice = crew()["boss"], make_expert("alice")
    paper = make_paper()
    assignment_services.assign_papers(papers=[paper], experts=[alice], assigned_by=boss)
    return {"boss": boss, "alice": alice, "paper": paper}


def written_world() -> dict:
    people = crew("alice", "olga")
    pair = written_pair(people["alice"], people["boss"])
    item = WorkItem.objects.filter(pair=pair, kind="evidence").first()
    return people | {"pair": pair, "item": item}


def unresolved_world() -> dict:
    people = crew("alice", "bob", "carol", "dave")
    pair = written_pair(people["alice"], people["boss"])
    annotate(people["bob"])
    annotate(people["carol"], flip=True)
    item = adjudicate(people["dave"], decision="unresolved", label="", notes="cannot tell")
    return people | {"pair": pair, "claim": item.claim}


def adjudicating_world() -> dict:
    people = crew("alice", "bob", "carol", "dave")
    pair = written_pair(people["alice"], people["boss"])
    annotate(people["bob"])
    annotate(people["carol"], flip=True)
    return people | {"pair": pair, "item": review.take_next(user=people["dave"], kind="adjudicate")}


def writing_world() -> dict:
    people = crew("alice")
    paper, _ = curated_paper(people["boss"])
    assignment_services.assign_papers(papers=[paper], experts=[people["alice"]], assigned_by=None)
    writing.create_claim_tasks(paper=paper, by=people["alice"], count=1, seed=7)
    return people | {"item": work.next_item(user=people["alice"], kind="write")}


def reperturb_world() -> dict:
    people, pair = found_true()
    return people | {"pair": pair, "item": reperturb_item(pair), "helper": make_expert("hal")}


def _write_post(world: dict, **changes) -> object:
    item = world["item"]
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
    return client_for(world["alice"]).post(f"/claims/write/{item.key}/", data | changes)


def _write_call(world: dict, **changes) -> object:
    item = world["item"]
    item.refresh_from_db()
    return writing.submit_claim_pair(
        item=item,
        user=world["alice"],
        version=item.version,
        token=uuid.uuid4(),
        **pair_fields(item, **changes),
    )


def _held(world: dict) -> WorkItem:
    """The new-perturbation item, taken by its writer (the page is the holder's)."""
    world["item"] = work.next_item(user=world["wendy"], kind="reperturb")
    return world["item"]


def _reperturb_post(world: dict, **changes) -> object:
    item = _held(world)
    url = f"/claims/reperturb/{item.key}/"
    return client_for(world["wendy"]).post(url, reperturb_form(item, **changes))


def _reperturb_call(world: dict, **changes) -> object:
    item = _held(world)
    form = reperturb_form(item)
    del form["version"], form["token"]
    return writing.submit_reperturbation(
        item=item,
        user=world["wendy"],
        version=item.version,
        token=uuid.uuid4(),
        **(form | changes),
    )


def _adjudication(world: dict, notes: str) -> dict:
    """The writer's label upheld (a refuted claim decided entailed would go back to its
    writer: no edit could follow)."""
    return {
        "decision": "decided",
        "label": world["item"].claim.label,
        "confidence": "high",
        "reason": "ambiguous_claim",
        "notes": notes,
    }


def _adjudicate_post(world: dict, text: str) -> object:
    item = world["item"]
    data = _adjudication(world, text) | {
        "token": str(uuid.uuid4()),
        "version": item.version,
        "evidence": [str(world["pair"].task.sampled_ids[0])],
    }
    return client_for(world["dave"]).post(f"/review/adjudicate/{item.key}/", data)


def _adjudicate_call(world: dict, text: str) -> object:
    item = world["item"]
    return review.submit_adjudication(
        item=item,
        user=world["dave"],
        version=item.version,
        token=uuid.uuid4(),
        evidence_ids=[world["pair"].task.sampled_ids[0]],
        **_adjudication(world, text),
    )


def _curate_post(world: dict, text: str) -> object:
    sections, elements = all_ids(world["paper"])
    form = {"keep_section": sorted(sections), "keep": sorted(elements), "note": text}
    return client_for(world["alice"]).post(f"/curate/{world['paper'].versioned_id}/", form)


def _curate_call(world: dict, text: str) -> object:
    sections, elements = all_ids(world["paper"])
    return curation_services.save_curated_context(
        paper=world["paper"],
        user=world["alice"],
        kept_section_ids=sections,
        kept_element_ids=elements,
        not_chart_ids=[],
        latest_seen=None,
        note=text,
    )


def _unassigned(world: dict) -> bool:
    return Assignment.objects.filter(paper=world["paper"], status="unassigned").exists()


def _writing_row(field: str, limit: int) -> Row:
    """A row of the writing page's `field`: posted on the page, given to the service."""
    return Row(
        field,
        limit,
        lambda w, text: _write_post(w, **{field: text}),
        lambda w, text: _write_call(w, **{field: text}),
        lambda w: ClaimPair.objects.exists(),
    )


ROWS: dict[str, tuple[Callable[[], dict], Row]] = {
    "assignment note (unassign)": (
        assigned_world,
        Row(
            "Note",
            MAX_LINE_NOTE,
            lambda w, text: client_for(w["boss"]).post(
                "/manage/assignments/",
                {"papers": [w["paper"].pk], "action": "unassign", "note": text},
                follow=True,
            ),
            lambda w, text: assignment_services.unassign(
                papers=[w["paper"]], by=w["boss"], note=text
            ),
            _unassigned,
        ),
    ),
    "allow an expert: note": (
        written_world,
        Row(
            "note",
            MAX_NOTE,
            lambda w, text: client_for(w["boss"]).post(
                f"/manage/review/items/{w['item'].key}/allow/",
                {"expert": w["olga"].pk, "note": text},
            ),
            lambda w, text: review.allow_expert(
                item=w["item"], expert=w["olga"], by=w["boss"], note=text
            ),
            lambda w: WorkEvent.objects.filter(action=WorkAction.OVERRIDE).exists(),
        ),
    ),
    "drop a pair: reason": (
        written_world,
        Row(
            "reason",
            MAX_NOTE,
            lambda w, text: client_for(w["boss"]).post(
                f"/manage/review/pairs/{w['pair'].key}/drop/", {"reason": text}
            ),
            lambda w, text: review.drop_pair(pair=w["pair"], by=w["boss"], reason=text),
            lambda w: ClaimPair.objects.filter(state=PairState.DROPPED).exists(),
        ),
    ),
    "reopen an unresolved claim: note": (
        unresolved_world,
        Row(
            "note",
            MAX_NOTE,
            lambda w, text: client_for(w["boss"]).post(
                f"/manage/review/claims/{w['claim'].key}/reopen/", {"note": text}
            ),
            lambda w, text: review.reopen_unresolved(claim=w["claim"], by=w["boss"], note=text),
            lambda w: WorkEvent.objects.filter(action=WorkAction.REOPENED).exists(),
        ),
    ),
    "adjudication: notes": (
        adjudicating_world,
        Row(
            "notes",
            MAX_NOTE,
            _adjudicate_post,
            _adjudicate_call,
            lambda w: Adjudication.objects.exists(),
        ),
    ),
    "writing: the entailed claim": (
        writing_world,
        _writing_row("entailed", MAX_CLAIM),
    ),
    "writing: the refuted claim": (
        writing_world,
        _writing_row("refuted", MAX_CLAIM),
    ),
    "writing: the reference note": (
        writing_world,
        _writing_row("reference_note", MAX_NOTE),
    ),
    "writing: the suggestion": (
        writing_world,
        _writing_row("suggestion", MAX_NOTE),
    ),
    "new perturbation: the refuted claim": (
        reperturb_world,
        Row(
            "refuted",
            MAX_CLAIM,
            lambda w, text: _reperturb_post(w, refuted=text),
            lambda w, text: _reperturb_call(w, refuted=text),
            lambda w: w["pair"].claims.count() > 2,
        ),
    ),
    "new perturbation: hand it over, note": (
        reperturb_world,
        Row(
            "note",
            MAX_NOTE,
            lambda w, text: client_for(w["boss"]).post(
                f"/manage/claims/reperturb/{w['item'].key}/reassign/",
                {"expert": w["helper"].pk, "note": text},
            ),
            lambda w, text: writing.reassign_reperturbation(
                item=w["item"], expert=w["helper"], by=w["boss"], note=text
            ),
            lambda w: WorkEvent.objects.filter(action=WorkAction.OVERRIDE).exists(),
        ),
    ),
    "curation: the context's note": (
        assigned_world,
        Row(
            "note",
            MAX_CONTEXT_NOTE,
            _curate_post,
            _curate_call,
            lambda w: CuratedContext.objects.exists(),
        ),
    ),
}


@pytest.mark.parametrize("name", list(ROWS))
def test_text_over_its_limit_is_refused_by_page_and_service_naming_the_limit(name):
    build, row = ROWS[name]
    world = build()
    claim_field = row.limit == MAX_CLAIM and row.field in ("entailed", "refuted")
    text = long_claim(row.limit) if claim_field else over(row.limit)
    assert len(text) == row.limit + 1

    response = row.post(world, text)
    page = response.content.decode()
    assert response.status_code in (200, 400)  # a refusal page, or the page a message is on
    assert said(row.field, row.limit, text) in page, page[:3000]
    assert not row.stored(world)

    with pytest.raises(AnnotationError) as refused:
        row.call(world, text)
    answer = refused.value
    message = " ".join([answer.message, *getattr(answer, "errors", {}).values()])
    assert said(row.field, row.limit, text) in message
    assert not row.stored(world)


def test_every_limited_field_carries_its_limit_for_the_counter_and_none_cuts_a_paste():
    """The writing page, the adjudication page, the admins' review and assignment pages and
    the curation page: `data-max` on each free-text field, no `maxlength`."""
    adjudicating = adjudicating_world()
    dave, item = adjudicating["dave"], adjudicating["item"]
    page = client_for(dave).get(f"/review/adjudicate/{item.key}/").content.decode()
    assert f'name="notes" rows="3" data-max="{MAX_NOTE}"' in page
    adjudicate(dave, decision="unresolved", label="", notes="cannot tell")
    boss = client_for(adjudicating["boss"])
    page = boss.get("/manage/review/").content.decode()
    # The unresolved claim's reopen note and its pair's drop reason.
    assert page.count(f'data-max="{MAX_NOTE}"') == 2 and 'maxlength="' not in page
    page = boss.get("/manage/assignments/").content.decode()
    assert f'name="note" data-max="{MAX_LINE_NOTE}"' in page and 'maxlength="500"' not in page
    for url, limit in (
        ("/manage/releases/", 64),  # a split's name
        ("/manage/evaluation/", 200),  # a model's name
        ("/accounts/api-tokens/", 100),  # a token's name
    ):
        page = boss.get(url).content.decode()
        assert f'data-max="{limit}"' in page and 'maxlength="' not in page, url

    writer = writing_world()
    page = client_for(writer["alice"]).get(f"/claims/write/{writer['item'].key}/").content.decode()
    for name, limit in (
        ("entailed", MAX_CLAIM),
        ("refuted", MAX_CLAIM),
        ("reference_note", MAX_NOTE),
        ("explanation", MAX_NOTE),
    ):
        assert f'id="id_{name}" name="{name}"' in page
        assert f'data-max="{limit}"' in page.split(f'id="id_{name}" name="{name}"', 1)[1][:40]
    assert 'maxlength="' not in page

    paper = make_paper()
    assignment_services.assign_papers(papers=[paper], experts=[writer["alice"]], assigned_by=None)
    page = client_for(writer["alice"]).get(f"/curate/{paper.versioned_id}/").content.decode()
    assert f'name="note" rows="2" data-max="{MAX_CONTEXT_NOTE}"' in page


def test_text_at_the_limit_is_taken_whole_by_the_services():
    world = adjudicating_world()
    at_limit = over(MAX_NOTE)[:MAX_NOTE]
    adjudication = _adjudicate_call(world, at_limit)
    assert adjudication.notes == at_limit
    # An adjudicator's edit of the decision meets the same limit.
    too_long = over(MAX_NOTE)
    with pytest.raises(AnnotationError) as refused:
        review_edits.edit_adjudication(
            item=world["item"],
            user=world["dave"],
            label=world["item"].claim.label,
            evidence_ids=[world["pair"].task.sampled_ids[0]],
            confidence="low",
            reason="ambiguous_claim",
            notes=too_long,
        )
    assert said("notes", MAX_NOTE, too_long) in refused.value.errors["notes"]
    assert Adjudication.objects.get().notes == at_limit
    assert ReviewState.ADJUDICATED == Adjudication.objects.get().claim.review.state


def test_a_crawls_typed_categories_carry_their_limit_and_a_longer_list_is_refused_whole():
    """The crawl form's "More categories": a counter, no `maxlength` cutting a pasted list, and
    a list over 500 characters refused naming the limit, no run started."""
    boss = client_for(crew()["boss"])
    page = boss.get(reverse("crawl:list")).content.decode()
    assert 'name="other_categories" data-max="500"' in page
    assert 'name="other_categories" maxlength' not in page
    typed = ", ".join(["stat.ML"] * 60)  # 534 characters of valid categories
    form = {"date_from": "2024-10-01", "date_to": "2024-10-02", "other_categories": typed}
    page = boss.post(reverse("crawl:list"), form | {"min_tables": 2, "min_charts": 2})
    assert said("More categories", 500, typed) in page.content.decode()
    assert not CrawlRun.objects.exists()
