"""In a real browser, every task from the keyboard alone (keys and Tab, never a mouse button):
curate, write a pair (the README's key sequence, Alt+1 then `p`, which once typed the
explanation into the claim), annotate blind, adjudicate, validate, answer the human baseline;
`?` lists each page's keys. And what annotators read: math in paragraphs and captions rendered
by the vendored KaTeX under the Content-Security-Policy, its source one click (or `$`) away,
claims shown as typed; the baseline page laid out at 1366×768; markup in a claim warned about."""

from __future__ import annotations

import io
import re

import pytest
from django.core.files.base import ContentFile
from PIL import Image

from annotation.assignment import services as assignment_services
from annotation.evidence import visuals_needed
from annotation.models import (
    Adjudication,
    ClaimPair,
    ClaimReview,
    CuratedContext,
    CuratedSection,
    WorkItem,
)
from annotation.writing import services as writing
from papers.models import Element, Paper
from tests.annotation.claim_factories import ENTAILED, REFUTED, curated_paper
from tests.annotation.factories import make_expert, make_paper
from tests.annotation.review_factories import annotate, crew, written_pair
from tests.browser.pages import RECORDER, math_rendered, sign_in, with_math
from tests.validation.factories import Team, final_pair, validated_pairs
from validation.baseline import services as baseline_services
from validation.models import BaselineAnswer, ValidationRevision

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

KEY = {"entailed": "e", "refuted": "r"}
FLIP = {"entailed": "refuted", "refuted": "entailed"}
WHY = "Table 1 gives Ours a BLEU of 73.2, not the value the refuted claim states."
# Mouse buttons pressed on the page: a keyboard-only test ends with none.
NO_MOUSE = (
    "window.__mouse = 0; addEventListener('mousedown', () => { window.__mouse += 1; }, true);"
)
TEXT_BOX = "document.activeElement.matches('textarea, select, input:not([type=checkbox]):not([type=radio])')"


def person(new_page, username: str, viewport: dict | None = None):
    page = new_page()
    if viewport:
        page.set_viewport_size(viewport)
    page.add_init_script(NO_MOUSE)
    sign_in(page, username)
    return page


def no_mouse(page) -> None:
    assert page.evaluate("window.__mouse") == 0


def tab_to(page, selector: str, limit: int = 80) -> None:
    """Tab through the page until `selector` has the focus."""
    for _ in range(limit):
        page.keyboard.press("Tab")
        if page.evaluate("(s) => document.activeElement.matches(s)", selector):
            return
    raise AssertionError(f"Tab never reached {selector}")


def item_of(page, kind: str) -> WorkItem:
    return WorkItem.objects.get(key=re.search(rf"/{kind}/([A-Za-z0-9_-]+)/", page.url)[1])


# --- The tasks --------------------------------------------------------------------------------


def test_curating_from_the_keyboard_and_the_list_of_keys(new_page):
    alice = make_expert("alice")
    paper = with_math(make_paper())
    assignment_services.assign_papers(papers=[paper], experts=[alice], assigned_by=None)
    page = person(new_page, "alice")
    tab_to(page, f'#to-curate a.button[href="/curate/{paper.versioned_id}/"]')
    with page.expect_navigation():
        page.keyboard.press("Enter")
    math_rendered(page, ".cur-text")

    # `?` lists the page's keys, from the same declarations that act on them.
    page.keyboard.press("?")
    overlay = page.locator("#keys-overlay")
    assert overlay.is_visible()
    listed = overlay.inner_text()
    for line in ("next/previous item", "accept the proposal", "save as a new version", "$"):
        assert line in listed, line
    page.keyboard.press("a")  # a key under the list does nothing
    assert "4 proposed" in page.locator("#proposal-state").inner_text()
    page.keyboard.press("Escape")
    assert not overlay.is_visible()

    page.keyboard.press("j")
    page.keyboard.press("a")  # accept the proposal: related work, acknowledgments … removed
    assert not page.evaluate(TEXT_BOX)
    with page.expect_navigation():
        page.keyboard.press("s")
    assert "Saved context v1" in page.locator(".messages").inner_text()
    context = CuratedContext.objects.get(paper=paper)
    removed = CuratedSection.objects.filter(context=context, kept=False)
    assert set(removed.values_list("section__kind", flat=True)) >= {"related_work", "references"}
    no_mouse(page)


