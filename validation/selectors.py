"""Queries of the validation stage: final claims, validated pairs, pages' data in fixed queries."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from django.contrib.auth.models import AbstractBaseUser
from django.db.models import F, Prefetch, Q, QuerySet

from annotation import fragments
from annotation.models import (
    Claim,
    ClaimPair,
    ClaimReview,
    CuratedContext,
    CuratedElement,
    EvidenceAnnotation,
    WorkItem,
    WorkKind,
    WorkStatus,
)
from annotation.queue import work  # local: the work queue imports much
from annotation.writing import warnings as claim_warnings
from papers.models import Element, Paper, Section
from validation import stats
from validation.models import SplitMember, SplitVersion, Validation, ValidationStatus
from validation.release.reading import model_input
from validation.release.sections import SectionNode, paper_sections, record_sections, section_ids


def final_claims() -> QuerySet[Claim]:
    """The final claims (`Claim.objects.final()`), by pair and label."""
    return Claim.objects.final().order_by("pair_id", "label")


def perturbations_found_true() -> QuerySet[Claim]:
    """Final refuted claims whose final label is entailed: each goes back to its pair's writer
    for a new perturbation (and is never validated: its replacement will be)."""
    return final_claims().filter(label="refuted", review__final_label="entailed")


def claims_to_validate() -> QuerySet[Claim]:
    """Final claims that take part in validation: all but perturbations found true."""
    return final_claims().exclude(label="refuted", review__final_label="entailed")


def validated_claims() -> QuerySet[Claim]:
    return final_claims().filter(validation__status=ValidationStatus.VALIDATED)


def live_validations() -> QuerySet[Validation]:
    """Validations that still count: of current claims in pairs not dropped (a dropped pair's
    pending validations are not waiting for anyone: their items were cancelled), nor one
    withdrawn because its second annotator edited their answer (`annotation.review.edits`)."""
    return (
        Validation.objects.filter(
            claim__superseded_at__isnull=True, claim__pair__paper__archived_at__isnull=True
        )
        .exclude(claim__pair__review__dropped=True)
        .exclude(status=ValidationStatus.PENDING, item__status=WorkStatus.CANCELLED)
    )


def complete_pair_ids() -> tuple[list[int], list[int]]:
    """(pairs that may enter a split, pairs waiting for a new perturbation). A pair may enter a
    split when both its claims are validated, the entailed one final-entailed and the refuted
    one final-refuted; it waits when its refuted claim's final label is entailed (the
    perturbation turned out true, after adjudication or a validator's revision)."""
    rows = validated_claims().values_list("pair_id", "label", "review__final_label")
    by_pair: dict[int, dict[str, str]] = {}
    for pair_id, label, final in rows:
        by_pair.setdefault(pair_id, {})[label] = final
    ok = [
        pair_id
        for pair_id, labels in sorted(by_pair.items())
        if labels == {"entailed": "entailed", "refuted": "refuted"}
    ]
    back = sorted(set(perturbations_found_true().values_list("pair_id", flat=True)))
    return ok, back


@dataclass
class BackToWriter:
    """A pair whose perturbation turned out true, and its new-perturbation item (if open)."""

    claim: Claim
    item: WorkItem | None


def back_to_writer() -> list[BackToWriter]:
    """For admins: perturbations found true, each with the item asking its writer for a new one
    (open, in progress, or missing: none is opened for claims judged so before this existed)."""
    claims = list(
        perturbations_found_true().select_related("pair__writer", "review").order_by("pair_id")
    )
    items = {
        i.claim_id: i
        for i in WorkItem.objects.filter(
            kind=WorkKind.REPERTURB,
            claim__in=claims,
            status__in=[WorkStatus.OPEN, WorkStatus.LEASED],
        ).select_related("assignee", "holder")
    }
    return [BackToWriter(c, items.get(c.pk)) for c in claims]


# --- The validation page ---------------------------------------------------------------------


@dataclass
class ContextPiece:
    element: Element
    section_number: str
    section_title: str
    is_evidence: bool = False
    sampled: bool = False


@dataclass
class ValidationPage:
    item: WorkItem
    claim: Claim
    pair: ClaimPair
    sibling: Claim | None
    review: ClaimReview
    validation: Validation
    context: list[ContextPiece]
    evidence_ids: set[int]
    paragraphs: list[str] = field(default_factory=list)
    sampled_texts: list[str] = field(default_factory=list)


def visual_text(element: Element) -> str:
    """A table's cells and caption, or a chart's caption: what a claim's numbers are sought in."""
    return claim_warnings.visual_text(element.caption, element.cells)


