"""Issue 44: once claims were written on a table or chart, the Django admin shows its caption,
text, cells, HTML and image read-only (a correction goes through a flag and its recorded fix)."""

from __future__ import annotations

import json

import pytest
from django.urls import reverse

from papers.models import Element
from tests.annotation.review_factories import crew, written_pair

pytestmark = pytest.mark.django_db

LOCKED = ("caption", "text", "cells", "table_html", "image")
NO_PANELS = {
    "panels-TOTAL_FORMS": 0,
    "panels-INITIAL_FORMS": 0,
    "panels-MIN_NUM_FORMS": 0,
    "panels-MAX_NUM_FORMS": 1000,
}


def change_data(client, url: str, element: Element) -> dict:
    form = client.get(url).context["adminform"].form
    data = {k: v for k, v in form.initial.items() if v is not None and k != "image"}
    data.update({"paper": element.paper_id, "section": element.section_id, **NO_PANELS})
    data["degraded_reasons"] = "[]"
    if "cells" in data:
        data["cells"] = json.dumps(data["cells"])
    return data


def test_an_element_with_claims_is_read_only_in_the_admin(client):
    people = crew("alice")
    pair = written_pair(people["alice"], people["boss"])
    table = Element.objects.filter(pk__in=pair.task.sampled_ids, kind="table").first()
    before = Element.objects.values(*LOCKED[:-1], "image").get(pk=table.pk)
    client.force_login(people["boss"])
    url = reverse("admin:papers_element_change", args=[table.pk])

    page = client.get(url).content.decode()
    for field in LOCKED:
        assert f'name="{field}"' not in page, field
    assert "read-only here" in page and "a flag and its recorded fix" in page
    assert f"claim #{pair.claims.first().pk}" in page

    data = change_data(client, url, table)
    data.update(
        caption="A caption changed behind the claims' back",
        text="new text",
        cells='[[[{"text": "changed"}]]]',
        table_html="<table><tr><td>changed</td></tr></table>",
        number="9",
    )
    response = client.post(url, data)
    assert response.status_code == 302, response.content.decode()[:2000]
    assert Element.objects.values(*LOCKED[:-1], "image").get(pk=table.pk) == before
    table.refresh_from_db()
    assert table.number == "9"  # what claims do not rest on stays editable


def test_an_element_without_claims_stays_editable(client):
    people = crew("alice")
    pair = written_pair(people["alice"], people["boss"])
    free = (
        Element.objects.filter(paper=pair.paper, kind="table")
        .exclude(pk__in=pair.task.sampled_ids)
        .first()
    )
    if free is None:  # every table of the paper was sampled: a chart not sampled
        free = (
            Element.objects.filter(paper=pair.paper, kind="chart")
            .exclude(pk__in=pair.task.sampled_ids)
            .first()
        )
    assert free is not None
    client.force_login(people["boss"])
    url = reverse("admin:papers_element_change", args=[free.pk])
    page = client.get(url).content.decode()
    assert 'name="caption"' in page and "No claim was written on this element yet" in page
    data = change_data(client, url, free)
    data["caption"] = "Corrected before any claim"
    response = client.post(url, data)
    assert response.status_code == 302, response.context["adminform"].form.errors
    free.refresh_from_db()
    assert free.caption == "Corrected before any claim"
