"""The writing and new-perturbation pages over HTTP: what the evidence markup prints, the whole
context without the evidence the page already shows, and where a handed-over new perturbation
ends once submitted."""

from __future__ import annotations

import json
import re
from collections import Counter

import pytest
from django.urls import reverse

from annotation.models import CuratedElement, WorkItem, WorkKind
from annotation.queue import work
from annotation.writing import services as writing
from tests.annotation.reperturbation import found_true, reperturb_form, reperturb_item

pytestmark = pytest.mark.django_db


def duplicate_ids(html: str) -> list[str]:
    return [i for i, n in Counter(re.findall(r'\sid="([^"]+)"', html)).items() if n > 1]


def evidence_boxes(html: str, name: str = "evidence") -> list[int]:
    return [int(pk) for pk in re.findall(rf'name="{name}" value="(\d+)"', html)]


def outside_the_page(item: WorkItem) -> int:
    """An element of the curated context that the writing page shows only in the whole context."""
    task = item.task
    kept = CuratedElement.objects.filter(context=task.context, in_context=True)
    return (
        kept.exclude(element_id__in={*task.sampled_ids, *task.paragraph_ids})
        .values_list("element_id", flat=True)
        .first()
    )


def test_no_template_comment_is_printed_before_the_evidence(writer):
    client, item = writer
    for url in (
        reverse("annotation:write", args=[item.key]),
        reverse("annotation:write_context", args=[item.key]),
    ):
        html = client.get(url).content.decode()
        assert 'class="ev-item' in html
        assert "{#" not in html and "#}" not in html and "One evidence candidate" not in html


def test_the_whole_context_leaves_out_the_evidence_the_draft_marked(writer):
    """Evidence marked in the whole context comes back after a reload under "Other evidence you
    marked": the whole context must not show it a second time (one box, one id)."""
    client, item = writer
    extra = outside_the_page(item)
    body = {
        "version": item.version,
        "draft": {"evidence": [item.task.sampled_ids[0], extra], "refuted_evidence": []},
    }
    saved = client.post(
        reverse("annotation:save_draft", args=[item.key]),
        json.dumps(body),
        content_type="application/json",
    )
    assert saved.status_code == 200
    page = client.get(reverse("annotation:write", args=[item.key])).content.decode()
    assert "Other evidence you marked" in page
    assert f'name="evidence" value="{extra}" form="writing" checked' in page
    context = client.get(reverse("annotation:write_context", args=[item.key])).content.decode()
    assert extra not in evidence_boxes(context)
    assert f'href="#ev-{extra}"' in context  # a line pointing at the box above
    boxes = evidence_boxes(page + context)
    assert len(boxes) == len(set(boxes))
    assert duplicate_ids(page + context) == []


def test_the_new_perturbations_whole_context_leaves_out_what_the_page_shows(client):
    c, pair = found_true()
    item = work.next_item(user=c["wendy"], kind=WorkKind.REPERTURB)
    kept = CuratedElement.objects.filter(context=pair.context, in_context=True)
    task = pair.task
    extra = (
        kept.exclude(element_id__in={*task.sampled_ids, *task.paragraph_ids})
        .values_list("element_id", flat=True)
        .first()
    )
    client.force_login(c["wendy"])
    body = {
        "version": item.version,
        "draft": {"split_evidence": True, "refuted_evidence": [task.sampled_ids[0], extra]},
    }
    client.post(
        reverse("annotation:reperturb_draft", args=[item.key]),
        json.dumps(body),
        content_type="application/json",
    )
    page = client.get(reverse("annotation:reperturb", args=[item.key])).content.decode()
    context = client.get(reverse("annotation:reperturb_context", args=[item.key])).content.decode()
    assert "{#" not in page and "One evidence candidate" not in page
    assert extra in evidence_boxes(page, "refuted_evidence")
    assert extra not in evidence_boxes(context, "refuted_evidence")
    assert duplicate_ids(page + context) == []


def test_a_handed_over_new_perturbation_ends_on_a_page_its_writer_may_open(client):
    """An expert an admin handed the item to did not write the pair: after submitting she lands
    on her workspace with the confirmation, not on the pair's page (which refuses her)."""
    c, pair = found_true()
    item = reperturb_item(pair)
    writing.reassign_reperturbation(item=item, expert=c["nia"], by=c["boss"], note="wendy left")
    assert work.next_item(user=c["nia"], kind=WorkKind.REPERTURB) == item
    client.force_login(c["nia"])
    url = reverse("annotation:reperturb", args=[item.key])
    data = reperturb_form(item)
    response = client.post(url, data, follow=True)
    assert response.status_code == 200, response.content.decode()[:500]
    assert response.redirect_chain[-1][0] == reverse("annotation:home")
    html = response.content.decode()
    assert "New perturbation recorded: it goes to a blind second annotation" in html
    assert "Not allowed" not in html
    # A retry of the same submission, and the item's page afterwards, end there too.
    for again in (client.post(url, data, follow=True), client.get(url, follow=True)):
        assert again.status_code == 200
        assert again.redirect_chain[-1][0] == reverse("annotation:home")
    # The pair's writer and admins still land on the pair's page.
    client.force_login(c["boss"])
    assert client.get(url).url == reverse("annotation:pair", args=[pair.key])
