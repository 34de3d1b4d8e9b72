"""In a real browser: a writer whose perturbation turned out true opens the new-perturbation
page from the workspace, sees why it failed, takes a suggestion, sees the warnings, marks
different evidence for the new claim from the keyboard and by click, submits, and finds the old
claim superseded on the pair's page."""

from __future__ import annotations

import pytest

from annotation.models import Claim
from tests.annotation.reperturbation import NOTES, found_true
from tests.browser.pages import sign_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_a_writer_replaces_a_perturbation_that_turned_out_true(page):
    _, pair = found_true()
    old = pair.claims.get(label="refuted")
    sign_in(page, "wendy")
    page.locator("#next-reperturb").click()
    page.wait_for_url("**/claims/reperturb/*/")
    assert NOTES in page.locator("#why-failed").inner_text()
    assert page.locator("#failed-label").inner_text() == "entailed"
    page.locator("#suggest").click()
    page.locator(".take-suggestion").first.wait_for()
    page.locator(".take-suggestion").first.click()
    taken = page.locator("#id_refuted").input_value()
    assert taken and taken != old.text
    page.locator("#id_refuted").press("End")
    page.keyboard.type(" the the")
    page.locator('#warnings [data-code="repeated_word"]').wait_for()
    page.locator("#id_refuted").fill(taken)
    page.locator("#warnings #no-warnings").wait_for()
    # Different evidence for the new claim: it starts from the entailed claim's final evidence
    # (a direct pair: the first sampled, by the evidence rule); 1 unmarks it, 3 marks the third,
    # a paragraph by click.
    sampled, paragraph = pair.task.sampled_ids, pair.task.paragraph_ids[0]
    assert page.locator(".ev-ref-toggle").first.is_hidden()
    page.keyboard.press("Escape")  # leave the text box: the keys are shortcuts again
    page.keyboard.press("d")
    assert page.locator("#id_split_evidence").is_checked()
    assert page.locator("#ref-summary").is_visible()
    assert page.locator("#ref-sampled").inner_text() == "1"
    page.keyboard.press("1")
    page.keyboard.press("3")
    page.locator(f"#ev-{paragraph} input.ev-ref").check()
    assert page.locator("#ref-sampled").inner_text() == "1"
    assert page.locator("#ref-paragraphs").inner_text() == "1"
    page.locator("#id_explanation").fill("The evidence table gives another value for this.")
    page.wait_for_function(
        "document.getElementById('draft-state').textContent.includes('Draft saved')"
    )
    # The draft keeps the choice: a reload shows it again.
    page.reload()
    assert page.locator("#id_split_evidence").is_checked()
    assert page.locator("#ref-sampled").inner_text() == "1"
    assert page.locator(f"#ev-{paragraph} input.ev-ref").is_checked()
    page.locator("#id_explanation").focus()
    page.keyboard.press("Control+Enter")
    page.wait_for_url("**/claims/pairs/*/")
    assert page.locator(f"#superseded-{old.pk}").is_visible()
    assert taken in page.locator("#claim-refuted").inner_text()
    new = Claim.objects.current().get(pair=pair, label="refuted")
    assert new.text == taken and new.replaces_id == old.pk
    chosen = sorted([sampled[2], paragraph])
    assert sorted(new.evidence.values_list("pk", flat=True)) == chosen
    entailed = Claim.objects.current().get(pair=pair, label="entailed")
    assert sorted(entailed.evidence.values_list("pk", flat=True)) == sorted(sampled[:1])
