"""`WorkItem.held_by`: the one holder check every work page, the refusals and the work queue
ask (issue 12)."""

from __future__ import annotations

import datetime as dt

from django.contrib.auth import get_user_model
from django.contrib.auth.models import AnonymousUser
from django.utils import timezone

from annotation.models import WorkItem, WorkStatus

User = get_user_model()
ME, OTHER = User(pk=7, username="me"), User(pk=8, username="other")


def _item(status=WorkStatus.LEASED, holder=ME, expires_in=dt.timedelta(minutes=30)) -> WorkItem:
    return WorkItem(
        status=status,
        holder_id=holder.pk if holder else None,
        lease_expires_at=timezone.now() + expires_in if holder else None,
    )


def test_the_holder_holds_a_leased_item():
    assert _item().held_by(ME)


def test_nobody_else_holds_it():
    assert not _item().held_by(OTHER)
    assert not _item().held_by(AnonymousUser())


def test_an_item_not_leased_is_held_by_nobody():
    assert not _item(WorkStatus.OPEN, holder=None).held_by(ME)
    for status in (WorkStatus.DONE, WorkStatus.CANCELLED):  # the holder field left behind
        assert not _item(status).held_by(ME)


def test_a_lease_that_ran_out_is_the_holders_until_someone_else_takes_the_item():
    expired = _item(expires_in=-dt.timedelta(minutes=1))
    assert expired.held_by(ME) and not expired.held_by(OTHER)
    taken = _item(holder=OTHER, expires_in=dt.timedelta(minutes=30))  # Next gave it to OTHER
    assert taken.held_by(OTHER) and not taken.held_by(ME)