def validation_page(item_id: int) -> ValidationPage:
    """Everything the validation page shows, in a fixed number of queries."""
    item = WorkItem.objects.select_related(
        "claim__pair__task", "claim__pair__context", "claim__review", "paper"
    ).get(pk=item_id, kind=WorkKind.VALIDATE)
    claim = item.claim
    pair = claim.pair
    sibling = Claim.objects.current().filter(pair=pair).exclude(label=claim.label).first()
    review = claim.review
    validation = Validation.objects.get(claim=claim)
    evidence_ids = set(review.final_evidence.values_list("pk", flat=True))
    sampled = set(pair.task.sampled_ids)
    rows = (
        CuratedElement.objects.filter(context=pair.context, in_context=True)
        .select_related("element__section")
        .order_by("element__order")
    )
    pieces = [
        ContextPiece(
            element=r.element,
            section_number=r.element.section.number,
            section_title=r.element.section.title,
            is_evidence=r.element_id in evidence_ids,
            sampled=r.element_id in sampled,
        )
        for r in rows
        if not r.not_a_chart
    ]
    fragments.attach((p.element for p in pieces), fragments.VALIDATION)
    paragraphs = [p.element.text for p in pieces if p.element.kind == Element.Kind.PARAGRAPH]
    sampled_texts = [visual_text(p.element) for p in pieces if p.sampled]
    return ValidationPage(
        item,
        claim,
        pair,
        sibling,
        review,
        validation,
        pieces,
        evidence_ids,
        paragraphs,
        sampled_texts,
    )


def evidence_rule_warning(page: ValidationPage) -> claim_warnings.Warning | None:
    """The claim's final evidence breaks the evidence rule for its pair's subset (no query:
    the page's context holds the kinds; figures marked 'not a chart' are not in it, so they
    never count as one)."""
    kinds = {p.element.pk: p.element.kind for p in page.context}
    labels = {p.element.pk: p.element.label or p.element.anchor for p in page.context}
    return claim_warnings.evidence_rule(
        page.pair.subset, page.evidence_ids, kinds, page.pair.task.sampled_ids, labels
    )


def evidence_names(
    page: ValidationPage, evidence_ids: Iterable[int] | None = None
) -> list[tuple[str, str, str]]:
    """The tables/charts of the claim's evidence (its final evidence, or `evidence_ids`: what
    the validator ticked) as (kind, label, number), in reading order, for the warning on a
    claim naming one that is not among them (no query: the page's context holds them)."""
    chosen = page.evidence_ids if evidence_ids is None else set(evidence_ids)
    return [
        (p.element.kind, p.element.label, p.element.number)
        for p in page.context
        if p.element.pk in chosen and p.element.kind != Element.Kind.PARAGRAPH
    ]


def validation_queue(user: AbstractBaseUser, queue=None) -> dict[str, int | WorkItem | None]:
    """The expert's validation and baseline work: held items and how many they may take
    (`queue`: the expert's `annotation.queue.work.queue`, when the caller has it)."""

    queue = queue or work.queue(user)
    return {
        "held": queue.held.get(WorkKind.VALIDATE),
        "available": queue.available[WorkKind.VALIDATE],
        "done": queue.done.get(WorkKind.VALIDATE, 0),
        "baseline_held": queue.held.get(WorkKind.BASELINE),
        "baseline": queue.available[WorkKind.BASELINE],
    }


def frozen_splits(pair_ids: Iterable[int]) -> dict[int, list[str]]:
    """The frozen splits holding each pair (by name, oldest first)."""
    splits: dict[int, list[str]] = {}
    for pair_id, name in (
        SplitMember.objects.filter(pair_id__in=list(pair_ids))
        .order_by("split__created_at", "split_id")
        .values_list("pair_id", "split__name")
    ):
        splits.setdefault(pair_id, []).append(name)
    return splits


def frozen_split_warning(splits: list[str]) -> str:
    """What re-opening a claim of these frozen splits means for their exports."""
    names = ", ".join(splits)
    return (
        f"This claim's pair is in the frozen split{'s' if len(splits) > 1 else ''} {names}: "
        f"exporting {'them' if len(splits) > 1 else 'it'} is refused until the claim is "
        "validated again."
    )


@dataclass
class ValidatedRow:
    """A validated claim on the admins' overview: its final label (and the writer's, when a
    revision changed it), and the frozen splits a re-open would hold back from export."""

    validation: Validation
    final_label: str
    written_label: str
    frozen_splits: list[str]

    @property
    def label_changed(self) -> bool:
        return self.final_label != self.written_label

    @property
    def frozen_warning(self) -> str:
        return frozen_split_warning(self.frozen_splits) if self.frozen_splits else ""


