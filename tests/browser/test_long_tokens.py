"""In a real browser at 1366×900 (issue 44, item 2): one long unbroken token in a flag's note
(5,000 characters, what a note holds) made the flag page 23,764 px wide. It is stored whole,
and wraps wherever it is shown: the admin's flag page, the flag queue and the flagger's own
list stay within the viewport, and a note's field counts its characters against its limit."""

from __future__ import annotations

import pytest

from annotation.models import WorkKind
from annotation.review import services as review
from guidelines import services as guidelines
from guidelines.models import Flag
from tests.annotation.review_factories import crew, written_pair
from tests.browser.pages import sign_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

WIDTH = 1366


def _wide_page(browser, live_server):
    context = browser.new_context(
        base_url=live_server.url, viewport={"width": WIDTH, "height": 900}
    )
    context.set_default_timeout(10_000)
    return context, context.new_page()


def _page_width(page) -> int:
    return page.evaluate("document.documentElement.scrollWidth")


def test_a_flag_note_of_one_5000_character_token_wraps_on_every_flag_page(
    browser, live_server
) -> None:
    people = crew("writer", "second")
    written_pair(people["writer"], people["boss"])
    item = review.take_next(user=people["second"], kind=WorkKind.BLIND)
    token = "x" * guidelines.MAX_NOTE
    assert guidelines.MAX_NOTE == 5000
    flag = guidelines.raise_flag(user=people["second"], kind="unclear", note=token, item=item)
    assert Flag.objects.get().note == token

    admin_context, admin = _wide_page(browser, live_server)
    second_context, second = _wide_page(browser, live_server)
    try:
        sign_in(admin, "boss")
        admin.goto(f"/flags/{flag.pk}/")
        assert admin.locator("#flag-note").inner_text() == token
        assert _page_width(admin) <= WIDTH
        admin.goto("/flags/")
        assert _page_width(admin) <= WIDTH

        sign_in(second, "second")
        second.goto(f"/flags/item/{item.key}/")
        assert token in second.locator("#my-flags").inner_text()
        assert _page_width(second) <= WIDTH
        # The note's field counts what is typed against what a note holds.
        second.fill("#flag-note", "The caption stops mid-sentence.")
        assert second.locator("#flag-note-counter").inner_text() == "31 / 5,000 characters"
    finally:
        admin_context.close()
        second_context.close()
