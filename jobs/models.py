"""A background job's record: what runs, its progress, and how it ended."""

from __future__ import annotations

from django.db import models
from django.db.models import Q


class JobStatus(models.TextChoices):
    QUEUED = "queued"
    RUNNING = "running"
    FINISHED = "finished"
    FAILED = "failed"
    CANCELLED = "cancelled"


class Job(models.Model):
    Status = JobStatus

    ACTIVE = (Status.QUEUED, Status.RUNNING)

    kind = models.CharField(max_length=64, help_text="What the job does, e.g. render_images")
    function = models.CharField(max_length=200, help_text="Dotted path of the job function")
    params = models.JSONField(default=dict, blank=True)
    queue = models.CharField(max_length=32, default="default")
    status = models.CharField(max_length=12, choices=Status.choices, default=Status.QUEUED)
    rq_job_id = models.CharField(max_length=64, blank=True)
    progress_done = models.PositiveIntegerField(default=0)
    progress_total = models.PositiveIntegerField(default=0)
    message = models.TextField(blank=True)
    error = models.TextField(blank=True)
    result = models.JSONField(default=dict, blank=True)
    cancel_requested = models.BooleanField(default=False)
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    heartbeat_at = models.DateTimeField(
        null=True, blank=True, help_text="Last sign of life from the running job"
    )
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]
        constraints = [
            models.CheckConstraint(
                condition=Q(status__in=JobStatus.values), name="job_status_valid"
            )
        ]

    def __str__(self) -> str:
        return f"{self.kind} #{self.pk} ({self.status})"

    @property
    def percent(self) -> int:
        if not self.progress_total:
            return 100 if self.status == self.Status.FINISHED else 0
        return min(100, round(100 * self.progress_done / self.progress_total))

    @property
    def is_active(self) -> bool:
        return self.status in self.ACTIVE
