"""Dataset → release records: reads a frozen split's pairs and builds `validation.release`
records (the pure formatters and the atomic writer do the rest)."""

from __future__ import annotations

import random
import re
from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from django.conf import settings
from django.db.models import Prefetch
from django.urls import reverse

from annotation.models import (
    Adjudication,
    Claim,
    ClaimPair,
    ClaimReview,
    CuratedElement,
    EvidenceAnnotation,
    PairReview,
)
from annotation.models.review import FINAL_STATES, ReviewState
from papers.models import Element, ElementPanel
from validation import stats
from validation.models import SplitVersion, ValidationStatus
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
    release_paperids,
)
from validation.release.formats import SCIVER_FOLDER, synthetic
from validation.release.records import ELEMENTS_PER_TYPE

Progress = Callable[[int, int, str], None]
BUILDING = "building records"  # the first phase's progress message; then the files are written

VISUAL = ("table", "chart")
# Columns the release never reads (deferred: the cell grids alone are a JSON decode per element).
PAPER_UNUSED = tuple(
    f"paper__{f}"
    for f in ("raw_html_compressed", "abstract", "authors", "categories", "parse_warnings",
              "comment", "journal_ref", "acceptance_phrase")
)  # fmt: skip
ELEMENT_FIELDS = (
    "id", "paper_id", "kind", "anchor", "order", "label", "number", "caption", "text", "image",
    "image_error", "section__number", "section__title", "section__anchor",
)  # fmt: skip


@dataclass(frozen=True, slots=True)
class ReleaseSection:
    number: str
    title: str
    anchor: str


@dataclass(frozen=True, slots=True)
class ReleaseElement:
    """What the release reads of an element; `image` is the file's name under MEDIA_ROOT
    ("" when there is none)."""

    pk: int
    paper_id: int
    kind: str
    anchor: str
    order: int
    label: str
    number: str
    caption: str
    text: str
    image: str
    image_error: str
    section: ReleaseSection

    @classmethod
    def from_row(cls, row: tuple) -> ReleaseElement:
        """From a `values_list(*ELEMENT_FIELDS)` row (the section's three fields last)."""
        *fields, number, title, anchor = row
        fields[9] = fields[9] or ""  # image
        return cls(*fields, section=ReleaseSection(number, title, anchor))


def _item(element: ReleaseElement) -> str:
    """The table or figure number as a string (`3`), from the parsed number or the label."""
    if element.number:
        return element.number
    if element.label:
        return element.label.split()[-1]
    return str(element.pk)


def _image(element: ReleaseElement) -> Path | None:
    if not element.image:
        return None
    path = Path(settings.MEDIA_ROOT) / element.image
    return path if path.exists() else None


