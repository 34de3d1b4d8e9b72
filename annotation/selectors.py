"""Queries over many rows: papers' subfields, eligibility, workload, queues and access."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.db.models import (
    BooleanField,
    Case,
    CharField,
    Count,
    Exists,
    ExpressionWrapper,
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

from annotation.context_rules import (
    ContextCounts,
    Decisions,
    count_context,
    proposed_for_removal,
    sections_in_context,
)
from annotation.eligibility import Eligibility, judge_eligibility
from annotation.models import (
    Assignment,
    AssignmentStatus,
    ClaimPair,
    CuratedContext,
    CuratedElement,
    CuratedSection,
    ExpertProfile,
    PaperSubfield,
    Publication,
    Role,
    Subfield,
    Training,
)
from annotation.models.experts import min_publications
from papers.models import Element, Paper, Section

User = get_user_model()
AnyUser = AbstractBaseUser | AnonymousUser

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


def references() -> QuerySet[Element]:
    """Elements as another element's references (for `Prefetch`): by position only. The model's
    default ordering (paper, order) lets PostgreSQL walk the whole elements table along that
    index to join a handful of rows (issue 21 measured curation at 23 ms of SQL with 17,355
    elements against 0.5 ms with 646)."""
    return Element.objects.order_by("order", "id")


# --- Experts -------------------------------------------------------------------------------


def eligibility_by_expert(
    user_ids: Sequence[int], codes: Sequence[str]
) -> dict[int, dict[str, Eligibility]]:
    """For each user and subfield code, whether they are eligible and why not (four queries)."""
    profiles = {
        p.user_id: p
        for p in ExpertProfile.objects.filter(user_id__in=user_ids).prefetch_related("subfields")
    }
    publications: dict[tuple[int, str], int] = {
        (row["expert__user_id"], row["subfield__code"]): row["n"]
        for row in Publication.objects.filter(expert__user_id__in=user_ids)
        .values("expert__user_id", "subfield__code")
        .annotate(n=Count("id"))
    }
    trained = set(
        Training.objects.filter(expert__user_id__in=user_ids).values_list(
            "expert__user_id", flat=True
        )
    )
    required = min_publications()
    result: dict[int, dict[str, Eligibility]] = {}
    for user_id in user_ids:
        profile = profiles.get(user_id)
        declared = {s.code for s in profile.subfields.all()} if profile else set()
        result[user_id] = {
            code: judge_eligibility(
                subfield=code,
                has_profile=profile is not None,
                active=bool(profile and profile.active and profile.archived_at is None),
                declared=code in declared,
                publications=publications.get((user_id, code), 0),
                trained=user_id in trained,
                required=required,
            )
            for code in codes
        }
    return result


def eligible_codes_query(user_id: int) -> QuerySet:
    """The codes of the subfields `user_id` is eligible for, as one query (usable as a subquery):
    the rule of `judge_eligibility`, an active profile listing the subfield, the training, and
    enough publications in it."""
    publications = (
        Publication.objects.filter(expert__user_id=user_id, subfield=OuterRef("pk"))
        .order_by()
        .values("subfield")
        .annotate(n=Count("id"))
        .values("n")
    )
    return (
        Subfield.objects.filter(
            experts__user_id=user_id, experts__active=True, experts__archived_at__isnull=True
        )
        .filter(Exists(Training.objects.filter(expert__user_id=user_id)))
        .annotate(n_publications=Coalesce(Subquery(publications), 0))
        .filter(n_publications__gte=min_publications())
        .order_by()
        .values("code")
    )


def eligible_experts(code: str) -> QuerySet:
    """Active users whose active expert profile is eligible for the subfield `code`."""
    declared = ExpertProfile.subfields.through.objects.filter(
        expertprofile_id=OuterRef("expert"), subfield__code=code
    )
    publications = (
        Publication.objects.filter(expert=OuterRef("expert"), subfield__code=code)
        .values("expert")
        .annotate(n=Count("id"))
        .values("n")
    )
    return (
        User.objects.filter(is_active=True, expert__active=True, expert__archived_at__isnull=True)
        .filter(Exists(declared), Exists(Training.objects.filter(expert=OuterRef("expert"))))
        .annotate(subfield_publications=Coalesce(Subquery(publications), 0))
        .filter(subfield_publications__gte=min_publications())
        .order_by("username")
    )


def open_workload(user_ids: Iterable[int] | None = None) -> dict[int, int]:
    """Open assignments per expert (all roles, all subfields)."""
    rows = Assignment.objects.filter(status__in=Assignment.OPEN)
    if user_ids is not None:
        rows = rows.filter(expert_id__in=list(user_ids))
    return dict(rows.values("expert_id").annotate(n=Count("id")).values_list("expert_id", "n"))


def experts(*, active_only: bool = False) -> QuerySet:
    """Users with an expert profile, with their profile; `active_only`: those who may get work
    (an enabled account, an active profile that is not archived)."""
    users = User.objects.filter(expert__isnull=False)
    if active_only:
        users = users.filter(is_active=True, expert__active=True, expert__archived_at__isnull=True)
    return users.select_related("expert").order_by("username")


def is_active_expert(user: AbstractBaseUser) -> bool:
    profile = getattr(user, "expert", None)
    return bool(user.is_active and profile and profile.active and profile.archived_at is None)


def people(*, show: str = "", search: str = "") -> QuerySet:
    """Accounts for the People page. show: '' active (enabled, not archived, and an active
    profile if they have one), 'inactive' (disabled or an inactive profile, not archived),
    'archived', 'all'; search: in username and names."""
    users = User.objects.select_related("expert").order_by("-is_active", "username")
    archived = Q(expert__archived_at__isnull=False)
    inactive = Q(is_active=False) | Q(expert__active=False)
    if show == "archived":
        users = users.filter(archived)
    elif show == "inactive":
        users = users.filter(inactive).exclude(archived)
    elif show != "all":
        users = users.exclude(archived).exclude(inactive)
    if search:
        users = users.filter(
            Q(username__icontains=search)
            | Q(first_name__icontains=search)
            | Q(last_name__icontains=search)
        )
    return users.annotate(archived_at=F("expert__archived_at"))


# --- Access --------------------------------------------------------------------------------


def can_view_paper(user: AnyUser, paper_id: int) -> bool:
    """Staff see every paper; an expert sees the papers they hold an open assignment for."""
    if not user.is_authenticated:
        return False
    if user.is_staff:
        return True
    return Assignment.objects.filter(
        paper_id=paper_id, expert_id=user.pk, status__in=Assignment.OPEN
    ).exists()


def can_curate(user: AnyUser, paper_id: int) -> bool:
    if not user.is_authenticated:
        return False
    if user.is_staff:
        return True
    return Assignment.objects.filter(
        paper_id=paper_id, expert_id=user.pk, role=Role.WRITER, status__in=Assignment.OPEN
    ).exists()


def visible_papers(user: AnyUser, queryset: QuerySet[Paper] | None = None) -> QuerySet[Paper]:
    queryset = Paper.objects.all() if queryset is None else queryset
    if user.is_staff:
        return queryset
    mine = Assignment.objects.filter(
        paper=OuterRef("pk"), expert_id=user.pk, status__in=Assignment.OPEN
    )
    return queryset.filter(Exists(mine))


# Media files live at papers/<arxiv id>v<version>/<import folder>/<file> (papers/services.py).
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


# --- The workspace -------------------------------------------------------------------------


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
    subfields = list(Subfield.objects.all())
    return Workspace(
        to_curate=[i for i in items if i.assignment.status == AssignmentStatus.ASSIGNED],
        curated=[i for i in items if i.assignment.status == AssignmentStatus.CURATED],
        eligibility=eligibility_by_expert([user.pk], [s.code for s in subfields])[user.pk],
        subfields=subfields,
    )


# --- Assignment overview (admins) ----------------------------------------------------------


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


@dataclass
class ElementState:
    element: Element
    kept: bool = True
    not_a_chart: bool = False


@dataclass
class SectionState:
    section: Section
    kept: bool
    proposed: bool
    elements: list[ElementState] = field(default_factory=list)
    in_context: bool = True
    proposal_root: bool = False


@dataclass
class CurationPage:
    paper: Paper
    sections: list[SectionState]
    versions: list[CuratedContext]
    shown: CuratedContext | None
    counts: ContextCounts
    unsaved: bool = False

    @property
    def latest(self) -> CuratedContext | None:
        return self.versions[0] if self.versions else None

    @property
    def proposal_pending(self) -> bool:
        return self.shown is None

    @property
    def proposed(self) -> list[SectionState]:
        """Proposed removals, outermost only (removing a section removes what it holds)."""
        return [s for s in self.sections if s.proposal_root]

    @property
    def proposed_inside(self) -> int:
        return sum(1 for s in self.sections if s.proposed and not s.proposal_root)


def curation_page(paper: Paper, version: int | None = None) -> CurationPage:
    """Everything the curation page shows, in a fixed number of queries whatever the paper's
    size: sections, elements (with the tables/charts each paragraph refers to), versions, and
    the decisions of the version shown (the latest unless `version` is given)."""
    from django.db.models import Prefetch

    versions = list(
        CuratedContext.objects.filter(paper=paper).select_related("created_by").order_by("-number")
    )
    shown = versions[0] if version is None and versions else None
    if version is not None:
        shown = next((v for v in versions if v.number == version), None)
        if shown is None:
            raise CuratedContext.DoesNotExist(f"{paper.versioned_id} has no context v{version}")
    sections = list(
        Section.objects.filter(paper=paper)
        .order_by("order")
        .only("id", "anchor", "number", "title", "level", "parent_id", "order", "kind")
    )
    elements = (
        Element.objects.filter(paper=paper)
        .order_by("order")
        .only(
            "id",
            "section_id",
            "kind",
            "anchor",
            "order",
            "label",
            "number",
            "caption",
            "text",
            "is_image_table",
            "degraded",
            "image",
            "image_error",
        )
        .annotate(has_table_html=ExpressionWrapper(~Q(table_html=""), output_field=BooleanField()))
        .prefetch_related(
            Prefetch("references", queryset=references().only("id", "anchor", "label"))
        )
    )
    section_kept: dict[int, bool] = {}
    element_state: dict[int, tuple[bool, bool]] = {}
    if shown is not None:
        section_kept = dict(
            CuratedSection.objects.filter(context=shown).values_list("section_id", "kept")
        )
        element_state = {
            row[0]: (row[1], row[2])
            for row in CuratedElement.objects.filter(context=shown).values_list(
                "element_id", "kept", "not_a_chart"
            )
        }
    states = {
        s.pk: SectionState(
            section=s,
            kept=section_kept.get(s.pk, True),
            proposed=proposed_for_removal(s.kind),
        )
        for s in sections
    }
    for state in states.values():
        parent = states.get(state.section.parent_id) if state.section.parent_id else None
        state.proposal_root = state.proposed and not (parent and parent.proposed)
    for element in elements:
        kept, not_a_chart = element_state.get(element.pk, (True, False))
        states[element.section_id].elements.append(ElementState(element, kept, not_a_chart))
    page = CurationPage(
        paper=paper,
        sections=[states[s.pk] for s in sections],
        versions=versions,
        shown=shown,
        counts=ContextCounts(0, 0, 0, 0),
    )
    return _recount(page)


def _recount(page: CurationPage) -> CurationPage:
    live = sections_in_context(
        {s.section.pk: s.section.parent_id for s in page.sections},
        {s.section.pk for s in page.sections if s.kept},
    )
    for state in page.sections:
        state.in_context = state.section.pk in live
    page.counts = count_context(
        (e.element.kind, e.not_a_chart)
        for s in page.sections
        if s.in_context
        for e in s.elements
        if e.kept
    )
    return page


def with_decisions(
    page: CurationPage, kept_sections: set[int], kept_elements: set[int], not_charts: set[int]
) -> CurationPage:
    """The page showing decisions that were posted but not saved (after a refused save)."""
    for section in page.sections:
        section.kept = section.section.pk in kept_sections
        for state in section.elements:
            state.kept = state.element.pk in kept_elements
            state.not_a_chart = state.element.pk in not_charts
    page.unsaved = True
    return _recount(page)


def latest_context(paper_id: int) -> CuratedContext | None:
    return CuratedContext.objects.filter(paper_id=paper_id).order_by("-number").first()


def papers_by_ids(ids: Iterable[int]) -> list[Paper]:
    return list(
        papers_with_subfield(Paper.objects.filter(pk__in=list(ids)).defer("raw_html_compressed"))
    )


def context_decisions(paper_id: int, number: int | None) -> Decisions | None:
    """What version `number` of a paper's curated context chose (None: no such version)."""
    if number is None:
        return None
    context = CuratedContext.objects.filter(paper_id=paper_id, number=number).only("id").first()
    if context is None:
        return None
    sections = CuratedSection.objects.filter(context=context, kept=True).values_list(
        "section_id", flat=True
    )
    elements, not_charts = set(), set()
    for pk, kept, not_a_chart in CuratedElement.objects.filter(context=context).values_list(
        "element_id", "kept", "not_a_chart"
    ):
        if kept:
            elements.add(pk)
        if not_a_chart:
            not_charts.add(pk)
    return Decisions(frozenset(sections), frozenset(elements), frozenset(not_charts))
