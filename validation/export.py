"""Dataset → release records: reads a frozen split's pairs and builds `validation.release`
records (the pure formatters and the atomic writer do the rest)."""

from __future__ import annotations

import random
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path

from django.conf import settings
from django.db.models import Prefetch

from annotation.models import Adjudication, Claim, ClaimPair, CuratedElement, EvidenceAnnotation
from annotation.models.review import ReviewState
from papers.models import Element
from validation import selectors, stats
from validation.models import SplitVersion
from validation.release import (
    EvidencePiece,
    PaperSection,
    Release,
    ReleaseClaim,
    ReleaseError,
    ReleasePaper,
    VisualElement,
    image_name,
    pseudonymise,
)
from validation.release.records import ELEMENTS_PER_TYPE

VISUAL = ("table", "chart")


def _item(element: Element) -> str:
    """The table or figure number as a string (`3`), from the parsed number or the label."""
    if element.number:
        return element.number
    if element.label:
        return element.label.split()[-1]
    return str(element.pk)


def _image(element: Element) -> Path | None:
    if not element.image:
        return None
    path = Path(settings.MEDIA_ROOT) / element.image.name
    return path if path.exists() else None


def build_release(
    split: SplitVersion,
    *,
    hide_test_labels: bool = False,
    progress: Callable[[int, int, str], None] | None = None,
) -> Release:
    """Everything the release folder holds, in a fixed number of queries per 1,000 pairs."""
    members = list(split.members.order_by("part", "pair_id").values_list("pair_id", "part"))
    part_of = dict(members)
    pairs = {
        p.pk: p
        for p in ClaimPair.objects.filter(pk__in=part_of)
        .select_related("paper", "task", "context")
        .prefetch_related(
            Prefetch(
                "claims",
                queryset=Claim.objects.select_related("review", "validation").prefetch_related(
                    "review__final_evidence"
                ),
            )
        )
    }
    missing = set(part_of) - set(pairs)
    if missing:
        raise ReleaseError(f"pairs {sorted(missing)} of split {split.name} no longer exist")
    codes = _codes(pairs.values())
    seconds = dict(
        EvidenceAnnotation.objects.filter(claim__pair__in=pairs).values_list(
            "claim_id", "annotator_id"
        )
    )
    adjudicators: dict[int, int] = {}
    for claim_id, expert_id in (
        Adjudication.objects.filter(claim__pair__in=pairs, decision="decided")
        .order_by("created_at", "id")
        .values_list("claim_id", "adjudicator_id")
    ):
        adjudicators[claim_id] = expert_id
    # The latest context of each paper among the split's pairs is the paper file's context.
    contexts: dict[int, int] = {}
    for pair in pairs.values():
        contexts[pair.paper_id] = max(contexts.get(pair.paper_id, 0), pair.context_id)
    in_context = (
        CuratedElement.objects.filter(context_id__in=set(contexts.values()), in_context=True)
        .select_related("element__section")
        .order_by("element__order")
    )
    elements: dict[int, Element] = {}
    by_paper: dict[int, list[tuple[Element, bool]]] = defaultdict(list)
    for row in in_context:
        elements[row.element_id] = row.element
        if contexts[row.element.paper_id] == row.context_id:
            by_paper[row.element.paper_id].append((row.element, row.not_a_chart))
    needed = {pk for p in pairs.values() for pk in p.task.sampled_ids} | {
        e.pk for p in pairs.values() for c in p.claims.all() for e in c.review.final_evidence.all()
    }
    for element in Element.objects.filter(pk__in=needed - set(elements)).select_related("section"):
        elements[element.pk] = element
    salt = settings.RELEASE_SALT or settings.SECRET_KEY
    images: dict[str, Path] = {}

    def visual(element: Element, paperid: str) -> VisualElement:
        path = image_name(paperid, element.kind, _item(element))
        source = _image(element)
        if source is None:
            raise ReleaseError(
                f"{element.label or element.anchor} of {paperid} has no image file; "
                "render the paper's images first"
            )
        images[path] = source
        return VisualElement(type=element.kind, item=_item(element), image_path=path)

    # request_id: a seeded permutation, so that ids do not reveal which claims form a pair.
    total = 2 * len(members)
    ids = list(range(1, total + 1))
    random.Random(split.seed).shuffle(ids)
    parts: dict[str, list[ReleaseClaim]] = {"validation": [], "test": []}
    next_id = iter(ids)
    for done, (pair_id, part) in enumerate(members, start=1):
        pair = pairs[pair_id]
        paperid = pair.paper.arxiv_id
        claims = {c.label: c for c in pair.claims.all()}
        entailed, refuted = claims["entailed"], claims["refuted"]
        for claim in (entailed, refuted):
            evidence = sorted(
                (elements[e.pk] for e in claim.review.final_evidence.all()),
                key=lambda e: e.order,
            )
            sampled = [elements[pk] for pk in pair.task.sampled_ids]
            ev_ids = {e.pk for e in evidence}
            chosen = [e for e in sampled if e.pk in ev_ids and e.kind in VISUAL]
            chosen += [e for e in evidence if e.kind in VISUAL and e not in chosen]
            # A claim re-labelled by its validator to another subset may cite fewer visuals
            # than the SciVer record names: the sampled ones fill in, in draw order.
            chosen += [e for e in sampled if e.kind in VISUAL and e not in chosen]
            chosen = chosen[: ELEMENTS_PER_TYPE[pair.subset]]
            pieces = []
            for e in evidence:
                is_visual = e.kind in VISUAL
                pieces.append(
                    EvidencePiece(
                        kind=e.kind,
                        anchor=e.anchor,
                        label=e.label,
                        text=e.text if not is_visual else e.caption,
                        image_path=visual(e, paperid).image_path if is_visual else None,
                    )  # fmt: skip
                )
            annotators = {"writer": pseudonymise(pair.writer_id, salt=salt)}
            if claim.pk in seconds:
                annotators["second"] = pseudonymise(seconds[claim.pk], salt=salt)
            if claim.pk in adjudicators:
                annotators["adjudicator"] = pseudonymise(adjudicators[claim.pk], salt=salt)
            if claim.validation.validator_id:
                annotators["validator"] = pseudonymise(claim.validation.validator_id, salt=salt)
            sections = sorted(
                {e.section.number for e in evidence if e.section.number},
                key=lambda n: [int(x) if x.isdigit() else x for x in n.split(".")],
            )
            parts[part].append(
                ReleaseClaim(
                    request_id=next(next_id),
                    paperid=paperid,
                    claim_type=pair.subset,
                    label=claim.label == "entailed",
                    origin_statement=entailed.text,
                    perturbed_statement=refuted.text,
                    perturbed_explanation=refuted.explanation,
                    section=tuple(sections),
                    elements=tuple(visual(e, paperid) for e in chosen),
                    evidence=tuple(pieces),
                    provenance="adjudicated"
                    if claim.review.state == ReviewState.ADJUDICATED
                    else "unanimous",
                    annotators=annotators,
                    pair_id=pair.pk,
                    subfield=codes[pair.pk],
                    venue=pair.paper.venue or None,
                    sampled=tuple(e.anchor for e in sampled),
                    revisions=claim.validation.revisions,
                )  # fmt: skip
            )
        if progress and done % 100 == 0:
            progress(done, len(members), "building records")
    papers = []
    paper_objects = {p.paper_id: p.paper for p in pairs.values()}
    for paper_id, paper in sorted(paper_objects.items(), key=lambda kv: kv[1].arxiv_id):
        sections: dict[str, list[str]] = {}
        names: dict[str, str] = {}
        charts, tables = {}, {}
        for element, not_chart in by_paper[paper_id]:
            key = element.section.number or element.section.anchor
            names[key] = element.section.title
            sections.setdefault(key, [])
            if element.kind == "paragraph":
                sections[key].append(element.text)
            elif element.kind == "table":
                tables[_item(element)] = element.caption
            elif element.kind == "chart" and not not_chart:
                charts[_item(element)] = element.caption
        papers.append(
            ReleasePaper(
                paperid=paper.arxiv_id,
                sections=tuple(
                    PaperSection(section_id=k, section_name=names[k], text="\n".join(v))
                    for k, v in sections.items()
                ),
                chart_captions=charts,
                table_captions=tables,
                licence=paper.license_url or paper.license_name or "unknown",
            )  # fmt: skip
        )
    readme = dataset_card(split, parts, papers, hide_test_labels)
    return Release(name=split.name, splits=parts, papers=papers, images=images, readme=readme,
                   hide_test_labels=hide_test_labels, seed=split.seed)  # fmt: skip


