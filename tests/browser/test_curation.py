"""In a real browser, the README's walk: an admin creates an expert, records publications and
training, assigns a sample paper by subfield; the annotator sets a password from the one-time
link, curates the paper and finds it saved; a second annotator cannot open it. And the
curation page without a mouse."""

from __future__ import annotations

import os

import pytest
from django.core.management import call_command

from annotation.assignment import services as assignment_services
from annotation.models import (
    Assignment,
    CuratedContext,
    CuratedElement,
    CuratedSection,
    Subfield,
)
from papers.models import Element, Paper, Section
from tests.annotation.factories import make_expert
from tests.browser.pages import broken_images, sample_folder, shot, sign_in
from tests.factories import AdminFactory

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def paper(settings) -> Paper:
    settings.USE_CHROMIUM = False  # Pillow table images: fast, and enough here
    with open(os.devnull, "w") as sink:
        call_command("import_arxiv_html", str(sample_folder()), "--images", "now", stdout=sink)
    return Paper.objects.get()


def section_box(page, section: Section):
    return page.locator(f'input[name="keep_section"][value="{section.pk}"]')


def test_admin_sets_up_an_expert_and_assigns_then_the_annotator_curates(new_page, paper):
    Subfield.ensure_sciver_subfields()  # transactional tests flush what migrations inserted
    AdminFactory(username="boss")
    make_expert("bob", ("cs.CL",))  # eligible, but the paper is not his

    # The admin creates the account and is shown a one-time link.
    admin = new_page()
    sign_in(admin, "boss")
    admin.click("text=People")
    admin.fill("#id_username", "erin")
    admin.fill("#id_first_name", "Erin")
    admin.click("text=Create account")
    link = admin.input_value("#reset-link")
    assert "/accounts/reset/" in link

    # Subfield, two publications, training: erin becomes eligible for cs.CL.
    admin.click("text=Continue to erin's expert profile")
    assert "training not completed" not in admin.content()  # nothing listed yet
    admin.check("label:has-text('(cs.CL)') input")
    admin.click("#save-profile")
    for n, venue in enumerate(["ACL", "EMNLP"]):
        admin.fill("#publication-form input[name=title]", f"Paper number {n}")
        admin.fill("#publication-form input[name=venue]", venue)
        admin.fill("#publication-form input[name=year]", "2023")
        admin.select_option(
            "#publication-form select[name=subfield]", label="Computation and Language (cs.CL)"
        )
        admin.click("#add-publication")
    cl_row = admin.locator('tr[data-subfield="cs.CL"]')
    assert "training not completed" in cl_row.inner_text()
    admin.fill("#id_training_completed_on", "2024-11-04")
    admin.fill("#id_training_trainer", "boss")
    admin.click("#record-training")
    assert "✓ eligible" in cl_row.inner_text()
    shot(admin, "expert")

    # Assignment by subfield.
    admin.click("text=Assignment")
    admin.select_option("select[name=subfield]", "cs.CL")
    admin.select_option("select[name=state]", "unassigned")
    admin.click("text=Filter")
    admin.check(f'tr[data-paper="{paper.versioned_id}"] input[name=papers]')
    admin.select_option(
        "#id_expert", label=admin.locator("#id_expert option", has_text="erin").inner_text()
    )
    admin.click("#assign-one")
    assert "Assigned 1 paper(s): erin: 1." in admin.locator(".messages").inner_text()
    assert admin.locator(f'tr[data-paper="{paper.versioned_id}"]').count() == 0  # not waiting
    assert admin.locator('#expert-overview tr[data-expert="erin"] td').nth(2).inner_text() == "1"
    shot(admin, "assignment")

    # The annotator chooses a password with the link and lands in her workspace.
    erin = new_page()
    erin.goto(link)
    erin.fill("#id_new_password1", "erin-long-pass-phrase-1")
    erin.fill("#id_new_password2", "erin-long-pass-phrase-1")
    erin.click("text=Set password")
    erin.click("#to-workspace")
    queue = erin.locator("#to-curate")
    assert paper.title[:40] in queue.inner_text()
    queue.get_by_role("link", name="Curate", exact=True).click()
    erin.wait_for_selector("#curation")
    assert broken_images(erin) == []

    # Accept the proposal, restore one section, mark a figure as not a chart, save.
    proposed = list(
        Section.objects.filter(
            paper=paper,
            kind__in=["related_work", "acknowledgments", "references", "appendix"],
            parent=None,
        )
    )
    restored = next(s for s in proposed if s.kind == "acknowledgments")
    erin.click("#accept-proposal")
    for section in proposed:
        assert not section_box(erin, section).is_checked()
        assert "out" in erin.locator(f'section[data-section="{section.pk}"]').get_attribute("class")
    section_box(erin, restored).check()
    figure = Element.objects.filter(paper=paper, kind="chart", section__kind="body").first()
    erin.check(f'input[name="not_chart"][value="{figure.pk}"]')
    assert erin.locator('#ctx-summary [data-count="not_charts"]').inner_text() == "1"
    shot(erin, "curation")
    erin.fill("#id_note", "first pass")
    erin.click("#save")
    assert "Saved context v1" in erin.locator(".messages").inner_text()

    erin.reload()
    assert section_box(erin, restored).is_checked()
    assert all(not section_box(erin, s).is_checked() for s in proposed if s != restored)
    assert erin.locator(f'input[name="not_chart"][value="{figure.pk}"]').is_checked()
    assert "v1" in erin.locator(".versions").inner_text()
    assert "first pass" in erin.locator(".versions").inner_text()
    context = CuratedContext.objects.get(paper=paper)
    assert CuratedSection.objects.get(context=context, section=restored).kept
    assert CuratedElement.objects.get(context=context, element=figure).not_a_chart
    assert Assignment.objects.get(paper=paper).status == "curated"
    erin.goto("/")
    assert paper.title[:40] in erin.locator("#curated").inner_text()

    # A second annotator can open neither the paper nor its images.
    bob = new_page()
    sign_in(bob, "bob")
    response = bob.goto(f"/curate/{paper.versioned_id}/")
    assert response.status == 403 and "not assigned to you" in bob.content()
    image = Element.objects.filter(paper=paper).exclude(image="").first().image.url
    assert bob.request.get(image).status == 403
    assert erin.request.get(image).status == 200