def build_release(
    split: SplitVersion,
    *,
    hide_test_labels: bool = False,
    progress: Progress | None = None,
) -> Release:
    """Everything the release folder holds, in a fixed number of queries per 1,000 pairs.

    Refuses (ReleaseError) a split whose pairs changed since it was frozen so that a claim is
    no longer releasable: re-opened and not validated again, no longer final, dropped."""
    members = list(split.members.order_by("part", "pair_id").values_list("pair_id", "part"))
    part_of = dict(members)
    pairs = {
        p.pk: p
        for p in ClaimPair.objects.filter(pk__in=part_of)
        .select_related("paper", "task")
        # Not the stored page, abstract or task candidates: megabytes per 1,000 pairs unused.
        .defer(*PAPER_UNUSED, "task__candidate_ids", "task__paragraph_ids")
        .prefetch_related(
            Prefetch(
                "claims",
                # Superseded claims (a perturbation found true, then rewritten) never ship.
                queryset=Claim.objects.current().select_related("review", "validation"),
            )
        )
    }
    # Final evidence as ids (one query on the link table; the elements are read once, below).
    final_evidence: dict[int, list[int]] = defaultdict(list)
    for claim_id, element_id in ClaimReview.final_evidence.through.objects.filter(
        claimreview__claim__pair_id__in=part_of
    ).values_list("claimreview__claim_id", "element_id"):
        final_evidence[claim_id].append(element_id)
    missing = set(part_of) - set(pairs)
    if missing:
        raise ReleaseError(
            f"pairs {sorted(missing)} of split {split.name} no longer exist; make a new split "
            "(python manage.py make_split …) and export that one"
        )
    dropped = set(
        PairReview.objects.filter(pair_id__in=part_of, dropped=True).values_list(
            "pair_id", flat=True
        )
    )
    stale = list(_no_longer_releasable((pairs[pk] for pk, _ in members), dropped))
    if stale:
        raise ReleaseError(_stale_message(split, stale))
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
    # Elements as light records (tuples, not model instances: tens of thousands per release).
    in_context = (
        CuratedElement.objects.filter(context_id__in=set(contexts.values()), in_context=True)
        .order_by("element__order")
        .values_list("context_id", "not_a_chart", *(f"element__{f}" for f in ELEMENT_FIELDS))
    )
    elements: dict[int, ReleaseElement] = {}
    by_paper: dict[int, list[tuple[ReleaseElement, bool]]] = defaultdict(list)
    for context_id, not_a_chart, *values in in_context:
        element = ReleaseElement.from_row(values)
        elements[element.pk] = element
        if contexts[element.paper_id] == context_id:
            by_paper[element.paper_id].append((element, not_a_chart))
    needed = {pk for p in pairs.values() for pk in p.task.sampled_ids} | {
        pk for ids in final_evidence.values() for pk in ids
    }
    for values in Element.objects.filter(pk__in=needed - set(elements)).values_list(
        *ELEMENT_FIELDS
    ):
        element = ReleaseElement.from_row(values)
        elements[element.pk] = element
    salt = settings.RELEASE_SALT or settings.SECRET_KEY
    paper_objects = {p.paper_id: p.paper for p in pairs.values()}
    paperids = release_paperids((p.pk, p.arxiv_id, p.version) for p in paper_objects.values())
    images: dict[str, Path] = {}
    named: dict[str, ReleaseElement] = {}  # image path → the element it shows

    made: dict[int, VisualElement] = {}

    def visual(element: ReleaseElement, paperid: str) -> VisualElement:
        if element.pk in made:
            return made[element.pk]
        item = _item(element)
        path = image_name(paperid, element.kind, item)
        other = named.setdefault(path, element)
        if other.pk != element.pk:
            raise ReleaseError(_same_number(other, element, paperid))
        source = _image(element)
        if source is None:
            raise ReleaseError(_no_image(element, paperid))
        images[path] = source
        made[element.pk] = VisualElement(type=element.kind, item=item, image_path=path)
        return made[element.pk]

    # request_id: a seeded permutation, so that ids do not reveal which claims form a pair.
    total = 2 * len(members)
    ids = list(range(1, total + 1))
    random.Random(split.seed).shuffle(ids)
    parts: dict[str, list[ReleaseClaim]] = {"validation": [], "test": []}
    next_id = iter(ids)
    every = max(1, len(members) // 50)  # the page's bar moves in steps of about 2 %
    if progress:
        progress(0, len(members), BUILDING)
    for done, (pair_id, part) in enumerate(members, start=1):
        pair = pairs[pair_id]
        paperid = paperids[pair.paper_id]
        entailed, refuted = _claims(pair, paperid, split)
        for claim in (entailed, refuted):
            evidence = sorted(
                (elements[pk] for pk in final_evidence[claim.pk]),
                key=lambda e: e.order,
            )
            gone = [pk for pk in pair.task.sampled_ids if pk not in elements]
            if gone:
                raise ReleaseError(
                    f"pair {pair.pk} (paper {paperid}): its sampled element(s) {gone} no "
                    "longer exist (the paper was re-imported after the split was frozen?); "
                    "make a new split without this pair, or restore the paper's import"
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
                    synthetic=pair.paper.synthetic,
                )  # fmt: skip
            )
        if progress and (done % every == 0 or done == len(members)):
            progress(done, len(members), BUILDING)
    papers = []
    for paper_id, paper in sorted(paper_objects.items(), key=lambda kv: paperids[kv[0]]):
        paperid = paperids[paper_id]
        sections: dict[str, list[str]] = {}
        names: dict[str, str] = {}
        captions: dict[str, dict[str, str]] = {"table": {}, "chart": {}}
        numbered: dict[tuple[str, str], ReleaseElement] = {}
        for element, not_chart in by_paper[paper_id]:
            key = element.section.number or element.section.anchor
            names[key] = element.section.title
            sections.setdefault(key, [])
            if element.kind == "paragraph":
                sections[key].append(element.text)
            elif element.kind == "table" or (element.kind == "chart" and not not_chart):
                # The paper file keys captions by number: a second element with the same
                # number would silently replace the first one's caption.
                other = numbered.setdefault((element.kind, _item(element)), element)
                if other.pk != element.pk:
                    raise ReleaseError(_same_number(other, element, paperid))
                captions[element.kind][_item(element)] = element.caption
        papers.append(
            ReleasePaper(
                paperid=paperid,
                sections=tuple(
                    PaperSection(section_id=k, section_name=names[k], text="\n".join(v))
                    for k, v in sections.items()
                ),
                chart_captions=captions["chart"],
                table_captions=captions["table"],
                licence=paper.license_url or paper.license_name or "unknown",
                arxiv_id=paper.arxiv_id,
                version=paper.version,
                synthetic=paper.synthetic,
            )  # fmt: skip
        )
    readme = dataset_card(split, parts, papers, hide_test_labels)
    return Release(name=split.name, splits=parts, papers=papers, images=images, readme=readme,
                   hide_test_labels=hide_test_labels, seed=split.seed,
                   progress=progress)  # fmt: skip


