"""The signed-in expert's workspace: papers to curate and curated papers."""

from __future__ import annotations

from dataclasses import dataclass

from django.contrib.auth.models import AbstractBaseUser
from django.db.models import QuerySet

from annotation.assignment.selectors import subfield_code_of
from annotation.experts.eligibility import Eligibility
from annotation.experts.selectors import subfields_with_eligibility
from annotation.models import (
    Assignment,
    AssignmentStatus,
    ClaimPair,
    CuratedContext,
    Role,
    Subfield,
    WorkItem,
    WorkKind,
    WorkStatus,
)
from annotation.queue import work
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
    def ready_paper_ids(self) -> list[int]:
        """The curated papers whose latest context is ready for claims (the writing queue's)."""
        return [i.paper.pk for i in self.curated if i.latest and i.latest.ready_for_claims]

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


@dataclass(frozen=True)
class StageCount:
    """One stage of the expert's own work as the workspace counts it: how many items they may
    take (exact up to `work.AVAILABLE_CAP`; `more` past it), whether they hold one, how many
    they finished."""

    kind: str
    title: str
    waiting: int
    more: bool
    held: bool
    done: int


@dataclass(frozen=True)
class HomeCounts:
    """What the workspace home counts for its expert: papers, pairs written, every stage."""

    workspace: Workspace
    pairs_written: int
    stages: list[StageCount]


def home_counts(user: AbstractBaseUser, queue: work.Queue | None = None) -> HomeCounts:
    """The signed-in expert's own counts (the API's `me/`): their workspace's papers, the
    claim pairs they wrote, and per stage what waits for them and what they finished. Counts
    only: nothing of an item's claim, label or evidence."""
    queue = queue or work.queue(user)
    stages = [
        StageCount(
            kind=kind.value,
            title=str(kind.label),
            waiting=min(queue.available.get(kind, 0), work.AVAILABLE_CAP),
            more=queue.available.get(kind, 0) > work.AVAILABLE_CAP,
            held=kind in queue.held,
            done=queue.done.get(kind, 0),
        )
        for kind in WorkKind
    ]
    return HomeCounts(
        workspace=workspace(user),
        pairs_written=ClaimPair.objects.filter(writer_id=user.pk).count(),
        stages=stages,
    )


def finished_items(user: AbstractBaseUser) -> QuerySet[WorkItem]:
    """The work items `user` finished themselves (never anyone else's), with their papers."""
    return (
        WorkItem.objects.filter(status=WorkStatus.DONE, done_by_id=user.pk)
        .select_related("paper")
        .only("id", "key", "kind", "done_at", "paper__arxiv_id", "paper__version")
    )


# --- Assignment overview (admins) ----------------------------------------------------------
