"""In a real browser: a writer whose perturbation turned out true opens the new-perturbation
page from the workspace, sees why it failed, takes a suggestion, sees the warnings, submits,
and finds the old claim superseded on the pair's page."""

from __future__ import annotations

import pytest

from annotation.models import Claim
from tests.annotation.test_reperturb import NOTES, found_true
from tests.browser.test_curation import sign_in

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
    page.locator("#id_explanation").fill("The evidence table gives another value for this.")
    page.wait_for_function("document.getElementById('draft-state').textContent.includes('saved')")
    page.keyboard.press("Control+Enter")
    page.wait_for_url("**/claims/pairs/*/")
    assert page.locator(f"#superseded-{old.pk}").is_visible()
    assert taken in page.locator("#claim-refuted").inner_text()
    new = Claim.objects.current().get(pair=pair, label="refuted")
    assert new.text == taken and new.replaces_id == old.pk
