"""An error analysis of a run, its cases (sampled wrong answers, each a claim of this database)
and each tagger's tag. Loaded with the app's models (evaluation.apps)."""

from __future__ import annotations

from django.conf import settings
from django.db import models

from evaluation.models import EvaluationRun, RecordOutcome


class ErrorAnalysis(models.Model):
    """A seeded sample of one run's wrong answers per subset, handed to experts to tag."""

    run = models.OneToOneField(
        EvaluationRun, on_delete=models.CASCADE, related_name="error_analysis"
    )
    sample_size = models.PositiveSmallIntegerField(help_text="Wrong answers per subset")
    seed = models.PositiveIntegerField()
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return f"error analysis of run {self.run_id}"


class ErrorCase(models.Model):
    """One sampled wrong answer: the outcome, the claim it was asked about, its subset (the
    record's) and subfield (the claim's pair: who may tag it)."""

    analysis = models.ForeignKey(ErrorAnalysis, on_delete=models.CASCADE, related_name="cases")
    outcome = models.ForeignKey(RecordOutcome, on_delete=models.CASCADE, related_name="+")
    claim = models.ForeignKey("annotation.Claim", on_delete=models.PROTECT, related_name="+")
    subset = models.CharField(max_length=16)
    subfield_code = models.CharField(max_length=32)

    class Meta:
        ordering = ["analysis", "subset", "outcome__request_id"]
        constraints = [
            models.UniqueConstraint(fields=["analysis", "outcome"], name="errorcase_once"),
        ]

    def __str__(self) -> str:
        return f"case {self.pk} (request {self.outcome.request_id})"


class ErrorTag(models.Model):
    """One tagger's reading of a case: created when the case is assigned to them, submitted
    with one or more error types (codes of `evaluation.errors.rules.CATEGORIES`) and a note."""

    case = models.ForeignKey(ErrorCase, on_delete=models.CASCADE, related_name="tags")
    tagger = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="error_tags"
    )
    categories = models.JSONField(default=list, blank=True)
    note = models.TextField(blank=True)
    assigned_at = models.DateTimeField(auto_now_add=True)
    submitted_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["case", "assigned_at", "id"]
        constraints = [
            models.UniqueConstraint(fields=["case", "tagger"], name="errortag_once"),
        ]

    def __str__(self) -> str:
        return f"tag of case {self.case_id} by {self.tagger_id}"

    @property
    def submitted(self) -> bool:
        return self.submitted_at is not None
