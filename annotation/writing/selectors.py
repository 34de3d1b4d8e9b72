"""Queries of claim writing: a task's context, the writing page, suggestions, warnings,
the new-perturbation page, queues, history."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Collection
from dataclasses import dataclass, field

from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser
from django.db.models import (
    Aggregate,
    Case,
    CharField,
    Count,
    Exists,
    F,
    OuterRef,
    Prefetch,
    Q,
    QuerySet,
    Subquery,
    TextField,
    Value,
    When,
)
from django.db.models.functions import Cast, Concat

from annotation import events as audit
from annotation import fragments
from annotation import inputs as parse
from annotation.curation import selectors as curation_selectors
from annotation.models import (
    Adjudication,
    Claim,
    ClaimLabel,
    ClaimPair,
    ClaimReview,
    ClaimTask,
    CuratedContext,
    CuratedElement,
    EvidenceAnnotation,
    WorkEvent,
    WorkItem,
    WorkKind,
    WorkStatus,
)
from annotation.models.review import FINAL_STATES
from annotation.queue import work
from annotation.writing import history as writing_history
from annotation.writing import rewrites
from annotation.writing import warnings as claim_warnings
from annotation.writing.perturbation import (
    EvidenceChart,
    EvidenceTable,
    Suggestion,
    perturbation_suggestions,
)
from annotation.writing.rules import SUBSET_GUIDE, ContextElement
from papers.models import Element, Paper, Section
from papers.parsing.document import Cell, GridTooLarge, grid_occupancy
from papers.render.limits import MAX_GRID_SLOTS

ELEMENT_FIELDS = (
    "id",
    "section_id",
    "kind",
    "anchor",
    "order",
    "label",
    "number",
    "caption",
    "text",
    "image",
    "vector",
    "image_error",
    "degraded",
)


def _in_context(context: CuratedContext) -> QuerySet[CuratedElement]:
    return CuratedElement.objects.filter(context=context, in_context=True)


def context_layout(
    context: CuratedContext,
) -> tuple[list[ContextElement], dict[int, set[int]]]:
    """The context's elements in reading order (figures marked 'not a chart' left out of the
    tables/charts) and, per paragraph, the tables/charts it references (two queries)."""
    rows = _in_context(context).values_list(
        "element_id", "element__section_id", "element__kind", "element__order", "not_a_chart"
    )
    elements = [
        ContextElement(pk, section, "figure" if not_chart else kind, order)
        for pk, section, kind, order, not_chart in rows
    ]
    ids = {e.id for e in elements}
    references: dict[int, set[int]] = defaultdict(set)
    for source, target in Element.references.through.objects.filter(
        from_element_id__in=ids
    ).values_list("from_element_id", "to_element_id"):
        if target in ids:
            references[source].add(target)
    return elements, references


def evidence_kinds_and_texts(context: CuratedContext) -> tuple[dict[int, str], list[str]]:
    """Kinds of the elements evidence may cite (the context's), and its paragraphs' texts."""
    kinds: dict[int, str] = {}
    texts: list[str] = []
    for pk, kind, not_chart, text in _in_context(context).values_list(
        "element_id", "element__kind", "not_a_chart", "element__text"
    ):
        kinds[pk] = "figure" if not_chart else kind
        if kind == Element.Kind.PARAGRAPH:
            texts.append(text)
    return kinds, texts


class _Joined(Aggregate):
    """The rows' texts joined with commas, in no particular order (STRING_AGG on PostgreSQL,
    GROUP_CONCAT on SQLite)."""

    function = "STRING_AGG"
    template = "%(function)s(%(expressions)s, ',')"
    output_field = TextField()

    def as_sqlite(self, compiler, connection, **extra):
        return super().as_sql(compiler, connection, function="GROUP_CONCAT", **extra)


def kinds_and_cited(context_id: object, claim_id: object) -> Subquery:
    """An expression (`context_id`, `claim_id`: values or OuterRefs) for the elements evidence
    may cite in the context, with their kinds, and which of them the claim's writer cited, as
    one text ("12:table:1,13:paragraph:0,…"; `read_kinds_and_cited` reads it): a statement that
    reads a claim's item can bring them along. A context with nothing in it gives NULL."""
    if isinstance(claim_id, OuterRef):  # asked one level further in, in `cited`
        claim_id = OuterRef(claim_id)
    cited = Claim.evidence.through.objects.filter(
        claim_id=claim_id, element_id=OuterRef("element_id")
    )
    kind = Case(When(not_a_chart=True, then=Value("figure")), default=F("element__kind"))
    row = Concat(
        Cast("element_id", CharField()),
        Value(":"),
        kind,
        Value(":"),
        Case(When(Exists(cited), then=Value("1")), default=Value("0")),
        output_field=CharField(),
    )
    joined = (
        CuratedElement.objects.filter(context_id=context_id, in_context=True)
        .order_by()
        .values("context_id")
        .annotate(joined=_Joined(row))
        .values("joined")
    )
    return Subquery(joined, output_field=TextField())


