"""In a real browser, nothing an expert does is refused without a word (issue 19): the same
writing task, blind annotation and validation open in two tabs (one submits, the other's
autosave and submission say so beside what was recorded, its text kept on the page and in the
browser); a session that ended and a page older than the sign-in; no connection; the word
counter and the server's refusal counting one text alike; a curation saved meanwhile, shown as
differences, with both ways on.

People are signed in with a session cookie and their work is set up with the factories: the
browser does only what is under test."""

from __future__ import annotations

import json
import re

import pytest
from django.contrib.sessions.models import Session

from annotation.assignment import services as assignment_services
from annotation.curation import services as curation_services
from annotation.models import ClaimPair, CuratedContext, CuratedElement, CuratedSection, WorkItem
from annotation.review import services as review
from papers.models import Element, Section
from tests.annotation.claim_factories import curated_paper
from tests.annotation.review_factories import crew, written_pair
from tests.browser.pages import _polled_from_python, sign_in
from tests.browser.work import signed_in, write_pair, writing_task
from tests.validation.factories import Team, final_pair
from validation import services as validation

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

MINE = "My own version of the entailed claim, typed in the second tab while the first one sent."


def second_tab(page):
    """Another tab of the same browser: the same person, the same session and storage."""
    tab = page.context.new_page()
    tab.wait_for_function = _polled_from_python(tab)
    return tab


def refusal(page, reason: str):
    """The refusal panel once it says `reason` (fixed at the bottom: visible wherever one is)."""
    panel = page.locator(f"#refusal[data-reason='{reason}']")
    panel.wait_for()
    assert panel.is_visible()
    return panel


def renewed(page) -> None:
    """Mark the panel shown, to wait for the next answer's."""
    page.evaluate("document.getElementById('refusal').dataset.old = '1'")


def kept_in_browser(page, item: WorkItem) -> dict:
    return json.loads(page.evaluate("k => localStorage.getItem(k)", f"sciver-draft-{item.key}"))[
        "draft"
    ]


def test_two_tabs_on_one_writing_task(new_page, live_server):
    c, item = writing_task()
    a = new_page()
    signed_in(a, live_server, c["alice"])
    b = second_tab(a)
    url = f"/claims/write/{item.key}/"
    a.goto(url, wait_until="domcontentloaded")
    b.goto(url, wait_until="domcontentloaded")

    recorded = write_pair(a, item)
    a.locator("#id_explanation").press("Control+Enter")
    a.wait_for_url("**/claims/pairs/*/")

    # Tab B goes on typing: its autosave is refused, and says so at once beside what won.
    b.fill("#id_entailed", MINE)
    panel = refusal(b, "submitted")
    assert "You submitted this item already, in another tab or browser" in panel.inner_text()
    assert "Nothing on this page was recorded" in panel.inner_text()
    compare = panel.locator(".refusal-compare")
    assert MINE in compare.locator("td.kept").first.inner_text()
    assert recorded["entailed"] in compare.locator("td.won").first.inner_text()
    assert b.input_value("#id_entailed") == MINE
    assert kept_in_browser(b, item)["entailed"] == MINE
    assert "not saved" in b.locator("#draft-state").inner_text().lower()

    # Its Ctrl+Enter is refused the same way, on the page: no redirect, nothing replaced.
    renewed(b)
    b.locator("#id_entailed").press("Control+Enter")
    b.locator("#refusal[data-reason='submitted']:not([data-old])").wait_for()
    assert b.url.endswith(url)
    assert b.input_value("#id_entailed") == MINE
    assert kept_in_browser(b, item)["entailed"] == MINE
    pair = ClaimPair.objects.get()
    assert pair.claims.get(label="entailed").text == recorded["entailed"]


def test_two_tabs_on_one_blind_annotation(new_page, live_server):
    c = crew("alice", "bob", "carol")
    written_pair(c["alice"], c["boss"])
    item = review.take_next(user=c["bob"], kind="evidence")
    claim = item.claim
    other = {"entailed": "refuted", "refuted": "entailed"}[claim.label]
    a = new_page()
    signed_in(a, live_server, c["bob"])
    b = second_tab(a)
    url = f"/review/annotate/{item.key}/"
    a.goto(url, wait_until="domcontentloaded")
    b.goto(url, wait_until="domcontentloaded")

    a.check(f"input[name=label][value={claim.label}]")
    for pk in claim.evidence.values_list("pk", flat=True):
        a.locator(f"#ev-{pk} input.ev").check()
    a.keyboard.press("Control+Enter")
    a.wait_for_url(lambda u: u.rstrip("/").count("/") == 2)

    b.check(f"input[name=label][value={other}]")
    panel = refusal(b, "submitted")
    won = panel.locator("td.won").first.inner_text()
    assert won == claim.label  # what they recorded themselves, in the other tab
    assert panel.locator("td.kept").first.inner_text() == other
    assert b.is_checked(f"input[name=label][value={other}]")
    assert kept_in_browser(b, item)["label"] == other
    renewed(b)
    b.keyboard.press("Control+Enter")
    b.locator("#refusal[data-reason='submitted']:not([data-old])").wait_for()
    assert b.url.endswith(url) and b.is_checked(f"input[name=label][value={other}]")
    item.refresh_from_db()
    assert item.evidence_annotation.label == claim.label