def _codes(pairs) -> dict[int, str]:
    from validation.services import _subfield_codes

    return _subfield_codes(pairs)


def dataset_card(
    split: SplitVersion,
    parts: dict[str, list[ReleaseClaim]],
    papers: list[ReleasePaper],
    hide_test_labels: bool,
) -> str:
    """The release's README: licence, each paper's licence, how it was built, statistics."""
    lines = [
        f"# SciVer-style dataset, split {split.name}",
        "",
        "Expert-annotated multimodal scientific claim verification, built with SciVer Studio "
        "following the SciVer protocol (ACL 2025): papers from arXiv, curated contexts, claims "
        "written on three sampled tables/charts, blind second annotation, adjudication of "
        "disagreements, validation by a third expert, then a random split stratified by subset "
        "with both claims of a pair in the same split.",
        "",
        "## Licence",
        "",
        "The annotations are released under CC-BY-4.0. The papers' text and images keep their "
        "own licences, listed below.",
        "",
        f"Split seed {split.seed}; licence filter: {', '.join(split.licences) or 'none'}; "
        f"test labels {'hidden' if hide_test_labels else 'included'}.",
        "",
        "## Statistics",
        "",
    ]
    for name, claims in parts.items():
        table = stats.release_table(claims)
        lines.append(f"### {name} ({len(claims)} claims)")
        lines.append("")
        lines.append("| figure | value |")
        lines.append("|---|---:|")
        for key, value in table.items():
            lines.append(f"| {key} | {value} |")
        lines.append("")
    lines += ["## Papers and their licences", "", "| paper | licence |", "|---|---|"]
    lines += [f"| {p.paperid} | {p.licence} |" for p in papers]
    lines.append("")
    return "\n".join(lines)


__all__ = ["build_release", "dataset_card", "selectors"]
