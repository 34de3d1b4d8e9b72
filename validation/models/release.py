"""Frozen, versioned splits and the release exports made from them."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q


class SplitPart(models.TextChoices):
    VALIDATION = "validation", "validation"
    TEST = "test", "test"


class SplitVersion(models.Model):
    """A frozen split: its name is its version; members are never changed afterwards."""

    name = models.CharField(max_length=64, unique=True)
    seed = models.BigIntegerField()
    validation_size = models.PositiveIntegerField()
    test_size = models.PositiveIntegerField()
    licences = models.JSONField(default=list, blank=True, help_text="Licence filter, if any")
    licences_by_default = models.BooleanField(
        default=False,
        help_text="The filter is the default one (licences that allow redistribution with "
        "adaptations), not one its maker named",
    )
    left_out = models.JSONField(
        default=dict, blank=True, help_text="Complete pairs the licence filter left out, by licence"
    )
    counts = models.JSONField(default=dict, blank=True)
    papers = models.JSONField(
        default=dict, blank=True, help_text="Papers per part, e.g. {'validation': 327, 'test': 786}"
    )
    shared_papers_allowed = models.BooleanField(
        default=False,
        help_text="Made with --allow-shared-papers: a paper may have pairs in both parts (only "
        "where no paper-disjoint draw exists)",
    )
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return self.name


class SplitMember(models.Model):
    """A claim pair in a split (both its claims go with it). Frozen."""

    split = models.ForeignKey(SplitVersion, on_delete=models.PROTECT, related_name="members")
    pair = models.ForeignKey("annotation.ClaimPair", on_delete=models.PROTECT, related_name="+")
    part = models.CharField(max_length=16, choices=SplitPart.choices)
    subset = models.CharField(max_length=16, help_text="The pair's subset when frozen")

    class Meta:
        ordering = ["split", "part", "pair"]
        constraints = [
            models.UniqueConstraint(fields=["split", "pair"], name="splitmember_once"),
            models.CheckConstraint(condition=Q(part__in=SplitPart.values), name="splitmember_part"),
        ]

    def __str__(self) -> str:
        return f"pair {self.pair_id} in {self.part}"

    def save(self, *args, **kwargs) -> None:
        if not self._state.adding:
            raise ValueError("A frozen split never changes.")
        super().save(*args, **kwargs)


class ReleaseExport(models.Model):
    """An export of a split to a folder, run as a background job."""

    split = models.ForeignKey(SplitVersion, on_delete=models.PROTECT, related_name="exports")
    out = models.CharField(max_length=500)
    hide_test_labels = models.BooleanField(default=False)
    parquet = models.BooleanField(
        default=False, help_text="Also Parquet files with the images embedded (the Hub's viewer)"
    )
    job = models.ForeignKey("jobs.Job", null=True, blank=True, on_delete=models.SET_NULL)
    manifest = models.JSONField(default=dict, blank=True)
    archive = models.CharField(max_length=500, blank=True, help_text="A zip of the folder")
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return f"export of {self.split} to {self.out}"
