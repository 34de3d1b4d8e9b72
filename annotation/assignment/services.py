"""Assigning papers to experts by subfield, and a paper's assignment transitions."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from django.contrib.auth.models import AbstractBaseUser
from django.db import IntegrityError, transaction
from django.utils import timezone

from annotation.assignment import rules
from annotation.assignment import selectors as assignment_selectors
from annotation.assignment.spreading import spread_balanced
from annotation.errors import (
    AlreadyAssigned,
    AnnotationError,
    InvalidTransition,
    NotAssigned,
)
from annotation.experts import selectors as expert_selectors
from annotation.limits import MAX_LINE_NOTE, refuse_long
from annotation.models import (
    Assignment,
    AssignmentEvent,
    AssignmentStatus,
    PaperSubfield,
    Role,
    Subfield,
)
from papers.models import Paper


@transaction.atomic
def set_paper_subfield(
    *, papers: Sequence[Paper], subfield: Subfield, changed_by: AbstractBaseUser | None
) -> int:
    """Choose the subfield of papers (overriding their primary category). Open assignments are
    kept: the admin decides whether to reassign."""
    for paper in papers:
        PaperSubfield.objects.update_or_create(
            paper=paper, defaults={"subfield": subfield, "changed_by": changed_by}
        )
    return len(papers)


def transition(
    assignment: Assignment, to: AssignmentStatus, *, actor: AbstractBaseUser | None, note: str
) -> None:
    if not assignment.can_become(to):
        raise InvalidTransition(
            f"An assignment that is {assignment.get_status_display()} cannot become "
            f"{AssignmentStatus(to).label}."
        )
    AssignmentEvent.objects.create(
        assignment=assignment, from_status=assignment.status, to_status=to, actor=actor, note=note
    )
    assignment.status = to
    assignment.status_changed_at = timezone.now()
    assignment.save(update_fields=["status", "status_changed_at"])


def open_assignment(
    assignment_paper: Paper,
    expert: AbstractBaseUser,
    *,
    role: str,
    by: AbstractBaseUser | None,
    note: str,
) -> Assignment:
    try:
        with transaction.atomic():
            assignment = Assignment.objects.create(
                paper=assignment_paper, expert=expert, role=role, assigned_by=by
            )
    except IntegrityError as exc:  # a concurrent assignment won the race
        raise AlreadyAssigned(f"{assignment_paper.versioned_id} is already assigned.") from exc
    AssignmentEvent.objects.create(
        assignment=assignment, to_status=AssignmentStatus.ASSIGNED, actor=by, note=note
    )
    return assignment


@dataclass
class AssignmentResult:
    created: list[Assignment] = field(default_factory=list)
    closed: list[Assignment] = field(default_factory=list)
    left_over: list[Paper] = field(default_factory=list)
    # Chosen experts eligible for none of the papers (username, why), so given none.
    not_eligible: list[tuple[str, str]] = field(default_factory=list)

    def count_by_expert(self) -> dict[str, int]:
        counts: dict[str, int] = {}
        for a in self.created:
            name = a.expert.get_username()
            counts[name] = counts.get(name, 0) + 1
        return dict(sorted(counts.items()))


def lock_papers(papers: Sequence[Paper]) -> list[Paper]:
    ids = [p.pk for p in papers]
    locked = {
        p.pk: p
        for p in assignment_selectors.papers_with_subfield(
            Paper.objects.filter(pk__in=ids).defer("raw_html_compressed").order_by("pk")
        ).select_for_update()
    }
    missing = [pk for pk in ids if pk not in locked]
    if missing:
        raise AnnotationError(f"Papers {missing} no longer exist.")
    return [locked[pk] for pk in ids]


@transaction.atomic
def assign_papers(
    *,
    papers: Sequence[Paper],
    experts: Sequence[AbstractBaseUser],
    assigned_by: AbstractBaseUser | None,
    per_expert: int | None = None,
    reassign: bool = False,
    leave_over: bool = False,
    note: str = "",
    role: str = Role.WRITER,
) -> AssignmentResult:
    """Assign papers to one expert, or spread them over several balanced by each one's open
    workload. Every paper must go to an expert eligible for its subfield. Papers already
    assigned are refused unless `reassign` (then the old assignment is closed, with history).
    With `leave_over` (the command), papers nobody can take are reported instead of refused.
    A note longer than MAX_LINE_NOTE is refused whole (nothing assigned), never cut.
    """
    refuse_long([("Note", note, MAX_LINE_NOTE)], nothing="Nothing was assigned")
    rules.check_selection(papers, experts)
    locked = lock_papers(papers)
    rules.check_assignable(locked)
    current = {
        a.paper_id: a
        for a in Assignment.objects.select_for_update()
        .filter(paper__in=locked, role=role, status__in=Assignment.OPEN)
        .select_related("expert")
    }
    rules.check_not_taken(locked, current, reassign=reassign)
    codes = sorted({p.subfield_code or "" for p in locked})
    eligibility = expert_selectors.eligibility_by_expert([e.pk for e in experts], codes)
    eligible = rules.eligible_by_paper(locked, experts, eligibility, current)
    if len(experts) == 1 and not leave_over:
        rules.check_single_expert(experts[0], locked, eligible, eligibility, current)
    load = assignment_selectors.open_workload([e.pk for e in experts])
    by_pk = {p.pk: p for p in locked}
    spread = spread_balanced(
        [p.pk for p in locked],
        {pk: [e.pk for e in candidates] for pk, candidates in eligible.items()},
        {e.pk: load.get(e.pk, 0) for e in experts},
        per_expert=per_expert,
    )
    left_over = [by_pk[pk] for pk in spread.left_over]
    if not leave_over:
        rules.check_left_over(left_over)
    result = AssignmentResult(
        left_over=left_over, not_eligible=rules.given_none(experts, eligible, eligibility, codes)
    )
    experts_by_pk = {e.pk: e for e in experts}
    for paper_pk, expert_pk in spread.assigned.items():
        _hand_over(
            by_pk[paper_pk],
            experts_by_pk[expert_pk],
            current.get(paper_pk),
            result=result,
            role=role,
            by=assigned_by,
            note=note,
        )
    return result


def _hand_over(
    paper: Paper,
    expert: AbstractBaseUser,
    previous: Assignment | None,
    *,
    result: AssignmentResult,
    role: str,
    by: AbstractBaseUser | None,
    note: str,
) -> None:
    """Give `paper` to `expert`, closing the `previous` open assignment (with history), and
    add both to `result`."""
    if previous is not None:
        transition(
            previous,
            AssignmentStatus.UNASSIGNED,
            actor=by,
            note=f"reassigned to {expert.get_username()}",
        )
        result.closed.append(previous)
    text = note or (
        f"reassigned from {previous.expert.get_username()}" if previous is not None else ""
    )
    result.created.append(open_assignment(paper, expert, role=role, by=by, note=text))


@transaction.atomic
def unassign(
    *, papers: Sequence[Paper], by: AbstractBaseUser | None, note: str = "", role: str = Role.WRITER
) -> list[Assignment]:
    """Close the open assignments of these papers; their curated contexts stay."""
    refuse_long([("Note", note, MAX_LINE_NOTE)], nothing="Nothing was unassigned")
    locked = lock_papers(papers)
    assignments = list(
        Assignment.objects.select_for_update().filter(
            paper__in=locked, role=role, status__in=Assignment.OPEN
        )
    )
    if not assignments:
        raise NotAssigned("None of the selected papers is assigned.")
    for assignment in assignments:
        transition(assignment, AssignmentStatus.UNASSIGNED, actor=by, note=note or "unassigned")
    return assignments


# --- Curation ------------------------------------------------------------------------------