def read_kinds_and_cited(text: str | None) -> tuple[dict[int, str], set[int]]:
    """What `kinds_and_cited` gives: kinds by element id, and the ids the writer cited."""
    kinds: dict[int, str] = {}
    written: set[int] = set()
    for entry in (text or "").split(","):
        if entry:
            pk, kind, was_cited = entry.split(":")
            kinds[int(pk)] = kind
            if was_cited == "1":
                written.add(int(pk))
    return kinds, written


def evidence_kinds_and_cited(
    context: CuratedContext, claim_id: int
) -> tuple[dict[int, str], set[int]]:
    """Kinds of the elements evidence may cite (as `evidence_kinds_and_texts`, a figure marked
    'not a chart' as "figure") and which of them the claim's writer cited, in one query (a
    claim's evidence is in the context it was written on)."""
    return read_kinds_and_cited(
        CuratedContext.objects.filter(pk=context.pk)
        .values_list(kinds_and_cited(OuterRef("pk"), claim_id), flat=True)
        .get()
    )


@dataclass
class WritingPage:
    item: WorkItem
    task: ClaimTask
    paper: Paper
    sampled: list[Element]
    paragraphs: list[Element]
    sections: dict[int, Section]
    evidence_extra: list[Element]
    definition: str = ""
    example: str = ""
    queue_left: int = 0

    @property
    def sampled_ids(self) -> set[int]:
        return {e.pk for e in self.sampled}


def writing_page(item_id: int, user: AbstractBaseUser) -> WritingPage:
    """Everything the writing page shows, in a fixed number of queries whatever the paper's
    size: the item and task, the sampled elements, their paragraphs and sections, and any other
    evidence the draft marked (the whole context loads on demand)."""
    item = WorkItem.objects.select_related("task", "task__context", "paper", "holder", "pair").get(
        pk=item_id, kind=WorkKind.WRITE
    )
    task = item.task
    draft_ids = parse.draft_ids(item.draft, "evidence", "refuted_evidence")
    wanted = set(task.sampled_ids) | set(task.paragraph_ids) | draft_ids
    elements = {
        e.pk: e
        for e in Element.objects.filter(paper_id=item.paper_id, pk__in=wanted)
        .only(*ELEMENT_FIELDS)
        .prefetch_related(Prefetch("references", queryset=curation_selectors.references()))
    }
    sections = {
        s.pk: s
        for s in Section.objects.filter(pk__in={e.section_id for e in elements.values()}).only(
            "id", "anchor", "number", "title"
        )
    }
    for element in elements.values():
        section = sections.get(element.section_id)
        element.section_title = f"{section.number} {section.title}".strip() if section else ""
    fragments.attach(elements.values(), fragments.WRITER)
    shown = set(task.sampled_ids) | set(task.paragraph_ids)
    definition, example = SUBSET_GUIDE[task.subset]
    return WritingPage(
        item=item,
        task=task,
        paper=item.paper,
        sampled=[elements[pk] for pk in task.sampled_ids if pk in elements],
        paragraphs=[elements[pk] for pk in task.paragraph_ids if pk in elements],
        sections=sections,
        evidence_extra=sorted(
            (e for pk, e in elements.items() if pk not in shown), key=lambda e: e.order
        ),
        definition=definition,
        example=example,
    )


@dataclass
class ContextSection:
    section: Section
    elements: list[Element] = field(default_factory=list)


