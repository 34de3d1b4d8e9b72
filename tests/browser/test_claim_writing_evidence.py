"""In a real browser, marking evidence on the writing and new-perturbation pages: Space toggles
the box that has the focus (and `x` the current element, which follows the focus); evidence
marked in the whole curated context is one box after a reload, counted once and unmarked
anywhere; a new perturbation handed to another expert ends on a page she may open."""

from __future__ import annotations

import pytest

from annotation.models import WorkItem, WorkKind
from annotation.writing import services as writing
from tests.annotation.reperturbation import found_true, reperturb_item
from tests.browser.pages import DUPLICATE_IDS, open_whole_context, sign_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def checked(page, selector: str) -> bool:
    return page.locator(selector).is_checked()


def wait_saved(page) -> None:
    page.wait_for_function(
        "document.getElementById('draft-state').textContent.includes('Draft saved')"
    )


def open_task(page) -> WorkItem:
    sign_in(page, "alice")
    page.keyboard.press("n")
    page.wait_for_url("**/claims/write/*/")
    return WorkItem.objects.get(kind=WorkKind.WRITE, holder__username="alice")


def test_space_toggles_the_focused_box_and_x_the_current_element(page, task):
    item = open_task(page)
    first, paragraph = item.task.sampled_ids[0], item.task.paragraph_ids[0]
    first_box, paragraph_box = f"#ev-{first} input.ev", f"#ev-{paragraph} input.ev"

    # With no current element, Space on a focused box marks it.
    page.locator(paragraph_box).focus()
    page.keyboard.press(" ")
    assert checked(page, paragraph_box)
    assert page.locator("#ev-paragraphs").inner_text() == "1"
    page.keyboard.press(" ")
    assert not checked(page, paragraph_box)

    # `1` marks the first sampled table/chart and makes it current...
    page.keyboard.press("1")
    assert checked(page, first_box)
    assert "current" in page.locator(f"#ev-{first}").get_attribute("class")
    # ...focusing another element's box (as Tab does) makes that one current, and Space marks
    # the focused box, not the one that was current.
    page.locator(paragraph_box).focus()
    assert "current" in page.locator(f"#ev-{paragraph}").get_attribute("class")
    assert "current" not in page.locator(f"#ev-{first}").get_attribute("class")
    page.keyboard.press(" ")
    assert checked(page, paragraph_box) and checked(page, first_box)
    assert page.locator("#ev-paragraphs").inner_text() == "1"
    assert page.locator("#ev-sampled").inner_text() == "1"
    # `x` marks the current element: the focused one.
    page.keyboard.press("x")
    assert not checked(page, paragraph_box) and checked(page, first_box)

    # `j` moves the current element; Space then marks it, as the help line says.
    page.keyboard.press("j")
    current = page.locator(".ev-item.current")
    assert current.count() == 1
    moved = current.get_attribute("data-ev")
    assert not checked(page, f"#ev-{moved} input.ev")
    page.keyboard.press(" ")
    assert checked(page, f"#ev-{moved} input.ev")
    assert "<kbd>x</kbd> or <kbd>Space</kbd> mark/unmark" in page.content()

    # Space on a focused button does what the button does.
    page.locator("#suggest").focus()
    before = sorted(page.eval_on_selector_all("input.ev:checked", "bs => bs.map(b => b.value)"))
    page.keyboard.press(" ")
    page.locator("#suggestions").get_by_text("Write the entailed claim first").wait_for()
    after = sorted(page.eval_on_selector_all("input.ev:checked", "bs => bs.map(b => b.value)"))
    assert after == before

    wait_saved(page)
    item.refresh_from_db()
    assert sorted(item.draft["evidence"]) == sorted({first, int(moved)})


