"""In a real browser: a writer's claim names a table that is not among its evidence; the page
warns with the names as they type and mark, they give a reason, and the pair keeps it."""

from __future__ import annotations

import pytest

from annotation.evidence import visuals_needed
from annotation.models import ClaimPair
from papers.models import Element
from tests.browser.pages import ENTAILED, sign_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

REASON = "The claim cites the table only for the baseline's name."


def test_a_writer_is_warned_of_a_table_not_among_the_evidence_and_says_why(page, task):
    sampled = sorted(
        Element.objects.filter(pk__in=task.sampled_ids), key=lambda e: e.kind != "chart"
    )
    evidence = sampled[: visuals_needed(task.subset)]  # charts first: a figure, if any
    numbers = {e.number for e in evidence if e.kind == "table"}
    name = "Table 2" if "2" not in numbers else "Table 9"
    shown = ", ".join(e.label for e in sorted(evidence, key=lambda e: e.order))

    sign_in(page, "alice")
    page.keyboard.press("n")
    page.wait_for_url("**/claims/write/*/")
    assert page.locator("#reference-reason").is_hidden()
    for element in evidence:
        page.locator(f"#ev-{element.pk} input.ev").check()
    page.locator("#id_entailed").fill(f"{ENTAILED} ({name})")
    warning = page.locator('#warnings [data-code="reference_mismatch"]')
    warning.wait_for()
    assert f"names {name}, which is not among its evidence ({shown})" in warning.inner_text()

    page.locator("#id_reference_note").fill(REASON)
    page.locator("#id_refuted").fill(f"{ENTAILED.replace('42.5', '37.5')} ({name})")
    page.select_option("#id_perturbation_kind", "number")
    page.locator("#id_explanation").fill("The results give 42.5 overall, not 37.5.")
    page.locator("#id_explanation").press("Control+Enter")
    page.wait_for_url("**/claims/pairs/*/")
    assert REASON in page.locator("#reference-note").inner_text()
    assert ClaimPair.objects.get().reference_note == REASON