def full_context(task: ClaimTask, view: str) -> list[ContextSection]:
    """The task's whole curated context in reading order, each element with its body on `view`
    (annotation/fragments.py): two queries, and on the writer's view a third, the paragraphs'
    references (its bodies link them)."""
    in_context = _in_context(task.context)
    found = (
        Element.objects.filter(pk__in=in_context.values("element_id"))
        .select_related("section")
        .only(
            *ELEMENT_FIELDS,
            "section__anchor",
            "section__number",
            "section__title",
            "section__order",
        )
        .order_by("order")
    )
    if view == fragments.WRITER:
        found = found.prefetch_related(
            Prefetch("references", queryset=curation_selectors.references())
        )
    elements = list(found)
    fragments.attach(elements, view)
    out: dict[int, ContextSection] = {}
    for element in elements:
        out.setdefault(element.section_id, ContextSection(element.section)).elements.append(element)
    return list(out.values())


def evidence_elements(
    task: ClaimTask, evidence_ids: set[int]
) -> tuple[list[EvidenceTable], list[EvidenceChart]]:
    """The tables and charts of the evidence (else the sampled ones) as the suggester reads
    them: tables on their column grid, captions, and the context's paragraphs that cite each
    (three queries, whatever the evidence)."""
    allowed = set(task.candidate_ids)
    ids = (evidence_ids & allowed) or set(task.sampled_ids)
    elements = sorted(
        Element.objects.filter(pk__in=ids, kind__in=[Element.Kind.TABLE, Element.Kind.CHART]).only(
            "id", "kind", "label", "caption", "cells", "order"
        ),
        key=lambda e: e.order,
    )
    citing: dict[int, list[str]] = defaultdict(list)
    links = Element.references.through.objects.filter(
        to_element_id__in=[e.pk for e in elements],
        from_element_id__in=CuratedElement.objects.filter(
            context_id=task.context_id, in_context=True
        ).values("element_id"),
    ).values_list("from_element_id", "to_element_id")
    by_paragraph: dict[int, list[int]] = defaultdict(list)
    for source, target in links:
        by_paragraph[source].append(target)
    for pk, text in (
        Element.objects.filter(pk__in=by_paragraph, kind=Element.Kind.PARAGRAPH)
        .order_by("order")
        .values_list("pk", "text")
    ):
        for target in by_paragraph[pk]:
            citing[target].append(text)
    tables, charts = [], []
    for element in elements:
        label = element.label or element.kind
        paragraphs = tuple(citing[element.pk])
        if element.kind == Element.Kind.CHART:
            charts.append(EvidenceChart(label, element.caption, paragraphs))
            continue
        for grid in element.cells or []:
            rows = _aligned_rows(grid)
            if rows:
                tables.append(EvidenceTable(label, rows, element.caption, paragraphs))
    return tables, charts


def _aligned_rows(stored: list[list[dict]]) -> list[list[str]]:
    """Cell texts laid out as a browser lays the table out: a spanned cell's text fills every
    slot it covers, so a column holds one column's values even below a multi-row header."""
    grid = [
        [
            Cell(
                text=str(cell.get("text", "")),
                rowspan=int(cell.get("rowspan") or 1),
                colspan=int(cell.get("colspan") or 1),
            )
            for cell in row
        ]
        for row in stored
    ]
    try:
        placed, matrix = grid_occupancy(grid, limit=MAX_GRID_SLOTS)
    except GridTooLarge:  # spans no browser would lay out: the rows as written
        return [[cell.text for cell in row] for row in grid]
    return [["" if i is None else placed[i].cell.text for i in row] for row in matrix]


def suggestions(task: ClaimTask, claim: str, evidence_ids: set[int]) -> list[Suggestion]:
    """Refuted rewrites of `claim` from its evidence, each saying where its value comes from."""
    tables, charts = evidence_elements(task, evidence_ids)
    return perturbation_suggestions(claim, tables=tables, charts=charts)


