"""The writer's pair page tells the pair's history in words, with roles, never raw JSON
(`"evidence": [17, 20]`) and never another person's username (issue 44, item 8): "The second
annotator labelled the refuted claim entailed with 1 evidence element: Table 2", "The
adjudicator decided …", "A validator revised the text …". Admins read the same words with the
names, and every event as recorded."""

from __future__ import annotations

import uuid

import pytest
from django.test import Client

from tests.annotation.review_factories import adjudicate, annotate, crew, written_pair
from validation import services as validation

pytestmark = pytest.mark.django_db

OTHERS = ("quill", "rook", "vane", "yarrow", "boss")  # everyone but the writer, alice


def history_of(user, pair) -> tuple[str, str]:
    client = Client()
    client.force_login(user)
    page = client.get(f"/claims/pairs/{pair.key}/").content.decode()
    return page, page.split('id="history"', 1)[1].split("</ol>", 1)[0]


def test_the_writer_reads_the_history_in_words_with_roles_and_admins_with_names():
    people = crew("alice", "quill", "rook", "vane", "yarrow")
    pair = written_pair(people["alice"], people["boss"])
    annotate(people["quill"], flip=True)  # a disagreement on one claim's label
    annotate(people["rook"])  # agreement on the other
    disputed = adjudicate(people["vane"], notes="The table supports the writer.").claim
    item = validation.take_next(user=people["yarrow"])
    claim, revised = item.claim, item.claim.text + " Indeed."
    validation.submit_validation(
        item=item,
        user=people["yarrow"],
        version=item.version,
        token=uuid.uuid4(),
        criteria_failed=["language"],
        text=revised,
        subset=pair.subset,
        label=claim.review.final_label,
        evidence_ids=list(claim.review.final_evidence.values_list("pk", flat=True)),
        explanation=claim.explanation,
    )
    table = pair.claims.get(label="entailed").evidence.get().label  # "Table 2"
    flipped = {"entailed": "refuted", "refuted": "entailed"}[disputed.label]

    page, history = history_of(people["alice"], pair)
    assert "You submitted the pair" in history
    assert (
        f"The second annotator labelled the {disputed.label} claim {flipped} with 1 evidence "
        f"element: {table}." in history
    )
    assert "the two annotations disagreed on the label" in history
    assert (
        f"The adjudicator decided the {disputed.label} claim is {disputed.label} with 1 "
        f"evidence element: {table}" in history
    )
    assert "The table supports the writer." in history  # the adjudicator's reason
    assert f"A validator revised the text of the {claim.label} claim" in history
    assert revised in history
    assert "{" not in history and "[" not in history and "&quot;" not in history
    for name in OTHERS:
        assert name not in page, name
    assert 'id="events"' not in page  # the raw events are the admins' alone

    page, history = history_of(people["boss"], pair)
    assert "The writer (alice) submitted the pair" in history
    assert "The second annotator (quill) labelled" in history
    assert "The adjudicator (vane) decided" in history and "A validator (yarrow) revised" in history
    assert 'id="events"' in page  # and every event as recorded
