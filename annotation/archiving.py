"""Archiving: putting papers (with their work) and accounts away, and bringing them back.

An archived paper is hidden from the lists, the statistics, agreement, the split pool and
exports, and its work items leave every queue; an archived account is hidden from People and
Assignment and gets no new work. Nothing is deleted: the rows, their work and their history
(`WorkEvent`, `AssignmentEvent`) stay, and each archiving writes an `ArchiveEvent` (its note
whole: a note longer than MAX_NOTE is refused, nothing archived, never cut). Archiving the
demo (every synthetic paper and expert at once) is workspace/demo/archive.py, above the stages."""

from __future__ import annotations

from collections.abc import Iterable

from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from django.db.models import Q, QuerySet
from django.utils import timezone

from annotation.errors import AnnotationError, too_long
from annotation.experts import services as expert_services
from annotation.models import (
    ArchiveAction,
    ArchiveEvent,
    Assignment,
    ExpertProfile,
    WorkItem,
    WorkStatus,
)
from annotation.sessions import end_sessions
from papers.models import Paper

MAX_NOTE = ArchiveEvent._meta.get_field("note").max_length  # 500


class ArchiveError(AnnotationError):
    pass


def check_note(note: str, *, undo: bool = False) -> None:
    """Refuse a note longer than an ArchiveEvent holds, before anything is (un-)archived."""
    if problem := too_long("note", note, MAX_NOTE):
        raise ArchiveError(f"Nothing was {'un-archived' if undo else 'archived'}: {problem}")


def live_papers(queryset: QuerySet[Paper] | None = None) -> QuerySet[Paper]:
    """Papers that are not archived."""
    queryset = Paper.objects.all() if queryset is None else queryset
    return queryset.filter(archived_at__isnull=True)


def archived_paper_count() -> int:
    return Paper.objects.filter(archived_at__isnull=False).count()


def archived_account_count() -> int:
    return ExpertProfile.objects.filter(archived_at__isnull=False).count()


def _papers(papers: Iterable[Paper]) -> list[Paper]:
    ids = sorted({p.pk for p in papers})
    return list(
        Paper.objects.select_for_update()
        .filter(pk__in=ids)
        .only("id", "archived_at")
        .order_by("pk")
    )


@transaction.atomic
def archive_papers(*, papers: Iterable[Paper], by: AbstractBaseUser | None, note: str = "") -> int:
    """Archive the papers not archived yet; returns how many. Their work stays where it is (a
    held lease, an open item, an assignment): it is only out of every queue and list until
    the paper is un-archived."""
    check_note(note)
    now = timezone.now()
    todo = [p for p in _papers(papers) if p.archived_at is None]
    Paper.objects.filter(pk__in=[p.pk for p in todo]).update(archived_at=now)
    ArchiveEvent.objects.bulk_create(
        ArchiveEvent(action=ArchiveAction.ARCHIVED, paper_id=p.pk, actor=by, note=note)
        for p in todo
    )
    return len(todo)


@transaction.atomic
def unarchive_papers(
    *, papers: Iterable[Paper], by: AbstractBaseUser | None, note: str = ""
) -> int:
    """Bring archived papers back, with their work where it was; returns how many."""
    check_note(note, undo=True)
    todo = [p for p in _papers(papers) if p.archived_at is not None]
    Paper.objects.filter(pk__in=[p.pk for p in todo]).update(archived_at=None)
    ArchiveEvent.objects.bulk_create(
        ArchiveEvent(action=ArchiveAction.UNARCHIVED, paper_id=p.pk, actor=by, note=note)
        for p in todo
    )
    return len(todo)


def open_work_on_live_papers(user: AbstractBaseUser) -> list[str]:
    """What `user` still has to do on papers that are not archived (what archiving them would
    strand): open assignments, items they hold or that are assigned to them by name."""
    found = []
    assignments = Assignment.objects.filter(
        expert=user, status__in=Assignment.OPEN, paper__archived_at__isnull=True
    ).count()
    if assignments:
        found.append(f"{assignments} open paper assignment{'s' if assignments > 1 else ''}")
    items = (
        WorkItem.objects.filter(status__in=[WorkStatus.OPEN, WorkStatus.LEASED])
        .filter(Q(holder=user, status=WorkStatus.LEASED) | Q(assignee=user))
        .filter(paper__archived_at__isnull=True)
        .count()
    )
    if items:
        found.append(f"{items} work item{'s' if items > 1 else ''} held by or assigned to them")
    return found


@transaction.atomic
def archive_account(
    *, user: AbstractBaseUser, by: AbstractBaseUser | None, note: str = ""
) -> ExpertProfile:
    """Archive an account's expert profile: hidden from People and Assignment, inactive (no new
    assignments), and signed out everywhere (its sessions end in this transaction). Refused for
    the admin doing it and for someone with work still open on papers that are not archived
    (unassign or reassign it first). Signing in again is not prevented: disable the account in
    the Django admin for that (which ends its sessions too)."""
    check_note(note)
    if by is not None and user.pk == by.pk:
        raise ArchiveError("You cannot archive your own account.")
    profile = expert_services.ensure_expert_profile(user=user)
    profile = ExpertProfile.objects.select_for_update().get(pk=profile.pk)
    if profile.archived_at is not None:
        return profile
    open_work = open_work_on_live_papers(user)
    if open_work:
        raise ArchiveError(
            f"{user.get_username()} still has {' and '.join(open_work)}: unassign or reassign "
            "that work first (Assignment, Validation), then archive the account."
        )
    profile.archived_at = timezone.now()
    profile.active = False
    profile.save(update_fields=["archived_at", "active", "updated_at"])
    ArchiveEvent.objects.create(action=ArchiveAction.ARCHIVED, account=user, actor=by, note=note)
    end_sessions(user)
    return profile


@transaction.atomic
def unarchive_account(
    *, user: AbstractBaseUser, by: AbstractBaseUser | None, note: str = ""
) -> ExpertProfile:
    """Show the account again. It stays inactive: tick *Active* on its page to give it work."""
    check_note(note, undo=True)
    profile = ExpertProfile.objects.select_for_update().get(user=user)
    if profile.archived_at is None:
        return profile
    profile.archived_at = None
    profile.save(update_fields=["archived_at", "updated_at"])
    ArchiveEvent.objects.create(action=ArchiveAction.UNARCHIVED, account=user, actor=by, note=note)
    return profile
