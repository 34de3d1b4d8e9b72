"""In a real browser, four experts: alice's pair is annotated blind by bob (who agrees) and
carol (who labels her claim the other way), dave adjudicates side by side, and the admin sees
the agreement statistics with their plots."""

from __future__ import annotations

import re

import pytest

from annotation.models import ClaimReview, WorkItem
from tests.browser.pages import broken_images, shot, sign_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
KEY = {"entailed": "e", "refuted": "r"}
FLIP = {"entailed": "refuted", "refuted": "entailed"}


def annotate(page, name: str, *, agree: bool) -> WorkItem:
    sign_in(page, name)
    assert "Evidence to annotate" in page.content()
    page.keyboard.press("n")
    page.wait_for_url("**/review/annotate/*/")
    item = WorkItem.objects.get(key=re.search(r"/annotate/([A-Za-z0-9_-]+)/", page.url)[1])
    claim = item.claim
    assert page.locator("#claim-text").inner_text() == claim.text
    assert page.locator("img").count() >= 1
    assert broken_images(page) == []  # served through the item's own route
    label = claim.label if agree else FLIP[claim.label]
    page.keyboard.press(KEY[label])
    for pk in claim.evidence.values_list("pk", flat=True):
        page.locator(f"#ev-{pk} input.ev").check()
    page.wait_for_function(
        "document.getElementById('draft-state').textContent.includes('Draft saved')"
    )
    shot(page, f"review-annotate-{name}")
    # Alt+Enter: the page's second button, back to the workspace (Ctrl+Enter would go on to the
    # next claim, or say that none waits): the message is the recording's alone.
    page.keyboard.press("Alt+Enter")
    page.wait_for_url(lambda url: url.rstrip("/").count("/") == 2)
    assert page.locator("ul.messages li.success").all_inner_texts() == ["Recorded. Thank you."]
    return item


def test_blind_annotation_adjudication_and_statistics(new_page, pair):
    annotate(new_page(), "bob", agree=True)
    disputed = annotate(new_page(), "carol", agree=False)
    assert ClaimReview.objects.get(claim=disputed.claim).state == "adjudication"

    page = new_page()
    sign_in(page, "dave")
    assert page.locator("#adjudications .count").inner_text() == "1"
    page.keyboard.press("n")
    page.wait_for_url("**/review/adjudicate/*/")
    sides = page.locator("#sides").inner_text()
    assert "Writer" in sides and "Second annotator" in sides
    assert "alice" not in page.content() and "carol" not in page.content()
    page.locator(".take-side").first.click()  # the writer's label and evidence
    page.select_option("#id_confidence", "high")
    page.select_option("#id_reason", "second_annotator_error")
    shot(page, "review-adjudicate")
    page.locator("#id_notes").focus()
    page.keyboard.press("Control+Enter")
    page.wait_for_url(lambda url: "/review/" not in url)
    review = ClaimReview.objects.get(claim=disputed.claim)
    assert (review.state, review.final_label) == ("adjudicated", disputed.claim.label)

    page = new_page()
    sign_in(page, "boss")
    page.goto("/agreement/")
    assert page.locator("svg.plot").count() == 4
    assert "bob" in page.locator("#table-annotator_pair").inner_text()
    overall = page.locator("#overall").inner_text()
    assert "0.50" in overall  # one label disagreement in two claims
    shot(page, "review-agreement")
