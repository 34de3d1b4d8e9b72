"""The model in the loop (issue 47) against a stand-in OpenAI-compatible server on 127.0.0.1:

- the text-only check (criterion 2): the validator sees "may be verifiable from the text
  alone" on a claim the stand-in verifies from the paragraphs, not on one it cannot; the model
  is sent the curated paragraphs only (no caption, no table cell), asked twice, once per text;
- blind second annotators and adjudicators never see it, nor may they ask for it;
- an endpoint that is not this machine is refused unless an admin confirmed it (recorded);
- the writer asks on request, and gets the model's perturbation ideas through the suggester's
  validity filter, marked as the model's, nothing submitted;
- the statistics page's share of claims a text-only model gets right, per subset."""

from __future__ import annotations

import pytest
from django.test import Client

from annotation.models import ClaimPair, PairRole
from annotation.queue import work
from annotation.review import services as review
from annotation.writing import services as writing
from evaluation.assist import rules
from evaluation.models import AssistantSetting, TextCheck
from papers.models import Element
from tests.annotation.claim_factories import ENTAILED, submit
from tests.evaluation.assist_world import (
    CHANGED,
    IN_TEXT,
    NEGATED,
    NOT_IN_TEXT,
    answer,
    assist_team,
    prompt_of,
    validation_items,
)
from tests.evaluation.standin_openai import StandInOpenAI
from tests.validation.factories import Team
from validation import services as validation

pytestmark = pytest.mark.django_db


@pytest.fixture
def server():
    standin = StandInOpenAI(answer=answer).start()
    yield standin
    standin.stop()


@pytest.fixture
def endpoints(settings, server):
    settings.EVALUATION_ENDPOINTS = {
        "local": {"url": server.url, "key_variable": ""},
        "remote": {"url": "https://api.example.org/v1", "key_variable": ""},
    }