def validated(search: str = "") -> QuerySet[Validation]:
    """Validations done, of papers not archived, newest first; `search` in the claim's text
    and key, its paper's arXiv id and the validator's username."""
    rows = Validation.objects.select_related(
        "claim__pair", "claim__review", "validator", "item"
    ).filter(status=ValidationStatus.VALIDATED, claim__pair__paper__archived_at__isnull=True)
    if search:
        rows = rows.filter(
            Q(claim__text__icontains=search)
            | Q(claim__key__iexact=search)
            | Q(claim__pair__paper__arxiv_id__icontains=search)
            | Q(validator__username__icontains=search)
        )
    return rows.order_by("-validated_at", "-id")


def validated_rows(
    limit: int = 100, *, validations: Iterable[Validation] | None = None
) -> list[ValidatedRow]:
    """The most recent validations (or `validations`, e.g. a page of `validated()`), for the
    overview (fixed queries)."""
    recent = list(validated()[:limit] if validations is None else validations)
    splits = frozen_splits({v.claim.pair_id for v in recent})
    return [
        ValidatedRow(v, v.claim.review.final_label, v.claim.label, splits.get(v.claim.pair_id, []))
        for v in recent
    ]


def second_annotators(claim_ids: list[int]) -> dict[int, int]:
    return dict(
        EvidenceAnnotation.objects.filter(claim_id__in=claim_ids).values_list(
            "claim_id", "annotator_id"
        )
    )


def recent_validations(limit: int = 50) -> list[Validation]:
    return list(
        Validation.objects.select_related("claim__pair", "validator", "item")
        .prefetch_related(Prefetch("changes"))
        .order_by(F("validated_at").desc(nulls_last=True), "-id")[:limit]
    )


# --- Statistics ------------------------------------------------------------------------------


SECTION_FIELDS = ("id", "paper_id", "anchor", "number", "title", "parent_id", "order", "kind")


def section_tree(paper_ids: Iterable[int]) -> tuple[dict[int, str], dict[int, str]]:
    """(section pk → paper-file section id, section pk → title) for every section of the
    papers, in one query (`validation.release.sections` gives the ids)."""
    nodes: dict[int, list[SectionNode]] = {}
    titles: dict[int, str] = {}
    for pk, paper_id, anchor, number, title, parent, order, kind in Section.objects.filter(
        paper_id__in=list(paper_ids)
    ).values_list(*SECTION_FIELDS):
        nodes.setdefault(paper_id, []).append(
            SectionNode(pk, anchor, number, title, parent, order, kind)
        )
        titles[pk] = title
    ids: dict[int, str] = {}
    for paper_nodes in nodes.values():
        ids |= section_ids(paper_nodes)
    return ids, titles


def stat_records(
    claims: QuerySet[Claim], paper_contexts: Mapping[int, int] | None = None
) -> list[stats.StatRecord]:
    """One `stats.StatRecord` per claim with its final label and evidence, in four queries.

    `context_words` is what SciVer's reading gives a model for the claim's record, built as
    the export builds it: the record's `section` list from the evidence, the paper file from
    the paper's curated context (`paper_contexts`: paper → context; default, the latest among
    `claims`' pairs, as the export takes the latest among a split's). `curated_words` counts
    every paragraph of the pair's own curated context."""
    claims = list(
        claims.select_related("pair__paper", "review").prefetch_related(
            Prefetch(
                "review__final_evidence",
                queryset=Element.objects.only("id", "kind", "caption", "section_id"),
            )
        )
    )
    pairs = {c.pair_id: c.pair for c in claims}
    codes = {pk: p.subfield_code for pk, p in pairs.items()}
    latest: dict[int, int] = dict(paper_contexts or {})
    for pair in pairs.values():
        if paper_contexts is None or pair.paper_id not in latest:
            latest[pair.paper_id] = max(latest.get(pair.paper_id, 0), pair.context_id)
    context_ids = {p.context_id for p in pairs.values()} | set(latest.values())
    curated_words: dict[int, int] = dict.fromkeys(context_ids, 0)
    blocks: dict[int, list[tuple[int, str, str]]] = {}
    for context_id, section_pk, kind, text in (
        CuratedElement.objects.filter(context_id__in=context_ids, in_context=True)
        .order_by("element__order")
        .values_list("context_id", "element__section_id", "element__kind", "element__text")
    ):
        if kind == Element.Kind.PARAGRAPH:
            curated_words[context_id] += stats.words(text)
        blocks.setdefault(context_id, []).append((section_pk, kind, text))
    ids, titles = section_tree(latest)
    files: dict[int, dict] = {}
    for paper_id, context_id in latest.items():
        sections = paper_sections(blocks.get(context_id, ()), ids, titles)
        files[paper_id] = {
            "sections": [
                {"section_id": s.section_id, "section_name": s.section_name, "text": s.text}
                for s in sections
            ]
        }
    records = []
    for c in claims:
        evidence = list(c.review.final_evidence.all())
        paper_file = files[c.pair.paper_id]
        order = [s["section_id"] for s in paper_file["sections"]]
        record = {
            "section": list(record_sections([(e.kind, e.section_id) for e in evidence], ids, order))
        }
        records.append(
            stats.StatRecord(
                paper=c.pair.paper.arxiv_id,
                subset=c.pair.subset,
                subfield=codes[c.pair_id],
                label=c.review.final_label,
                claim_words=stats.words(c.text),
                evidence=len(evidence),
                tables=sum(e.kind == "table" for e in evidence),
                charts=sum(e.kind == "chart" for e in evidence),
                table_caption_words=tuple(
                    stats.words(e.caption) for e in evidence if e.kind == "table"
                ),
                chart_caption_words=tuple(
                    stats.words(e.caption) for e in evidence if e.kind == "chart"
                ),
                context_words=stats.words(model_input(record, paper_file).context),
                curated_words=curated_words[c.pair.context_id],
            )
        )
    return records