def warnings_for(
    task: ClaimTask,
    *,
    entailed: str,
    refuted: str,
    evidence: Collection[int] = (),
    refuted_evidence: Collection[int] | None = None,
) -> dict[str, list[claim_warnings.Warning]]:
    """The automatic warnings (never blocking) on what the writer typed, per claim, with the
    context's paragraphs, the task's sampled tables/charts and each claim's marked evidence
    (`evidence`; the refuted claim's own when it uses different evidence, else the same): two
    queries. A claim's length is no warning here: for the writer it is a rule
    (`rules.check_pair`), refused beside the field and counted under it."""
    _, paragraphs = evidence_kinds_and_texts(task.context)
    evidence = set(evidence)
    refuted_marked = evidence if refuted_evidence is None else set(refuted_evidence)
    sampled = set(task.sampled_ids)
    visuals: list[str] = []
    named: dict[int, tuple[str, str, str]] = {}
    for pk, kind, label, number, caption, cells in (
        Element.objects.filter(paper_id=task.paper_id, pk__in=sampled | evidence | refuted_marked)
        .exclude(kind=Element.Kind.PARAGRAPH)
        .order_by("order")
        .values_list("pk", "kind", "label", "number", "caption", "cells")
    ):
        if pk in sampled:
            visuals.append(claim_warnings.visual_text(caption, cells))
        named[pk] = (kind, label, number)
    bounds = {"low": settings.CLAIM_MIN_WORDS, "high": settings.CLAIM_MAX_WORDS}
    found: dict[str, list[claim_warnings.Warning]] = {}
    if entailed.strip():
        found["entailed"] = claim_warnings.claim_warnings(
            text=entailed,
            paragraphs=paragraphs,
            visuals=visuals,
            evidence=[named[pk] for pk in named if pk in evidence],
            **bounds,
        )
    if refuted.strip():
        found["refuted"] = claim_warnings.claim_warnings(
            text=refuted,
            entailed=entailed,
            refuted=refuted,
            paragraphs=paragraphs,
            visuals=visuals,
            evidence=[named[pk] for pk in named if pk in refuted_marked],
            **bounds,
        )
    found = {name: [w for w in ws if w.code != "length"] for name, ws in found.items()}
    return {name: ws for name, ws in found.items() if ws}


def needs_reason(found: dict[str, list[claim_warnings.Warning]]) -> bool:
    """Whether the warnings hold one the writer may acknowledge with a reason (a claim naming a
    table or figure not among its evidence)."""
    return any(w.code == "reference_mismatch" for ws in found.values() for w in ws)


# --- A new perturbation ------------------------------------------------------------------------


def current_claim(pair: ClaimPair, label: str) -> Claim:
    return Claim.objects.current().select_related("review").get(pair=pair, label=label)


def final_or_written_evidence(claim: Claim) -> set[int]:
    """The claim's final evidence once it has one, else what its writer marked."""
    review = ClaimReview.objects.filter(claim=claim).first()
    if review is not None and review.state in [s.value for s in FINAL_STATES]:
        return set(review.final_evidence.values_list("pk", flat=True))
    return set(claim.evidence.values_list("pk", flat=True))


@dataclass(frozen=True)
class ValidatorChange:
    """One field a validator changed on a claim, as its validation item's history recorded it."""

    field: str
    before: object
    after: object
    criteria_failed: list[str]
    by: AbstractBaseUser | None


@dataclass
class FailedPerturbation:
    """A refuted claim that turned out true, and why: who said entailed, with their notes."""

    claim: Claim
    review: ClaimReview | None
    second: EvidenceAnnotation | None
    adjudications: list[Adjudication]
    revisions: list[ValidatorChange]  # what its validators changed: label, text, …
    reopen_reason: str = ""


@dataclass
class ReperturbationPage:
    item: WorkItem
    pair: ClaimPair
    entailed: Claim
    evidence: list[Element]  # the entailed claim's final evidence, in reading order
    failed: FailedPerturbation
    earlier: list[Claim]  # perturbations of this pair replaced before the failed one
    definition: str = ""
    # More of the context the new claim may cite: the task's other sampled tables/charts, the
    # paragraphs around them, and other elements the draft marked (the rest loads on demand).
    sampled: list[Element] = field(default_factory=list)
    paragraphs: list[Element] = field(default_factory=list)
    extra: list[Element] = field(default_factory=list)
    shown_ids: set[int] = field(default_factory=set)

    @property
    def evidence_ids(self) -> set[int]:
        return {e.pk for e in self.evidence}


# The fields a validator may revise, in the validation form's order (a submission's history
# row keeps each changed one in `old` and `new`; PostgreSQL's jsonb does not keep key order).
VALIDATED_FIELDS = ("text", "subset", "label", "evidence", "explanation")


