"""In a real browser, the whole loop with three experts (SciVer's usual subfield): alice writes
a pair (an entailed claim, a taken and explained perturbation), bob and carol annotate one claim
each, blind, carol disagrees on hers, bob adjudicates it (the claim he did not annotate), and
the admin sees the agreement on the statistics page."""

from __future__ import annotations

import re

import pytest

from annotation.models import ClaimPair, ClaimReview, PairReview, WorkItem
from tests.browser.pages import ENTAILED, sample_claim_task, shot, sign_in
from tests.factories import AdminFactory

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
KEY = {"entailed": "e", "refuted": "r"}
FLIP = {"entailed": "refuted", "refuted": "entailed"}
EXPLANATION = "The tables show the approach scoring above the baselines, not below."


@pytest.fixture
def task(settings):
    settings.USE_CHROMIUM = False
    task = sample_claim_task("alice", "bob", "carol")
    AdminFactory(username="boss", password="pw-for-tests-1")
    return task


def write_pair(page) -> ClaimPair:
    sign_in(page, "alice")
    page.keyboard.press("n")
    page.wait_for_url("**/claims/write/*/")
    page.keyboard.press("1")
    page.keyboard.press("2")
    page.keyboard.press("e")
    page.keyboard.type(ENTAILED)
    page.keyboard.press("Escape")
    page.keyboard.press("g")
    suggestion = page.locator(".take-suggestion", has_text="lower score")
    suggestion.first.wait_for()
    suggestion.first.click()
    page.keyboard.press("Escape")
    page.keyboard.press("p")
    page.keyboard.type(EXPLANATION)
    page.keyboard.press("Control+Enter")
    page.wait_for_url("**/claims/pairs/*/")
    return ClaimPair.objects.get()


def annotate_next(page, *, agree: bool) -> WorkItem:
    page.keyboard.press("n")
    page.wait_for_url("**/review/annotate/*/")
    item = WorkItem.objects.get(key=re.search(r"/annotate/([A-Za-z0-9_-]+)/", page.url)[1])
    claim = item.claim
    content = page.content()
    assert page.locator("#claim-text").inner_text() == claim.text
    assert "alice" not in content and EXPLANATION not in content  # blind
    page.keyboard.press(KEY[claim.label if agree else FLIP[claim.label]])
    for pk in claim.evidence.values_list("pk", flat=True):
        page.locator(f"#ev-{pk} input.ev").check()
    page.keyboard.press("Control+Enter")
    page.wait_for_url(lambda url: url.rstrip("/").count("/") == 2)
    assert "Recorded. Thank you." in page.content()
    return item


def test_three_experts_take_a_paper_from_claim_pairs_to_final_items(new_page, task):
    pair = write_pair(new_page())
    refuted = pair.claims.get(label="refuted")
    assert refuted.perturbation_kind == "direction" and refuted.explanation == EXPLANATION
    assert not PairReview.objects.get(pair=pair).same_second_annotator  # strictly blind

    page = new_page()
    sign_in(page, "bob")
    assert "Evidence to annotate" in page.content()
    agreed = annotate_next(page, agree=True)
    page = new_page()
    sign_in(page, "carol")
    disputed = annotate_next(page, agree=False)
    assert agreed.claim_id != disputed.claim_id
    assert ClaimReview.objects.get(claim=disputed.claim).state == "adjudication"

    page = new_page()
    sign_in(page, "bob")  # his blind annotation is in: he may adjudicate the other claim
    assert page.locator("#adjudications .count").inner_text() == "1"
    page.keyboard.press("n")
    page.wait_for_url("**/review/adjudicate/*/")
    assert "alice" not in page.content() and "carol" not in page.content()
    page.locator(".take-side").first.click()  # the writer's label and evidence
    page.select_option("#id_confidence", "high")
    page.select_option("#id_reason", "second_annotator_error")
    page.locator("#id_notes").focus()
    page.keyboard.press("Control+Enter")
    page.wait_for_url(lambda url: "/review/" not in url)
    assert dict(ClaimReview.objects.filter(claim__pair=pair).values_list("claim_id", "state")) == {
        disputed.claim_id: "adjudicated",
        pair.claims.exclude(pk=disputed.claim_id).get().pk: "unanimous",
    }

    page = new_page()
    sign_in(page, "boss")
    page.goto("/agreement/")
    assert "0.50" in page.locator("#overall").inner_text()  # one disagreement in two claims
    pairs = page.locator("#table-annotator_pair").inner_text()
    assert "alice" in pairs and "bob" in pairs and "carol" in pairs
    shot(page, "review-loop-agreement")