def _element_ref(element: ReleaseElement) -> str:
    """`Table 3 (element S4.T3, admin /admin/papers/element/12/change/)`: enough to find it."""
    admin = reverse("admin:papers_element_change", args=[element.pk])
    return f"{element.label or element.kind} (element {element.anchor}, admin {admin})"


@dataclass(frozen=True, slots=True)
class StaleClaim:
    """A claim of a frozen split that may no longer be released, and why."""

    claim_id: int
    pair_id: int
    paper: str  # arXiv id with version
    label: str
    why: str


def _no_longer_releasable(pairs: Iterable[ClaimPair], dropped: set[int]) -> Iterable[StaleClaim]:
    """The claims of `pairs` that are not validated any more (re-opened by an admin and not yet
    validated again), not final any more, whose final label no longer matches their role in
    the pair, or whose pair was dropped. Missing claims are left to `_claims`, which says so."""
    for pair in pairs:
        for claim in sorted(pair.claims.all(), key=lambda c: c.label):
            review = getattr(claim, "review", None)
            validation = getattr(claim, "validation", None)
            if review is None or validation is None:
                continue
            why = ""
            if pair.pk in dropped:
                why = "its pair was dropped"
            elif review.state not in FINAL_STATES:
                why = f"its review is {ReviewState(review.state).label}"
            elif review.final_label != claim.label:
                why = f"its final label is now {review.final_label}"
            elif validation.status != ValidationStatus.VALIDATED:
                why = "re-opened, waiting for validation" + (
                    f" (reason: {validation.reopen_reason.strip()[:200]})"
                    if validation.reopen_reason.strip()
                    else ""
                )
            if why:
                yield StaleClaim(claim.pk, pair.pk, pair.paper.versioned_id, claim.label, why)


