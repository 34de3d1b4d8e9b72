"""Who may see what, for every role, in one module: papers, curation, media files, work items
and claim pairs. Views and services ask these; none decides on its own."""

from __future__ import annotations

import re
from collections.abc import Callable

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.db.models import (
    Exists,
    OuterRef,
    QuerySet,
)

from annotation.errors import AnnotationError
from annotation.models import (
    Assignment,
    Role,
    WorkItem,
    WorkStatus,
)
from papers.models import Paper

AnyUser = AbstractBaseUser | AnonymousUser
ADMINS_ONLY = "Only admins can do this."


def require_staff(
    user: AnyUser,
    refusal: Callable[[str], Exception] = AnnotationError,
    message: str = ADMINS_ONLY,
) -> None:
    """A service's staff check (a page's is `papers.access.staff_required`): anyone else is
    refused with `refusal(message)`, the calling stage's own error."""
    if not getattr(user, "is_staff", False):
        raise refusal(message)


def can_view_paper(user: AnyUser, paper_id: int) -> bool:
    """Staff see every paper; an expert sees the papers they hold an open assignment for."""
    if not user.is_authenticated:
        return False
    if user.is_staff:
        return True
    return Assignment.objects.filter(
        paper_id=paper_id, expert_id=user.pk, status__in=Assignment.OPEN
    ).exists()


def writes_paper(user: AnyUser, paper_id: int) -> bool:
    """`user` is the writer the paper is assigned to, while the assignment is open."""
    return Assignment.objects.filter(
        paper_id=paper_id, expert_id=user.pk, role=Role.WRITER, status__in=Assignment.OPEN
    ).exists()


def can_curate(user: AnyUser, paper_id: int) -> bool:
    """Admins, and the paper's writer (who may also flag it while curating)."""
    if not user.is_authenticated:
        return False
    return user.is_staff or writes_paper(user, paper_id)


def visible_papers(user: AnyUser, queryset: QuerySet[Paper] | None = None) -> QuerySet[Paper]:
    queryset = Paper.objects.all() if queryset is None else queryset
    if user.is_staff:
        return queryset
    mine = Assignment.objects.filter(
        paper=OuterRef("pk"), expert_id=user.pk, status__in=Assignment.OPEN
    )
    return queryset.filter(Exists(mine))


# Media files live at papers/<arxiv id>v<version>/<import folder>/<file> (papers/media.py).
MEDIA_PAPER_PATH = re.compile(r"^papers/(?P<arxiv_id>.+)v(?P<version>\d+)/[^/]+/[^/]+$")


def media_paper_key(path: str) -> tuple[str, int] | None:
    match = MEDIA_PAPER_PATH.match(path)
    if not match or ".." in path.split("/"):
        return None
    return match["arxiv_id"], int(match["version"])


def can_view_media(user: AnyUser, path: str) -> bool:
    if not user.is_authenticated:
        return False
    if user.is_staff:
        return True
    key = media_paper_key(path)
    if key is None:
        return False
    return Assignment.objects.filter(
        paper__arxiv_id=key[0],
        paper__version=key[1],
        expert_id=user.pk,
        status__in=Assignment.OPEN,
    ).exists()


# --- Work items and claim pairs --------------------------------------------------------------


def submitted_by(user: AnyUser, item: WorkItem) -> bool:
    """`user` submitted the item (done by them): they may see it and edit their answer."""
    return item.status == WorkStatus.DONE and item.done_by_id == user.pk


def worked_on(user: AnyUser, item: WorkItem) -> bool:
    """The item's holder while they hold it, and whoever submitted it (who may flag it)."""
    return item.held_by(user) or submitted_by(user, item)


def may_see_item(user: AnyUser, item: WorkItem) -> bool:
    """An item's page and its images: its holder, whoever submitted it, and admins."""
    return user.is_staff or worked_on(user, item)


def may_act_on(user: AnyUser, item: WorkItem) -> bool:
    """An item's actions while it is under way (hand back, save): its holder, and admins."""
    return item.held_by(user) or user.is_staff


def may_open_pair(user: AnyUser, writer_id: int | None) -> bool:
    """A pair's page (both claims, their evidence, the history) is for its writer and admins."""
    return user.is_staff or (writer_id is not None and writer_id == user.pk)
