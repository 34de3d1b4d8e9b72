"""Every work item has a random place in the shuffled queue (issue 49): drawn when it is made,
in bulk too, and drawn again when it goes back to the queue, so an item handed back or left
to run out comes round at a new place rather than first again for whoever passed it."""

from __future__ import annotations

import datetime as dt

import pytest
from django.utils import timezone

from annotation.models import SHUFFLE_KEY_BITS, WorkItem
from annotation.queue import work
from annotation.review import services as review
from tests.annotation.factories import make_paper
from tests.annotation.review_factories import crew, written_pair

pytestmark = pytest.mark.django_db


def test_items_made_in_bulk_get_their_own_random_places():
    paper = make_paper()
    WorkItem.objects.bulk_create(
        [WorkItem(kind="evidence", paper=paper, subfield_code="cs.CL") for _ in range(50)]
    )
    keys = list(WorkItem.objects.values_list("shuffle_key", flat=True))
    assert len(set(keys)) == 50
    assert all(0 <= k < 2**SHUFFLE_KEY_BITS for k in keys)


def test_an_item_handed_back_or_left_to_run_out_draws_a_new_place():
    c = crew("alice", "bob", "carol", "dave")
    written_pair(c["alice"], c["boss"])
    item = review.take_next(user=c["bob"], kind="evidence")
    drawn = [item.shuffle_key]
    WorkItem.objects.filter(pk=item.pk).update(
        lease_expires_at=timezone.now() - dt.timedelta(minutes=1)
    )
    taken = review.take_next(user=c["carol"], kind="evidence")
    assert taken.pk == item.pk and taken.holder_id == c["carol"].pk  # a run-out lease first
    drawn.append(WorkItem.objects.get(pk=item.pk).shuffle_key)
    work.release_item(item=taken, user=c["carol"], version=taken.version)
    released = WorkItem.objects.get(pk=item.pk)
    assert released.status == "open"
    drawn.append(released.shuffle_key)
    assert len(set(drawn)) == 3, drawn
