"""The work queue: work items handed out with a lease, and the history of each."""

from __future__ import annotations

import secrets

from django.conf import settings
from django.db import models
from django.db.models import Q

from annotation.keys import key_field
from annotation.models.claims import Claim, ClaimPair, ClaimTask


class WorkKind(models.TextChoices):
    """What a work item asks for; later stages add their kinds."""

    WRITE = "write", "write a claim pair"
    BLIND = "evidence", "annotate a claim blind"  # the blind second annotation (SciVer step 6)
    ADJUDICATE = "adjudicate", "adjudicate a disagreement"
    VALIDATE = "validate", "validate a final claim"
    BASELINE = "baseline", "answer a claim blind (human baseline)"
    REPERTURB = "reperturb", "write a new perturbation (the last one turned out true)"


class WorkStatus(models.TextChoices):
    OPEN = "open", "open"
    LEASED = "leased", "in progress"
    DONE = "done", "done"
    CANCELLED = "cancelled", "cancelled"


# An item's place in every expert's shuffled walk through the queue: a random key in [0, 2**62),
# drawn when the item is made and again whenever it is handed back (`annotation.queue.work`).
SHUFFLE_KEY_BITS = 62


def draw_shuffle_key() -> int:
    """A fresh random place in the shuffled queue (nothing about the item follows from it)."""
    return secrets.randbits(SHUFFLE_KEY_BITS)