def test_two_tabs_on_one_validation(new_page, live_server):
    team = Team()
    final_pair(team)
    item = validation.take_next(user=team.validators[0])
    a = new_page()
    signed_in(a, live_server, team.validators[0])
    b = second_tab(a)
    url = f"/validate/{item.key}/"
    a.goto(url, wait_until="domcontentloaded")
    b.goto(url, wait_until="domcontentloaded")

    a.locator("#text").press("Control+Enter")  # nothing changed: a pass
    a.wait_for_url(lambda u: not u.endswith(url))  # on to the next claim (or the workspace)
    assert "Validated. Thank you." in a.content()

    revised = item.claim.text + " Revised in the second tab."
    b.fill("#text", revised)
    panel = refusal(b, "submitted")
    assert "You submitted this item already" in panel.inner_text()
    assert "passed" in panel.locator(".refusal-compare").inner_text()  # the outcome recorded
    assert b.input_value("#text") == revised and kept_in_browser(b, item)["text"] == revised
    renewed(b)
    b.locator("#text").press("Control+Enter")
    b.locator("#refusal[data-reason='submitted']:not([data-old])").wait_for()
    assert b.url.endswith(url) and b.input_value("#text") == revised


def test_signed_out_then_a_page_older_than_the_sign_in(new_page, live_server):
    c, item = writing_task()
    page = new_page()
    signed_in(page, live_server, c["alice"])
    page.goto(f"/claims/write/{item.key}/", wait_until="domcontentloaded")
    page.fill("#id_entailed", "Typed before the session ended.")
    page.wait_for_function(
        "document.getElementById('draft-state').textContent.includes('Draft saved')"
    )

    Session.objects.all().delete()  # the session ends (it expired on the server)
    page.fill("#id_entailed", MINE)
    panel = refusal(page, "signed_out")
    assert "You are signed out" in panel.inner_text()
    link = panel.get_by_role("link", name="Sign in again")
    assert link.get_attribute("target") == "_blank"
    assert f"next=/claims/write/{item.key}/" in link.get_attribute("href")
    assert (
        page.input_value("#id_entailed") == MINE and kept_in_browser(page, item)["entailed"] == MINE
    )

    # Signed in again in another tab: this page's form token is now old, and it says so.
    sign_in(second_tab(page), "alice")
    page.bring_to_front()
    page.fill("#id_entailed", MINE + " More.")
    panel = refusal(page, "page_out_of_date")
    assert "This page is out of date" in panel.inner_text()
    panel.get_by_role("button", name="Reload this page").click()
    page.wait_for_function(
        "document.getElementById('draft-state').textContent.includes('Draft saved')"
    )
    assert page.input_value("#id_entailed") == MINE + " More."  # from this browser's copy
    item.refresh_from_db()
    assert item.draft["entailed"] == MINE + " More."


def test_offline_autosave_and_submit_say_so_and_keep_the_text(new_page, live_server):
    c, item = writing_task()
    page = new_page()
    signed_in(page, live_server, c["alice"])
    page.goto(f"/claims/write/{item.key}/", wait_until="domcontentloaded")
    fields = write_pair(page, item)
    page.wait_for_function(
        "document.getElementById('draft-state').textContent.includes('Draft saved')"
    )

    page.context.set_offline(True)
    page.fill("#id_explanation", fields["explanation"] + " Offline.")
    panel = refusal(page, "offline")
    assert "Offline: not saved yet" in panel.inner_text()
    renewed(page)
    page.locator("#id_explanation").press("Control+Enter")
    panel = page.locator("#refusal[data-reason='offline']:not([data-old])")
    panel.wait_for()
    assert "Offline: nothing was submitted" in panel.inner_text()
    assert page.url.endswith(f"/claims/write/{item.key}/")
    assert page.input_value("#id_explanation").endswith(" Offline.")
    assert kept_in_browser(page, item)["explanation"].endswith(" Offline.")
    assert not ClaimPair.objects.exists()

    page.context.set_offline(False)
    page.locator("#id_explanation").press("Control+Enter")
    page.wait_for_url("**/claims/pairs/*/")
    assert ClaimPair.objects.get().claims.get(label="refuted").explanation.endswith(" Offline.")


