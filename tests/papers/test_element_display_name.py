"""`Element.display_name`: the one way pages name an element ("Table 3", "paragraph p5", …)."""

from __future__ import annotations

import html

import pytest
from django.test import Client

from annotation.assignment import services as assignment_services
from annotation.models import WorkItem
from annotation.writing import services as writing
from papers.models import Element
from tests.annotation.claim_factories import curated_paper
from tests.annotation.factories import make_expert
from tests.factories import AdminFactory


@pytest.mark.parametrize(
    ("kind", "label", "anchor", "shown"),
    [
        (Element.Kind.TABLE, "Table 3", "S4.T3", "Table 3"),
        (Element.Kind.TABLE, "", "S4.T3", "S4.T3"),
        (Element.Kind.CHART, "Figure 2", "S3.F2", "Figure 2"),
        (Element.Kind.PARAGRAPH, "", "S2.p1", "paragraph S2.p1"),
        (Element.Kind.PARAGRAPH, "Lemma 1", "S2.p1", "paragraph S2.p1"),
    ],
)
def test_display_name(kind, label, anchor, shown):
    assert Element(kind=kind, label=label, anchor=anchor).display_name == shown


@pytest.mark.django_db
def test_the_writing_page_names_each_element_by_its_display_name():
    alice, admin = make_expert("alice"), AdminFactory(username="boss")
    paper, _ = curated_paper(admin)
    assignment_services.assign_papers(papers=[paper], experts=[alice], assigned_by=admin)
    writing.create_claim_tasks(paper=paper, by=alice, count=1, seed=7)
    client = Client()
    client.force_login(alice)
    client.post("/claims/next/")
    item = WorkItem.objects.get(holder=alice)
    page = html.unescape(client.get(f"/claims/write/{item.key}/").content.decode())
    elements = Element.objects.filter(pk__in=item.task.sampled_ids)
    assert elements
    for element in elements:
        assert f'aria-label="Evidence: {element.display_name}"' in page, element.display_name
