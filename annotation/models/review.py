"""Blind second annotation, the comparison's outcome per claim, adjudication, dropped pairs."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q

# A claim's outcome (`ReviewState`, the final ones, the labels) is declared beside the claim,
# whose `final()` queryset reads it.
from annotation.models.claims import FINAL_STATES, LABELS, Claim, ReviewState


class Disagreement(models.TextChoices):
    NONE = "", "none"
    LABEL = "label", "label"
    EVIDENCE = "evidence", "evidence only"


class Confidence(models.TextChoices):
    LOW = "low", "low"
    MEDIUM = "medium", "medium"
    HIGH = "high", "high"


class AdjudicationReason(models.TextChoices):
    AMBIGUOUS = "ambiguous_claim", "ambiguous claim"
    GUIDELINE_GAP = "guideline_gap", "guideline gap"
    WRITER_ERROR = "writer_error", "writer error"
    SECOND_ERROR = "second_annotator_error", "second-annotator error"
    OTHER = "other", "other"


class AdjudicationDecision(models.TextChoices):
    DECIDED = "decided", "decided"
    UNRESOLVED = "unresolved", "unresolved"


class PairReview(models.Model):
    """A pair's review: whether both its claims went to one second annotator (flagged: seeing
    both reveals which one was perturbed), and whether an admin dropped it, with the reason."""

    pair = models.OneToOneField(
        "annotation.ClaimPair", on_delete=models.PROTECT, related_name="review"
    )
    same_second_annotator = models.BooleanField(default=False)
    dropped = models.BooleanField(default=False)
    drop_reason = models.TextField(blank=True)
    dropped_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    dropped_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [
            models.CheckConstraint(
                condition=Q(dropped=False) | ~Q(drop_reason=""), name="pairreview_drop_has_reason"
            )
        ]

    def __str__(self) -> str:
        return f"review of pair {self.pair_id}"


class ClaimReview(models.Model):
    """One claim's state after writing and, once final, its label and evidence with provenance
    (unanimous or adjudicated; unresolved claims never reach a release)."""

    State = ReviewState
    MACHINE = "review"
    STATE_FIELD = "state"
    # Declared transitions; every change is `annotation.lifecycle.move`, which writes the event.
    TRANSITIONS = {
        ReviewState.SECOND: {ReviewState.UNANIMOUS, ReviewState.ADJUDICATION, ReviewState.DROPPED},
        # Back to SECOND: the second annotator edited their answer before the next stage's
        # item was taken (`annotation.review.edits`); the claim is compared again.
        ReviewState.ADJUDICATION: {
            ReviewState.ADJUDICATED,
            ReviewState.UNRESOLVED,
            ReviewState.DROPPED,
            ReviewState.SECOND,
        },
        ReviewState.UNRESOLVED: {ReviewState.ADJUDICATION, ReviewState.DROPPED},
        ReviewState.UNANIMOUS: {ReviewState.DROPPED, ReviewState.SECOND},
        ReviewState.ADJUDICATED: {ReviewState.DROPPED},
        ReviewState.DROPPED: set(),
    }

    claim = models.OneToOneField(
        "annotation.Claim", on_delete=models.PROTECT, related_name="review"
    )
    state = models.CharField(max_length=16, choices=ReviewState.choices, default=ReviewState.SECOND)
    version = models.PositiveIntegerField(default=1)
    disagreement = models.CharField(
        max_length=16, choices=Disagreement.choices, blank=True, default=""
    )
    evidence_jaccard = models.FloatField(null=True, blank=True)
    final_label = models.CharField(max_length=16, blank=True)
    final_evidence = models.ManyToManyField("papers.Element", related_name="+", blank=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [
            models.CheckConstraint(
                condition=Q(state__in=ReviewState.values), name="claimreview_state"
            ),
            models.CheckConstraint(
                condition=Q(disagreement__in=Disagreement.values), name="claimreview_disagreement"
            ),
            models.CheckConstraint(
                condition=~Q(state__in=[s.value for s in FINAL_STATES]) | Q(final_label__in=LABELS),
                name="claimreview_final_has_label",
            ),
        ]

    def __str__(self) -> str:
        return f"claim {self.claim_id}: {self.state}"

    def audit_subjects(self) -> dict[str, int | None]:
        pair_id = self.claim.pair_id if "claim" in self._state.fields_cache else None
        if pair_id is None:
            pair_id = Claim.objects.values_list("pair_id", flat=True).get(pk=self.claim_id)
        return {"claim_id": self.claim_id, "pair_id": pair_id}


class EvidenceAnnotation(models.Model):
    """The blind second annotation of one claim: a label and the evidence, by one expert."""

    claim = models.OneToOneField(
        "annotation.Claim", on_delete=models.PROTECT, related_name="second_annotation"
    )
    item = models.OneToOneField(
        "annotation.WorkItem", on_delete=models.PROTECT, related_name="evidence_annotation"
    )
    annotator = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+"
    )
    label = models.CharField(max_length=16)
    evidence = models.ManyToManyField("papers.Element", related_name="+")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.CheckConstraint(condition=Q(label__in=LABELS), name="evidenceannotation_label")
        ]

    def __str__(self) -> str:
        return f"second annotation of claim {self.claim_id}"


class Adjudication(models.Model):
    """A third expert's decision on a disagreement (INCEpTION/Potato style): the final label and
    evidence, confidence, reason category, notes (required when overriding both), or
    'unresolved'. A reopened claim gets another adjudication by another expert."""

    claim = models.ForeignKey(
        "annotation.Claim", on_delete=models.PROTECT, related_name="adjudications"
    )
    item = models.OneToOneField(
        "annotation.WorkItem", on_delete=models.PROTECT, related_name="adjudication"
    )
    adjudicator = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+"
    )
    decision = models.CharField(max_length=16, choices=AdjudicationDecision.choices)
    label = models.CharField(max_length=16, blank=True)
    evidence = models.ManyToManyField("papers.Element", related_name="+", blank=True)
    confidence = models.CharField(max_length=8, choices=Confidence.choices)
    reason = models.CharField(max_length=32, choices=AdjudicationReason.choices)
    notes = models.TextField(blank=True)
    overrides_both = models.BooleanField(default=False)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["created_at", "id"]
        constraints = [
            models.CheckConstraint(
                condition=Q(decision__in=AdjudicationDecision.values), name="adjudication_decision"
            ),
            models.CheckConstraint(
                condition=Q(confidence__in=Confidence.values), name="adjudication_confidence"
            ),
            models.CheckConstraint(
                condition=Q(reason__in=AdjudicationReason.values), name="adjudication_reason"
            ),
            models.CheckConstraint(
                condition=Q(decision="unresolved") | Q(label__in=LABELS),
                name="adjudication_decided_has_label",
            ),
            models.CheckConstraint(
                condition=Q(overrides_both=False, decision="decided") | ~Q(notes=""),
                name="adjudication_notes_when_overriding_both_or_unresolved",
            ),
        ]

    def __str__(self) -> str:
        return f"adjudication of claim {self.claim_id}: {self.decision}"