def _stale_message(split: SplitVersion, stale: list[StaleClaim]) -> str:
    shown = "; ".join(
        f"claim {c.claim_id} ({c.label}, pair {c.pair_id}, paper {c.paper}): {c.why}"
        for c in stale[:50]
    )
    more = f"; … and {len(stale) - 50} more" if len(stale) > 50 else ""
    return (
        f"split {split.name}: {len(stale)} claim(s) changed since the split was frozen and are "
        f"no longer validated: {shown}{more}. Unresolved, pending and dropped claims never reach "
        "a release: validate the re-opened claims again (Validation, /manage/validation/), then "
        "export again; or make a new split (python manage.py make_split …) and export that one."
    )


def _no_image(element: ReleaseElement, paperid: str) -> str:
    if element.image:
        why = f"its image file {element.image} is missing from MEDIA_ROOT"
    else:
        error = element.image_error.strip()
        why = "it has no image" + (f" (render error: {error[:300]})" if error else "")
    return f"paper {paperid}: {_element_ref(element)}: {why}. {_image_fix(element)}"


def _image_fix(element: ReleaseElement) -> str:
    """What brings the image back: tables and SVG charts are rendered again from what the
    database holds; a chart or an image-table made from arXiv's image files cannot be."""
    row = (
        Element.objects.filter(pk=element.pk)
        .values("is_image_table", "paper__arxiv_id", "paper__version", "paper__media_dir")
        .first()
    )
    if row is None:  # pragma: no cover - the element was read moments ago
        return "Make a new split without this pair, then export it."
    versioned = f"{row['paper__arxiv_id']}v{row['paper__version']}"
    svg = ElementPanel.objects.filter(element_id=element.pk, svg__gt="").exists()
    if element.kind == "table" and not row["is_image_table"]:
        return (
            "Render the paper's table screenshots again from their stored HTML "
            f"(`python manage.py render_images {versioned}`), then export again."
        )
    if svg:
        return (
            "Rasterise the chart's SVG again (needs Chromium: "
            f"`python manage.py render_images {versioned}`), then export again."
        )
    what = "table" if element.kind == "table" else "chart"
    if element.image:
        return (
            f"The {what}'s image came from the paper's own image files on arXiv and cannot be "
            f"made again offline: restore {element.image} under MEDIA_ROOT from a backup, then "
            "export again (or make a new split without this pair)."
        )
    return (
        f"The {what}'s image comes from the paper's own image files on arXiv, which were never "
        "stored (they could not be fetched when the paper was imported), and the paper cannot "
        "be imported again now that it holds expert work: make a new split without this pair "
        "(python manage.py make_split …) and export that one."
    )


def _same_number(first: ReleaseElement, second: ReleaseElement, paperid: str) -> str:
    item = _item(second)
    return (
        f"paper {paperid}: {_element_ref(first)} and {_element_ref(second)} are both "
        f"{second.kind} {item}, so they would share one image "
        f"({image_name(paperid, second.kind, item)}) and one caption entry. Give one of them "
        "a distinct number in the admin (e.g. the appendix's A1), then export again."
    )


def _claims(pair: ClaimPair, paperid: str, split: SplitVersion) -> tuple[Claim, Claim]:
    """The pair's entailed and refuted claims, each with its review and validation."""
    claims = {c.label: c for c in pair.claims.all()}
    for label in ("entailed", "refuted"):
        claim = claims.get(label)
        problem = (
            "is missing"
            if claim is None
            else "has no final review"
            if not hasattr(claim, "review")
            else "has no validation"
            if not hasattr(claim, "validation")
            else ""
        )
        if problem:
            raise ReleaseError(
                f"pair {pair.pk} (paper {paperid}) of split {split.name}: its {label} claim "
                f"{problem} (changed after the split was frozen); make a new split and export it"
            )
    return claims["entailed"], claims["refuted"]


def _codes(pairs) -> dict[int, str]:
    return {p.pk: p.subfield_code for p in pairs}


