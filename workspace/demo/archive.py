"""Archiving the demo: every synthetic paper (with its work) and every synthetic expert, put away
once a real project starts and brought back on request, through annotation's archiving
(`annotation.archiving`: nothing is deleted, each step writes an `ArchiveEvent`)."""

from __future__ import annotations

from dataclasses import dataclass, field

from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from django.db.models import Count, Q
from django.utils import timezone

from annotation import archiving
from annotation.experts.synthetic import SYNTHETIC_EXPERT_PREFIX, is_synthetic_expert
from annotation.models import ExpertProfile, WorkItem, WorkKind, WorkStatus
from papers.models import Paper
from validation.models import BaselineAnswer, BaselineItem, BaselineStudy

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


@dataclass(frozen=True)
class StrandedStudy:
    """A baseline study still running with claims on the demo's papers."""

    study: BaselineStudy
    answered: int  # answers given, on every paper
    expected: int  # answers asked for: two per claim
    on_demo: int  # its claims on the demo's papers (they would no longer count)
    claims: int

    def __str__(self) -> str:
        return (
            f"baseline study {self.study.pk} (answered {self.answered} of {self.expected}): "
            f"{self.on_demo} of its {self.claims} claims are on demo papers and would no longer "
            "count"
        )


@dataclass(frozen=True)
class HeldWork:
    """One person's open work on the demo's papers, of one kind."""

    person: str
    kind: str
    held: int  # leases they hold now
    named: int  # open items waiting for them by name

    def __str__(self) -> str:
        parts = []
        if self.held:
            parts.append(f"holds {self.held} {self.kind} item{'s' if self.held > 1 else ''}")
        if self.named:
            waiting = f"{self.named} {self.kind} item{'s' if self.named > 1 else ''}"
            parts.append(f"has {waiting} waiting for them by name")
        return f"{self.person} {' and '.join(parts)}"


@dataclass
class DemoStrands:
    """What archiving the demo would leave stranded: running baseline studies with claims on
    its papers, and real people's work on them (held, or waiting for them by name), which
    leaves every queue and workspace."""

    studies: list[StrandedStudy] = field(default_factory=list)
    work: list[HeldWork] = field(default_factory=list)

    def __bool__(self) -> bool:
        return bool(self.studies or self.work)

    def lines(self) -> list[str]:
        return [str(s) for s in self.studies] + [str(w) for w in self.work]


KIND_NOUNS = {
    WorkKind.WRITE: "claim-writing",
    WorkKind.BLIND: "blind-annotation",
    WorkKind.ADJUDICATE: "adjudication",
    WorkKind.VALIDATE: "validation",
    WorkKind.BASELINE: "human-baseline",
    WorkKind.REPERTURB: "new-perturbation",
}


def demo_strands() -> DemoStrands:
    """What `archive_demo` would strand now (a fixed number of queries)."""
    demo = Paper.objects.filter(synthetic=True, archived_at__isnull=True).values("pk")
    on_demo = dict(
        BaselineItem.objects.filter(claim__pair__paper__in=demo)
        .values_list("study")
        .annotate(n=Count("id"))
    )
    claims = dict(
        BaselineItem.objects.filter(study__in=list(on_demo))
        .values_list("study")
        .annotate(n=Count("id"))
    )
    answered = dict(
        BaselineAnswer.objects.filter(item__study__in=list(on_demo))
        .values_list("item__study")
        .annotate(n=Count("id"))
    )
    studies = [
        StrandedStudy(study, answered.get(study.pk, 0), 2 * claims[study.pk], n, claims[study.pk])
        for study in BaselineStudy.objects.filter(pk__in=list(on_demo)).order_by("pk")
        if answered.get(study.pk, 0) < 2 * claims[study.pk]
        for n in [on_demo[study.pk]]
    ]
    return DemoStrands(studies=studies, work=_held_work(demo))


def _held_work(demo) -> list[HeldWork]:
    synthetic = {u.pk for u in synthetic_experts()}  # archived with the papers: nothing strands
    now = timezone.now()
    counts: dict[tuple[str, str], list[int]] = {}
    for kind, status, expires, holder, holder_name, assignee, assignee_name in (
        WorkItem.objects.filter(paper__in=demo, status__in=[WorkStatus.OPEN, WorkStatus.LEASED])
        .filter(Q(holder__isnull=False) | Q(assignee__isnull=False))
        .values_list(
            "kind",
            "status",
            "lease_expires_at",
            "holder",
            "holder__username",
            "assignee",
            "assignee__username",
        )
        .order_by()
    ):
        held = status == WorkStatus.LEASED and holder and expires and expires > now
        if held and holder not in synthetic:
            counts.setdefault((holder_name, kind), [0, 0])[0] += 1
        elif assignee and assignee not in synthetic:
            counts.setdefault((assignee_name, kind), [0, 0])[1] += 1
    return [
        HeldWork(person, KIND_NOUNS.get(kind, kind), held, named)
        for (person, kind), (held, named) in sorted(counts.items())
    ]


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
