"""Papers' subfields, open assignments, workload and the assignment overview."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from django.contrib.auth.models import AbstractBaseUser
from django.db.models import (
    Case,
    CharField,
    Count,
    Exists,
    F,
    IntegerField,
    OuterRef,
    Q,
    QuerySet,
    Subquery,
    Value,
    When,
)
from django.db.models.functions import Coalesce

from annotation.experts.selectors import eligibility_by_expert, experts
from annotation.models import (
    Assignment,
    AssignmentStatus,
    ClaimPair,
    CuratedContext,
    PaperSubfield,
    Role,
    Subfield,
)
from papers.models import Paper

ACCEPTANCE_PRIORITY = Case(
    When(acceptance=Paper.Acceptance.ACCEPTED, then=Value(0)),
    When(acceptance=Paper.Acceptance.WORKSHOP, then=Value(1)),
    When(acceptance=Paper.Acceptance.UNDER_REVIEW, then=Value(2)),
    default=Value(3),
    output_field=IntegerField(),
)


# --- Subfields of papers -------------------------------------------------------------------


def subfield_code_of(paper_ref: str = "pk", category: str = "primary_category") -> Coalesce:
    """A paper's subfield code: the admin's choice, else its primary arXiv category."""
    chosen = PaperSubfield.objects.filter(paper=OuterRef(paper_ref)).values("subfield__code")[:1]
    return Coalesce(Subquery(chosen), F(category), output_field=CharField())


def papers_with_subfield(queryset: QuerySet[Paper] | None = None) -> QuerySet[Paper]:
    queryset = Paper.objects.all() if queryset is None else queryset
    return queryset.annotate(subfield_code=subfield_code_of())


def paper_subfield_codes(paper_ids: Iterable[int]) -> dict[int, str]:
    rows = papers_with_subfield(Paper.objects.filter(pk__in=list(paper_ids)))
    return dict(rows.values_list("pk", "subfield_code"))


def open_assignment_of(paper_ref: str = "pk", role: str = Role.WRITER) -> QuerySet[Assignment]:
    return Assignment.objects.filter(
        paper=OuterRef(paper_ref), role=role, status__in=Assignment.OPEN
    )


def open_workload(user_ids: Iterable[int] | None = None) -> dict[int, int]:
    """Open assignments per expert (all roles, all subfields)."""
    rows = Assignment.objects.filter(status__in=Assignment.OPEN)
    if user_ids is not None:
        rows = rows.filter(expert_id__in=list(user_ids))
    return dict(rows.values("expert_id").annotate(n=Count("id")).values_list("expert_id", "n"))


@dataclass
class ExpertRow:
    user: AbstractBaseUser
    eligible: list[str]
    to_curate: int = 0
    curated: int = 0
    contexts_saved: int = 0
    claim_pairs: int = 0

    @property
    def assigned(self) -> int:
        return self.to_curate + self.curated


@dataclass
class SubfieldRow:
    subfield: Subfield | None
    code: str
    waiting: int = 0
    eligible_experts: list[str] = field(default_factory=list)


@dataclass
class Overview:
    experts: list[ExpertRow]
    subfields: list[SubfieldRow]


def assignment_overview(*, active_only: bool = True) -> Overview:
    """Per expert (`active_only`: those who may get work): open papers to curate / curated,
    versions saved, claim pairs written; per subfield: papers that wait for an expert (parsed,
    not archived, no open assignment) and who could take them."""
    users = list(experts(active_only=active_only))
    subfields = list(Subfield.objects.all())
    codes = [s.code for s in subfields]
    eligibility = eligibility_by_expert([u.pk for u in users], codes)
    rows = {
        u.pk: ExpertRow(u, [c for c, e in eligibility[u.pk].items() if e.eligible]) for u in users
    }
    for expert_id, status, n in (
        Assignment.objects.filter(status__in=Assignment.OPEN, expert_id__in=rows, role=Role.WRITER)
        .values("expert_id", "status")
        .annotate(n=Count("id"))
        .values_list("expert_id", "status", "n")
    ):
        if status == AssignmentStatus.ASSIGNED:
            rows[expert_id].to_curate = n
        else:
            rows[expert_id].curated = n
    for expert_id, n in (
        CuratedContext.objects.filter(created_by_id__in=rows)
        .values("created_by_id")
        .annotate(n=Count("id"))
        .values_list("created_by_id", "n")
    ):
        rows[expert_id].contexts_saved = n
    for expert_id, n in (
        ClaimPair.objects.filter(writer_id__in=rows)
        .values("writer_id")
        .annotate(n=Count("id"))
        .values_list("writer_id", "n")
    ):
        rows[expert_id].claim_pairs = n
    waiting = dict(
        papers_with_subfield(
            Paper.objects.filter(status=Paper.Status.PARSED, archived_at__isnull=True).exclude(
                Exists(open_assignment_of())
            )
        )
        .values("subfield_code")
        .annotate(n=Count("id"))
        .values_list("subfield_code", "n")
    )
    by_code = {s.code: s for s in subfields}
    subfield_rows = [
        SubfieldRow(
            subfield=s,
            code=s.code,
            waiting=waiting.get(s.code, 0),
            eligible_experts=[r.user.get_username() for r in rows.values() if s.code in r.eligible],
        )
        for s in subfields
    ]
    # Papers whose category is no subfield yet: an admin has to choose one for them.
    for code, n in sorted(waiting.items()):
        if code not in by_code:
            subfield_rows.append(SubfieldRow(subfield=None, code=code or "(none)", waiting=n))
    return Overview(experts=list(rows.values()), subfields=subfield_rows)


def papers_for_assignment(
    *,
    subfield: str = "",
    status: str = Paper.Status.PARSED,
    acceptance: str = "",
    state: str = "",
    min_tables: int | None = None,
    min_charts: int | None = None,
    search: str = "",
) -> QuerySet[Paper]:
    """Papers with their subfield and current (writer) assignment, filtered for the admin page.
    state: '' (any), 'unassigned', 'assigned' (to curate), 'curated'."""
    current = open_assignment_of()
    live = Paper.objects.filter(archived_at__isnull=True)  # archived papers are never offered
    papers = papers_with_subfield(live.defer("raw_html_compressed", "abstract")).annotate(
        assigned_to=Subquery(current.values("expert__username")[:1]),
        assignment_status=Subquery(current.values("status")[:1]),
        acceptance_priority=ACCEPTANCE_PRIORITY,
        subfield_chosen=Exists(PaperSubfield.objects.filter(paper=OuterRef("pk"))),
    )
    if subfield:
        papers = papers.filter(subfield_code=subfield)
    if status:
        papers = papers.filter(status=status)
    if acceptance:
        papers = papers.filter(acceptance=acceptance)
    if state == "unassigned":
        papers = papers.filter(assignment_status__isnull=True)
    elif state in (AssignmentStatus.ASSIGNED, AssignmentStatus.CURATED):
        papers = papers.filter(assignment_status=state)
    if min_tables is not None:
        papers = papers.filter(table_count__gte=min_tables)
    if min_charts is not None:
        papers = papers.filter(chart_count__gte=min_charts)
    if search:
        papers = papers.filter(Q(arxiv_id__icontains=search) | Q(title__icontains=search))
    return papers.order_by("acceptance_priority", "published", "arxiv_id", "version")


# --- The curation page ---------------------------------------------------------------------
