"""Curated contexts: immutable, numbered versions of what a paper's context keeps."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q

# SciVer samples three tables/charts per claim: a context with fewer cannot feed claim writing.
MIN_CONTEXT_VISUALS = 3


class CuratedContext(models.Model):
    """One saved curation of a paper. Never edited: saving again makes the next version, and
    work started on a version keeps pointing at it."""

    paper = models.ForeignKey(
        "papers.Paper", on_delete=models.PROTECT, related_name="curated_contexts"
    )
    number = models.PositiveIntegerField(help_text="Version number, 1, 2, … per paper")
    based_on = models.ForeignKey(
        "self", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="curated_contexts",
    )
    created_at = models.DateTimeField(auto_now_add=True)
    note = models.TextField(blank=True)
    # Snapshot of what the version keeps (the version never changes, so neither do these).
    table_count = models.PositiveIntegerField(default=0, help_text="Tables kept")
    chart_count = models.PositiveIntegerField(
        default=0, help_text="Charts kept and not marked 'not a chart'"
    )
    not_chart_count = models.PositiveIntegerField(default=0)
    paragraph_count = models.PositiveIntegerField(default=0)
    removed_section_count = models.PositiveIntegerField(
        default=0, help_text="Sections out of the context (removed, or inside a removed one)"
    )

    class Meta:
        ordering = ["paper", "-number"]
        constraints = [
            models.UniqueConstraint(
                fields=["paper", "number"], name="curatedcontext_unique_number"
            ),
            models.CheckConstraint(condition=Q(number__gte=1), name="curatedcontext_number_valid"),
        ]

    def __str__(self) -> str:
        return f"{self.paper_id} context v{self.number}"

    @property
    def visual_count(self) -> int:
        return self.table_count + self.chart_count

    @property
    def ready_for_claims(self) -> bool:
        return self.visual_count >= MIN_CONTEXT_VISUALS


class CuratedSection(models.Model):
    """Whether a version keeps a section (a section is in the context only if its ancestors are)."""

    context = models.ForeignKey(
        CuratedContext, on_delete=models.CASCADE, related_name="section_states"
    )
    # PROTECT: re-importing a paper must not silently rewrite contexts that people work on.
    section = models.ForeignKey("papers.Section", on_delete=models.PROTECT, related_name="+")
    kept = models.BooleanField()
    proposed_removal = models.BooleanField(
        default=False, help_text="The app proposed removing it (related work, references, …)"
    )

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["context", "section"], name="curatedsection_unique")
        ]

    def __str__(self) -> str:
        return f"{self.context} section {self.section_id}: {'kept' if self.kept else 'removed'}"


class CuratedElement(models.Model):
    """A version's decision on one element, and whether it ends up in the context."""

    context = models.ForeignKey(
        CuratedContext, on_delete=models.CASCADE, related_name="element_states"
    )
    element = models.ForeignKey("papers.Element", on_delete=models.PROTECT, related_name="+")
    kept = models.BooleanField(help_text="The element itself was not removed")
    in_context = models.BooleanField(help_text="Kept, and its section and all its ancestors kept")
    not_a_chart = models.BooleanField(
        default=False, help_text="A figure that is not a chart (photo, diagram, example)"
    )

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["context", "element"], name="curatedelement_unique"),
            models.CheckConstraint(
                condition=Q(kept=True) | Q(in_context=False), name="curatedelement_removed_is_out"
            ),
        ]
        indexes = [models.Index(fields=["context", "in_context"])]

    def __str__(self) -> str:
        return f"{self.context} element {self.element_id}: {'in' if self.in_context else 'out'}"