class WorkItem(models.Model):
    """One unit of work handed out with a lease. `version` rises with every state change, so a
    form opened before one is refused; `submit_token` makes a submission count once."""

    Kind = WorkKind
    Status = WorkStatus
    MACHINE = "item"
    STATE_FIELD = "status"
    # Declared transitions; every change is `annotation.lifecycle.move`, which writes the event.
    # An expired lease goes back to open before someone else claims it.
    TRANSITIONS = {
        WorkStatus.OPEN: {WorkStatus.LEASED, WorkStatus.CANCELLED},
        WorkStatus.LEASED: {WorkStatus.OPEN, WorkStatus.DONE, WorkStatus.CANCELLED},
        WorkStatus.DONE: set(),
        WorkStatus.CANCELLED: set(),
    }
    key = key_field()

    kind = models.CharField(max_length=16, choices=WorkKind.choices)
    status = models.CharField(max_length=16, choices=WorkStatus.choices, default=WorkStatus.OPEN)
    paper = models.ForeignKey("papers.Paper", on_delete=models.PROTECT, related_name="work_items")
    subfield_code = models.CharField(max_length=32, help_text="Who may take it: eligible experts")
    task = models.ForeignKey(
        ClaimTask, null=True, blank=True, on_delete=models.PROTECT, related_name="work_items"
    )
    pair = models.ForeignKey(
        ClaimPair, null=True, blank=True, on_delete=models.PROTECT, related_name="work_items"
    )
    claim = models.ForeignKey(
        Claim, null=True, blank=True, on_delete=models.PROTECT, related_name="work_items"
    )
    assignee = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="+",
        help_text="Only this expert may take it (else any eligible expert)",
    )
    holder = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="work_held",
    )
    leased_at = models.DateTimeField(null=True, blank=True)
    lease_expires_at = models.DateTimeField(null=True, blank=True)
    version = models.PositiveIntegerField(default=1)
    draft = models.JSONField(default=dict, blank=True)
    draft_saved_at = models.DateTimeField(null=True, blank=True)
    submit_token = models.UUIDField(null=True, blank=True, unique=True)
    created_at = models.DateTimeField(auto_now_add=True)
    # The lease walks the index on (kind, status, shuffle_key) from a point of the expert's own,
    # so taking the next item reads a few rows however long the queue is.
    shuffle_key = models.BigIntegerField(default=draw_shuffle_key)
    done_at = models.DateTimeField(null=True, blank=True)
    done_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    guideline = models.ForeignKey(
        "guidelines.GuidelineVersion",
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="items",
        help_text="The guideline version in force when the item was submitted",
    )

    class Meta:
        ordering = ["created_at", "id"]
        constraints = [
            models.CheckConstraint(condition=Q(kind__in=WorkKind.values), name="workitem_kind"),
            models.CheckConstraint(
                condition=Q(status__in=WorkStatus.values), name="workitem_status"
            ),
            models.CheckConstraint(
                condition=~Q(status="leased")
                | Q(holder__isnull=False, lease_expires_at__isnull=False),
                name="workitem_leased_has_holder",
            ),
            models.CheckConstraint(
                condition=~Q(status="done") | Q(done_by__isnull=False, submit_token__isnull=False),
                name="workitem_done_has_submission",
            ),
            models.UniqueConstraint(
                fields=["task"], condition=Q(kind="write"), name="workitem_one_write_per_task"
            ),
            models.UniqueConstraint(
                fields=["pair"],
                condition=Q(kind="reperturb", status__in=["open", "leased"]),
                name="workitem_one_open_reperturb_per_pair",
            ),
        ]
        indexes = [
            models.Index(fields=["kind", "status", "created_at"]),
            models.Index(fields=["kind", "status", "shuffle_key"], name="workitem_lease_walk"),
            # The items named for one expert, in the same order (else SQLite walks the whole
            # queue in key order looking for them).
            models.Index(
                fields=["assignee", "kind", "status", "shuffle_key"], name="workitem_named_walk"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.kind} item {self.pk} ({self.status})"

    def lease_live(self, now) -> bool:
        return self.status == WorkStatus.LEASED and self.lease_expires_at > now

    def held_by(self, user) -> bool:
        """Whether `user` holds the item now: it is leased to them. A lease that ran out is
        still theirs until someone else takes the item (Next reclaims it, `work.next_item`);
        an anonymous user holds nothing."""
        return self.status == WorkStatus.LEASED and self.holder_id == user.pk

    def audit_subjects(self) -> dict[str, int | None]:
        return {"item_id": self.pk, "claim_id": self.claim_id, "pair_id": self.pair_id}


class Machine(models.TextChoices):
    """The state machines of the workflow; each audit event belongs to one, and its from/to
    states are that machine's."""

    ITEM = "item", "work item"
    REVIEW = "review", "claim review"
    VALIDATION = "validation", "validation"
    PAIR = "pair", "claim pair"


class WorkAction(models.TextChoices):
    """What an audit event records (the values are the history's wording since the start)."""

    CREATED = "created", "created"
    OPENED = "opened", "opened"
    CLAIMED = "claimed", "claimed"
    LEASE_RENEWED = "lease renewed", "lease renewed"
    LEASE_EXPIRED = "lease expired", "lease expired"
    RELEASED = "released", "released"
    SUBMITTED = "submitted", "submitted"
    CANCELLED = "cancelled", "cancelled"
    OVERRIDE = "eligibility override", "eligibility override"
    FLAGGED = "flagged", "flagged"
    ASSIGNED = "assigned", "assigned"
    ASSIGNED_TO_ADJUDICATOR = "assigned to adjudicator", "assigned to adjudicator"
    COMPARED = "compared", "compared"
    ADJUDICATED = "adjudicated", "adjudicated"
    REOPENED = "reopened", "reopened"
    VALIDATED = "validated", "validated"
    SENT_BACK = "sent back to writer", "sent back to writer"
    PERTURBATION_REPLACED = "perturbation replaced", "perturbation replaced"
    REPERTURB_WITHDRAWN = "new perturbation withdrawn", "new perturbation withdrawn"
    PAIR_DROPPED = "pair dropped", "pair dropped"
    ANSWER_EDITED = "answer edited", "answer edited"


class WorkEvent(models.Model):
    """The workflow's append-only audit log: one row per state change (or per recorded decision
    such as an override) of one machine, with its subjects (item, claim, pair; any may be
    empty), who, when, from, to, old and new. Written only by `annotation.lifecycle`."""

    Action = WorkAction
    Machine = Machine

    machine = models.CharField(max_length=16, choices=Machine.choices)
    item = models.ForeignKey(
        WorkItem, null=True, blank=True, on_delete=models.PROTECT, related_name="events"
    )
    claim = models.ForeignKey(
        Claim, null=True, blank=True, on_delete=models.PROTECT, related_name="events"
    )
    pair = models.ForeignKey(
        ClaimPair, null=True, blank=True, on_delete=models.PROTECT, related_name="events"
    )
    action = models.CharField(max_length=32, choices=WorkAction.choices)
    from_status = models.CharField(max_length=16, blank=True)
    to_status = models.CharField(max_length=16, blank=True)
    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    old = models.JSONField(default=dict, blank=True)
    new = models.JSONField(default=dict, blank=True)
    note = models.TextField(blank=True)
    at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["at", "id"]
        constraints = [
            models.CheckConstraint(
                condition=Q(action__in=WorkAction.values), name="workevent_action_valid"
            ),
            models.CheckConstraint(
                condition=Q(machine__in=Machine.values), name="workevent_machine_valid"
            ),
            models.CheckConstraint(
                condition=Q(item__isnull=False) | Q(claim__isnull=False) | Q(pair__isnull=False),
                name="workevent_has_subject",
            ),
        ]
        indexes = [models.Index(fields=["machine", "action"])]

    def __str__(self) -> str:
        subject = (
            f"item {self.item_id}"
            if self.item_id
            else f"claim {self.claim_id}"
            if self.claim_id
            else f"pair {self.pair_id}"
        )
        return f"{subject}: {self.action} {self.from_status or '∅'} → {self.to_status}"

    def save(self, *args, **kwargs) -> None:
        if not self._state.adding:
            raise ValueError("History rows are append-only.")
        super().save(*args, **kwargs)

    def delete(self, *args, **kwargs):
        raise ValueError("History rows are append-only.")
