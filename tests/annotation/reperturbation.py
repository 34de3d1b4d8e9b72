"""Pairs whose perturbation turned out true, and the writer's new perturbation (shared by the re-
perturbation tests)."""

from __future__ import annotations

import uuid

from annotation.models import WorkItem, WorkKind
from annotation.review import services as review
from tests.annotation.review_factories import adjudicate, crew, written_pair
from tests.validation.factories import add_images

NEW = "Ours reaches a BLEU of 75.0, which is higher than the Baseline model."


WHY = "Table 1 gives Ours a BLEU of 73.2, not 75.0."


NOTES = "Table 1 shows the Baseline at 68.9 and Ours higher: the perturbed claim holds."


def found_true(names=("wendy", "sam", "tom", "ada", "val", "nia"), *, seed: int = 1):
    """A pair whose refuted claim an adjudicator judged entailed: `sam` and `tom` annotate one
    claim each (the refuted one labelled entailed), `ada` adjudicates it entailed. Seed 1 makes
    a direct pair, seed 5 a parallel one."""
    c = crew(*names)
    pair = written_pair(c["wendy"], c["boss"], seed=seed)
    add_images(pair.paper)
    for name in ("sam", "tom"):
        item = review.take_next(user=c[name], kind="evidence")
        claim = item.claim
        review.submit_second_annotation(
            item=item,
            user=c[name],
            version=item.version,
            token=uuid.uuid4(),
            label="entailed",
            evidence_ids=claim.evidence.values_list("pk", flat=True),
        )
    adjudicate(c["ada"], label="entailed", reason="writer_error", notes=NOTES)
    return c, pair


def reperturb_item(pair) -> WorkItem:
    return WorkItem.objects.get(pair=pair, kind=WorkKind.REPERTURB, status__in=["open", "leased"])


def reperturb_form(item: WorkItem, **changes) -> dict:
    item.refresh_from_db()
    return {
        "version": item.version,
        "token": str(uuid.uuid4()),
        "refuted": NEW,
        "explanation": WHY,
        "perturbation_kind": "number",
    } | changes
