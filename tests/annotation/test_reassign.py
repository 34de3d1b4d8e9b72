"""`work.reassign`, the one path by which an admin hands a waiting item to an expert by name
(`review.allow_expert`, `writing.reassign_reperturbation`): the checks every hand-over shares,
in order, then the stage's own rule, then one override event."""

from __future__ import annotations

import datetime as dt

import pytest
from django.utils import timezone

from annotation.errors import AnnotationError, InvalidTransition
from annotation.models import ExpertProfile, WorkAction, WorkEvent, WorkItem, WorkStatus
from annotation.queue import work
from tests.annotation.factories import make_expert
from tests.annotation.review_factories import crew, written_pair

pytestmark = pytest.mark.django_db

KINDS = ("evidence",)
WRONG = "Only second-annotation items here."


def _waiting_item():
    c = crew("alice")
    written_pair(c["alice"], c["boss"])
    return c, WorkItem.objects.filter(kind="evidence").order_by("pk").first()


def _reassign(item, expert, by, admit=lambda item, profile: None, kinds=KINDS, note=""):
    return work.reassign(item, expert, by=by, kinds=kinds, wrong_kind=WRONG, admit=admit, note=note)


def test_the_shared_checks_refuse_in_order_and_record_nothing():
    c, item = _waiting_item()
    olga = make_expert("olga", ("cs.CV",))
    with pytest.raises(AnnotationError, match="^Only admins can do this.$"):
        _reassign(item, olga, by=c["alice"], kinds=())  # staff comes first
    with pytest.raises(AnnotationError, match=f"^{WRONG}$"):
        _reassign(item, olga, by=c["boss"], kinds=("validate",))
    ExpertProfile.objects.filter(user=olga).update(active=False)
    with pytest.raises(AnnotationError, match="^olga has no active expert profile.$"):
        _reassign(item, olga, by=c["boss"])
    ExpertProfile.objects.filter(user=olga).update(active=True)
    olga.is_active = False
    olga.save(update_fields=["is_active"])
    with pytest.raises(AnnotationError, match="^olga has no active expert profile.$"):
        _reassign(item, olga, by=c["boss"])
    assert not WorkEvent.objects.filter(item=item, action=WorkAction.OVERRIDE).exists()


def test_an_item_leased_live_or_cancelled_is_not_waiting_one_whose_lease_ran_out_is():
    c, item = _waiting_item()
    olga = make_expert("olga", ("cs.CV",))
    now = timezone.now()
    WorkItem.objects.filter(pk=item.pk).update(
        status=WorkStatus.LEASED, holder=c["alice"], lease_expires_at=now + dt.timedelta(hours=1)
    )
    with pytest.raises(InvalidTransition, match="is not waiting"):
        _reassign(item, olga, by=c["boss"])
    WorkItem.objects.filter(pk=item.pk).update(lease_expires_at=now - dt.timedelta(minutes=1))
    assert _reassign(item, olga, by=c["boss"]).assignee_id == olga.pk
    WorkItem.objects.filter(pk=item.pk).update(status=WorkStatus.CANCELLED, lease_expires_at=None)
    with pytest.raises(InvalidTransition, match="is not waiting"):
        _reassign(item, olga, by=c["boss"])


def test_the_stages_rule_refuses_or_adds_to_the_one_override_event():
    c, item = _waiting_item()
    olga = make_expert("olga", ("cs.CV",))
    seen = []

    def refuse(locked, profile):
        seen.append((locked.pk, profile.user_id))
        raise AnnotationError("olga may not take this item: they wrote it.")

    with pytest.raises(AnnotationError, match="they wrote it"):
        _reassign(item, olga, by=c["boss"], admit=refuse)
    assert seen == [(item.pk, olga.pk)]
    assert WorkItem.objects.get(pk=item.pk).assignee_id is None

    item = _reassign(
        item,
        olga,
        by=c["boss"],
        admit=lambda locked, profile: {"expert_subfields": ["cs.CV"]},
        note="  no cs.CL expert left ",
    )
    assert item.assignee_id == olga.pk
    event = WorkEvent.objects.get(item=item, action=work.OVERRIDE_ACTION)
    assert event.new == {"assignee": olga.pk, "expert_subfields": ["cs.CV"]}
    assert event.old == {"assignee": None}
    assert event.note == "no cs.CL expert left" and event.actor == c["boss"]
