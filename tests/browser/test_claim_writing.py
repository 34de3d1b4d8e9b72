"""In a real browser: an expert writes an entailed claim with evidence (keyboard and click),
takes a suggested perturbation, edits it, explains it, and finds both claims in the pair's
history; the draft survives a reload and a lost connection."""

from __future__ import annotations

import pytest

from annotation.models import ClaimPair
from tests.browser.pages import ENTAILED, shot, sign_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_an_expert_writes_a_claim_pair(page, task):
    sign_in(page, "alice")
    assert "Claims to write" in page.content()
    page.keyboard.press("n")
    page.wait_for_url("**/claims/write/*/")
    assert page.locator(".ev-item.sampled").count() == 3
    assert f"Write a {task.subset} claim" in page.locator(".subset-box").inner_text()

    # Evidence from the keyboard: the first two sampled elements; a paragraph by click.
    page.keyboard.press("1")
    page.keyboard.press("2")
    paragraph = page.locator(".ev-item.ev-paragraph input.ev").first
    if paragraph.count():
        paragraph.check()
    assert page.locator("#ev-sampled").inner_text() == "2"
    page.keyboard.press("e")
    page.keyboard.type(ENTAILED)
    page.wait_for_function(
        "document.getElementById('draft-state').textContent.includes('Draft saved')"
    )

    # The draft survives a reload.
    page.reload()
    assert page.locator("#id_entailed").input_value() == ENTAILED
    assert page.locator("#ev-sampled").inner_text() == "2"

    # Suggestions: take the flipped direction, then edit it.
    page.keyboard.press("g")
    suggestion = page.locator(".take-suggestion", has_text="lower score")
    suggestion.first.wait_for()
    shot(page, "claim-suggestions")
    suggestion.first.click()
    assert "lower score" in page.locator("#id_refuted").input_value()
    assert page.locator("#id_perturbation_kind").input_value() == "direction"
    page.locator("#id_refuted").press("End")
    page.keyboard.type(" on all datasets")
    refuted = page.locator("#id_refuted").input_value()

    # A lost connection: the text stays in the browser and comes back after a reload.
    page.context.set_offline(True)
    page.keyboard.press("Escape")  # leave the text box: the keys are shortcuts again
    page.keyboard.press("p")
    page.keyboard.type("The tables show the approach scoring above the baselines, not below.")
    page.wait_for_function("document.getElementById('draft-state').textContent.includes('Offline')")
    page.context.set_offline(False)
    page.reload()
    explanation = page.locator("#id_explanation").input_value()
    assert explanation.startswith("The tables show the approach scoring above")
    assert page.locator("#id_refuted").input_value() == refuted
    shot(page, "claim-writing")

    # Submit from the keyboard; the pair's history holds both claims.
    page.locator("#id_explanation").focus()
    page.keyboard.press("Control+Enter")
    page.wait_for_url("**/claims/pairs/*/")
    history = page.locator("#history").inner_text()
    assert ENTAILED in history and refuted in history and "submitted" in history
    pair = ClaimPair.objects.get()
    assert pair.claims.get(label="refuted").perturbation_kind == "direction"
    assert pair.claims.get(label="refuted").explanation == explanation
    shot(page, "claim-pair")
    with page.expect_navigation():
        page.keyboard.press("n")
    assert page.url.endswith("/") and "/claims/" not in page.url
    assert "No claim task is waiting for you" in page.content()


def test_the_refuted_claim_gets_its_own_evidence_and_the_task_goes_back(page, task):
    from annotation.models import WorkItem

    sign_in(page, "alice")
    page.keyboard.press("n")
    page.wait_for_url("**/claims/write/*/")
    assert page.locator(".ev-ref-toggle").first.is_hidden()
    page.keyboard.press("1")
    page.keyboard.press("2")
    # `d`: the refuted claim's evidence starts as a copy of the entailed claim's.
    page.keyboard.press("d")
    assert page.locator("#id_split_evidence").is_checked()
    assert page.locator("#ref-summary").is_visible()
    assert page.locator("#ref-sampled").inner_text() == "2"
    page.keyboard.press("3")  # marks the third sampled element for the entailed claim only
    page.keyboard.press("Shift+X")  # ...and, on the current element, for the refuted one
    assert page.locator("#ev-sampled").inner_text() == "3"
    assert page.locator("#ref-sampled").inner_text() == "3"
    page.keyboard.press("2")
    assert page.locator("#ev-sampled").inner_text() == "2"
    assert page.locator("#ref-sampled").inner_text() == "3"
    page.wait_for_function(
        "document.getElementById('draft-state').textContent.includes('Draft saved')"
    )
    page.reload()
    assert page.locator("#id_split_evidence").is_checked()
    assert page.locator("#ref-sampled").inner_text() == "3"
    assert page.locator("#ev-sampled").inner_text() == "2"

    page.locator("#release").click()
    page.wait_for_url(lambda url: "/claims/" not in url)
    assert "handed back" in page.content()
    item = WorkItem.objects.get(task=task)
    assert item.status == "open" and item.holder is None
    assert item.draft["split_evidence"] is True and len(item.draft["refuted_evidence"]) == 3


def test_the_warnings_follow_what_the_writer_types(page, task):
    sign_in(page, "alice")
    page.keyboard.press("n")
    page.wait_for_url("**/claims/write/*/")
    page.keyboard.press("e")
    page.keyboard.type(
        "The the approach acheives a higher score than every baseline in the tables."
    )
    page.locator('#warnings [data-code="misspelling"]').wait_for()
    assert page.locator('#warnings [data-code="repeated_word"]').count() == 1
    page.locator("#id_entailed").fill(
        "The approach achieves a higher score than every baseline in the tables."
    )
    page.locator("#warnings #no-warnings").wait_for()


def test_each_suggestion_says_where_its_value_comes_from(page, task):
    """A number of the ablation table becomes another value of its column, and the page names
    the cell; Alt+1 takes it."""
    sign_in(page, "alice")
    page.keyboard.press("n")
    page.wait_for_url("**/claims/write/*/")
    page.locator(".ev-item.sampled", has_text="Ablation on the African group").locator(
        "input.ev"
    ).first.check()
    page.locator("#id_entailed").fill(
        "In the ablation, a pool of only four adapters scores 44.2 chrF++ on the African group."
    )
    page.keyboard.press("Escape")
    page.keyboard.press("g")
    first = page.locator(".suggestion-list li").first
    first.wait_for()
    assert "scores 44.7 chrF++" in first.locator(".take-suggestion").inner_text()
    assert first.locator(".suggestion-source").inner_text() == (
        "Value from Table 2, row “w/o balancing loss”, column “chrF++”"
    )
    assert first.locator(".suggestion-source").get_attribute("data-source") == "cell"
    page.keyboard.press("Alt+1")
    assert "scores 44.7 chrF++" in page.locator("#id_refuted").input_value()
    assert page.locator("#id_perturbation_kind").input_value() == "number"
