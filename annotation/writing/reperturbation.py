"""A perturbation that turned out true goes back to its writer: opening and cancelling the
re-perturbation item (the transitions that adjudication and validation trigger; submitting it
is `annotation.writing.services.submit_reperturbation`)."""

from __future__ import annotations

from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction

from annotation import lifecycle
from annotation.errors import InvalidTransition
from annotation.models import (
    Claim,
    ClaimLabel,
    ClaimPair,
    PairState,
    WorkAction,
    WorkItem,
    WorkKind,
    WorkStatus,
)
from annotation.queue import work

OPEN = (WorkStatus.OPEN, WorkStatus.LEASED)


def open_item(pair: ClaimPair) -> WorkItem | None:
    return WorkItem.objects.filter(pair=pair, kind=WorkKind.REPERTURB, status__in=OPEN).first()


@transaction.atomic
def open_reperturbation(
    *, claim: Claim, actor: AbstractBaseUser | None, why: str
) -> WorkItem | None:
    """The pair's refuted claim is entailed after all: its writer is asked for a new
    perturbation (an item assigned to them, in the pair's subfield). Idempotent: a pair has at
    most one open re-perturbation item (the database says so too). Nothing for a dropped pair."""
    pair = ClaimPair.objects.select_for_update().get(pk=claim.pair_id)
    claim = Claim.objects.get(pk=claim.pk)
    if claim.label != ClaimLabel.REFUTED or claim.superseded:
        raise InvalidTransition("Only a pair's current refuted claim can be sent back.")
    if pair.state == PairState.DROPPED:
        return None
    existing = open_item(pair)
    if existing is not None:
        return existing
    item = work.create_item(
        kind=WorkKind.REPERTURB,
        paper_id=pair.paper_id,
        subfield_code=pair.subfield_code,
        actor=actor,
        pair=pair,
        claim=claim,
        assignee_id=pair.writer_id,
    )
    lifecycle.move(
        pair,
        PairState.REPERTURB,
        actor=actor,
        action=WorkAction.SENT_BACK,
        item=item,
        new={"claim": claim.pk, "final_label": ClaimLabel.ENTAILED, "writer": pair.writer_id},
        note=f"the perturbation turned out true: {why}",
    )
    return item


@transaction.atomic
def cancel_reperturbation(*, pair: ClaimPair, actor: AbstractBaseUser | None, note: str) -> int:
    """Withdraw the pair's open re-perturbation item (its perturbation is false after all)."""
    cancelled = work.cancel_items(
        WorkItem.objects.filter(pair=pair, kind=WorkKind.REPERTURB), actor=actor, note=note
    )
    pair = ClaimPair.objects.get(pk=pair.pk)
    if pair.state == PairState.REPERTURB:
        lifecycle.move(
            pair, PairState.ACTIVE, actor=actor, action=WorkAction.REPERTURB_WITHDRAWN, note=note
        )
    return cancelled
