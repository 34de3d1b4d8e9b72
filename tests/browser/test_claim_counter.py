"""In a real browser (issue 44, item 2): the claim-writing page's text fields count their
characters against the limit the server holds them to, and a paste longer than the limit is
kept whole (no `maxlength` cuts it): the counter says it is too long, the server refuses it
naming the limit."""

from __future__ import annotations

import pytest

from annotation.assignment import services as assignment_services
from annotation.limits import MAX_CLAIM
from annotation.queue import work
from annotation.writing import services as writing
from tests.annotation.claim_factories import curated_paper
from tests.annotation.review_factories import crew
from tests.browser.pages import sign_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_the_claim_fields_count_characters_and_keep_a_long_paste_whole(new_page) -> None:
    people = crew("alice")
    paper, _ = curated_paper(people["boss"])
    assignment_services.assign_papers(papers=[paper], experts=[people["alice"]], assigned_by=None)
    writing.create_claim_tasks(paper=paper, by=people["alice"], count=1, seed=7)
    item = work.next_item(user=people["alice"], kind="write")
    page = new_page()
    sign_in(page, "alice")
    page.goto(f"/claims/write/{item.key}/", wait_until="domcontentloaded")

    page.fill("#id_entailed", "Ours reaches a BLEU of 73.2.")
    assert page.locator("#id_entailed-counter").inner_text() == "28 / 5,000 characters"
    pasted = "x" * (MAX_CLAIM + 1)
    page.fill("#id_refuted", pasted)
    assert page.input_value("#id_refuted") == pasted  # whole: nothing cut it
    counter = page.locator("#id_refuted-counter")
    assert counter.inner_text() == "5,001 / 5,000 characters (too long: shorten it)"
    assert "over" in (counter.get_attribute("class") or "")
    assert page.locator("#id_explanation-counter").inner_text() == "0 / 5,000 characters"
