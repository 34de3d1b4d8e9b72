"""The human-baseline study: validated claims answered blind by two experts."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q


class BaselineStudy(models.Model):
    """`per_subset` validated claims of each subset, answered by two experts who never worked
    on their pairs."""

    per_subset = models.PositiveIntegerField(default=10)
    seed = models.BigIntegerField(default=0)
    experts = models.ManyToManyField(settings.AUTH_USER_MODEL, related_name="+")
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    note = models.TextField(blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        verbose_name_plural = "baseline studies"

    def __str__(self) -> str:
        return f"baseline study {self.pk}"


class BaselineItem(models.Model):
    """A sampled claim with its gold (final) label at the time of sampling."""

    study = models.ForeignKey(BaselineStudy, on_delete=models.CASCADE, related_name="items")
    claim = models.ForeignKey("annotation.Claim", on_delete=models.PROTECT, related_name="+")
    subset = models.CharField(max_length=16)
    gold_label = models.CharField(max_length=16)

    class Meta:
        ordering = ["id"]
        constraints = [models.UniqueConstraint(fields=["study", "claim"], name="baselineitem_once")]

    def __str__(self) -> str:
        return f"claim {self.claim_id} in study {self.study_id}"


class BaselineAnswer(models.Model):
    """One expert's blind answer: label and explanation."""

    item = models.ForeignKey(BaselineItem, on_delete=models.CASCADE, related_name="answers")
    work_item = models.OneToOneField(
        "annotation.WorkItem", on_delete=models.PROTECT, related_name="baseline_answer"
    )
    expert = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    label = models.CharField(max_length=16)
    explanation = models.TextField()
    at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["item", "expert"], name="baselineanswer_once"),
            models.CheckConstraint(
                condition=Q(label__in=["entailed", "refuted"]), name="baselineanswer_label"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.expert_id}: {self.label}"

    @property
    def correct(self) -> bool:
        return self.label == self.item.gold_label
