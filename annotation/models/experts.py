"""Experts: subfields, peer-reviewed publications and training, which make someone eligible."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q


def min_publications() -> int:
    """Publications an expert needs in a subfield to be eligible for it (SciVer: two)."""
    return int(getattr(settings, "MIN_PUBLICATIONS", 2))


# The eight areas of SciVer (Table 5), by arXiv category.
SCIVER_SUBFIELDS = [
    ("cs.CV", "Computer Vision and Pattern Recognition"),
    ("cs.CL", "Computation and Language"),
    ("cs.RO", "Robotics"),
    ("cs.SE", "Software Engineering"),
    ("cs.LG", "Machine Learning"),
    ("cs.AI", "Artificial Intelligence"),
    ("cs.IR", "Information Retrieval"),
    ("cs.CR", "Cryptography and Security"),
]


class Subfield(models.Model):
    """An area experts work in, named by its arXiv category; admins can add more."""

    code = models.CharField(max_length=32, unique=True, help_text="arXiv category, e.g. cs.CL")
    name = models.CharField(max_length=120)
    order = models.PositiveSmallIntegerField(default=100, help_text="Position in lists")
    shared_second_annotator = models.BooleanField(
        default=False,
        help_text="With a single eligible expert besides the writer, give them both claims of "
        "a pair (flagged: not blind, reported apart) instead of waiting for an admin",
    )

    class Meta:
        ordering = ["order", "code"]
        constraints = [
            models.CheckConstraint(condition=~Q(code=""), name="subfield_code_not_empty")
        ]

    def __str__(self) -> str:
        return f"{self.name} ({self.code})"

    @classmethod
    def ensure_sciver_subfields(cls) -> None:
        """Create the eight areas if missing (a migration does it; test flushes undo it)."""
        for order, (code, name) in enumerate(SCIVER_SUBFIELDS, start=1):
            cls.objects.get_or_create(code=code, defaults={"name": name, "order": order})


class ExpertProfile(models.Model):
    """What makes a user an expert: their subfields, publications and training."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="expert"
    )
    subfields = models.ManyToManyField(Subfield, blank=True, related_name="experts")
    active = models.BooleanField(
        default=True, help_text="Inactive experts keep their work but get no new assignments"
    )
    notes = models.TextField(blank=True)
    archived_at = models.DateTimeField(
        null=True,
        blank=True,
        help_text="Put away (a retired or demo account): hidden from People, Assignment and "
        "the statistics; never assigned; its work and history are kept.",
    )
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["user__username"]

    def __str__(self) -> str:
        return f"expert {self.user.get_username()}"


# Publication titles are stored in full (a TextField); a longer one is refused with a message,
# never cut.
MAX_PUBLICATION_TITLE = 2000


class Publication(models.Model):
    """A peer-reviewed publication of an expert, counted towards one subfield."""

    expert = models.ForeignKey(ExpertProfile, on_delete=models.CASCADE, related_name="publications")
    title = models.TextField()
    venue = models.CharField(max_length=200)
    year = models.PositiveSmallIntegerField()
    subfield = models.ForeignKey(Subfield, on_delete=models.PROTECT, related_name="publications")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["expert", "-year", "title"]
        constraints = [
            models.CheckConstraint(
                condition=Q(year__gte=1950) & Q(year__lte=2100), name="publication_year_valid"
            ),
            models.CheckConstraint(condition=~Q(title=""), name="publication_title_not_empty"),
        ]

    def __str__(self) -> str:
        return f"{self.title[:60]} ({self.venue} {self.year})"


class Training(models.Model):
    """A completed training session (SciVer: two hours, individual) of an expert."""

    expert = models.ForeignKey(ExpertProfile, on_delete=models.CASCADE, related_name="trainings")
    completed_on = models.DateField()
    trainer = models.CharField(max_length=150, help_text="Who gave the training")
    notes = models.TextField(blank=True)
    recorded_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
    )
    recorded_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["expert", "-completed_on"]

    def __str__(self) -> str:
        return f"training of {self.expert} on {self.completed_on}"


class ArchiveAction(models.TextChoices):
    ARCHIVED = "archived", "archived"
    UNARCHIVED = "unarchived", "un-archived"


class ArchiveEvent(models.Model):
    """Append-only history of archiving: one row per paper or account put away or brought
    back, who did it, when and why (nothing archived is ever deleted)."""

    Action = ArchiveAction

    action = models.CharField(max_length=16, choices=ArchiveAction.choices)
    paper = models.ForeignKey(
        "papers.Paper", null=True, blank=True, on_delete=models.PROTECT, related_name="+"
    )
    account = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="archive_events",
    )
    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    note = models.CharField(max_length=500, blank=True)
    at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["at", "id"]
        constraints = [
            models.CheckConstraint(
                condition=Q(action__in=ArchiveAction.values), name="archiveevent_action_valid"
            ),
            models.CheckConstraint(
                condition=Q(paper__isnull=False, account__isnull=True)
                | Q(paper__isnull=True, account__isnull=False),
                name="archiveevent_one_subject",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.action} {self.paper_id or self.account_id} at {self.at}"
