"""Queries of the review stage: the blind annotation page, the adjudication page, queues, the
admins' overview and what may be released (each page in a fixed number of queries)."""

from __future__ import annotations

from dataclasses import dataclass, field

from django.contrib.auth.models import AbstractBaseUser
from django.db.models import Count, QuerySet

from annotation import fragments
from annotation import inputs as parse
from annotation.models import (
    AdjudicationDecision,
    Claim,
    ClaimReview,
    EvidenceAnnotation,
    PairReview,
    ReviewState,
    WorkItem,
    WorkKind,
)
from annotation.queue import work
from annotation.writing.selectors import ELEMENT_FIELDS
from papers.models import Element, Section


@dataclass
class ReviewPage:
    """What a review page shows. Built from the task (the sampled tables/charts and their
    paragraphs), never from the writer's annotation, so the blind page cannot reveal it."""

    item: WorkItem
    claim_text: str
    paper_title: str
    visuals: list[Element]
    paragraphs: list[Element]
    extra: list[Element] = field(default_factory=list)


def _elements(paper_id: int, wanted: set[int]) -> dict[int, Element]:
    """The elements a review page shows, with their sections' titles and their bodies on the
    review view (annotation/fragments.py: the same for every viewer, no marks, and no
    reference links: their references are not read)."""
    elements = {
        e.pk: e
        for e in Element.objects.filter(paper_id=paper_id, pk__in=wanted).only(*ELEMENT_FIELDS)
    }
    sections = {
        s.pk: s
        for s in Section.objects.filter(pk__in={e.section_id for e in elements.values()}).only(
            "id", "number", "title"
        )
    }
    for element in elements.values():
        section = sections.get(element.section_id)
        element.section_title = f"{section.number} {section.title}".strip() if section else ""
    fragments.attach(elements.values(), fragments.REVIEW)
    return elements


# What a review page reads with its item, in the same statement; of the paper only what the
# page shows (its stored HTML, abstract and authors stay in the database).
PAGE_RELATED = {
    WorkKind.BLIND: ("pair__task", "paper", "claim"),
    WorkKind.ADJUDICATE: ("pair__task", "paper", "claim", "claim__review"),
}
PAPER_UNSHOWN = ("raw_html_compressed", "abstract", "authors", "comment", "journal_ref")


def page_items(kind: str) -> QuerySet[WorkItem]:
    """Items of `kind` as its page reads them: one statement with PAGE_RELATED joined. A view
    that reads its item so passes it on to `annotation_page` / `adjudication_page`."""
    return (
        WorkItem.objects.filter(kind=kind)
        .select_related(*PAGE_RELATED[kind])
        .defer(*(f"paper__{name}" for name in PAPER_UNSHOWN))
    )


def _page_item(item: WorkItem, kind: str) -> WorkItem:
    """`item` if `page_items` read it (its relations are joined), else read so."""
    if item.kind == kind and all(
        WorkItem._meta.get_field(name.split("__")[0]).is_cached(item) for name in PAGE_RELATED[kind]
    ):
        return item
    return page_items(kind).get(pk=item.pk)


def annotation_page(item: WorkItem) -> ReviewPage:
    """The blind page: the claim's text and the task's context, nothing of its annotation."""
    item = _page_item(item, WorkKind.BLIND)
    task = item.pair.task
    draft_ids = parse.draft_ids(item.draft, "evidence")
    shown = set(task.sampled_ids) | set(task.paragraph_ids)
    elements = _elements(item.paper_id, shown | draft_ids)
    return ReviewPage(
        item=item,
        claim_text=item.claim.text,
        paper_title=item.paper.title or item.paper.versioned_id,
        visuals=[elements[pk] for pk in task.sampled_ids if pk in elements],
        paragraphs=[elements[pk] for pk in task.paragraph_ids if pk in elements],
        extra=sorted((e for pk, e in elements.items() if pk not in shown), key=lambda e: e.order),
    )


@dataclass
class Side:
    """One annotation as the adjudicator sees it: no name."""

    role: str
    label: str
    evidence: set[int]
    explanation: str = ""


@dataclass
class AdjudicationPage(ReviewPage):
    sides: list[Side] = field(default_factory=list)
    disagreement: str = ""
    jaccard: float | None = None
    earlier: int = 0  # earlier adjudications that left the claim unresolved


