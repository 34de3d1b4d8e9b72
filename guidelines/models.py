"""Versioned guidelines (every edit a new version, old ones kept), the version each work item
was done under (`WorkItem.guideline`, set as it is submitted; listed here as `SubmittedItem`),
and annotators' flags on elements and items with the fixes admins make."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q

from annotation.models import WorkItem, WorkStatus


class AppendOnly(models.Model):
    """A row that is written once and never changed or deleted (history)."""

    class Meta:
        abstract = True

    def save(self, *args, **kwargs) -> None:
        if not self._state.adding:
            raise ValueError(f"{type(self).__name__} rows are append-only.")
        super().save(*args, **kwargs)

    def delete(self, *args, **kwargs):
        raise ValueError(f"{type(self).__name__} rows are append-only.")


class GuidelineVersion(AppendOnly):
    """One version of the annotation guidelines: sections of `{key, title, body}` in order.
    The highest number is in force; editing writes the next number."""

    number = models.PositiveIntegerField(unique=True)
    sections = models.JSONField(help_text="[{key, title, body}] in reading order")
    note = models.TextField(blank=True, help_text="What changed from the previous version")
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-number"]

    def __str__(self) -> str:
        return f"guidelines v{self.number}"


class SubmittedItems(models.Manager):
    def get_queryset(self) -> models.QuerySet:
        return super().get_queryset().filter(status=WorkStatus.DONE)


class SubmittedItem(WorkItem):
    """A submitted work item seen from the guidelines: the version it was done under, for the
    admin's list (no table of its own; the version is `WorkItem.guideline`, written in the
    UPDATE that marks the item done, so that a submission costs no statement more)."""

    objects = SubmittedItems()

    class Meta:
        proxy = True
        verbose_name = "submitted item"


class FlagKind(models.TextChoices):
    EXTRACTION = "extraction", "extraction wrong"
    UNCLEAR = "unclear", "claim unclear"
    UNSURE = "unsure", "unsure"


class FlagStatus(models.TextChoices):
    OPEN = "open", "open"
    FIXED = "fixed", "fixed"
    DISMISSED = "dismissed", "dismissed"


class Flag(models.Model):
    """An annotator's flag on an element shown on a task page, or on the item itself (no
    element). Only its author and admins ever see it."""

    Kind = FlagKind
    Status = FlagStatus

    paper = models.ForeignKey("papers.Paper", on_delete=models.PROTECT, related_name="+")
    item = models.ForeignKey(
        "annotation.WorkItem", null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    element = models.ForeignKey(
        "papers.Element", null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    kind = models.CharField(max_length=16, choices=FlagKind.choices)
    note = models.TextField()
    by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    at = models.DateTimeField(auto_now_add=True)
    status = models.CharField(max_length=16, choices=FlagStatus.choices, default=FlagStatus.OPEN)

    class Meta:
        ordering = ["-at", "-id"]
        constraints = [
            models.CheckConstraint(condition=Q(kind__in=FlagKind.values), name="flag_kind"),
            models.CheckConstraint(condition=Q(status__in=FlagStatus.values), name="flag_status"),
            models.CheckConstraint(
                condition=Q(item__isnull=False) | Q(element__isnull=False), name="flag_has_subject"
            ),
            models.CheckConstraint(condition=~Q(note=""), name="flag_has_note"),
        ]
        indexes = [models.Index(fields=["status", "at"])]

    def __str__(self) -> str:
        return f"flag {self.pk} ({self.kind}, {self.status})"


class FixAction(models.TextChoices):
    RERENDERED = "rerendered", "re-rendered the element"
    CAPTION = "caption", "edited the caption"
    TEXT = "text", "edited the text"
    MARKED = "marked", "marked the element degraded"
    FIXED = "fixed", "marked fixed"
    DISMISSED = "dismissed", "dismissed"


class FlagFix(AppendOnly):
    """What an admin did about a flag: who, when, what, and the value before and after."""

    flag = models.ForeignKey(Flag, on_delete=models.PROTECT, related_name="fixes")
    action = models.CharField(max_length=16, choices=FixAction.choices)
    before = models.JSONField(default=dict, blank=True)
    after = models.JSONField(default=dict, blank=True)
    note = models.TextField(blank=True)
    by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["at", "id"]
        verbose_name_plural = "flag fixes"  # not Django's "flag fixs"
        constraints = [
            models.CheckConstraint(condition=Q(action__in=FixAction.values), name="flagfix_action")
        ]

    def __str__(self) -> str:
        return f"{self.action} on flag {self.flag_id}"
