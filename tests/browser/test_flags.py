"""In a real browser: a blind annotator flags a table from their task page; another annotator
of the same pair sees none of it; the admin finds it in the flag queue, corrects the caption
and closes it, and the fix is shown with who and what. The flagged caption's math is rendered
on the admin's page, its source in the correction form; a re-render runs as a background job
whose end the page shows."""

from __future__ import annotations

import pytest

from annotation.models import CuratedElement, WorkKind
from annotation.review import services as review
from guidelines.models import FixAction, Flag, FlagFix
from papers.models import Element, Paper
from tests.annotation.review_factories import crew, written_pair
from tests.browser.pages import sign_in, with_math

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_flag_from_the_task_page_then_the_admin_fixes_it(new_page, settings) -> None:
    # The re-render is a job: in-process (a thread of the live server), as no RQ worker runs
    # here even when REDIS_URL is set (CI).
    settings.REDIS_URL = ""
    people = crew("writer", "second", "third")
    written_pair(people["writer"], people["boss"])
    item = review.take_next(user=people["second"], kind=WorkKind.BLIND)
    shown = CuratedElement.objects.filter(context=item.pair.context, in_context=True)
    table = Element.objects.filter(pk__in=shown.values("element_id"), kind="table").first()
    with_math(table.paper)

    second = new_page()
    sign_in(second, "second")
    second.goto(f"/review/annotate/{item.key}/")
    with second.expect_navigation():
        second.click("#task-aids #flag-link")
    second.select_option("#flag-element", str(table.pk))
    second.check("input[name=kind][value=extraction]")
    second.fill("#flag-note", "The caption stops mid-sentence.")
    with second.expect_navigation():
        second.click("#flag-submit")
    assert "The caption stops mid-sentence." in second.locator("#my-flags").inner_text()
    assert second.locator("#back-to-task").get_attribute("href") == f"/review/annotate/{item.key}/"

    other = review.take_next(user=people["third"], kind=WorkKind.BLIND)
    third = new_page()
    sign_in(third, "third")
    third.goto(f"/flags/item/{other.key}/")
    assert "mid-sentence" not in third.content()
    assert third.goto(f"/flags/item/{item.key}/").status == 404  # not theirs

    admin = new_page()
    sign_in(admin, "boss")
    admin.goto("/flags/")
    flag = Flag.objects.get()
    row = admin.locator(f"#flag-queue tr[data-flag='{flag.pk}']")
    assert "mid-sentence" in row.inner_text() and "second" in row.inner_text()
    with admin.expect_navigation():
        row.locator("a", has_text=f"flag {flag.pk}").click()
    admin.locator("#element-caption .math .katex").first.wait_for()
    assert r"$\alpha=0.5$" not in admin.locator("#element-caption").inner_text()
    assert r"$\alpha=0.5$" in admin.locator("#caption").input_value()
    admin.fill("#caption", "Table 1: BLEU and F1 of each model on the WMT test set.")
    admin.fill("#edit-element input[name=note]", "completed from the PDF")
    with admin.expect_navigation():
        admin.click("#save-element")
    with admin.expect_navigation():
        admin.click("#mark-fixed")
    assert admin.locator("#flag-status").inner_text() == "fixed"
    fixes = admin.locator("#fixes").inner_text()
    assert "edited the caption" in fixes and "boss" in fixes and "completed from the PDF" in fixes
    table.refresh_from_db()
    assert table.caption == "Table 1: BLEU and F1 of each model on the WMT test set."
    assert [f.action for f in FlagFix.objects.order_by("id")] == [
        FixAction.CAPTION,
        FixAction.FIXED,
    ]
    assert "fixed" in second.goto(f"/flags/item/{item.key}/").text()

    # Re-rendering the table runs in the background: the page follows the job to its end.
    Paper.objects.filter(pk=table.paper_id).update(media_dir="papers/flagged-v1")
    with admin.expect_navigation():
        admin.click("#rerender")
    assert "Re-render started in the background" in admin.locator(".messages").inner_text()
    ended = admin.locator("#rerender-done, #rerender-error")
    ended.wait_for(timeout=60_000)  # htmx reloads the page at the end
    assert ended.get_attribute("id") == "rerender-done", ended.inner_text()
    assert "re-rendered the element" in admin.locator("#fixes").inner_text()
    assert FlagFix.objects.filter(action=FixAction.RERENDERED).count() == 1
