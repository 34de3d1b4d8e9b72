"""In a real browser, marking evidence on the blind annotation page: Space toggles the focused
box and `x` the current element, which follows the focus; evidence marked in the whole curated
context is one box after a reload, counted once and unmarked anywhere."""

from __future__ import annotations

import re

import pytest

from annotation.models import WorkItem
from tests.browser.pages import DUPLICATE_IDS, open_whole_context, sign_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def open_annotation(page, name: str = "bob") -> WorkItem:
    sign_in(page, name)
    page.keyboard.press("n")
    page.wait_for_url("**/review/annotate/*/")
    return WorkItem.objects.get(key=re.search(r"/annotate/([A-Za-z0-9_-]+)/", page.url)[1])


def wait_saved(page) -> None:
    page.wait_for_function(
        "document.getElementById('draft-state').textContent.includes('Draft saved')"
    )


def test_space_toggles_the_focused_box_and_x_the_current_element(page, pair):
    item = open_annotation(page)
    task = item.pair.task
    first_box = f"#ev-{task.sampled_ids[0]} input.ev"
    paragraph_box = f"#ev-{task.paragraph_ids[0]} input.ev"
    page.keyboard.press("j")  # the first table/chart is current
    assert "current" in page.locator(f"#ev-{task.sampled_ids[0]}").get_attribute("class")
    page.keyboard.press(" ")  # ...and Space marks it
    assert page.locator(first_box).is_checked()
    # Focusing a paragraph's box (as Tab does) makes it current: Space ticks it, x unticks it.
    page.locator(paragraph_box).focus()
    assert "current" in page.locator(f"#ev-{task.paragraph_ids[0]}").get_attribute("class")
    page.keyboard.press(" ")
    assert page.locator(paragraph_box).is_checked() and page.locator(first_box).is_checked()
    assert page.locator("#ev-count").inner_text() == "2"
    page.keyboard.press("x")
    assert not page.locator(paragraph_box).is_checked() and page.locator(first_box).is_checked()
    assert page.locator("#ev-count").inner_text() == "1"
    assert "<kbd>x</kbd> or <kbd>Space</kbd> mark/unmark" in page.content()
    wait_saved(page)
    item.refresh_from_db()
    assert item.draft["evidence"] == [task.sampled_ids[0]]


def test_evidence_marked_in_the_whole_context_is_one_box_after_a_reload(page, pair):
    item = open_annotation(page)
    open_whole_context(page)
    extra = int(page.locator("#whole-context .ev-item.ev-paragraph").first.get_attribute("data-ev"))
    page.locator(f"#whole-context #ev-{extra} input.ev").check()
    assert page.locator("#ev-count").inner_text() == "1"
    wait_saved(page)

    page.reload()
    assert page.get_by_role("heading", name="Other evidence you marked").is_visible()
    open_whole_context(page)
    assert page.evaluate(DUPLICATE_IDS) == []
    assert page.locator(f'input.ev[value="{extra}"]').count() == 1
    assert page.locator(f"#ev-{extra} input.ev").is_checked()
    assert page.locator("#ev-count").inner_text() == "1"
    assert page.locator("#ev-list li").count() == 1
    assert page.locator(f'#whole-context a[href="#ev-{extra}"]').count() == 1

    page.locator(f"#ev-{extra} input.ev").uncheck()
    assert page.locator("#ev-count").inner_text() == "0"
    wait_saved(page)
    item.refresh_from_db()
    assert item.draft["evidence"] == []

    # Marked again and reloaded, then unmarked and saved before the whole context loads: the
    # server no longer knows the page shows its box, the page does, and keeps one.
    page.locator(f"#ev-{extra} input.ev").check()
    wait_saved(page)
    page.reload()
    page.locator(f"#ev-{extra} input.ev").uncheck()
    wait_saved(page)
    open_whole_context(page)
    assert page.evaluate(DUPLICATE_IDS) == []
    assert page.locator(f'input.ev[value="{extra}"]').count() == 1
    page.locator(f"#ev-{extra} input.ev").check()
    assert page.locator("#ev-count").inner_text() == "1"