def validator_changes(claim: Claim) -> tuple[list[ValidatorChange], str]:
    """What the claim's validators changed, and why it was re-opened if it waits for validation
    again, read from its validation items' history: annotation knows nothing of the validation
    stage's tables."""
    events = (
        WorkEvent.objects.filter(
            item__claim=claim, item__kind=WorkKind.VALIDATE, action__in=["submitted", "reopened"]
        )
        .select_related("actor")
        .order_by("at", "id")
    )
    changes: list[ValidatorChange] = []
    reopen_reason = ""
    for event in events:
        if event.action == "reopened":
            reopen_reason = event.note
            continue
        reopen_reason = ""  # validated again since
        new = audit.read(audit.SubmittedNew, event.new)
        old = audit.read(audit.SubmittedOld, event.old)
        changes.extend(
            ValidatorChange(
                name, old.get(name), new[name], list(new.get("criteria_failed", [])), event.actor
            )
            for name in VALIDATED_FIELDS
            if name in new
        )
    return changes, reopen_reason


def _failed(claim: Claim) -> FailedPerturbation:
    revisions, reopen_reason = validator_changes(claim)
    return FailedPerturbation(
        claim=claim,
        review=ClaimReview.objects.filter(claim=claim).first(),
        second=EvidenceAnnotation.objects.filter(claim=claim).select_related("annotator").first(),
        adjudications=list(Adjudication.objects.filter(claim=claim).select_related("adjudicator")),
        revisions=revisions,
        reopen_reason=reopen_reason,
    )


def reperturbation_suggestions(page: ReperturbationPage) -> list[Suggestion]:
    """The suggester's perturbations of the entailed claim, without those that make a change
    already found true for this pair (the perturbation that turned out true and every earlier
    one), compared by the values and words they change, not by their text (`rewrites`)."""
    tried = [c.text for c in [page.failed.claim, *page.earlier]]
    claim = page.entailed.text
    evidence = {e.pk for e in page.evidence}
    return [
        s
        for s in suggestions(page.pair.task, claim, evidence)
        if not rewrites.found_true(claim, s.text, tried)
    ]


def reperturbation_page(item_id: int) -> ReperturbationPage:
    """Everything the new-perturbation page shows: the entailed claim with its evidence (in
    reading order, with sections), the perturbation that turned out true and why, and the
    task's sampled tables/charts and paragraphs the new claim may cite instead."""
    item = WorkItem.objects.select_related(
        "pair__task", "pair__context", "paper", "holder", "claim"
    ).get(pk=item_id, kind=WorkKind.REPERTURB)
    pair = item.pair
    task = pair.task
    entailed = current_claim(pair, ClaimLabel.ENTAILED)
    evidence_ids = final_or_written_evidence(entailed)
    draft_ids = parse.draft_ids(item.draft, "refuted_evidence")
    shown = evidence_ids | set(task.sampled_ids) | set(task.paragraph_ids) | draft_ids
    elements = {
        e.pk: e
        for e in Element.objects.filter(paper_id=pair.paper_id, pk__in=shown)
        .select_related("section")
        .only(*ELEMENT_FIELDS, "section__number", "section__title")
        .prefetch_related(Prefetch("references", queryset=curation_selectors.references()))
        .order_by("order")
    }
    sampled_index = {pk: n for n, pk in enumerate(task.sampled_ids, start=1)}
    for element in elements.values():
        element.section_title = f"{element.section.number} {element.section.title}".strip()
        element.sampled_index = sampled_index.get(element.pk, 0)
    fragments.attach(elements.values(), fragments.WRITER)
    other = set(elements) - evidence_ids
    earlier = list(
        Claim.objects.filter(pair=pair, label=ClaimLabel.REFUTED, superseded_at__isnull=False)
        .exclude(pk=item.claim_id)
        .order_by("superseded_at", "id")
    )
    return ReperturbationPage(
        item=item,
        pair=pair,
        entailed=entailed,
        evidence=[e for pk, e in elements.items() if pk in evidence_ids],
        failed=_failed(item.claim),
        earlier=earlier,
        definition=SUBSET_GUIDE[pair.subset][0],
        sampled=[elements[pk] for pk in task.sampled_ids if pk in other],
        paragraphs=[elements[pk] for pk in task.paragraph_ids if pk in other],
        extra=[
            e
            for pk, e in elements.items()
            if pk in other - set(task.sampled_ids) - set(task.paragraph_ids)
        ],
        shown_ids=set(elements),
    )


def pair_history(pair: ClaimPair) -> list[WorkEvent]:
    """Every history row of the pair: its writing item's from creation on, and the pair's own."""
    return list(
        WorkEvent.objects.filter(Q(pair=pair) | Q(item__pair=pair))
        .select_related("actor", "item", "claim")
        .order_by("at", "id")
    )