def test_the_word_counter_and_the_refusal_count_the_same_text(new_page, live_server):
    """A claim longer than 5,000 characters is counted whole by both, whatever the spaces."""
    c, item = writing_task()
    page = new_page()
    signed_in(page, live_server, c["alice"])
    page.goto(f"/claims/write/{item.key}/", wait_until="domcontentloaded")
    write_pair(page, item)
    # Python's str.split() and the counter agree on every separator here: no-break space,
    # line separator, U+001C; a zero-width no-break space (U+FEFF) joins two words in both.
    separators = [" ", "\u00a0", "\u2028", "\x1c", "  ", "\n"]
    words = [f"measurement{n}" + ("\ufeffjoined" if n % 50 == 0 else "") for n in range(924)]
    text = "".join(w + separators[n % len(separators)] for n, w in enumerate(words))
    assert len(text) > 5000 and len(text.split()) == 924
    page.fill("#id_entailed", text)
    counted = page.locator("#words-entailed").inner_text()
    assert counted == "924"

    page.locator("#id_entailed").press("Control+Enter")
    panel = refusal(page, "invalid")
    said = re.search(r"this one has ([\d,]+)", panel.inner_text())
    assert said and said.group(1).replace(",", "") == counted
    assert page.input_value("#id_entailed") == text.replace("\r\n", "\n")
    # The length is a rule, listed as one; the warnings (which never block) do not hold it.
    rules = page.locator("#claim-rules").inner_text()
    assert "Rules, which do block: a claim has 6–120 words" in rules
    assert page.locator('#warnings [data-code="length"]').count() == 0
    assert not ClaimPair.objects.exists()


def test_a_curation_saved_meanwhile_shows_the_differences_and_both_ways_on(new_page, live_server):
    c = crew("alice")
    paper, _ = curated_paper(c["boss"])
    assignment_services.assign_papers(papers=[paper], experts=[c["alice"]], assigned_by=c["boss"])
    method = Section.objects.get(paper=paper, title="Method")
    table = Element.objects.filter(paper=paper, kind="table", section__title="Experiments").get()
    page = new_page()
    signed_in(page, live_server, c["alice"])
    page.goto(f"/curate/{paper.versioned_id}/", wait_until="domcontentloaded")

    def save_as_boss(without_section: Section) -> CuratedContext:
        latest = CuratedContext.objects.filter(paper=paper).order_by("-number").first()
        kept = set(
            CuratedSection.objects.filter(context=latest, kept=True).values_list(
                "section_id", flat=True
            )
        )
        elements = set(
            CuratedElement.objects.filter(context=latest, kept=True).values_list(
                "element_id", flat=True
            )
        )
        return curation_services.save_curated_context(
            paper=paper,
            user=c["boss"],
            kept_section_ids=kept - {without_section.pk},
            kept_element_ids=elements,
            not_chart_ids=(),
            latest_seen=latest.number,
            based_on=latest.number,
        )

    save_as_boss(method)  # v2, while alice's page still shows v1
    page.locator(f"input.keep[name=keep][value='{table.pk}']").uncheck()
    page.locator("#save").click()
    panel = refusal(page, "stale")
    message = panel.locator(".refusal-message").inner_text()
    assert "Version 2 of this context was saved by boss since you opened the page" in message
    assert "keep them as version 3, or take version 2" in message
    assert "reload" not in message.lower()  # no contradiction with the buttons beside it
    rows = {
        row.locator("th").inner_text(): [cell.inner_text() for cell in row.locator("td").all()]
        for row in panel.locator("#curation-diff tbody tr").all()
    }
    assert rows["Section 5 Method"] == ["removed", "kept", "boss changed it"]
    assert rows[table.label] == ["kept", "removed", "you changed it"]
    assert page.locator("#save").inner_text().startswith("Save as version 3")
    assert not page.locator(f"input.keep[name=keep][value='{table.pk}']").is_checked()  # kept

    # Keep mine: saved as version 3, with alice's choices (Method kept, the table removed).
    with page.expect_navigation():
        panel.get_by_role("button", name="Keep mine as version 3").click()
    assert "Saved context v3" in page.locator(".messages").inner_text()
    v3 = CuratedContext.objects.get(paper=paper, number=3)
    assert CuratedSection.objects.get(context=v3, section=method).kept
    assert not CuratedElement.objects.get(context=v3, element=table).kept

    # Take theirs: boss saves v4 meanwhile; alice's change gives way to it, nothing is saved.
    conclusion = Section.objects.get(paper=paper, title="Conclusion")
    save_as_boss(conclusion)
    page.locator(f"input.keep[name=keep_section][value='{method.pk}']").uncheck()
    page.keyboard.press("s")  # save, from the keyboard
    panel = refusal(page, "stale")
    assert "Version 4" in panel.inner_text()
    with page.expect_navigation():
        panel.get_by_role("link", name="Take version 4 (boss's)").click()  # no "leave?" prompt
    assert page.url.endswith("?version=4")
    assert not page.locator(f"input.keep[name=keep_section][value='{conclusion.pk}']").is_checked()
    assert page.locator(f"input.keep[name=keep_section][value='{method.pk}']").is_checked()
    assert CuratedContext.objects.filter(paper=paper).count() == 4
