"""In a real browser: a second annotator opens the claim they annotated, edits their last
answer, is told only that it changed, and once the next stage's item is taken finds the form
closed, with the one message that does not say which stage started. The evidence's math is
rendered there as on the task page; the claim is shown as typed."""

from __future__ import annotations

import pytest

from annotation.models import EvidenceAnnotation, WorkAction, WorkEvent
from annotation.review import edits
from tests.annotation.review_factories import FLIP, annotate, crew, written_pair
from tests.browser.pages import math_rendered, sign_in, with_math
from validation import services as validation

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_edit_my_last_answer_until_the_next_stage_starts(new_page) -> None:
    people = crew("writer", "second", "third")
    written_pair(people["writer"], people["boss"])
    item = annotate(people["second"])
    claim = item.claim
    with_math(item.pair.context.paper)
    page = new_page()
    sign_in(page, "second")
    page.goto(f"/review/annotate/{item.key}/")
    with page.expect_navigation():
        page.click("#task-aids #edit-answer-link")
    assert page.locator("#edit-answer").get_attribute("data-editable") == "1"
    math_rendered(page, "#edit-form .ev-choice")
    assert page.locator("#claim-text .katex").count() == 0
    page.check(f"input[name=label][value={FLIP[claim.label]}]")
    with page.expect_navigation():
        page.click("#save-edit")
    assert "Your answer was changed." in page.locator(".messages").inner_text()
    text = page.locator("main").inner_text().lower()
    assert not any(w in text for w in ("agree", "unanimous", "adjudicat", "validat"))
    assert page.locator(f"input[name=label][value={FLIP[claim.label]}]").is_checked()
    assert EvidenceAnnotation.objects.get(item=item).label == FLIP[claim.label]
    page.check(f"input[name=label][value={claim.label}]")  # and back: final again
    with page.expect_navigation():
        page.click("#save-edit")
    assert (
        WorkEvent.objects.filter(item=item, action=WorkAction.ANSWER_EDITED, machine="item").count()
        == 2
    )
    # third annotates the other claim, then validates this one: the answer is closed.
    annotate(people["third"])
    taken = validation.take_next(user=people["third"])
    assert taken.claim_id == claim.pk
    page.reload()
    assert page.locator("#edit-answer").get_attribute("data-editable") == "0"
    assert page.locator("#too-late").inner_text() == edits.TOO_LATE
    assert page.locator("#save-edit").is_disabled()


def test_a_validator_revises_their_validation_from_the_validate_page(new_page) -> None:
    from tests.validation.factories import Team, final_pair, validate_all
    from validation.models import Validation

    team = Team()
    _, claims = final_pair(team)
    validate_all(team)
    claim = claims["entailed"]
    item = Validation.objects.get(claim=claim).item
    page = new_page()
    sign_in(page, team.validators[0].username)
    page.goto(f"/validate/{item.key}/")
    with page.expect_navigation():
        page.click("#task-aids #edit-answer-link")
    page.fill("#edit-text", claim.text.replace("which is higher", "higher"))
    page.check("input[name=criteria][value=language]")
    with page.expect_navigation():
        page.click("#save-edit")
    assert "Your validation was changed." in page.locator(".messages").inner_text()
    claim.refresh_from_db()
    assert "which is higher" not in claim.text
    assert Validation.objects.get(claim=claim).revisions == 1
