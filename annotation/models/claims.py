"""Claim writing and the work it is handed out as: tasks, claim pairs, claims, work items, history."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q

from annotation.keys import key_field
from annotation.models.assignment import Role


class Subset(models.TextChoices):
    """SciVer's reasoning types; every claim task asks for one."""

    DIRECT = "direct", "direct"
    PARALLEL = "parallel", "parallel"
    SEQUENTIAL = "sequential", "sequential"
    ANALYTICAL = "analytical", "analytical"


class ClaimLabel(models.TextChoices):
    ENTAILED = "entailed", "entailed"
    REFUTED = "refuted", "refuted"


LABELS = ("entailed", "refuted")


class ReviewState(models.TextChoices):
    """Where a claim stands after writing (transitions declared on ClaimReview)."""

    SECOND = "second", "awaiting second annotation"
    ADJUDICATION = "adjudication", "awaiting adjudication"
    UNANIMOUS = "unanimous", "unanimous"
    ADJUDICATED = "adjudicated", "adjudicated"
    UNRESOLVED = "unresolved", "unresolved"
    DROPPED = "dropped", "dropped"


FINAL_STATES = (ReviewState.UNANIMOUS, ReviewState.ADJUDICATED)


class PerturbationKind(models.TextChoices):
    """How a refuted claim was made from the entailed one (the suggester's kinds, or by hand)."""

    NUMBER = "number", "number changed"
    DIRECTION = "direction", "comparative / direction flipped"
    SUPERLATIVE = "superlative", "superlative swapped"
    ENTITY = "entity", "entity swapped"
    OTHER = "other", "written by hand"


class ClaimTask(models.Model):
    """Three tables/charts sampled from one curated-context version, and the subset to write.

    The seed, the candidates and the draw are stored so the sample can be audited and reproduced
    with `annotation.writing.sampling.sample_elements(candidate_ids, k=3, seed=seed)`.
    """

    paper = models.ForeignKey("papers.Paper", on_delete=models.PROTECT, related_name="claim_tasks")
    context = models.ForeignKey(
        "annotation.CuratedContext", on_delete=models.PROTECT, related_name="claim_tasks"
    )
    subset = models.CharField(max_length=16, choices=Subset.choices)
    seed = models.BigIntegerField()
    candidate_ids = models.JSONField(help_text="The tables/charts the sample was drawn from")
    sampled_ids = models.JSONField(help_text="The three sampled element ids, in draw order")
    paragraph_ids = models.JSONField(
        default=list, help_text="Paragraphs shown with the sample (referencing or next to them)"
    )
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["created_at", "id"]
        constraints = [
            models.CheckConstraint(condition=Q(subset__in=Subset.values), name="claimtask_subset")
        ]

    def __str__(self) -> str:
        return f"task {self.pk} ({self.subset}) on {self.paper_id}"


class PairState(models.TextChoices):
    """Where a claim pair stands: in the workflow, back to its writer while a new perturbation
    is written (the last one turned out true), or dropped by an admin."""

    ACTIVE = "active", "active"
    REPERTURB = "reperturb", "back to its writer for a new perturbation"
    DROPPED = "dropped", "dropped"


class ClaimPair(models.Model):
    """An entailed claim and its refuted rewrite, written together from one task."""

    State = PairState
    MACHINE = "pair"
    STATE_FIELD = "state"
    # Declared transitions; every change is `annotation.lifecycle.move`, which writes the event.
    TRANSITIONS = {
        PairState.ACTIVE: {PairState.REPERTURB, PairState.DROPPED},
        PairState.REPERTURB: {PairState.ACTIVE, PairState.DROPPED},
        PairState.DROPPED: set(),
    }
    key = key_field()

    task = models.OneToOneField(ClaimTask, on_delete=models.PROTECT, related_name="pair")
    paper = models.ForeignKey("papers.Paper", on_delete=models.PROTECT, related_name="claim_pairs")
    context = models.ForeignKey(
        "annotation.CuratedContext", on_delete=models.PROTECT, related_name="claim_pairs"
    )
    subset = models.CharField(max_length=16, choices=Subset.choices)
    writer = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="claim_pairs_written"
    )
    subfield_code = models.CharField(
        max_length=32, help_text="The subfield it was written in: who may work on it later"
    )
    state = models.CharField(max_length=16, choices=PairState.choices, default=PairState.ACTIVE)
    version = models.PositiveIntegerField(default=1)
    created_at = models.DateTimeField(auto_now_add=True)
    reference_note = models.TextField(
        blank=True,
        default="",
        help_text="The writer's reason for a claim naming a table or figure not among its "
        "evidence (shown to the validator, never to blind annotators or adjudicators)",
    )

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [
            models.CheckConstraint(condition=Q(subset__in=Subset.values), name="claimpair_subset"),
            models.CheckConstraint(condition=Q(state__in=PairState.values), name="claimpair_state"),
        ]

    def __str__(self) -> str:
        return f"pair {self.pk} ({self.subset})"

    def audit_subjects(self) -> dict[str, int | None]:
        return {"pair_id": self.pk}


