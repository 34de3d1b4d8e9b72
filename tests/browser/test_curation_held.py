"""Issue 44, in a real browser: removing a section shows what it holds as removed with it (boxes
off and disabled), restoring it brings back each item's own choice, and a save keeps them."""

from __future__ import annotations

import pytest

from annotation.assignment import services as assignment_services
from annotation.models import CuratedContext, CuratedElement, CuratedSection
from papers.models import Element, Section
from tests.annotation.factories import make_expert, make_paper
from tests.browser.pages import sign_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_toggling_a_section_holds_and_restores_what_it_holds(page):
    alice = make_expert("alice")
    paper = make_paper()
    assignment_services.assign_papers(papers=[paper], experts=[alice], assigned_by=None)
    related = Section.objects.get(paper=paper, title="Related Work")
    older = Section.objects.get(paper=paper, title="Older work")
    held = list(Element.objects.filter(section__in=[related, older]))
    sign_in(page, "alice")
    page.goto(f"/curate/{paper.versioned_id}/")
    page.wait_for_selector("#curation")

    def box(name: str, pk: int):
        return page.locator(f'input.keep[name="{name}"][value="{pk}"]')

    sub = box("keep_section", older.pk)
    box("keep", held[0].pk).uncheck()  # its own choice: removed
    box("keep_section", related.pk).uncheck()
    assert sub.is_disabled() and not sub.is_checked()
    heading = page.locator(f'section[data-section="{older.pk}"] .cur-heading')
    assert "removed with its section" in heading.inner_text()
    for element in held:
        assert box("keep", element.pk).is_disabled() and not box("keep", element.pk).is_checked()
        classes = page.locator(f'[data-element="{element.pk}"]').get_attribute("class")
        assert "removed" in classes and "with-section" in classes

    box("keep_section", related.pk).check()  # back: each item's own choice again
    assert sub.is_enabled() and sub.is_checked()
    assert not box("keep", held[0].pk).is_checked()
    assert all(box("keep", e.pk).is_checked() for e in held[1:])

    box("keep_section", related.pk).uncheck()
    page.click("#save")
    page.wait_for_selector(".messages")
    context = CuratedContext.objects.get(paper=paper)
    assert not CuratedSection.objects.get(context=context, section=related).kept
    assert CuratedSection.objects.get(context=context, section=older).kept
    kept = dict(
        CuratedElement.objects.filter(context=context, element__in=held).values_list(
            "element_id", "kept"
        )
    )
    assert kept == {e.pk: e != held[0] for e in held}