def dataset_card(
    split: SplitVersion,
    parts: dict[str, list[ReleaseClaim]],
    papers: list[ReleasePaper],
    hide_test_labels: bool,
) -> str:
    """The release's README: licence, each paper's licence, how it was built, statistics,
    which papers are synthetic demo data (warned about first), and how paperids are made."""
    by_id = {p.paperid: p for p in papers}
    fake_papers = [p for p in papers if p.synthetic]
    fake_claims = {
        name: sum(synthetic(c, by_id[c.paperid]) for c in claims) for name, claims in parts.items()
    }
    total_claims = sum(len(claims) for claims in parts.values())
    lines = [f"# SciVer-style dataset, split {split.name}", ""]
    if fake_papers or any(fake_claims.values()):
        lines += [
            f"> **Warning: synthetic data.** {len(fake_papers)} of {len(papers)} papers and "
            f"{sum(fake_claims.values())} of {total_claims} claims are synthetic: copies of "
            "fixture papers with simulated annotations, made by SciVer Studio's "
            "`simulate_annotation` for demos and benchmarks. They are not real arXiv papers "
            "nor expert annotations; do not publish or evaluate on them. Our records mark them "
            "with `synthetic: true` (data/*.jsonl, data/*.csv).",
            "",
        ]
    lines += [
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
        "## Synthetic content",
        "",
    ]
    if fake_papers or any(fake_claims.values()):
        lines.append(
            f"{len(fake_papers)} synthetic paper(s); synthetic claims: "
            + ", ".join(f"{name} {n} of {len(parts[name])}" for name, n in fake_claims.items())
            + "."
        )
    else:
        lines.append("None: every paper is a real arXiv paper, every claim an expert's.")
    versioned = [p for p in papers if p.arxiv_id and p.paperid != p.arxiv_id]
    lines += [
        "",
        "## Paper ids",
        "",
        "`paperid` is the arXiv id without version, as in SciVer's release. Where this release "
        "holds two or more versions of one arXiv id, each of those papers keeps its version "
        "(`<id>v<version>`), so that no two papers share a paper file or an image name; our "
        "records give `arxiv_id` and `arxiv_version` for every claim.",
        "",
    ]
    if versioned:
        lines += [
            "Versioned here: " + ", ".join(f"`{p.paperid}`" for p in versioned) + ".",
            "",
        ]
    lines += ["## Statistics", ""]
    for name, claims in parts.items():
        table = stats.release_table(claims)
        lines.append(f"### {name} ({len(claims)} claims)")
        lines.append("")
        lines.append("| figure | value |")
        lines.append("|---|---:|")
        for key, value in table.items():
            lines.append(f"| {key} | {value} |")
        lines.append("")
    lines += [
        "## Papers and their licences",
        "",
        "| paper | arXiv | licence | synthetic |",
        "|---|---|---|---|",
    ]
    lines += [
        f"| {p.paperid} | {p.arxiv_id or p.paperid}"
        f"{f'v{p.version}' if p.version is not None else ''} | {p.licence} | "
        f"{'yes' if p.synthetic else 'no'} |"
        for p in papers
    ]
    lines.append("")
    return "\n".join(lines)


# --- Where exports started from the pages go -------------------------------------------------

FOLDER_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


def release_folder_name(split_name: str, stamp: str, *, hidden: bool = False) -> str:
    """`<name>-<stamp>[-hidden]` as ONE path component, whatever the split is called (names
    made before they were checked may hold `/`, `..` or spaces)."""
    safe = FOLDER_UNSAFE.sub("-", split_name).strip(".-") or "split"
    return f"{safe[:64]}-{stamp}{'-hidden' if hidden else ''}"


def release_out(release_dir: Path | str, split_name: str, when: datetime, *, hidden: bool) -> Path:
    """RELEASE_DIR/<name>-<stamp>[-hidden]/SciVer, always inside RELEASE_DIR."""
    stamp = when.strftime("%Y%m%d-%H%M%S")
    return Path(release_dir) / release_folder_name(split_name, stamp, hidden=hidden) / SCIVER_FOLDER


__all__ = [
    "BUILDING",
    "build_release",
    "dataset_card",
    "release_folder_name",
    "release_out",
]