def test_writing_a_pair_with_the_readmes_keys(new_page):
    """`n`, the sampled tables/charts by number, `e` and the claim, `Esc`, `g`, `Alt+1`, then at
    once `p` and the explanation, `Ctrl+Enter`: `p` opens the explanation instead of being typed
    into the refuted claim."""
    people = crew("alice")
    paper, _ = curated_paper(people["boss"])
    with_math(paper)
    assignment_services.assign_papers(
        papers=[paper], experts=[people["alice"]], assigned_by=people["boss"]
    )
    task = writing.create_claim_tasks(paper=paper, by=people["alice"], count=1, seed=3)[0]
    page = person(new_page, "alice")
    page.keyboard.press("n")
    page.wait_for_url("**/claims/write/*/")
    math_rendered(page, ".ev-text")
    assert page.locator("#id_entailed").input_value() == ""  # claims are never rendered
    for n in range(1, visuals_needed(task.subset) + 1):
        page.keyboard.press(str(n))
    # Markup in a claim is warned about as it is typed (it would be released as typed).
    page.keyboard.press("e")
    page.keyboard.type(ENTAILED + " <script>alert(1)</script>")
    page.locator('#warnings [data-code="html_markup"]').wait_for()
    page.keyboard.press("Control+A")
    page.keyboard.type(ENTAILED)
    page.locator('#warnings [data-code="html_markup"]').wait_for(state="detached")
    page.keyboard.press("Escape")
    page.keyboard.press("g")
    first = page.locator(".take-suggestion").first
    first.wait_for()
    taken = first.get_attribute("data-text")
    page.keyboard.press("Alt+1")
    assert page.locator("#id_refuted").input_value() == taken
    assert not page.evaluate(TEXT_BOX)  # the next key is a shortcut, not the claim's text
    page.keyboard.press("p")
    page.keyboard.type(WHY)
    assert page.locator("#id_refuted").input_value() == taken
    page.keyboard.press("Escape")  # leave the explanation: `w` is a key again, not a letter
    page.keyboard.press("w")  # the whole context loads, its math rendered too
    math_rendered(page, "#whole-context .context-body")
    page.keyboard.press("Control+Enter")
    page.wait_for_url("**/claims/pairs/*/")
    pair = ClaimPair.objects.get()
    refuted = pair.claims.get(label="refuted")
    assert (refuted.text, refuted.explanation) == (taken, WHY)
    assert pair.claims.get(label="entailed").text == ENTAILED
    no_mouse(page)


def test_annotating_blind_from_the_keyboard(new_page):
    people = crew("writer", "second", "third")
    tex = r"Ours reaches a BLEU of 73.2 with $k=2$, which is higher than the Baseline model."
    pair = written_pair(
        people["writer"],
        people["boss"],
        entailed=tex,
        refuted=tex.replace("73.2", "68.9"),
        suggestion=tex.replace("73.2", "68.9"),
    )
    with_math(pair.context.paper)
    page = person(new_page, "second")
    page.keyboard.press("?")  # the workspace's keys: `n`
    assert "annotate the next claim" in page.locator("#keys-overlay").inner_text()
    page.keyboard.press("?")
    page.keyboard.press("n")
    page.wait_for_url("**/review/annotate/*/")
    item = item_of(page, "annotate")
    math_rendered(page, ".write-evidence .ev-text")
    # The claim is shown exactly as typed: its LaTeX stays source.
    assert page.locator("#claim-text").inner_text() == item.claim.text
    assert page.locator("#claim-text .katex").count() == 0
    page.keyboard.press(KEY[item.claim.label])
    page.keyboard.press("j")  # the first table/chart
    page.keyboard.press("x")
    first = page.locator(".ev-item.current").get_attribute("data-ev")
    page.keyboard.press("Control+Enter")
    page.wait_for_url(lambda url: "/review/" not in url)
    annotation = item.claim.second_annotation
    assert annotation.label == item.claim.label
    assert list(annotation.evidence.values_list("pk", flat=True)) == [int(first)]
    no_mouse(page)


