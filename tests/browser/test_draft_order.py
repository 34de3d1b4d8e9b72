"""In a real browser, a page's drafts reach the server in the order they were typed, and the text
typed last is what comes back after a reload:

- a draft the server recorded late (a save sent just before the connection went, recorded after
  the text typed offline) does not beat the newer text this browser kept: the browser knows it
  sent that draft itself;
- a draft this browser never sent (saved from another browser later) still wins over an older
  copy here;
- a submission waits for the save on its way, so the server never records a page's draft after
  its submission (nor two of its drafts out of order)."""

from __future__ import annotations

import json

import pytest

from annotation.models import ClaimPair
from tests.browser.work import signed_in, write_pair, writing_task

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

TYPED_OFFLINE = "Typed while the connection was gone, after the last save was sent."


def _stored(page, key: str) -> dict:
    return json.loads(page.evaluate("k => localStorage.getItem(k)", key))


def _store(page, key: str, saved: dict) -> None:
    page.evaluate("([k, v]) => localStorage.setItem(k, v)", [key, json.dumps(saved)])


def test_the_newest_typing_wins_over_a_draft_this_browser_sent_earlier(new_page, live_server):
    c, item = writing_task()
    page = new_page()
    signed_in(page, live_server, c["alice"])
    page.goto(f"/claims/write/{item.key}/", wait_until="domcontentloaded")
    fields = write_pair(page, item)
    page.wait_for_function(
        "document.getElementById('draft-state').textContent.includes('Draft saved')"
    )
    key = f"sciver-draft-{item.key}"
    saved = _stored(page, key)
    assert saved["draft"]["explanation"] == fields["explanation"]
    sent = json.dumps(saved["draft"], separators=(",", ":"))
    assert saved["sent"][-1] == sent  # what went to the server, as this browser sent it

    # The newer typing kept here, with a clock older than the server's record of the draft
    # (the server recorded it late): the server's draft came from this browser, so this
    # browser's newer text comes back.
    newer = {**saved["draft"], "explanation": TYPED_OFFLINE}
    _store(page, key, {"at": saved["at"] - 60_000, "draft": newer, "sent": saved["sent"]})
    page.reload(wait_until="domcontentloaded")
    page.wait_for_function(
        "document.getElementById('draft-state').textContent.includes('Draft saved')"
    )
    assert page.input_value("#id_explanation") == TYPED_OFFLINE
    item.refresh_from_db()
    assert item.draft["explanation"] == TYPED_OFFLINE

    # An older copy of text this browser never sent: the server's newer draft stays.
    older = {**newer, "explanation": "An old copy from before the server's draft."}
    _store(page, key, {"at": _stored(page, key)["at"] - 60_000, "draft": older, "sent": []})
    page.reload(wait_until="domcontentloaded")
    assert page.input_value("#id_explanation") == TYPED_OFFLINE


def test_a_submission_waits_for_the_save_on_its_way(new_page, live_server):
    c, item = writing_task()
    page = new_page()
    signed_in(page, live_server, c["alice"])
    page.goto(f"/claims/write/{item.key}/", wait_until="domcontentloaded")
    write_pair(page, item)
    page.wait_for_function(
        "document.getElementById('draft-state').textContent.includes('Draft saved')"
    )

    held = []
    page.route("**/draft/", lambda route: held.append(route))
    order = []
    page.on("request", lambda r: order.append(("sent", r.url)) if r.method == "POST" else None)
    page.on(
        "requestfinished",
        lambda r: order.append(("answered", r.url)) if r.method == "POST" else None,
    )
    page.locator("#id_explanation").press("End")
    page.keyboard.type(" Still typing.")
    while not held:  # the autosave's request, held on its way
        page.wait_for_timeout(50)
    page.locator("#id_explanation").press("Control+Enter")
    page.wait_for_timeout(400)
    form = f"/claims/write/{item.key}/"
    submitted = [url for what, url in order if what == "sent" and url.endswith(form)]
    assert submitted == []  # the submission waits for the save
    held[0].continue_()
    page.wait_for_url("**/claims/pairs/*/")
    draft_answered = order.index(("answered", held[0].request.url))
    submission = next(
        n for n, (what, url) in enumerate(order) if what == "sent" and url.endswith(form)
    )
    assert draft_answered < submission
    refuted = ClaimPair.objects.get().claims.get(label="refuted")
    assert refuted.explanation.endswith(" Still typing.")