class ClaimQuerySet(models.QuerySet):
    def current(self) -> ClaimQuerySet:
        """The claims a pair is made of now: without those a new perturbation replaced."""
        return self.filter(superseded_at__isnull=True)

    def final(self) -> ClaimQuerySet:
        """The final claims: current, with a final outcome (unanimous or adjudicated) and a final
        label, in a pair not dropped, of a paper not archived (its claims never count).
        Unresolved claims are never final."""
        return (
            self.current()
            .filter(
                review__state__in=[s.value for s in FINAL_STATES], review__final_label__in=LABELS
            )
            .exclude(pair__review__dropped=True)
            .filter(pair__paper__archived_at__isnull=True)
        )


class Claim(models.Model):
    """One claim of a pair; from here on each claim is annotated as its own item.

    A refuted claim whose perturbation turned out true is replaced by a new one its writer
    writes: the old claim stays (with its reviews and history), marked superseded, and never
    reaches a split, an export or the statistics."""

    key = key_field()
    pair = models.ForeignKey(ClaimPair, on_delete=models.PROTECT, related_name="claims")
    label = models.CharField(max_length=16, choices=ClaimLabel.choices)
    text = models.TextField()
    evidence = models.ManyToManyField(
        "papers.Element", related_name="+", help_text="Paragraphs, tables and charts that verify it"
    )
    perturbation_kind = models.CharField(
        max_length=16, choices=PerturbationKind.choices, blank=True
    )
    suggestion = models.TextField(
        blank=True, help_text="The suggested perturbation the writer started from, if any"
    )
    explanation = models.TextField(blank=True, help_text="Refuted claims: why it is false")
    replaces = models.OneToOneField(
        "self",
        null=True,
        blank=True,
        on_delete=models.PROTECT,
        related_name="replaced_by",
        help_text="The refuted claim whose perturbation turned out true, which this one replaces",
    )
    superseded_at = models.DateTimeField(
        null=True, blank=True, help_text="When a new perturbation replaced this claim"
    )

    objects = ClaimQuerySet.as_manager()

    class Meta:
        ordering = ["pair", "label", "id"]
        constraints = [
            models.UniqueConstraint(
                fields=["pair", "label"],
                condition=Q(superseded_at__isnull=True),
                name="claim_one_current_per_label",
            ),
            models.CheckConstraint(
                condition=Q(replaces__isnull=True) | Q(label="refuted"),
                name="claim_only_refuted_replaces",
            ),
            models.CheckConstraint(condition=Q(label__in=ClaimLabel.values), name="claim_label"),
            models.CheckConstraint(
                condition=Q(perturbation_kind__in=[*PerturbationKind.values, ""]),
                name="claim_perturbation_kind",
            ),
            models.CheckConstraint(
                condition=(
                    Q(label="entailed", perturbation_kind="", explanation="")
                    | (Q(label="refuted") & ~Q(perturbation_kind="") & ~Q(explanation=""))
                ),
                name="claim_refuted_has_kind_and_explanation",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.label}: {self.text[:60]}"

    @property
    def superseded(self) -> bool:
        return self.superseded_at is not None


class PairRole(models.Model):
    """Who holds which role on a pair, and on which of its claims. Writing is a role on the
    whole pair (`claim` empty); second annotation, adjudication and validation are roles on one
    claim. One role per expert per claim, and one pair-wide role per expert, by the database;
    who may take which role is `annotation.queue.blindness`."""

    pair = models.ForeignKey(ClaimPair, on_delete=models.PROTECT, related_name="roles")
    claim = models.ForeignKey(
        Claim, null=True, blank=True, on_delete=models.PROTECT, related_name="roles"
    )
    expert = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    role = models.CharField(max_length=16, choices=Role.choices)
    at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["pair", "expert"],
                condition=Q(claim__isnull=True),
                name="pairrole_one_pair_role_per_expert",
            ),
            models.UniqueConstraint(
                fields=["claim", "expert"],
                condition=Q(claim__isnull=False),
                name="pairrole_one_claim_role_per_expert",
            ),
            models.CheckConstraint(condition=Q(role__in=Role.values), name="pairrole_role_valid"),
            models.CheckConstraint(
                condition=Q(role="writer", claim__isnull=True)
                | (~Q(role="writer") & Q(claim__isnull=False)),
                name="pairrole_writer_pair_others_claim",
            ),
        ]

    def __str__(self) -> str:
        where = f"claim {self.claim_id}" if self.claim_id else f"pair {self.pair_id}"
        return f"{self.expert_id} {self.role} on {where}"
