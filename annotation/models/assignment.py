"""Who works on which paper in which role: a paper's subfield, assignments and their history."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q


class Role(models.TextChoices):
    """What an expert does. Capabilities, not kinds of people: any eligible expert may take any
    role, but never two roles on the same claim pair (later issues record the pair's roles)."""

    WRITER = "writer", "curates the context and writes claims"
    EVIDENCE = "evidence", "annotates evidence"
    ADJUDICATOR = "adjudicator", "adjudicates"
    VALIDATOR = "validator", "validates"


class AssignmentStatus(models.TextChoices):
    ASSIGNED = "assigned", "to curate"
    CURATED = "curated", "curated"
    UNASSIGNED = "unassigned", "unassigned"


class PaperSubfield(models.Model):
    """An admin's choice of subfield for a paper, overriding its primary arXiv category."""

    paper = models.OneToOneField(
        "papers.Paper", on_delete=models.CASCADE, primary_key=True, related_name="subfield_choice"
    )
    subfield = models.ForeignKey(
        "annotation.Subfield", on_delete=models.PROTECT, related_name="paper_choices"
    )
    changed_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    changed_at = models.DateTimeField(auto_now=True)

    def __str__(self) -> str:
        return f"{self.paper_id} → {self.subfield.code}"


class Assignment(models.Model):
    """A paper given to an expert for one role. Closed assignments stay, as history."""

    Status = AssignmentStatus
    OPEN = (AssignmentStatus.ASSIGNED, AssignmentStatus.CURATED)
    # Declared transitions; each is a service writing an AssignmentEvent.
    TRANSITIONS = {
        AssignmentStatus.ASSIGNED: {AssignmentStatus.CURATED, AssignmentStatus.UNASSIGNED},
        AssignmentStatus.CURATED: {AssignmentStatus.UNASSIGNED},
        AssignmentStatus.UNASSIGNED: set(),
    }

    paper = models.ForeignKey("papers.Paper", on_delete=models.PROTECT, related_name="assignments")
    expert = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="assignments"
    )
    role = models.CharField(max_length=16, choices=Role.choices, default=Role.WRITER)
    status = models.CharField(
        max_length=16, choices=AssignmentStatus.choices, default=AssignmentStatus.ASSIGNED
    )
    assigned_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    status_changed_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [
            models.CheckConstraint(
                condition=Q(status__in=AssignmentStatus.values), name="assignment_status_valid"
            ),
            models.CheckConstraint(condition=Q(role__in=Role.values), name="assignment_role_valid"),
            # One open assignment per paper and role: the database refuses a double assignment.
            models.UniqueConstraint(
                fields=["paper", "role"],
                condition=Q(status__in=["assigned", "curated"]),
                name="assignment_one_open_per_paper_role",
            ),
        ]
        indexes = [models.Index(fields=["expert", "status"])]

    def __str__(self) -> str:
        return f"{self.paper_id} → {self.expert_id} ({self.role}, {self.status})"

    @property
    def is_open(self) -> bool:
        return self.status in self.OPEN

    def can_become(self, status: str) -> bool:
        return status in self.TRANSITIONS[AssignmentStatus(self.status)]


class AssignmentEvent(models.Model):
    """Append-only history of an assignment: created, curated, reassigned, unassigned."""

    assignment = models.ForeignKey(Assignment, on_delete=models.CASCADE, related_name="events")
    from_status = models.CharField(max_length=16, blank=True)
    to_status = models.CharField(max_length=16, choices=AssignmentStatus.choices)
    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    note = models.TextField(blank=True)
    at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["assignment", "at", "id"]
        constraints = [
            models.CheckConstraint(
                condition=Q(to_status__in=AssignmentStatus.values),
                name="assignmentevent_status_valid",
            )
        ]

    def __str__(self) -> str:
        return f"{self.assignment_id}: {self.from_status or '∅'} → {self.to_status}"
