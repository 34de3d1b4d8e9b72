"""In a real browser (issue 47): the validator's page asks the model in the loop by itself and
shows "may be verifiable from the text alone" with the model's words; the writer asks for
perturbation ideas and takes one, which fills the refuted claim and submits nothing."""

from __future__ import annotations

import pytest

from annotation.models import ClaimPair
from annotation.queue import work
from annotation.writing import services as writing
from evaluation.models import AssistantSetting
from tests.browser.work import signed_in
from tests.evaluation.assist_world import CHANGED, ENTAILED, answer, assist_team, validation_items
from tests.evaluation.standin_openai import StandInOpenAI

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def team(settings):
    server = StandInOpenAI(answer=answer).start()
    settings.EVALUATION_ENDPOINTS = {"local": {"url": server.url, "key_variable": ""}}
    team = assist_team()
    AssistantSetting.objects.create(
        endpoint_name="local", endpoint_url=server.url, model="standin-text", set_by=team.admin
    )
    yield team
    server.stop()


def test_the_validator_sees_it_and_the_writer_takes_a_model_idea(new_page, live_server, team):
    items = validation_items(team)
    held = next(i for i in items.values() if i.status == "leased")
    page = new_page()
    signed_in(page, live_server, team.validators[0])
    page.goto(f"/validate/{held.key}/", wait_until="domcontentloaded")
    verdict = "verifiable" if held.claim.label == "entailed" else "not-verifiable"
    page.locator(f"#text-check [data-check='{verdict}']").wait_for()
    if verdict == "verifiable":
        assert "The paragraphs state exactly this." in page.locator("#text-check").inner_text()

    writing.create_claim_tasks(paper=team.pair.paper, by=team.writer, count=1, seed=11)
    item = work.next_item(user=team.writer, kind="write")
    page = new_page()
    signed_in(page, live_server, team.writer)
    page.goto(f"/claims/write/{item.key}/", wait_until="domcontentloaded")
    page.fill("#id_entailed", ENTAILED)
    page.locator("input.ev").first.check()
    page.click("#ideas-ask")
    idea = page.locator("#model-ideas .take-suggestion", has_text=CHANGED)
    idea.wait_for()
    idea.click()
    assert page.input_value("#id_refuted") == CHANGED
    assert page.input_value("#id_perturbation_kind") == ""  # the writer chooses the kind
    assert ClaimPair.objects.count() == 1  # the fixture's pair only: nothing submitted