def stage_progress() -> list[tuple[str, int]]:
    """Papers crawled → curated → claims → final → validated."""

    papers = Paper.objects.filter(archived_at__isnull=True)
    return [
        ("papers crawled", papers.count()),
        ("papers parsed", papers.filter(status=Paper.Status.PARSED).count()),
        (
            "papers curated",
            CuratedContext.objects.filter(paper__archived_at__isnull=True)
            .values("paper_id")
            .distinct()
            .count(),
        ),
        ("claims written", Claim.objects.current().filter(pair__paper__in=papers).count()),
        ("claims final", final_claims().count()),
        ("claims validated", validated_claims().count()),
    ]


def dataset_statistics(split_name: str | None = None) -> dict:
    """Per part of a split (or the validated pool before a split): Table 2 (its "words in
    paragraphs" of what SciVer's reading gives a model, the curated context's apart),
    evidence breakdown, subsets and subfields; and every stage's progress."""
    parts: dict[str, QuerySet[Claim]] = {}
    if split_name:
        split = SplitVersion.objects.get(name=split_name)
        for part in ("validation", "test"):
            ids = SplitMember.objects.filter(split=split, part=part).values("pair_id")
            parts[part] = (
                Claim.objects.current()
                .filter(pair_id__in=ids, pair__paper__archived_at__isnull=True)
                .order_by("pk")
            )
    else:
        parts["validated pool"] = validated_claims()
    result = {"split": split_name, "parts": {}, "progress": stage_progress()}
    # One paper file per paper across a split's parts, as the export writes it.
    contexts: dict[int, int] | None = None
    if split_name:
        contexts = {}
        for paper_id, context_id in ClaimPair.objects.filter(
            pk__in=SplitMember.objects.filter(split__name=split_name).values("pair_id")
        ).values_list("paper_id", "context_id"):
            contexts[paper_id] = max(contexts.get(paper_id, 0), context_id)
    for name, qs in parts.items():
        records = stat_records(qs, contexts)
        result["parts"][name] = {
            "table2": stats.table2(records),
            "evidence": stats.evidence_breakdown(records),
            "subsets": stats.count_by(records, "subset"),
            "subfields": stats.count_by(records, "subfield"),
        }
    ok, back = complete_pair_ids()
    result["revised"] = live_validations().filter(revisions__gt=0).count()
    result["validated"] = live_validations().filter(status=ValidationStatus.VALIDATED).count()
    result["splittable_pairs"] = len(ok)
    result["words_note"] = stats.MODEL_WORDS_NOTE
    result["back_to_writer"] = len(back)
    return result


# --- Synthetic content ---------------------------------------------------------------------


def synthetic_summary(split_name: str | None = None) -> dict:
    """How much of the data is simulate_annotation's synthetic demo data: papers in the
    database, and per part of a split (or the validated pool) claims and their papers."""
    parts = {}
    if split_name:
        for part in ("validation", "test"):
            ids = SplitMember.objects.filter(split__name=split_name, part=part).values("pair_id")
            parts[part] = Claim.objects.current().filter(
                pair_id__in=ids, pair__paper__archived_at__isnull=True
            )
    else:
        parts["validated pool"] = validated_claims()
    result: dict = {
        "papers": Paper.objects.filter(synthetic=True, archived_at__isnull=True).count(),
        "all_papers": Paper.objects.filter(archived_at__isnull=True).count(),
        "archived_papers": Paper.objects.filter(archived_at__isnull=False).count(),
        "parts": {},
    }
    for name, claims in parts.items():
        rows = list(claims.order_by().values_list("pair__paper__synthetic", "pair__paper_id"))
        result["parts"][name] = {
            "claims": sum(fake for fake, _ in rows),
            "all_claims": len(rows),
            "papers": len({paper for fake, paper in rows if fake}),
        }
    result["any"] = bool(result["papers"]) or any(p["claims"] for p in result["parts"].values())
    return result
