"""Re-perturbation suggestions leave out every rewrite already found true for the pair, compared
by the values and words it changes: an entailed claim worded differently from its perturbation
(or reworded since) does not bring the rewrite that turned out true back (issue 44, item 1)."""

from __future__ import annotations

import html
import re
import uuid

import pytest
from django.urls import reverse

from annotation.queue import work
from annotation.writing import services as writing
from tests.annotation.claim_factories import REFUTED
from tests.annotation.reperturbation import NOTES, WHY, reperturb_item
from tests.annotation.review_factories import adjudicate, annotate, crew, written_pair

pytestmark = pytest.mark.django_db

# The entailed claim worded unlike its perturbation (REFUTED: "Ours reaches a BLEU of 68.9, …"):
# a filter comparing texts misses "Ours achieves a BLEU of 68.9, …".
ENTAILED = "Ours achieves a BLEU of 73.2, which is higher than the Baseline model."
# The second perturbation, worded differently again: it turns out true too.
SECOND = "Ours gets a BLEU of 80.1, which is higher than the Baseline model."


def offered(client, item) -> list[str]:
    """The suggestions' descriptions on the reperturbation page ("73.2 → 68.9")."""
    response = client.post(reverse("annotation:reperturb_suggest", args=[item.key]))
    assert response.status_code == 200
    body = html.unescape(response.content.decode())
    return re.findall(r'<span class="muted small">\w+: ([^<]*)</span>', body)


def found_true_by(annotator, adjudicator) -> None:
    """`annotator` labels the next claim waiting for them entailed; `adjudicator` agrees."""
    annotate(annotator, label="entailed")
    adjudicate(adjudicator, label="entailed", reason="writer_error", notes=NOTES)


def test_a_rewrite_found_true_is_not_offered_again_however_the_claims_are_worded(client):
    c = crew("wendy", "sam", "tom", "ada", "nia", "ida")
    pair = written_pair(c["wendy"], c["boss"], entailed=ENTAILED)
    assert pair.claims.get(label="refuted").text == REFUTED
    annotate(c["sam"], label="entailed")
    found_true_by(c["tom"], c["ada"])
    item = work.next_item(user=c["wendy"], kind="reperturb")
    client.force_login(c["wendy"])
    first = offered(client, item)
    assert "73.2 → 68.9" not in first  # the perturbation that turned out true
    assert "73.2 → 80.1" in first and "higher → lower" in first  # the others stay
    # The writer's next perturbation (another value, other words) turns out true as well: both
    # rewrites are left out, not only the last.
    item.refresh_from_db()
    writing.submit_reperturbation(
        item=item,
        user=c["wendy"],
        version=item.version,
        token=uuid.uuid4(),
        refuted=SECOND,
        explanation=WHY,
        perturbation_kind="number",
    )
    found_true_by(c["nia"], c["ida"])
    item = work.next_item(user=c["wendy"], kind="reperturb")
    assert item == reperturb_item(pair)
    second = offered(client, item)
    assert "73.2 → 68.9" not in second and "73.2 → 80.1" not in second
    assert "higher → lower" in second