def signed_in(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def set_local(team: Team) -> None:
    answer = signed_in(team.admin).post(
        "/manage/evaluation/assistant/", {"endpoint": "local", "model": "standin-text"}
    )
    assert answer.status_code == 302


@pytest.fixture
def team(endpoints):
    return assist_team()


def test_an_endpoint_that_is_not_this_machine_needs_an_admins_confirmation(team, server):
    admin = signed_in(team.admin)
    refused = admin.post("/manage/evaluation/assistant/", {"endpoint": "remote", "model": "gpt-x"})
    assert refused.status_code == 400
    assert "not this machine" in refused.content.decode()
    assert not AssistantSetting.objects.exists()
    # An annotator cannot set it at all.
    expert = signed_in(team.validators[0])
    assert expert.post(
        "/manage/evaluation/assistant/",
        {"endpoint": "local", "model": "m"},
    ).status_code in (302, 403)
    assert not AssistantSetting.objects.exists()

    confirmed = admin.post(
        "/manage/evaluation/assistant/",
        {"endpoint": "remote", "model": "gpt-x", "confirm_remote": "1"},
    )
    assert confirmed.status_code == 302
    setting = AssistantSetting.objects.get()
    assert setting.confirmed_by == team.admin and setting.confirmed_at is not None
    page = admin.get("/manage/evaluation/assistant/").content.decode()
    assert "confirmed by boss" in page

    # A remote setting nobody confirmed (a row written by hand) is refused for the check,
    # before anything is sent anywhere.
    AssistantSetting.objects.create(
        endpoint_name="remote", endpoint_url="https://api.example.org/v1", model="gpt-x"
    )
    item = validation.take_next(user=team.validators[0])
    shown = signed_in(team.validators[0]).get(f"/assist/items/{item.key}/text-check/")
    assert "no admin confirmed sending unreleased claims there" in shown.content.decode()
    assert not TextCheck.objects.exists() and server.requests() == []


def test_the_validator_sees_the_text_only_warning_where_the_text_verifies_the_claim(team, server):
    set_local(team)
    validator = signed_in(team.validators[0])
    items = validation_items(team)
    entailed, refuted = items["entailed"], items["refuted"]
    held = next(i for i in items.values() if i.status == "leased")
    page = validator.get(f"/validate/{held.key}/").content.decode()
    assert f"/assist/items/{held.key}/text-check/" in page  # the page asks for it

    shown = validator.get(f"/assist/items/{entailed.key}/text-check/").content.decode()
    assert 'data-check="verifiable"' in shown and "may be verifiable from the text alone" in shown
    assert "The paragraphs state exactly this." in shown  # the model's words
    asked = server.requests()
    assert [r.body["temperature"] for r in asked] == list(rules.SAMPLES)
    caption = Element.objects.filter(paper=team.pair.paper, kind="table").first().caption
    for request in asked:
        prompt = prompt_of(request.body)
        assert IN_TEXT in prompt and caption not in prompt and "80.1" not in prompt

    validator.get(f"/assist/items/{entailed.key}/text-check/")
    assert len(server.requests()) == 2  # kept per text and context version: not asked again

    shown = validator.get(f"/assist/items/{refuted.key}/text-check/").content.decode()
    assert 'data-check="not-verifiable"' in shown and 'data-check="verifiable"' not in shown

    # The statistics page's share, per subset: one of the two checked claims.
    share = signed_in(team.admin).get("/manage/evaluation/assistant/text-only/")
    assert share.status_code == 200
    row = share.context["rows"][0]
    assert (row["subset"], row["checked"], row["right"]) == (team.pair.subset, 2, 1)
    statistics = signed_in(team.admin).get("/manage/statistics/").content.decode()
    assert "/manage/evaluation/assistant/text-only/" in statistics
    assert signed_in(team.validators[0]).get(
        "/manage/evaluation/assistant/text-only/"
    ).status_code in (302, 403)


def test_blind_annotators_and_adjudicators_never_see_or_ask_for_it(team, server):
    set_local(team)
    entailed = validation_items(team)["entailed"]
    signed_in(team.validators[0]).get(f"/assist/items/{entailed.key}/text-check/")
    assert TextCheck.objects.filter(status="done").count() == 1

    # The pair's blind second annotator: the validation item's check is not theirs to see.
    blind = signed_in(team.second)
    assert blind.get(f"/assist/items/{entailed.key}/text-check/").status_code == 404
    assert blind.post(f"/assist/items/{entailed.key}/ideas/").status_code == 404

    # A new pair's blind page, in progress: nothing of the check on it, and its item refused.
    writing.create_claim_tasks(paper=team.pair.paper, by=team.writer, count=1, seed=9)
    other = "Ours beats the Baseline model by 4.3 BLEU points in this comparison."
    wrong = "Ours trails the Baseline model by 4.3 BLEU points in this comparison."
    submit(
        work.next_item(user=team.writer, kind="write"),
        team.writer,
        entailed=other,
        refuted=wrong,
        suggestion=wrong,
        perturbation_kind="direction",
    )
    taken = review.take_next(user=team.third, kind="evidence")
    page = signed_in(team.third).get(f"/review/items/{taken.key}/").content.decode()
    assert "text-check" not in page and "/assist/" not in page
    assert "verifiable from the text" not in page
    assert signed_in(team.third).get(f"/assist/items/{taken.key}/text-check/").status_code == 404

    # An adjudicator's role on the pair refuses anyone, an admin too (who may see it otherwise).
    admin = signed_in(team.admin)
    assert admin.get(f"/assist/items/{entailed.key}/text-check/").status_code == 200
    PairRole.objects.create(
        pair=team.pair, claim=team.claims["refuted"], expert=team.admin, role="adjudicator"
    )
    assert admin.get(f"/assist/items/{entailed.key}/text-check/").status_code == 404


def test_the_writer_asks_on_request_and_takes_a_model_idea_or_none(team, server):
    set_local(team)
    writing.create_claim_tasks(paper=team.pair.paper, by=team.writer, count=1, seed=11)
    item = work.next_item(user=team.writer, kind="write")
    writer = signed_in(team.writer)
    page = writer.get(f"/claims/write/{item.key}/").content.decode()
    assert f"/assist/items/{item.key}/text-check/" in page
    assert f"/assist/items/{item.key}/ideas/" in page

    checked = writer.post(
        f"/assist/items/{item.key}/text-check/", {"entailed": IN_TEXT, "refuted": NOT_IN_TEXT}
    ).content.decode()
    assert 'data-check="verifiable" data-gold="entailed"' in checked
    assert 'data-check="not-verifiable" data-gold="refuted"' in checked

    evidence = item.task.sampled_ids[:1]
    ideas = writer.post(
        f"/assist/items/{item.key}/ideas/", {"entailed": ENTAILED, "evidence": evidence}
    ).content.decode()
    assert "model&#x27;s idea" in ideas or "model's idea" in ideas
    assert CHANGED in ideas
    assert f'data-text="{ENTAILED}"' not in ideas  # the claim itself is no idea
    assert "&lt;b&gt;" not in ideas  # markup refused
    assert ideas.index(CHANGED) < ideas.index(NEGATED)  # a negation only comes last, marked
    assert "negation only" in ideas
    assert ClaimPair.objects.count() == 1  # nothing submitted: only the fixture's pair

    # Someone else cannot ask on the writer's item.
    other = signed_in(team.validators[1])
    assert other.post(f"/assist/items/{item.key}/ideas/", {"entailed": ENTAILED}).status_code == 404


def test_the_validity_filter_is_the_suggesters():
    kept = rules.usable_ideas(
        ENTAILED,
        [ENTAILED, NEGATED, CHANGED, CHANGED.upper(), "<i>x</i> y", ""],
        found_true=[CHANGED],
    )
    assert [i.text for i in kept] == [NEGATED] and kept[0].negation_only
    assert rules.idea_lines("Here:\n- one\n2. two\n* three\nnot a line") == ["one", "two", "three"]
    answers = [{"parsed": "entailed"}, {"parsed": None}]
    assert rules.right_answers(answers, "entailed") == 1
