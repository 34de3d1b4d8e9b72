"""In a real browser: the validator's edits and ticks autosave and come back after a reload,
leaving with a change the server has not got asks first, the keys work, and Ctrl+Enter
submits."""

from __future__ import annotations

import pytest

from tests.browser.pages import sign_in
from tests.validation.factories import Team, final_pair
from validation.models import Validation, ValidationRevision

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

REVISED = "Ours reaches a BLEU score of 73.2, which is higher than the Baseline model."


def saved(page) -> None:
    page.wait_for_function(
        "document.getElementById('draft-state').textContent.includes('Draft saved')"
    )


def test_the_validators_draft_survives_a_reload_and_ctrl_enter_submits(new_page):
    team = Team()
    final_pair(team)
    page = new_page()
    sign_in(page, team.validators[0].username)
    page.click("#next-validation")
    page.wait_for_url("**/validate/*/")
    url = page.url
    assert "Ctrl+Enter submit" in page.locator(".keys").inner_text()  # the keys, from keys.js
    # Every evidence box is named for its element.
    first = page.locator("input[name=evidence]").first
    assert first.get_attribute("aria-label").startswith("Evidence: ")
    assert page.get_by_role("checkbox", name="Evidence: Table 1").count() == 1

    page.fill("#text", REVISED)
    page.keyboard.press("Escape")  # leave the text box: the keys are the page's again
    page.keyboard.press("1")  # criterion (1), language
    assert page.is_checked("#criteria input[value=language]")
    page.keyboard.press("j")
    page.keyboard.press("x")  # the first piece of context: marked (or unmarked) as evidence
    piece = page.locator(".piece.current input[name=evidence]")
    marked = piece.is_checked()
    piece_id = piece.get_attribute("value")
    saved(page)

    page.reload()
    assert page.input_value("#text") == REVISED
    assert page.is_checked("#criteria input[value=language]")
    assert page.is_checked(f"input[name=evidence][value='{piece_id}']") == marked
    assert "Restored your draft" in page.locator("#draft-state").inner_text()

    # A change the server did not get: leaving asks first.
    page.route(
        url,
        lambda route: (
            route.abort()
            if route.request.method == "POST"
            and "json" in (route.request.header_value("content-type") or "")
            else route.continue_()
        ),
    )
    page.click(f"input[name=evidence][value='{piece_id}']")  # back as it was
    page.wait_for_function(
        "document.getElementById('draft-state').textContent.includes('not saved yet')"
    )
    page.unroute(url)
    dialogs = []
    page.once("dialog", lambda dialog: (dialogs.append(dialog.type), dialog.accept()))
    page.reload()
    assert dialogs == ["beforeunload"]
    # This browser kept the change the server did not get (the box back as it was): the reload
    # puts it back, and saves it.
    assert page.is_checked(f"input[name=evidence][value='{piece_id}']") != marked
    saved(page)
    page.locator("#text").focus()
    page.keyboard.press("Control+Enter")
    page.wait_for_url(lambda u: not u.endswith(url))  # on to the next claim (or the workspace)
    assert "Validated. Thank you." in page.content()
    validation = Validation.objects.get(item__key=url.rstrip("/").split("/")[-1])
    assert validation.status == "validated" and validation.criteria_failed == ["language"]
    assert validation.claim.text == REVISED
    assert set(ValidationRevision.objects.values_list("field", flat=True)) == {"text"}
