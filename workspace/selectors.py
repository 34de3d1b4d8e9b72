"""The signed-in expert's workspace: papers to curate and curated papers."""

from __future__ import annotations

from dataclasses import dataclass

from django.contrib.auth.models import AbstractBaseUser

from annotation.assignment.selectors import subfield_code_of
from annotation.experts.eligibility import Eligibility
from annotation.experts.selectors import subfields_with_eligibility
from annotation.models import (
    Assignment,
    AssignmentStatus,
    CuratedContext,
    Role,
    Subfield,
)
from papers.models import Paper


@dataclass
class QueueItem:
    assignment: Assignment
    latest: CuratedContext | None

    @property
    def paper(self) -> Paper:
        return self.assignment.paper


@dataclass
class Workspace:
    to_curate: list[QueueItem]
    curated: list[QueueItem]
    eligibility: dict[str, Eligibility]
    subfields: list[Subfield]

    @property
    def assigned(self) -> int:
        return len(self.to_curate) + len(self.curated)

    @property
    def ready(self) -> int:
        return sum(1 for item in self.curated if item.latest and item.latest.ready_for_claims)

    @property
    def subfield_rows(self) -> list[tuple[Subfield, Eligibility]]:
        """The subfields that concern this expert: listed, eligible, or with publications."""
        return [
            (s, e)
            for s in self.subfields
            if (e := self.eligibility[s.code]).declared or e.eligible or e.publications
        ]

    @property
    def progress_percent(self) -> int:
        return round(100 * len(self.curated) / self.assigned) if self.assigned else 0


def workspace(user: AbstractBaseUser) -> Workspace:
    """The signed-in expert's queue: papers to curate and curated papers (later: claims …)."""
    assignments = list(
        Assignment.objects.filter(expert_id=user.pk, role=Role.WRITER, status__in=Assignment.OPEN)
        .filter(paper__archived_at__isnull=True)
        .select_related("paper")
        .only(
            "id",
            "status",
            "created_at",
            "role",
            "paper__id",
            "paper__arxiv_id",
            "paper__version",
            "paper__title",
            "paper__primary_category",
            "paper__table_count",
            "paper__chart_count",
            "paper__paragraph_count",
            "paper__acceptance",
            "paper__venue",
        )
        .annotate(subfield_code=subfield_code_of("paper", "paper__primary_category"))
        .order_by("created_at", "id")
    )
    latest: dict[int, CuratedContext] = {}
    for context in CuratedContext.objects.filter(
        paper_id__in=[a.paper_id for a in assignments]
    ).order_by("paper_id", "-number"):
        latest.setdefault(context.paper_id, context)
    items = [QueueItem(a, latest.get(a.paper_id)) for a in assignments]
    judged = subfields_with_eligibility(user.pk)
    return Workspace(
        to_curate=[i for i in items if i.assignment.status == AssignmentStatus.ASSIGNED],
        curated=[i for i in items if i.assignment.status == AssignmentStatus.CURATED],
        eligibility={subfield.code: e for subfield, e in judged},
        subfields=[subfield for subfield, _ in judged],
    )


# --- Assignment overview (admins) ----------------------------------------------------------
