"""Evaluation runs of a model on one part of a release, and each record's outcome."""

from __future__ import annotations

from typing import TYPE_CHECKING

from django.conf import settings as django_settings
from django.db import models
from django.db.models import Q

from evaluation.prompting import ContextSetting
from evaluation.retrieval import RETRIEVERS

if TYPE_CHECKING:
    from evaluation.prompting import ContextSetting

PARTS = ("validation", "test")
VERDICTS = ("entailed", "refuted")


class RunContext(models.TextChoices):
    FULL = "full", "full context"
    RETRIEVED = "retrieved", "retrieved evidence (RAG)"


class RunSource(models.TextChoices):
    ENDPOINT = "endpoint", "asked an endpoint"
    RESPONSES = "responses", "scored a responses file"


class EvaluationRun(models.Model):
    """One model on one part of one release: how it was asked and what it scored. Its
    progress and how it ended are its job's; `summary` holds the breakdowns once scored."""

    Source = RunSource

    export = models.ForeignKey(
        "validation.ReleaseExport",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="evaluations",
    )
    release_dir = models.CharField(max_length=500)
    release_name = models.CharField(max_length=200, blank=True)
    part = models.CharField(max_length=16)
    source = models.CharField(max_length=16, choices=RunSource.choices)
    model = models.CharField(max_length=200)
    endpoint_name = models.CharField(max_length=64, blank=True)
    endpoint_url = models.CharField(max_length=500, blank=True)
    prompt_version = models.CharField(max_length=100, blank=True)
    settings = models.JSONField(default=dict, blank=True, help_text="temperature, max_tokens, …")
    # What the model was given: the record's full context, or only the top `top_k` units
    # `retriever` found for the claim (evaluation.prompting.ContextSetting).
    context = models.CharField(max_length=16, choices=RunContext.choices, default=RunContext.FULL)
    retriever = models.CharField(max_length=32, blank=True)
    top_k = models.PositiveSmallIntegerField(null=True, blank=True)
    job = models.ForeignKey("jobs.Job", null=True, blank=True, on_delete=models.SET_NULL)
    summary = models.JSONField(default=dict, blank=True)
    records = models.PositiveIntegerField(default=0)
    created_by = models.ForeignKey(
        django_settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
    )
    created_at = models.DateTimeField(auto_now_add=True)
    # Hidden test claims sent to an endpoint that is not this machine: who confirmed it, when
    # (empty: nothing hidden left the machine; the client then refuses to send it elsewhere).
    hidden_confirmed_by = models.ForeignKey(
        django_settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
    )
    hidden_confirmed_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [
            models.CheckConstraint(condition=Q(part__in=PARTS), name="evaluationrun_part"),
            models.CheckConstraint(
                condition=Q(source__in=RunSource.values), name="evaluationrun_source"
            ),
            models.CheckConstraint(
                condition=Q(context=RunContext.FULL, retriever="", top_k__isnull=True)
                | Q(context=RunContext.RETRIEVED, top_k__gte=1) & ~Q(retriever=""),
                name="evaluationrun_context",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.model} on {self.release_name or self.release_dir} ({self.part})"

    @property
    def scored(self) -> bool:
        return bool(self.summary.get("breakdowns"))

    @property
    def label(self) -> str:
        return f"#{self.pk} {self.model}"

    @property
    def context_setting(self) -> ContextSetting:
        """What the run gives the model, as the request planning takes it."""

        if self.context == RunContext.FULL:
            return ContextSetting()
        return ContextSetting(self.retriever, self.top_k or 0)

    @property
    def context_label(self) -> str:
        """The setting as the pages name it: "full context", or "BM25 top 5"."""
        if self.context == RunContext.FULL:
            return RunContext.FULL.label

        known = RETRIEVERS.get(self.retriever)
        return f"{known.title if known else self.retriever} top {self.top_k}"


class RecordOutcome(models.Model):
    """One record's response and how both readings score it."""

    run = models.ForeignKey(EvaluationRun, on_delete=models.CASCADE, related_name="outcomes")
    request_id = models.BigIntegerField()
    # NULL and "" differ: no response at all (never asked, or it failed) vs an empty one; no
    # answer read vs one of the two verdicts (a check constraint below).
    response = models.TextField(null=True, blank=True, help_text="NULL: no response")  # noqa: DJ001
    parsed = models.CharField(max_length=16, null=True, blank=True)  # noqa: DJ001
    correct = models.BooleanField()
    official_correct = models.BooleanField()
    claim_type = models.CharField(max_length=16)
    subfield = models.CharField(max_length=32)
    gold = models.CharField(max_length=16)
    evidence = models.PositiveIntegerField(null=True, blank=True)

    class Meta:
        ordering = ["run", "request_id"]
        constraints = [
            models.UniqueConstraint(fields=["run", "request_id"], name="recordoutcome_once"),
            models.CheckConstraint(
                condition=Q(parsed__isnull=True) | Q(parsed__in=VERDICTS),
                name="recordoutcome_parsed",
            ),
            models.CheckConstraint(condition=Q(gold__in=VERDICTS), name="recordoutcome_gold"),
        ]

    def __str__(self) -> str:
        return f"request {self.request_id} of run {self.run_id}"


# --- The model in the loop (evaluation/assist): its setting and its text-only checks -------
class AssistantSetting(models.Model):
    """The model that checks claims against the text alone and offers perturbation ideas. The
    newest row is the setting; older rows are its history. A remote endpoint is used only with
    `confirmed_at` (who, when): unreleased claims leave this machine."""

    endpoint_name = models.CharField(max_length=64)
    endpoint_url = models.CharField(max_length=500)
    model = models.CharField(max_length=200)
    enabled = models.BooleanField(default=True)
    confirmed_by = models.ForeignKey(
        django_settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
    )
    confirmed_at = models.DateTimeField(null=True, blank=True)
    set_by = models.ForeignKey(
        django_settings.AUTH_USER_MODEL,
        null=True,
        on_delete=models.SET_NULL,
        related_name="+",
    )
    set_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ("-set_at", "-id")

    def __str__(self) -> str:
        return f"{self.model} at {self.endpoint_name}"


class TextCheck(models.Model):
    """One claim text judged by a model from a context version's paragraphs only, twice
    (temperature 0 and 0.7). Cached: the same text, gold label, context version, model,
    endpoint and prompt version are asked once."""

    class Status(models.TextChoices):
        RUNNING = "running"
        DONE = "done"
        FAILED = "failed"

    paper = models.ForeignKey("papers.Paper", on_delete=models.CASCADE, related_name="+")
    context = models.ForeignKey(
        "annotation.CuratedContext", on_delete=models.CASCADE, related_name="+"
    )
    text_sha256 = models.CharField(max_length=64)
    text = models.TextField()
    gold = models.CharField(max_length=8)  # the claim's label: "entailed" or "refuted"
    model = models.CharField(max_length=200)
    endpoint_name = models.CharField(max_length=64)
    prompt_version = models.CharField(max_length=80)
    status = models.CharField(max_length=8, choices=Status.choices, default=Status.RUNNING)
    answers = models.JSONField(default=list)  # [{"temperature", "response", "parsed"}]
    right = models.PositiveSmallIntegerField(default=0)  # samples whose explicit label is gold
    error = models.TextField(blank=True)
    requested_by = models.ForeignKey(
        django_settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=(
                    "context",
                    "text_sha256",
                    "gold",
                    "model",
                    "endpoint_name",
                    "prompt_version",
                ),
                name="text_check_once",
            )
        ]

    def __str__(self) -> str:
        return f"{self.model} on “{self.text[:60]}” ({self.status})"

    @property
    def verifiable(self) -> bool:
        """Right in every sample: the claim may be verifiable from the text alone."""
        return self.status == self.Status.DONE and self.right == len(self.answers) > 0
