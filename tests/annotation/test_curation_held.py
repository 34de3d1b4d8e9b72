"""Issue 44: what sits inside a removed section shows as removed with it (not a ticked keep box),
and the page, posted as rendered, keeps each item's own choice for when the section comes back."""

from __future__ import annotations

import lxml.html
import pytest
from django.urls import reverse

from annotation.assignment import services as assignment_services
from annotation.curation import services as curation_services
from annotation.models import CuratedContext, CuratedElement
from papers.models import Element, Section
from tests.annotation.factories import all_ids, make_expert, make_paper

pytestmark = pytest.mark.django_db


def posted(page) -> dict[str, list[str]]:
    """What the curation form sends as rendered: hidden fields and ticked, enabled boxes."""
    form = page.get_element_by_id("curation")
    fields: dict[str, list[str]] = {}
    for field in form.iter("input", "textarea"):
        kind = field.get("type", "")
        if field.get("name") is None or field.get("disabled") is not None:
            continue
        if kind == "checkbox" and field.get("checked") is None:
            continue
        fields.setdefault(field.get("name"), []).append(field.get("value") or field.text or "")
    return fields


def test_a_removed_sections_children_show_as_removed_with_it(client):
    alice = make_expert("alice")
    paper = make_paper()
    assignment_services.assign_papers(papers=[paper], experts=[alice], assigned_by=None)
    sections, elements = all_ids(paper)
    related = Section.objects.get(paper=paper, title="Related Work")
    older = Section.objects.get(paper=paper, title="Older work")
    curation_services.save_curated_context(
        paper=paper,
        user=alice,
        kept_section_ids=sections - {related.pk},
        kept_element_ids=elements,
        not_chart_ids=set(),
        latest_seen=None,
    )
    client.force_login(alice)
    url = reverse("annotation:curate", args=[paper.arxiv_id, paper.version])
    page = lxml.html.fromstring(client.get(url).content)

    held = Element.objects.filter(section__in=[related, older])
    assert held.count() == 3
    for element in held:
        item = page.xpath(f'//*[@data-element="{element.pk}"]')[0]
        assert {"removed", "with-section"} <= set(item.classes)
        box = item.xpath(".//input[@class='keep']")[0]
        assert box.get("disabled") is not None and box.get("checked") is None
        assert "removed with its section" in item.xpath("./label")[0].text_content()
        assert item.xpath(f".//input[@class='own-keep'][@name='keep'][@value='{element.pk}']")
    # The subsection's heading too: not a ticked "keep" box inside a removed section.
    heading = page.xpath(f'//section[@data-section="{older.pk}"]')[0]
    assert "removed" in heading.classes
    box = heading.xpath("./div[1]//input[@class='keep']")[0]
    assert box.get("disabled") is not None and box.get("checked") is None
    assert "removed with its section" in heading.xpath("./div[1]")[0].text_content()
    # The removed section's own box is its own choice, and the rest of the paper is as it was.
    own = page.xpath(f'//section[@data-section="{related.pk}"]/div[1]//input[@class="keep"]')[0]
    assert own.get("disabled") is None and own.get("checked") is None
    body = Element.objects.filter(paper=paper, section__kind="body").first()
    box = page.xpath(f'//*[@data-element="{body.pk}"]//input[@class="keep"]')[0]
    assert box.get("disabled") is None and box.get("checked") is not None

    # Posted as rendered, the page changes nothing: every held item's own choice stays "kept".
    response = client.post(url, posted(page), follow=True)
    assert "Nothing changed since context v1" in response.content.decode()
    assert CuratedContext.objects.filter(paper=paper).count() == 1
    states = CuratedElement.objects.filter(context__paper=paper, element__in=held)
    assert all(s.kept and not s.in_context for s in states)