def test_adjudicating_from_the_keyboard(new_page):
    people = crew("writer", "second", "third", "judge")
    pair = written_pair(people["writer"], people["boss"])
    with_math(pair.context.paper)
    annotate(people["second"], flip=True)
    annotate(people["third"])
    page = person(new_page, "judge")
    page.keyboard.press("n")
    page.wait_for_url("**/review/adjudicate/*/")
    claim = item_of(page, "adjudicate").claim
    math_rendered(page, ".write-evidence .ev-text")
    page.keyboard.press("?")
    listed = page.locator("#keys-overlay").inner_text()
    for line in ("take the writer's label and evidence", "confidence: high", "writer error"):
        assert line in listed, line
    page.keyboard.press("?")
    page.keyboard.press("Shift+W")  # take the writer's label and evidence
    page.keyboard.press("h")  # confidence: high
    page.keyboard.press("4")  # reason: the second annotator's error
    assert page.locator("#id_confidence").input_value() == "high"
    assert page.locator("#id_reason").input_value() == "second_annotator_error"
    page.keyboard.press("Control+Enter")
    page.wait_for_url(lambda url: "/review/" not in url)
    decision = Adjudication.objects.get(claim=claim)
    assert (decision.decision, decision.label, decision.confidence, decision.reason) == (
        "decided",
        claim.label,
        "high",
        "second_annotator_error",
    )
    assert set(decision.evidence.values_list("pk", flat=True)) == set(
        claim.evidence.values_list("pk", flat=True)
    )
    assert ClaimReview.objects.get(claim=claim).state == "adjudicated"
    no_mouse(page)


def test_validating_from_the_keyboard_with_the_markup_warning(new_page):
    """A claim written with HTML in it: the validator is warned (the markup is shown as text,
    never run), fails criterion 1 and rewrites the claim as plain text."""
    team = Team()
    img = " <img src=x onerror=alert(1)>"
    pair, _ = final_pair(
        team, entailed=ENTAILED + img, refuted=REFUTED + img, suggestion=REFUTED + img
    )
    with_math(pair.context.paper)
    page = person(new_page, team.validators[0].username)
    page.keyboard.press("n")
    page.wait_for_url("**/validate/*/")
    claim = item_of(page, "validate").claim
    warning = page.locator('#warnings [data-code="html_markup"]')
    assert "<img src=x onerror=alert(1)>" in warning.inner_text()
    assert page.locator("img[src=x]").count() == 0 and page.evaluate("typeof alert") == "function"
    math_rendered(page, "#context .piece p")
    plain = ENTAILED if claim.label == "entailed" else REFUTED
    page.keyboard.press("1")  # (1) language fails
    page.keyboard.press("t")
    page.keyboard.press("Control+A")
    page.keyboard.type(plain)
    page.keyboard.press("Escape")
    first = page.url
    page.keyboard.press("Control+Enter")  # recorded, and on to the pair's other claim
    page.wait_for_url(lambda url: "/validate/" in url and url != first)
    success = page.locator("ul.messages li.success").all_inner_texts()
    assert success == ["Validated. Thank you. Here is the next claim to validate."]
    claim.refresh_from_db()
    assert claim.text == plain
    revision = ValidationRevision.objects.get(field="text")
    assert revision.criteria_failed == ["language"]
    no_mouse(page)


def baseline_study(team: Team):
    """Two experts (a study's number) who never saw the two validated pairs."""
    validated_pairs(team, 2)
    people = [make_expert(name) for name in ("ann", "ben")]
    baseline_services.start_baseline(
        by=team.admin, expert_ids=[p.pk for p in people], per_subset=2, seed=5
    )
    return people