def adjudication_page(item: WorkItem) -> AdjudicationPage:
    item = _page_item(item, WorkKind.ADJUDICATE)
    claim, task = item.claim, item.pair.task
    written = set(
        Claim.evidence.through.objects.filter(claim_id=claim.pk).values_list(
            "element_id", flat=True
        )
    )
    second = EvidenceAnnotation.objects.only("id", "label").get(claim_id=claim.pk)
    seconded = set(
        EvidenceAnnotation.evidence.through.objects.filter(
            evidenceannotation_id=second.pk
        ).values_list("element_id", flat=True)
    )
    draft_ids = parse.draft_ids(item.draft, "evidence")
    shown = set(task.sampled_ids) | set(task.paragraph_ids)
    elements = _elements(item.paper_id, shown | written | seconded | draft_ids)
    for element in elements.values():
        element.marked_by = [s for s, ids in (("W", written), ("S", seconded)) if element.pk in ids]
    return AdjudicationPage(
        item=item,
        claim_text=claim.text,
        paper_title=item.paper.title or item.paper.versioned_id,
        visuals=[elements[pk] for pk in task.sampled_ids if pk in elements],
        paragraphs=[elements[pk] for pk in task.paragraph_ids if pk in elements],
        extra=sorted((e for pk, e in elements.items() if pk not in shown), key=lambda e: e.order),
        sides=[
            Side("Writer", claim.label, written, claim.explanation),
            Side("Second annotator", second.label, seconded),
        ],
        disagreement=claim.review.disagreement,
        jaccard=claim.review.evidence_jaccard,
        earlier=claim.adjudications.exclude(item_id=item.pk)
        .filter(decision=AdjudicationDecision.UNRESOLVED)
        .count(),
    )


@dataclass
class ReviewQueue:
    held_evidence: WorkItem | None
    evidence_available: int
    annotated: int
    held_adjudication: WorkItem | None
    adjudications_available: int
    adjudicated: int

    @property
    def to_annotate(self) -> int:
        return self.evidence_available + (1 if self.held_evidence else 0)

    @property
    def to_adjudicate(self) -> int:
        return self.adjudications_available + (1 if self.held_adjudication else 0)


def review_queue(user: AbstractBaseUser, queue: work.Queue | None = None) -> ReviewQueue:
    queue = queue or work.queue(user)
    return ReviewQueue(
        held_evidence=queue.held.get(WorkKind.BLIND),
        evidence_available=queue.available[WorkKind.BLIND],
        annotated=queue.done.get(WorkKind.BLIND, 0),
        held_adjudication=queue.held.get(WorkKind.ADJUDICATE),
        adjudications_available=queue.available[WorkKind.ADJUDICATE],
        adjudicated=queue.done.get(WorkKind.ADJUDICATE, 0),
    )


@dataclass
class ReviewOverview:
    states: dict[str, int]
    waiting_total: int
    waiting: list[work.WaitingItem]
    unresolved: list[ClaimReview]
    flagged: list[PairReview]
    dropped: list[PairReview]

    @property
    def state_labels(self) -> list[tuple[str, int]]:
        """(what a person reads, count): "awaiting second annotation", not "second"."""
        return [(ReviewState(state).label, n) for state, n in self.states.items()]


def review_overview() -> ReviewOverview:
    """For admins: claims by state, review items nobody eligible can take (with the reason),
    unresolved claims, pairs whose two claims went to one person, dropped pairs."""
    states = dict.fromkeys(ReviewState.values, 0)
    # Current claims only: a refuted claim replaced by a new perturbation is history. Counted
    # by the database, a row per state (order_by(): no ordering column in the GROUP BY).
    for row in (
        ClaimReview.objects.filter(claim__superseded_at__isnull=True)
        .order_by()
        .values("state")
        .annotate(n=Count("pk"))
    ):
        states[row["state"]] += row["n"]
    waiting: list[work.WaitingItem] = []
    total = 0
    for kind in (WorkKind.BLIND, WorkKind.ADJUDICATE):
        n, rows = work.waiting_items(kind)
        total, waiting = total + n, waiting + rows
    return ReviewOverview(
        states=states,
        waiting_total=total,
        waiting=waiting,
        unresolved=list(
            ClaimReview.objects.filter(state=ReviewState.UNRESOLVED)
            .select_related("claim__pair__paper")
            .defer("claim__pair__paper__raw_html_compressed")
            .prefetch_related("claim__adjudications")
        ),
        flagged=list(
            PairReview.objects.filter(same_second_annotator=True, dropped=False)
            .select_related("pair__paper")
            .defer("pair__paper__raw_html_compressed")
        ),
        dropped=list(PairReview.objects.filter(dropped=True).select_related("pair", "dropped_by")),
    )


def releasable_claims() -> QuerySet[Claim]:
    """Claims whose label and evidence are final (unanimous or adjudicated) in a pair that was
    not dropped: unresolved, pending and dropped claims never reach a release (the one rule,
    `Claim.objects.final()`)."""
    return Claim.objects.final()