def pair_history_words(
    pair: ClaimPair, *, viewer: AbstractBaseUser
) -> list[writing_history.HistoryLine]:
    """The pair's history in words for `viewer` (roles, never another person's name; an admin
    reads the names too), its evidence named as the pages name it (two queries)."""
    history = pair_history(pair)
    ids: set[int] = set()
    for event in history:
        new = audit.new_of(event)
        for payload in (new, new.get("entailed") or {}, new.get("refuted") or {}):
            ids.update(pk for pk in payload.get("evidence") or [] if isinstance(pk, int))
    elements = Element.objects.filter(pk__in=ids).only("id", "kind", "label", "anchor")
    return writing_history.history_lines(
        history,
        viewer_id=viewer.pk,
        names=bool(getattr(viewer, "is_staff", False)),
        labels={e.pk: e.display_name for e in elements},
    )


def pair_detail(pair_id: int) -> ClaimPair:
    return (
        ClaimPair.objects.select_related("paper", "writer", "context", "task")
        .prefetch_related("claims__evidence")
        .get(pk=pair_id)
    )


@dataclass
class WritingQueue:
    held: WorkItem | None
    available: int
    written: int
    recent: list[ClaimPair]
    papers_without_tasks: list[Paper]
    # New perturbations asked of this writer (their pair's last one turned out true).
    reperturb_held: WorkItem | None = None
    reperturb_available: int = 0

    @property
    def to_write(self) -> int:
        return self.available + (1 if self.held else 0)

    @property
    def reperturb_to_write(self) -> int:
        return self.reperturb_available + (1 if self.reperturb_held else 0)


def writing_queue(
    user: AbstractBaseUser, ready_paper_ids: list[int], queue: work.Queue | None = None
) -> WritingQueue:
    """The expert's claims to write: the item they hold, how many they may take, what they
    wrote, and their curated papers that have no claim tasks yet (`queue`: the expert's
    `work.queue`, when the caller has it)."""
    queue = queue or work.queue(user)
    with_tasks = set(
        ClaimTask.objects.filter(paper_id__in=ready_paper_ids).values_list("paper_id", flat=True)
    )
    return WritingQueue(
        held=queue.held.get(WorkKind.WRITE),
        available=queue.available[WorkKind.WRITE],
        written=ClaimPair.objects.filter(writer_id=user.pk).count(),
        recent=list(
            ClaimPair.objects.filter(writer_id=user.pk)
            .select_related("paper")
            .only("id", "key", "subset", "created_at", "paper__arxiv_id", "paper__version")[:5]
        ),
        papers_without_tasks=list(
            Paper.objects.filter(pk__in=set(ready_paper_ids) - with_tasks).only(
                "id", "arxiv_id", "version", "title"
            )
        ),
        reperturb_held=queue.held.get(WorkKind.REPERTURB),
        reperturb_available=queue.available[WorkKind.REPERTURB],
    )


@dataclass
class WritingOverview:
    counts: dict[str, int]
    written_by: list[tuple[str, int, int]]  # username, pairs written, items held
    waiting_total: int
    waiting: list[work.WaitingItem]
    recent: list[ClaimPair]


def writing_overview() -> WritingOverview:
    """For admins: writing items by status, pairs written per expert, and items waiting
    because no eligible expert can take them (with the reason)."""
    written = dict(
        ClaimPair.objects.filter(paper__archived_at__isnull=True)
        .values("writer__username")
        .annotate(n=Count("id"))
        .values_list("writer__username", "n")
    )
    held = dict(
        WorkItem.objects.filter(
            kind=WorkKind.WRITE, status=WorkStatus.LEASED, paper__archived_at__isnull=True
        )
        .values("holder__username")
        .annotate(n=Count("id"))
        .values_list("holder__username", "n")
    )
    names = sorted(set(written) | set(held))
    total, waiting = work.waiting_items(WorkKind.WRITE)
    return WritingOverview(
        counts=work.status_counts(WorkKind.WRITE),
        written_by=[(n, written.get(n, 0), held.get(n, 0)) for n in names],
        waiting_total=total,
        waiting=waiting,
        recent=list(ClaimPair.objects.select_related("paper", "writer")[:10]),
    )