def test_answering_the_human_baseline_from_the_keyboard(new_page):
    team = Team()
    ann, _ = baseline_study(team)
    for paper in Paper.objects.all():
        with_math(paper)
    page = person(new_page, "ann")
    tab_to(page, "#next-baseline")
    with page.expect_navigation():
        page.keyboard.press("Enter")
    answered = 0
    while "/baseline/answer/" in page.url:
        if not answered:
            math_rendered(page, "#context .piece p")
        page.keyboard.press("j")  # the context, piece by piece
        page.keyboard.press("e")
        page.keyboard.press("p")
        page.keyboard.type("The table states it.")
        with page.expect_navigation():
            page.keyboard.press("Control+Enter")
        answered += 1
    assert answered >= 2 and "Answer recorded" in page.content()
    answers = BaselineAnswer.objects.filter(item__study__isnull=False)
    assert answers.count() == answered
    assert set(answers.values_list("label", flat=True)) == {"entailed"}
    no_mouse(page)


# --- What annotators read ------------------------------------------------------------------------


def png(width: int, height: int) -> bytes:
    buffer = io.BytesIO()
    Image.new("RGB", (width, height), (240, 240, 250)).save(buffer, "PNG")
    return buffer.getvalue()


def test_the_baseline_page_is_laid_out_like_the_other_work_pages(new_page):
    team = Team()
    ann, _ = baseline_study(team)
    for element in Element.objects.filter(kind__in=["table", "chart"]):
        element.image.save(f"{element.anchor}-wide.png", ContentFile(png(640, 260)), save=True)
    item = baseline_services.take_next_baseline(user=ann)
    page = person(new_page, "ann", viewport={"width": 1366, "height": 768})
    page.goto(f"/baseline/answer/{item.key}/")
    paragraph = page.locator("#context .piece p").first.bounding_box()
    assert paragraph["width"] > 400, paragraph
    image = page.locator("#context .piece img").first
    image.scroll_into_view_if_needed()
    page.wait_for_function(
        "Array.from(document.querySelectorAll('#context .piece img')).every(i => i.complete)"
    )
    assert image.bounding_box()["width"] > 100
    # The answer stands beside the context, as on the validation page.
    answer = page.locator("#answer").bounding_box()
    context = page.locator("#context").bounding_box()
    assert answer["x"] >= context["x"] + context["width"] and answer["y"] < 400


def test_math_renders_with_its_source_a_click_away_under_the_policy(new_page):
    people = crew("alice")
    paper, _ = curated_paper(people["boss"])
    with_math(paper)
    page = new_page()
    page.add_init_script(RECORDER)
    failed: list[str] = []
    page.on("response", lambda r: failed.append(r.url) if r.status >= 400 else None)
    sign_in(page, "boss")
    page.goto("/papers/")  # a page without keys of its own still lists `?` and `Esc`
    page.keyboard.press("?")
    assert "show or hide this list of keys" in page.locator("#keys-overlay").inner_text()
    page.goto(f"/papers/{paper.versioned_id}/")
    math_rendered(page, ".ctx-para")
    math_rendered(page, "figcaption")
    paragraph = page.locator(".ctx-para").first
    assert "70%" in paragraph.inner_text() and "→" in paragraph.inner_text()
    formula = paragraph.locator(".math").nth(1)
    formula.click()
    assert formula.locator(".math-source").inner_text() == r"$70\%$"
    assert not formula.locator(".math-rendered").is_visible()
    formula.click()
    assert formula.locator(".math-rendered").is_visible()
    page.keyboard.press("$")  # every formula's source
    sources = page.locator(".math-source:visible")
    assert sources.count() == page.locator(".math").count() > 4
    assert r"$\mathcal{L}_{\text{bal}}$" in paragraph.inner_text()
    page.keyboard.press("$")
    assert page.locator(".math-source:visible").count() == 0
    page.wait_for_load_state("networkidle")
    assert page.evaluate("window.__csp") == []
    assert page.evaluate("document.fonts.check('16px KaTeX_Main')")
    assert [u for u in failed if "/static/" in u] == []
