"""In a real browser: a validator fails a criterion and revises a claim in place; an admin
re-opens it; an admin runs a human-baseline study that two experts answer blind."""

from __future__ import annotations

import os

import pytest

from tests.annotation.factories import make_expert
from tests.browser.pages import sign_in
from tests.validation.factories import Team, final_pair, validate_all
from validation.models import BaselineAnswer, BaselineItem, ValidationRevision

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
SHOTS = os.environ.get("SCIVER_SHOTS", "")


def shot(page, name: str) -> None:
    if SHOTS:
        page.screenshot(path=f"{SHOTS}/{name}.png", full_page=True)


def test_a_validator_revises_a_claim_and_an_admin_reopens_it(new_page):
    team = Team()
    pair, claims = final_pair(team)
    page = new_page()
    sign_in(page, team.validators[0].username)
    page.click("#next-validation")
    page.wait_for_url("**/validate/*/")
    assert page.locator("#criteria input[type=checkbox]").count() == 5
    assert page.locator(".piece.evidence").count() == 1  # a direct claim: one table or chart
    shot(page, "validate")
    # Revise without saying which criterion failed: refused, with the text kept.
    revised = "Ours reaches a BLEU score of 73.2, which is higher than the Baseline model."
    page.fill("#text", revised)
    page.click("#submit")
    assert "tick the criteria" in page.locator("#err-criteria").inner_text()  # by the checklist
    assert page.input_value("#text") == revised
    page.check("#criteria input[value=language]")
    new_subset = "analytical" if pair.subset != "analytical" else "direct"
    page.select_option("#subset", new_subset)
    page.click("#submit-home")  # the second button: back to the workspace
    page.wait_for_url(lambda u: u.rstrip("/").count("/") == 2)  # the workspace
    assert page.locator("ul.messages li.success").all_inner_texts() == ["Validated. Thank you."]
    assert set(ValidationRevision.objects.values_list("field", flat=True)) == {"text", "subset"}
    pair.refresh_from_db()
    assert pair.subset == new_subset

    admin = new_page()
    sign_in(admin, "boss")
    admin.goto("/manage/validation/")
    assert admin.locator("#revised").inner_text() == "1"
    shot(admin, "overview")
    admin.fill("#validated input[name=reason]", "subset should stay")
    admin.click("#validated button")
    assert "back in validation" in admin.content()
    admin.goto("/manage/statistics/")
    assert admin.locator("svg.plot").count() >= 4
    shot(admin, "statistics")


def test_a_human_baseline_study(new_page):
    team = Team()
    for seed in range(2):
        final_pair(team, seed=seed)
    validate_all(team)
    a, b = make_expert("ann"), make_expert("ben")
    admin = new_page()
    sign_in(admin, "boss")
    admin.goto("/manage/baseline/")
    admin.check(f"#start-study input[value='{a.pk}']")
    admin.check(f"#start-study input[value='{b.pk}']")
    admin.fill("input[name=per_subset]", "2")
    admin.click("#start-study button")
    admin.wait_for_url("**/manage/baseline/*/")
    study_url = admin.url
    assert admin.locator("#per-subset").inner_text() == "No answers yet."
    for expert in ("ann", "ben"):
        page = new_page()
        sign_in(page, expert)
        page.click("#next-baseline")
        while "/baseline/answer/" in page.url:
            assert "gold" not in page.content().lower()
            page.check("input[value=entailed]")
            page.fill("#explanation", "The table shows it.")
            with page.expect_navigation():  # the answer's redirect, before the next check
                page.click("#submit")
    # One claim per pair (never both: they give each other away), one entailed and one refuted.
    assert BaselineAnswer.objects.count() == 4
    assert sorted(BaselineItem.objects.values_list("gold_label", flat=True)) == [
        "entailed",
        "refuted",
    ]
    admin.goto(study_url)
    assert admin.locator("#average").inner_text() == "50.0%"
    assert admin.locator("#disagreements li").count() == 1
    shot(admin, "study")
