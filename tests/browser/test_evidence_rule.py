"""In a real browser, the evidence rule on the three pages held to it: the writer, the
adjudicator and the validator each tick one table too many, submit, read the rule and what to
untick next to the evidence with nothing lost, untick it, and are recorded."""

from __future__ import annotations

import uuid

import pytest
from django.contrib.auth import get_user_model

from annotation.models import ClaimPair, ClaimReview, ClaimTask, WorkItem, WorkKind
from annotation.review import services as review
from papers.models import Element
from tests.annotation.review_factories import FLIP
from tests.browser.pages import sign_in
from tests.validation.factories import Team, final_pair
from validation.models import ValidationRevision

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


ENTAILED = "The proposed approach obtains a higher score than every baseline, reaching 42.5."
REFUTED = "The proposed approach obtains a lower score than every baseline, reaching 42.5."
WHY = "The table shows the approach above every baseline, not below."


def error_text(page) -> str:
    return page.locator("#err-evidence").inner_text()


def test_the_writer_unticks_the_table_too_many(page, task):
    ClaimTask.objects.filter(pk=task.pk).update(subset="direct")
    sign_in(page, "alice")
    page.keyboard.press("n")
    page.wait_for_url("**/claims/write/*/")
    rule = page.locator("#evidence-rule").inner_text()
    assert rule.startswith("A direct claim rests on exactly one table or chart")
    page.keyboard.press("1")
    page.keyboard.press("2")
    # The summary says it before the server does: two tables/charts, exactly one asked for.
    assert page.locator("#ev-visuals").inner_text() == "2"
    assert "short" in page.locator("#ev-summary").get_attribute("class")
    page.fill("#id_entailed", ENTAILED)
    page.fill("#id_refuted", REFUTED)
    page.select_option("#id_perturbation_kind", "direction")
    page.fill("#id_explanation", WHY)
    page.click("#submit")  # refused on the page itself (static/js/autosave.js)
    message = error_text(page)
    labels = [
        page.locator(f"#ev-{pk} figcaption strong").first.inner_text()
        for pk in task.sampled_ids[:2]
    ]
    assert "A direct claim rests on exactly one table or chart" in message
    assert "2 are marked" in message and "Untick one" in message
    assert all(label in message for label in labels), (labels, message)
    # Nothing lost: the boxes, the claims, the explanation.
    assert page.locator("#ev-visuals").inner_text() == "2"
    assert page.input_value("#id_entailed") == ENTAILED
    assert page.input_value("#id_refuted") == REFUTED and page.input_value("#id_explanation") == WHY
    assert not ClaimPair.objects.exists()
    page.keyboard.press("Escape")
    page.keyboard.press("2")  # untick the second sampled table/chart
    assert page.locator("#ev-visuals").inner_text() == "1"
    assert "ok" in page.locator("#ev-summary").get_attribute("class").split()
    with page.expect_navigation():
        page.click("#submit")
    page.wait_for_url("**/claims/pairs/*/")
    entailed = ClaimPair.objects.get().claims.get(label="entailed")
    assert list(entailed.evidence.values_list("pk", flat=True)) == [task.sampled_ids[0]]


def test_the_adjudicator_unticks_the_table_too_many(page, pair):
    sampled = pair.task.sampled_ids
    users = {u.username: u for u in get_user_model().objects.filter(username__in=["bob", "carol"])}
    for name, flip in (("bob", False), ("carol", True)):  # carol labels her claim the other way
        item = review.take_next(user=users[name], kind="evidence")
        claim = item.claim
        review.submit_second_annotation(
            item=item,
            user=users[name],
            version=item.version,
            token=uuid.uuid4(),
            label=FLIP[claim.label] if flip else claim.label,
            evidence_ids=claim.evidence.values_list("pk", flat=True),
        )
    sign_in(page, "dave")
    page.keyboard.press("n")
    page.wait_for_url("**/review/adjudicate/*/")
    assert (
        "A sequential claim rests on exactly two tables/charts"
        in page.locator("#evidence-rule").inner_text()
    )
    page.locator(".take-side").first.click()  # the writer's: two sampled tables/charts
    page.check(f"#ev-{sampled[2]} input.ev")  # and one too many
    page.select_option("#id_confidence", "high")
    page.select_option("#id_reason", "second_annotator_error")
    page.fill("#id_notes", "The third table says the same.")
    page.click("#submit")  # refused on the page itself (static/js/autosave.js)
    message = error_text(page)
    assert "A sequential claim rests on exactly two tables/charts" in message
    assert "3 are marked" in message and "Untick one" in message
    assert page.locator(f"#ev-{sampled[2]} input.ev").is_checked()  # nothing lost
    assert page.input_value("#id_notes") == "The third table says the same."
    assert not ClaimReview.objects.filter(state="adjudicated").exists()
    page.uncheck(f"#ev-{sampled[2]} input.ev")
    with page.expect_navigation():
        page.click("#submit")
    assert "Adjudication recorded" in page.content()
    decided = ClaimReview.objects.get(state="adjudicated")
    assert set(decided.final_evidence.values_list("pk", flat=True)) == set(sampled[:2])


def test_the_validator_unticks_the_table_too_many(page):
    team = Team()
    pair, _ = final_pair(team)  # direct: one table or chart
    first, extra = pair.task.sampled_ids[:2]  # the claim cites the first (the factory's)
    sign_in(page, team.validators[0].username)
    page.click("#next-validation")
    page.wait_for_url("**/validate/*/")
    assert page.locator("#evidence-warning").count() == 0
    assert (
        "A direct claim rests on exactly one table or chart"
        in page.locator("#evidence-rule").inner_text()
    )
    page.check(f"#el-{extra} input[name=evidence]")
    page.check("#criteria input[value=evidence]")
    page.click("#submit")  # refused on the page itself (static/js/autosave.js)
    message = error_text(page)
    label = Element.objects.get(pk=extra).label
    assert "2 are marked" in message and "Untick one" in message and label in message
    assert page.locator(f"#el-{extra} input[name=evidence]").is_checked()  # nothing lost
    assert page.locator("#criteria input[value=evidence]").is_checked()
    assert not ValidationRevision.objects.exists()
    # Untick the claim's table instead: the one the validator added stays.
    page.uncheck(f"#el-{first} input[name=evidence]")
    with page.expect_navigation():
        page.click("#submit")
    assert "Validated" in page.content()
    item = WorkItem.objects.get(kind=WorkKind.VALIDATE, done_by=team.validators[0])
    assert list(item.claim.review.final_evidence.values_list("pk", flat=True)) == [extra]
    assert ValidationRevision.objects.get().field == "evidence"
