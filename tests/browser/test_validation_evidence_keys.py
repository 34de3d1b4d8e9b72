"""In a real browser at 1366×900 (issue 44, item 3): validators dug for evidence. The context
was a scroll box of 2,716 px with its only evidence at y = 2,327, no key went to evidence, the
checklist was below the fold and the refusal panel covered it. Now the context opens at the
first evidence, `]`/`[` go to the next/previous evidence (said in the page's keys line, and typed
as themselves in a text box), the claim and the whole checklist are on screen from the start,
and a refusal heads the form column without covering either."""

from __future__ import annotations

import os

import pytest
from django.conf import settings as django_settings
from django.core.management import call_command
from django.test import Client

from annotation.assignment import services as assignment_services
from annotation.curation import services as curation_services
from annotation.models import Subfield
from annotation.queue import work
from annotation.writing import services as writing
from papers.models import Element, Paper, Section
from tests.annotation.claim_factories import pair_fields, submit
from tests.annotation.factories import make_expert
from tests.annotation.review_factories import annotate
from tests.browser.pages import _polled_from_python, sample_folder, shot
from validation import services as validation

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

# How much of the box matched by the selector one sees once a frame is painted (clipped by the
# window and by every ancestor that scrolls it), its height and its place.
SEEN = """async (selector) => {
  await new Promise((painted) => requestAnimationFrame(() => setTimeout(painted, 0)));
  const el = document.querySelector(selector);
  const r = el.getBoundingClientRect();
  let top = Math.max(r.top, 0), bottom = Math.min(r.bottom, innerHeight);
  for (let a = el.parentElement; a && a !== document.documentElement; a = a.parentElement) {
    if (/auto|scroll|hidden|clip/.test(getComputedStyle(a).overflowY)) {
      const b = a.getBoundingClientRect();
      top = Math.max(top, b.top); bottom = Math.min(bottom, b.bottom);
    }
  }
  return { seen: Math.max(0, Math.round(bottom - top)), height: Math.round(r.height),
           rect: [r.left, r.top, r.right, r.bottom] };
}"""


def _validation_with_two_pieces_of_evidence(settings) -> tuple[object, list[int]]:
    """The sample paper (real images, a long context); alice's pair whose evidence is its
    sampled tables/charts and the context's last paragraph, annotated alike by bob and carol;
    erin's validation of one of its claims. Returns the item and its evidence in context order."""
    settings.USE_CHROMIUM = False
    Subfield.ensure_sciver_subfields()
    with open(os.devnull, "w") as sink:
        call_command("import_arxiv_html", str(sample_folder()), "--images", "now", stdout=sink)
    paper = Paper.objects.get()
    people = {
        n: make_expert(n, (paper.primary_category,)) for n in ("alice", "bob", "carol", "erin")
    }
    alice = people["alice"]
    assignment_services.assign_papers(papers=[paper], experts=[alice], assigned_by=None)
    body = Section.objects.filter(paper=paper, kind__in=["body", "abstract"])
    curation_services.save_curated_context(
        paper=paper,
        user=alice,
        kept_section_ids=set(body.values_list("pk", flat=True)),
        kept_element_ids=set(Element.objects.filter(paper=paper).values_list("pk", flat=True)),
        not_chart_ids=(),
        latest_seen=None,
    )
    writing.create_claim_tasks(paper=paper, by=alice, count=1, seed=11)
    item = work.next_item(user=alice, kind="write")
    last_paragraph = (
        Element.objects.filter(paper=paper, kind="paragraph", section__in=body)
        .order_by("section__order", "order")
        .last()
    )
    evidence = [*pair_fields(item)["evidence_ids"], last_paragraph.pk]
    submit(item, alice, evidence_ids=evidence)
    annotate(people["bob"])
    annotate(people["carol"])
    item = validation.take_next(user=people["erin"])
    in_order = list(
        Element.objects.filter(pk__in=evidence)
        .order_by("section__order", "order")
        .values_list("pk", flat=True)
    )
    return item, in_order


def test_evidence_keys_the_checklist_beside_the_claim_and_a_refusal_beside_them(
    browser, live_server, app_serves_media, settings
) -> None:
    item, evidence = _validation_with_two_pieces_of_evidence(settings)
    first, second = f"#el-{evidence[0]}", f"#el-{evidence[1]}"
    context = browser.new_context(base_url=live_server.url, viewport={"width": 1366, "height": 900})
    context.set_default_timeout(10_000)
    client = Client()
    client.force_login(item.holder)
    name = django_settings.SESSION_COOKIE_NAME
    context.add_cookies(
        [{"name": name, "value": client.cookies[name].value, "url": live_server.url}]
    )
    try:
        page = context.new_page()
        page.wait_for_function = _polled_from_python(page)
        page.goto(f"/validate/{item.key}/")
        # The layout as it settles: fonts, images and formulas in, then two painted frames (a
        # loaded machine can paint the page before they arrive, and they move what is measured).
        page.wait_for_load_state("networkidle")
        page.evaluate("document.fonts.ready.then(() => true)")
        assert page.locator(".piece.evidence").count() == len(evidence) >= 2

        def seen(selector: str) -> dict:
            page.evaluate("new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))")
            return page.evaluate(SEEN, selector)

        def shown(selector: str) -> bool:
            """80 px of it on screen, or all of it (an image not loaded yet is short)."""
            box = seen(selector)
            return box["seen"] >= min(80, box["height"])

        def wholly(selector: str) -> bool:
            box = seen(selector)
            return box["seen"] >= box["height"] - 1

        # Opened at the first evidence, with the claim and the whole checklist beside it.
        assert shown(first), seen(first)
        assert wholly("#text") and wholly("#criteria"), (seen("#text"), seen("#criteria"))
        assert "]/[ next/previous evidence" in page.locator("[data-keys-line]").inner_text()

        # `]`: the next evidence, in view and focused; `[`: back. The claim stays in view.
        page.keyboard.press("]")
        assert page.evaluate("document.activeElement.id") == second[1:]
        assert shown(second), seen(second)
        assert wholly("#criteria"), seen("#criteria")
        page.keyboard.press("[")
        assert page.evaluate("document.activeElement.id") == first[1:]
        assert shown(first) and wholly("#text"), seen(first)

        # In the claim's text box `]` is typed, and the context stays where it was.
        scrolled = page.evaluate("document.getElementById('context').scrollTop")
        page.focus("#text")
        page.keyboard.press("Control+End")
        page.keyboard.press("]")
        assert page.input_value("#text") == item.claim.text + "]"
        assert page.evaluate("document.activeElement.id") == "text"
        assert page.evaluate("document.getElementById('context').scrollTop") == scrolled

        # A refusal (no connection: the draft is not saved) is on screen and covers neither the
        # claim nor the checklist.
        context.set_offline(True)
        page.fill("#text", item.claim.text + " Offline.")
        panel = page.locator("#refusal[data-reason='offline']")
        panel.wait_for()
        shot(page, "validation-refusal")
        assert seen("#refusal")["seen"] >= 40
        panel_box = seen("#refusal")["rect"]
        for field in ("#text", "#criteria"):
            left, top, right, bottom = seen(field)["rect"]
            apart = (
                panel_box[2] <= left
                or right <= panel_box[0]
                or panel_box[3] <= top
                or bottom <= panel_box[1]
            )
            assert apart, f"the refusal {panel_box} covers {field} {[left, top, right, bottom]}"
            assert shown(field), (field, seen(field))
        # Closed offline: no draft reaches the server while the test database is emptied.
    finally:
        context.close()
