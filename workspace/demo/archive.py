"""Archiving the demo: every synthetic paper (with its work) and every synthetic expert, put away
once a real project starts and brought back on request, through annotation's archiving
(`annotation.archiving`: nothing is deleted, each step writes an `ArchiveEvent`)."""

from __future__ import annotations

from dataclasses import dataclass, field

from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction

from annotation import archiving
from annotation.experts.synthetic import SYNTHETIC_EXPERT_PREFIX, is_synthetic_expert
from annotation.models import ExpertProfile
from papers.models import Paper

User = get_user_model()


def demo_counts() -> dict[str, int]:
    """What archive_demo would put away (and what it already has)."""
    synthetic = Paper.objects.filter(synthetic=True)
    experts = synthetic_experts()
    archived = set(
        ExpertProfile.objects.filter(user__in=experts, archived_at__isnull=False).values_list(
            "user_id", flat=True
        )
    )
    return {
        "papers": synthetic.filter(archived_at__isnull=True).count(),
        "archived_papers": synthetic.filter(archived_at__isnull=False).count(),
        "experts": sum(1 for u in experts if u.pk not in archived),
        "archived_experts": len(archived),
    }


@dataclass
class DemoArchive:
    papers: int = 0
    accounts: list[str] = field(default_factory=list)
    kept: list[tuple[str, str]] = field(default_factory=list)  # (account, why not archived)


def synthetic_experts() -> list[AbstractBaseUser]:
    """The accounts simulate_annotation made (nobody can sign in as them)."""
    users = User.objects.filter(username__startswith=SYNTHETIC_EXPERT_PREFIX).order_by("username")
    return [u for u in users if is_synthetic_expert(u)]


@transaction.atomic
def archive_demo(*, by: AbstractBaseUser | None, note: str = "demo data") -> DemoArchive:
    """Archive the demo: every synthetic paper (with its work), then every synthetic expert
    (who then has no open work left on papers that are not archived)."""
    archiving.check_note(note)  # refused as a whole, not account by account below
    result = DemoArchive()
    result.papers = archiving.archive_papers(
        papers=Paper.objects.filter(synthetic=True), by=by, note=note
    )
    for user in synthetic_experts():
        profile = ExpertProfile.objects.filter(user=user).only("archived_at").first()
        if profile is not None and profile.archived_at is not None:
            continue
        try:
            archiving.archive_account(user=user, by=by, note=note)
        except archiving.ArchiveError as exc:
            result.kept.append((user.get_username(), exc.message))
        else:
            result.accounts.append(user.get_username())
    return result


@transaction.atomic
def unarchive_demo(*, by: AbstractBaseUser | None, note: str = "demo data") -> DemoArchive:
    """Bring the demo back: synthetic papers and synthetic experts (who stay inactive)."""
    archiving.check_note(note, undo=True)
    result = DemoArchive()
    result.papers = archiving.unarchive_papers(
        papers=Paper.objects.filter(synthetic=True), by=by, note=note
    )
    for user in synthetic_experts():
        profile = ExpertProfile.objects.filter(user=user).only("archived_at").first()
        if profile is not None and profile.archived_at is not None:
            archiving.unarchive_account(user=user, by=by, note=note)
            result.accounts.append(user.get_username())
    return result
