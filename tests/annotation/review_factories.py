"""Builders for review tests: a crew of experts, written pairs, blind annotations, adjudications."""

from __future__ import annotations

import uuid

from annotation.assignment import services as assignment_services
from annotation.models import ClaimPair, WorkItem
from annotation.queue import work
from annotation.review import services as review
from annotation.writing import services as writing
from tests.annotation.claim_factories import curated_paper, submit
from tests.annotation.factories import make_expert
from tests.factories import AdminFactory


def crew(*names: str) -> dict[str, object]:
    """Experts eligible for cs.CL (by name) and an admin ("boss")."""
    people = {name: make_expert(name) for name in names}
    people["boss"] = AdminFactory(username="boss")
    return people


def written_pair(writer, admin, *, seed: int = 1, **overrides) -> ClaimPair:
    paper, _ = curated_paper(admin)
    assignment_services.assign_papers(papers=[paper], experts=[writer], assigned_by=admin)
    writing.create_claim_tasks(paper=paper, by=writer, count=1, seed=seed)
    return submit(work.next_item(user=writer, kind="write"), writer, **overrides)


def writer_evidence(pair: ClaimPair, label: str) -> list[int]:
    return sorted(pair.claims.get(label=label).evidence.values_list("pk", flat=True))


FLIP = {"entailed": "refuted", "refuted": "entailed"}


def annotate(
    user, *, flip: bool = False, label: str | None = None, evidence: list[int] | None = None
) -> WorkItem:
    """`user` takes their next claim and labels it (default: as the writer did; `flip`: the
    other label)."""
    item = review.take_next(user=user, kind="evidence")
    claim = item.claim
    if flip:
        label = FLIP[claim.label]
    review.submit_second_annotation(
        item=item,
        user=user,
        version=item.version,
        token=uuid.uuid4(),
        label=label or claim.label,
        evidence_ids=evidence
        if evidence is not None
        else claim.evidence.values_list("pk", flat=True),
    )
    item.refresh_from_db()
    return item


def adjudicate(user, **fields) -> WorkItem:
    item = review.take_next(user=user, kind="adjudicate")
    claim = item.claim
    values = {
        "decision": "decided",
        "label": claim.label,
        "evidence_ids": list(claim.evidence.values_list("pk", flat=True)),
        "confidence": "high",
        "reason": "second_annotator_error",
        "notes": "",
    } | fields
    review.submit_adjudication(
        item=item, user=user, version=item.version, token=uuid.uuid4(), **values
    )
    item.refresh_from_db()
    return item