def test_the_curation_page_works_from_the_keyboard(page, paper):
    alice = make_expert("alice", ("cs.CL",))
    assignment_services.assign_papers(papers=[paper], experts=[alice], assigned_by=None)
    sign_in(page, "alice")
    page.goto(f"/curate/{paper.versioned_id}/")
    page.wait_for_selector("#curation")
    ack = Section.objects.get(paper=paper, kind="acknowledgments")

    def current() -> dict:
        return page.evaluate(
            """() => { const item = document.activeElement.closest('[data-item]');
                       return { kind: item.dataset.kind || 'section',
                                section: item.closest('.cur-section').dataset.section,
                                element: item.dataset.element || null,
                                focused: document.activeElement.name }; }"""
        )

    def press_until(key: str, condition, limit: int = 120) -> dict:
        for _ in range(limit):
            page.keyboard.press(key)
            state = current()
            if condition(state):
                return state
        raise AssertionError(f"{key} never reached the item")

    page.keyboard.press("j")
    assert current()["focused"] == "keep_section"  # a native checkbox has the focus
    page.keyboard.press("a")  # accept the proposal
    assert not section_box(page, ack).is_checked()
    press_until("J", lambda s: s["section"] == str(ack.pk) and s["kind"] == "section")
    page.keyboard.press("x")  # restore acknowledgments
    assert section_box(page, ack).is_checked()
    press_until("k", lambda s: s["kind"] == "table")
    page.keyboard.press("t")  # the HTML table, loaded on demand
    page.wait_for_selector(".cur-item.current details[open] .table-html-body table")
    chart = press_until("k", lambda s: s["kind"] == "chart")
    page.keyboard.press("c")  # not a chart
    paragraph = press_until("k", lambda s: s["kind"] == "paragraph")
    page.keyboard.press("x")  # remove this paragraph
    assert "removed" in page.locator(f'[data-element="{paragraph["element"]}"]').get_attribute(
        "class"
    )
    shot(page, "keyboard")
    with page.expect_navigation():
        page.keyboard.press("s")
    assert "Saved context v1" in page.locator(".messages").inner_text()

    context = CuratedContext.objects.get(paper=paper)
    assert CuratedSection.objects.get(context=context, section=ack).kept
    assert CuratedElement.objects.get(context=context, element_id=chart["element"]).not_a_chart
    removed = CuratedElement.objects.get(context=context, element_id=paragraph["element"])
    assert not removed.kept and not removed.in_context
    related = Section.objects.filter(paper=paper, kind="related_work", parent=None)
    assert not CuratedSection.objects.filter(
        context=context, section__in=related, kept=True
    ).exists()
    assert page.locator(".keys").inner_text().count("save") == 1  # the keys are on the page