def test_evidence_marked_in_the_whole_context_is_one_box_after_a_reload(page, task):
    item = open_task(page)
    shown = {*item.task.sampled_ids, *item.task.paragraph_ids}
    open_whole_context(page)
    extra = int(page.locator("#whole-context .ev-item.ev-paragraph").first.get_attribute("data-ev"))
    assert extra not in shown
    page.locator(f"#whole-context #ev-{extra} input.ev").check()
    assert page.locator("#ev-paragraphs").inner_text() == "1"
    wait_saved(page)

    page.reload()
    assert page.get_by_role("heading", name="Other evidence you marked").is_visible()
    open_whole_context(page)
    assert page.evaluate(DUPLICATE_IDS) == []
    assert page.locator(f'input.ev[value="{extra}"]').count() == 1
    assert page.locator(f"#ev-{extra} input.ev").is_checked()
    assert page.locator("#ev-paragraphs").inner_text() == "1"
    assert page.locator("#ev-list li").count() == 1
    # The whole context points at the box above instead of repeating it.
    assert page.locator(f'#whole-context a[href="#ev-{extra}"]').count() == 1

    # Unmarked, it is unmarked everywhere: the summary and the saved draft.
    page.locator(f"#ev-{extra} input.ev").uncheck()
    assert page.locator("#ev-paragraphs").inner_text() == "0"
    assert page.locator("#ev-list li").count() == 0
    wait_saved(page)
    item.refresh_from_db()
    assert extra not in item.draft["evidence"]

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
    assert page.locator("#ev-paragraphs").inner_text() == "1"
    assert page.locator("#ev-list li").count() == 1


def handed_over(name: str = "nia"):
    """A pair whose perturbation turned out true, its new perturbation handed to `name`."""
    c, pair = found_true()
    item = reperturb_item(pair)
    writing.reassign_reperturbation(item=item, expert=c[name], by=c["boss"], note="wendy left")
    return pair, item


def test_marking_evidence_for_a_new_perturbation_by_focus_and_in_the_whole_context(page):
    _, pair = found_true()
    task = pair.task
    sign_in(page, "wendy")
    page.locator("#next-reperturb").click()
    page.wait_for_url("**/claims/reperturb/*/")
    item = reperturb_item(pair)
    page.keyboard.press("d")  # the new claim cites its own evidence: the boxes show
    paragraph_box = f"#ev-{task.paragraph_ids[0]} input.ev-ref"
    first_box = f"#ev-{task.sampled_ids[0]} input.ev-ref"
    assert checked(page, first_box) and not checked(page, paragraph_box)
    page.keyboard.press("j")
    page.locator(paragraph_box).focus()
    page.keyboard.press(" ")
    assert checked(page, paragraph_box) and checked(page, first_box)
    assert page.locator("#ref-paragraphs").inner_text() == "1"

    # Evidence marked in the whole context: one box after a reload, unmarked anywhere.
    open_whole_context(page)
    extra = int(page.locator("#whole-context .ev-item.ev-paragraph").first.get_attribute("data-ev"))
    page.locator(f"#whole-context #ev-{extra} input.ev-ref").check()
    assert page.locator("#ref-paragraphs").inner_text() == "2"
    wait_saved(page)
    page.reload()
    open_whole_context(page)
    assert page.evaluate(DUPLICATE_IDS) == []
    assert page.locator(f'input.ev-ref[value="{extra}"]').count() == 1
    assert page.locator("#ref-paragraphs").inner_text() == "2"
    page.locator(f"#ev-{extra} input.ev-ref").uncheck()
    assert page.locator("#ref-paragraphs").inner_text() == "1"
    wait_saved(page)
    item.refresh_from_db()
    assert extra not in item.draft["refuted_evidence"]


def test_a_handed_over_new_perturbation_ends_on_the_workspace(page):
    pair, item = handed_over("nia")
    sign_in(page, "nia")
    page.locator("#next-reperturb").click()
    page.wait_for_url(f"**/claims/reperturb/{item.key}/")
    suggestion = page.locator(".take-suggestion")
    page.locator("#suggest").click()
    suggestion.first.wait_for()
    suggestion.first.click()
    page.locator("#id_explanation").fill("The evidence table gives another value for this.")
    page.keyboard.press("Control+Enter")
    page.wait_for_url(lambda url: "/claims/" not in url)
    assert "Not allowed" not in page.title()
    assert "New perturbation recorded: it goes to a blind" in page.locator(".messages").inner_text()
    item.refresh_from_db()
    assert item.status == "done" and item.done_by.username == "nia"
