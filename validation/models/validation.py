"""A final claim's validation (SciVer step 7) and every revision a validator made to it."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q

from annotation.models import Claim

# The five criteria of the checklist (SciVer prints four; the fifth is ours).
CRITERIA: dict[str, str] = {
    "language": "Grammatical, well structured, no spelling or typographical errors",
    "subset": "Fits its subset's requirements and is not verifiable from the text alone",
    "significance": "Meaningfully situated in the paper and of practical significance",
    "evidence": "Evidence directly relevant and complete enough to verify the claim",
    "label": "The gold label and, for a refuted claim, the explanation are correct",
}


class ValidationStatus(models.TextChoices):
    """pending → validated (pass, or fail and revise); validated → pending (an admin re-opens)."""

    PENDING = "pending", "waiting for validation"
    VALIDATED = "validated", "validated"


class Validation(models.Model):
    """One final claim's place in validation: its current work item and latest outcome."""

    Status = ValidationStatus
    MACHINE = "validation"
    STATE_FIELD = "status"
    # Declared transitions; every change is `annotation.lifecycle.move`, which writes the event.
    TRANSITIONS = {
        ValidationStatus.PENDING: {ValidationStatus.VALIDATED},
        ValidationStatus.VALIDATED: {ValidationStatus.PENDING},
    }

    claim = models.OneToOneField(
        "annotation.Claim", on_delete=models.PROTECT, related_name="validation"
    )
    status = models.CharField(
        max_length=16, choices=ValidationStatus.choices, default=ValidationStatus.PENDING
    )
    item = models.ForeignKey(
        "annotation.WorkItem", on_delete=models.PROTECT, related_name="+", null=True
    )
    validator = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    validated_at = models.DateTimeField(null=True, blank=True)
    criteria_failed = models.JSONField(default=list, blank=True)
    revisions = models.PositiveIntegerField(
        default=0, help_text="Submissions that changed the claim (a revised item has ≥ 1)"
    )
    reopen_reason = models.TextField(blank=True)
    version = models.PositiveIntegerField(default=1)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.CheckConstraint(
                condition=Q(status__in=ValidationStatus.values), name="validation_status"
            ),
            models.CheckConstraint(
                condition=~Q(status="validated") | Q(validator__isnull=False),
                name="validation_validated_has_validator",
            ),
        ]

    def __str__(self) -> str:
        return f"validation of claim {self.claim_id}: {self.status}"

    def audit_subjects(self) -> dict[str, int | None]:
        if "claim" in self._state.fields_cache:  # loaded with it: no query
            pair_id = self.claim.pair_id
        else:
            pair_id = Claim.objects.values_list("pair_id", flat=True).get(pk=self.claim_id)
        return {"item_id": self.item_id, "claim_id": self.claim_id, "pair_id": pair_id}


class ValidationRevision(models.Model):
    """One field a validator changed: before and after, the criteria failed, who, when.
    Append-only."""

    validation = models.ForeignKey(Validation, on_delete=models.PROTECT, related_name="changes")
    item = models.ForeignKey("annotation.WorkItem", on_delete=models.PROTECT, related_name="+")
    field = models.CharField(max_length=16)  # text, subset, label, evidence, explanation
    before = models.JSONField()
    after = models.JSONField()
    criteria_failed = models.JSONField(default=list)
    by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["at", "id"]
        constraints = [
            models.CheckConstraint(
                condition=Q(field__in=["text", "subset", "label", "evidence", "explanation"]),
                name="validationrevision_field",
            )
        ]

    def __str__(self) -> str:
        return f"{self.field} of claim validation {self.validation_id}"

    def save(self, *args, **kwargs) -> None:
        if not self._state.adding:
            raise ValueError("Revisions are append-only.")
        super().save(*args, **kwargs)

    def delete(self, *args, **kwargs):
        raise ValueError("Revisions are append-only.")
