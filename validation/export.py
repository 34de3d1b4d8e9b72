"""Dataset → release records: reads a frozen split's pairs and builds `validation.release`
records (the pure formatters and the atomic writer do the rest)."""

from __future__ import annotations

import random
import re
from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from django.conf import settings
from django.db.models import QuerySet
from django.urls import reverse

from annotation.evidence import evidence_rule_problem
from annotation.models import (
    Adjudication,
    Claim,
    ClaimPair,
    ClaimReview,
    CuratedElement,
    EvidenceAnnotation,
    PairReview,
    WorkKind,
)
from annotation.models.review import FINAL_STATES, ReviewState
from guidelines.models import GuidelineUse
from papers.licences import allows_redistribution, licence_code, licence_name
from papers.models import Element, ElementPanel, Paper
from validation import stats
from validation.models import SplitVersion, ValidationStatus
from validation.release import (
    EvidencePiece,
    Release,
    ReleaseClaim,
    ReleaseError,
    ReleasePaper,
    Staging,
    VisualElement,
    image_name,
    pseudonymise,
    release_paperids,
)
from validation.release.formats import (
    SCIVER_FOLDER,
    jsonl_record,
    sciver_paper,
    sciver_record,
    synthetic,
)
from validation.release.reading import model_input
from validation.release.sections import paper_sections, record_sections
from validation.release_check import REWRITE_PERTURBATION, record_findings
from validation.selectors import section_tree

Progress = Callable[[int, int, str], None]
BUILDING = "building records"  # the first phase's progress message; then the files are written

VISUAL = ("table", "chart")
ELEMENT_FIELDS = (
    "id", "paper_id", "kind", "anchor", "order", "label", "number", "caption", "text", "image",
    "image_error", "section_id", "section__number", "section__title", "section__anchor",
)  # fmt: skip
SHOWN = 50  # claims named in a refusal; the rest are counted


@dataclass(frozen=True, slots=True)
class ReleaseSection:
    pk: int
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
        """From a `values_list(*ELEMENT_FIELDS)` row (the section's four fields last)."""
        *fields, section_pk, number, title, anchor = row
        fields[9] = fields[9] or ""  # image
        return cls(*fields, section=ReleaseSection(section_pk, number, title, anchor))


@dataclass(frozen=True, slots=True)
class ReleasePaperRow:
    """What the release reads of a paper."""

    pk: int
    arxiv_id: str
    version: int
    license_url: str
    license_name: str
    venue: str
    synthetic: bool
    archived_at: datetime | None

    @property
    def versioned_id(self) -> str:
        return f"{self.arxiv_id}v{self.version}"


@dataclass(frozen=True, slots=True)
class PairClaim:
    """What the release reads of a current claim, its final review and its validation (the
    review's and the validation's fields are None when it has none)."""

    pk: int
    label: str
    text: str
    explanation: str
    replaces_id: int | None
    review_state: str | None
    final_label: str | None
    validation_status: str | None
    validator_id: int | None
    revisions: int | None
    reopen_reason: str | None


CLAIM_FIELDS = (
    "pair_id", "id", "label", "text", "explanation", "replaces_id", "review__state",
    "review__final_label", "validation__status", "validation__validator_id",
    "validation__revisions", "validation__reopen_reason",
)  # fmt: skip
PAPER_FIELDS = (
    "id", "arxiv_id", "version", "license_url", "license_name", "venue", "synthetic",
    "archived_at",
)  # fmt: skip


@dataclass(frozen=True, slots=True)
class ReleasePair:
    """What the release reads of a claim pair: its current claims, in label order."""

    pk: int
    paper_id: int
    context_id: int
    writer_id: int
    subset: str
    subfield: str
    sampled_ids: tuple[int, ...]
    paper: ReleasePaperRow
    claims: tuple[PairClaim, ...]


def _read_pairs(pair_ids: QuerySet) -> dict[int, ReleasePair]:
    """The pairs `pair_ids` (a subquery of ids), their papers and current claims as light
    rows (three queries; model instances cost more than the queries at SciVer's scale)."""
    claims: dict[int, list[PairClaim]] = defaultdict(list)
    # Superseded claims (a perturbation found true, then rewritten) never ship.
    for pair_id, *values in (
        Claim.objects.current().filter(pair_id__in=pair_ids).order_by().values_list(*CLAIM_FIELDS)
    ):
        claims[pair_id].append(PairClaim(*values))
    rows = list(
        ClaimPair.objects.filter(pk__in=pair_ids)
        .order_by()
        .values_list(
            "pk", "paper_id", "context_id", "writer_id", "subset", "subfield_code",
            "task__sampled_ids",
        )
    )  # fmt: skip
    papers = {
        values[0]: ReleasePaperRow(*values)
        for values in Paper.objects.filter(
            pk__in=ClaimPair.objects.filter(pk__in=pair_ids).values("paper_id")
        )
        .order_by()
        .values_list(*PAPER_FIELDS)
    }
    return {
        pk: ReleasePair(
            pk,
            paper_id,
            context_id,
            writer_id,
            subset,
            subfield,
            tuple(sampled),
            papers[paper_id],
            tuple(sorted(claims[pk], key=lambda c: c.label)),
        )  # fmt: skip
        for pk, paper_id, context_id, writer_id, subset, subfield, sampled in rows
    }


def _item(element: ReleaseElement) -> str:
    """The table or figure number as a string (`3`), from the parsed number or the label."""
    if element.number:
        return element.number
    if element.label:
        return element.label.split()[-1]
    return str(element.pk)


def _image_sources(elements: Iterable[ReleaseElement]) -> dict[int, Path]:
    """The image file of each element that has one on disk (element pk → path)."""
    root = Path(settings.MEDIA_ROOT)
    found = {}
    for element in elements:
        if element.image and element.pk not in found:
            path = root / element.image
            if path.is_file():
                found[element.pk] = path
    return found


def build_release(
    split: SplitVersion,
    *,
    hide_test_labels: bool = False,
    progress: Progress | None = None,
    staging: Staging | None = None,
) -> Release:
    """Everything the release folder holds, in a fixed number of queries per 1,000 pairs.

    Each record names exactly its claim's final table/chart evidence and the sections of its
    evidence paragraphs (else of its tables/charts), with paper-file section ids SciVer's
    reading reaches. Refuses (ReleaseError) a split whose pairs changed since it was frozen
    so that a claim is no longer releasable (re-opened and not validated again, no longer
    final, dropped), whose claims' final evidence breaks the evidence rule
    (`annotation.evidence`), or whose records, read as SciVer's code reads them, would not
    give a model their claim's evidence (`release_check.record_findings`).

    With `staging` (the release folder being written), each image is copied into it as soon
    as a record names it, so that the copying overlaps the building."""
    members = list(split.members.order_by("part", "pair_id").values_list("pair_id", "part"))
    part_of = dict(members)
    # The split's pairs as a subquery, not a list of ids: thousands of parameters cost more
    # to bind and parse than the queries take to run.
    in_split = split.members.order_by().values("pair_id")
    pairs = _read_pairs(in_split)
    # Final evidence as ids (one query on the link table; the elements are read once, below).
    final_evidence: dict[int, list[int]] = defaultdict(list)
    for claim_id, element_id in ClaimReview.final_evidence.through.objects.filter(
        claimreview__claim__pair_id__in=in_split
    ).values_list("claimreview__claim_id", "element_id"):
        final_evidence[claim_id].append(element_id)
    missing = set(part_of) - set(pairs)
    if missing:
        raise ReleaseError(
            f"pairs {sorted(missing)} of split {split.name} no longer exist; make a new split "
            "(python manage.py make_split …) and export that one"
        )
    dropped = set(
        PairReview.objects.filter(pair_id__in=in_split, dropped=True).values_list(
            "pair_id", flat=True
        )
    )
    stale = list(_no_longer_releasable((pairs[pk] for pk, _ in members), dropped))
    if stale:
        raise ReleaseError(_stale_message(split, stale))
    codes = _codes(pairs.values())
    seconds = dict(
        EvidenceAnnotation.objects.filter(claim__pair_id__in=in_split).values_list(
            "claim_id", "annotator_id"
        )
    )
    adjudicators: dict[int, int] = {}
    for claim_id, expert_id in (
        Adjudication.objects.filter(claim__pair_id__in=in_split, decision="decided")
        .order_by("created_at", "id")
        .values_list("claim_id", "adjudicator_id")
    ):
        adjudicators[claim_id] = expert_id
    guideline_versions = _guideline_versions(in_split)
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
    needed = {pk for p in pairs.values() for pk in p.sampled_ids} | {
        pk for ids in final_evidence.values() for pk in ids
    }
    for values in Element.objects.filter(pk__in=needed - set(elements)).values_list(
        *ELEMENT_FIELDS
    ):
        element = ReleaseElement.from_row(values)
        elements[element.pk] = element
    broken = list(_rule_breakers((pairs[pk] for pk, _ in members), final_evidence, elements))
    if broken:
        raise ReleaseError(_rule_message(split, broken))
    section_id, section_titles = section_tree(contexts)
    salt = settings.RELEASE_SALT or settings.SECRET_KEY
    paper_objects = {p.paper_id: p.paper for p in pairs.values()}
    paperids = release_paperids((p.pk, p.arxiv_id, p.version) for p in paper_objects.values())
    images: dict[str, Path] = {}
    named: dict[str, ReleaseElement] = {}  # image path → the element it shows

    made: dict[int, VisualElement] = {}
    # The tables/charts the records will name, each image file looked for once, up front.
    shown = [
        (elements[pk], paperids[pair.paper_id])
        for pair in pairs.values()
        for claim in pair.claims
        for pk in final_evidence.get(claim.pk, ())
        if pk in elements and elements[pk].kind in VISUAL
    ]
    sources = _image_sources(element for element, _ in shown)
    if staging is not None:
        # Copied by a process of its own while the records are built (the first element of
        # a path: two elements with one number are refused below, and the staging discarded).
        planned: dict[str, Path] = {}
        for element, paperid in shown:
            if element.pk in sources:
                path = image_name(paperid, element.kind, _item(element))
                planned.setdefault(path, sources[element.pk])
        staging.copy_files(planned)

    def visual(element: ReleaseElement, paperid: str) -> VisualElement:
        if element.pk in made:
            return made[element.pk]
        item = _item(element)
        path = image_name(paperid, element.kind, item)
        other = named.setdefault(path, element)
        if other.pk != element.pk:
            raise ReleaseError(_same_number(other, element, paperid))
        source = sources.get(element.pk)
        if source is None:
            raise ReleaseError(_no_image(element, paperid))
        images[path] = source
        if staging is not None:
            staging.add(path, source)
        made[element.pk] = VisualElement(type=element.kind, item=item, image_path=path)
        return made[element.pk]

    # The paper files first: a record's `section` is in its paper file's order.
    papers: list[ReleasePaper] = []
    for paper_id, paper in sorted(paper_objects.items(), key=lambda kv: paperids[kv[0]]):
        paperid = paperids[paper_id]
        captions: dict[str, dict[str, str]] = {"table": {}, "chart": {}}
        numbered: dict[tuple[str, str], ReleaseElement] = {}
        for element, not_chart in by_paper[paper_id]:
            if element.kind == "table" or (element.kind == "chart" and not not_chart):
                # The paper file keys captions by number: a second element with the same
                # number would silently replace the first one's caption.
                other = numbered.setdefault((element.kind, _item(element)), element)
                if other.pk != element.pk:
                    raise ReleaseError(_same_number(other, element, paperid))
                captions[element.kind][_item(element)] = element.caption
        blocks = ((e.section.pk, e.kind, e.text) for e, _ in by_paper[paper_id])
        papers.append(
            ReleasePaper(
                paperid=paperid,
                sections=paper_sections(blocks, section_id, section_titles),
                chart_captions=captions["chart"],
                table_captions=captions["table"],
                licence=paper.license_url or paper.license_name or "unknown",
                arxiv_id=paper.arxiv_id,
                version=paper.version,
                synthetic=paper.synthetic,
            )  # fmt: skip
        )
    file_order = {p.paperid: [s.section_id for s in p.sections] for p in papers}

    # request_id: a seeded permutation, so that ids do not reveal which claims form a pair.
    total = 2 * len(members)
    ids = list(range(1, total + 1))
    random.Random(split.seed).shuffle(ids)
    parts: dict[str, list[ReleaseClaim]] = {"validation": [], "test": []}
    whose: dict[int, str] = {}  # request_id → the claim, as a refusal names it
    next_id = iter(ids)
    every = max(1, len(members) // 50)  # the page's bar moves in steps of about 2 %
    if progress:
        progress(0, len(members), BUILDING)
    for done, (pair_id, part) in enumerate(members, start=1):
        pair = pairs[pair_id]
        paperid = paperids[pair.paper_id]
        entailed, refuted = _claims(pair, paperid, split)
        gone = [pk for pk in pair.sampled_ids if pk not in elements]
        if gone:
            raise ReleaseError(
                f"pair {pair.pk} (paper {paperid}): its sampled element(s) {gone} no "
                "longer exist (the paper was re-imported after the split was frozen?); "
                "make a new split without this pair, or restore the paper's import"
            )
        sampled = [elements[pk] for pk in pair.sampled_ids]
        for claim in (entailed, refuted):
            evidence = sorted(
                (elements[pk] for pk in final_evidence[claim.pk]),
                key=lambda e: e.order,
            )
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
            if claim.validator_id:
                annotators["validator"] = pseudonymise(claim.validator_id, salt=salt)
            request_id = next(next_id)
            whose[request_id] = (
                f"claim {claim.pk} ({claim.label}, pair {pair.pk}, paper {pair.paper.versioned_id})"
            )
            parts[part].append(
                ReleaseClaim(
                    request_id=request_id,
                    paperid=paperid,
                    claim_type=pair.subset,
                    label=claim.label == "entailed",
                    origin_statement=entailed.text,
                    perturbed_statement=refuted.text,
                    perturbed_explanation=refuted.explanation,
                    section=record_sections(
                        [(e.kind, e.section.pk) for e in evidence],
                        section_id,
                        file_order[paperid],
                    ),
                    # Exactly the claim's tables/charts (the evidence rule held above): what
                    # a model is shown beside the text is what the claim rests on.
                    elements=tuple(visual(e, paperid) for e in evidence if e.kind in VISUAL),
                    evidence=tuple(pieces),
                    provenance="adjudicated"
                    if claim.review_state == ReviewState.ADJUDICATED
                    else "unanimous",
                    annotators=annotators,
                    pair_id=pair.pk,
                    subfield=codes[pair.pk],
                    venue=pair.paper.venue or None,
                    sampled=tuple(e.anchor for e in sampled),
                    revisions=claim.revisions,
                    synthetic=pair.paper.synthetic,
                    guideline_versions=guideline_versions(pair.pk, claim),
                )  # fmt: skip
            )
        if progress and (done % every == 0 or done == len(members)):
            progress(done, len(members), BUILDING)
    files = {p.paperid: sciver_paper(p) for p in papers}
    unfaithful, context_words = _unfaithful(parts, papers, files, whose)
    if unfaithful:
        raise ReleaseError(_unfaithful_message(split, unfaithful))
    readme = dataset_card(
        split, parts, papers, hide_test_labels, files=files, context_words=context_words
    )
    return Release(name=split.name, splits=parts, papers=papers, images=images, readme=readme,
                   hide_test_labels=hide_test_labels, seed=split.seed,
                   progress=progress)  # fmt: skip


def _rule_breakers(
    pairs: Iterable[ReleasePair],
    final_evidence: Mapping[int, list[int]],
    elements: Mapping[int, ReleaseElement],
) -> Iterable[str]:
    """The claims whose final evidence breaks the evidence rule, each as `claim … : why`."""
    for pair in pairs:
        for claim in pair.claims:
            evidence = [pk for pk in final_evidence.get(claim.pk, []) if pk in elements]
            kinds = {pk: elements[pk].kind for pk in evidence}
            labels = {pk: elements[pk].label or elements[pk].anchor for pk in evidence}
            problem = evidence_rule_problem(
                pair.subset, evidence, kinds, list(pair.sampled_ids), labels=labels
            )
            if problem:
                yield (
                    f"claim {claim.pk} ({claim.label}, {pair.subset}, pair {pair.pk}, paper "
                    f"{pair.paper.versioned_id}): {problem}"
                )


def _shown(items: list[str]) -> str:
    more = f"; … and {len(items) - SHOWN} more" if len(items) > SHOWN else ""
    return "; ".join(items[:SHOWN]) + more


def _rule_message(split: SplitVersion, broken: list[str]) -> str:
    return (
        f"split {split.name}: {len(broken)} claim(s) rest on final evidence that breaks the "
        "evidence rule (exactly one table or chart for a direct or analytical claim, exactly "
        "two for a parallel or sequential one, at least one of them sampled), so their "
        "records would show a model other tables/charts than the claims need: "
        f"{_shown(broken)}. Nothing was written. Re-open their validation (Validation, "
        "/manage/validation/, Re-open, with the reason) so that a validator fixes the "
        "evidence, then export again; or make a new split without these pairs "
        "(python manage.py make_split …) and export that one."
    )


def _unfaithful(
    parts: Mapping[str, list[ReleaseClaim]],
    papers: list[ReleasePaper],
    files: Mapping[str, Mapping],
    whose: Mapping[int, str],
) -> tuple[list[tuple[str, str]], dict[int, int]]:
    """Each record read as SciVer's code reads a release (`files`: the paper files), with
    the checks check_release makes (`record_findings`): what would be wrong with the release,
    before it is written, as (the claim and what is wrong, what to do); and the words of the
    text each record gives a model (request_id → words), for the dataset card."""
    by_id = {p.paperid: p for p in papers}
    found = []
    context_words = {}
    for claims in parts.values():
        for claim in claims:
            paper = by_id[claim.paperid]
            record = sciver_record(claim)
            seen = model_input(record, files[claim.paperid])
            context_words[claim.request_id] = stats.words(seen.context)
            for finding in record_findings(
                record, jsonl_record(claim, paper), files[claim.paperid], seen=seen
            ):
                fix = finding.fix if finding.fix == REWRITE_PERTURBATION else EVIDENCE_FIX
                found.append((f"{whose[claim.request_id]}: {finding.what}", fix))
    return found, context_words


EVIDENCE_FIX = (
    "for a claim whose evidence is not in its record's context, re-open its validation so that "
    "the validator picks its evidence from the paper's current curated context (its pair was "
    "written on an earlier one), or make a new split without it"
)


def _unfaithful_message(split: SplitVersion, found: list[tuple[str, str]]) -> str:
    fixes = list(dict.fromkeys(fix for _, fix in found))
    return (
        f"split {split.name}: {len(found)} record(s), read as SciVer's own code reads a "
        f"release, would not give a model what their claims need: "
        f"{_shown([what for what, _ in found])}. Nothing was written. To fix: "
        + "; ".join(fix[:1].upper() + fix[1:] for fix in fixes)
        + "."
    )


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


def _no_longer_releasable(pairs: Iterable[ReleasePair], dropped: set[int]) -> Iterable[StaleClaim]:
    """The claims of `pairs` that are not validated any more (re-opened by an admin and not yet
    validated again), not final any more, whose final label no longer matches their role in
    the pair, or whose pair was dropped. Missing claims are left to `_claims`, which says so."""
    for pair in pairs:
        for claim in pair.claims:
            if claim.review_state is None or claim.validation_status is None:
                continue
            why = ""
            if pair.paper.archived_at is not None:
                why = "its paper was archived (un-archive it, or make a new split)"
            elif pair.pk in dropped:
                why = "its pair was dropped"
            elif claim.review_state not in FINAL_STATES:
                why = f"its review is {ReviewState(claim.review_state).label}"
            elif claim.final_label != claim.label:
                why = f"its final label is now {claim.final_label}"
            elif claim.validation_status != ValidationStatus.VALIDATED:
                reason = (claim.reopen_reason or "").strip()
                why = "re-opened, waiting for validation" + (
                    f" (reason: {reason[:200]})" if reason else ""
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


def _claims(pair: ReleasePair, paperid: str, split: SplitVersion) -> tuple[PairClaim, PairClaim]:
    """The pair's entailed and refuted claims, each with its review and validation."""
    claims = {c.label: c for c in pair.claims}
    for label in ("entailed", "refuted"):
        claim = claims.get(label)
        problem = (
            "is missing"
            if claim is None
            else "has no final review"
            if claim.review_state is None
            else "has no validation"
            if claim.validation_status is None
            else ""
        )
        if problem:
            raise ReleaseError(
                f"pair {pair.pk} (paper {paperid}) of split {split.name}: its {label} claim "
                f"{problem} (changed after the split was frozen); make a new split and export it"
            )
    return claims["entailed"], claims["refuted"]


def _codes(pairs) -> dict[int, str]:
    return {p.pk: p.subfield for p in pairs}


# A work item's kind → the stage of a record's `guideline_versions`.
GUIDELINE_STAGES = {
    WorkKind.WRITE: "writing", WorkKind.REPERTURB: "writing",
    WorkKind.EVIDENCE: "second_annotation", WorkKind.ADJUDICATE: "adjudication",
    WorkKind.VALIDATE: "validation",
}  # fmt: skip


def _guideline_versions(pairs: QuerySet) -> Callable[[int, PairClaim], dict]:
    """One query: the guideline version each stage of each claim of `pairs` (a subquery of
    pair ids) was submitted under (the latest submission of a stage; writing is the pair's, or
    the new perturbation's for a refuted claim that replaced another)."""
    per_pair: dict[int, dict[str, int | None]] = defaultdict(dict)
    per_claim: dict[int, dict[str, int | None]] = defaultdict(dict)
    rewritten: dict[int, int | None] = {}
    for kind, pair_id, claim_id, number in (
        GuidelineUse.objects.filter(
            item__pair_id__in=pairs, item__kind__in=list(GUIDELINE_STAGES)
        )
        .order_by("item__done_at", "item_id")
        .values_list("item__kind", "item__pair_id", "item__claim_id", "version__number")
    ):  # fmt: skip
        if kind == WorkKind.WRITE:
            per_pair[pair_id]["writing"] = number
        elif kind == WorkKind.REPERTURB:
            rewritten[pair_id] = number
        else:
            per_claim[claim_id][GUIDELINE_STAGES[kind]] = number

    def of(pair_id: int, claim: PairClaim) -> dict[str, int | None]:
        versions = dict(per_pair.get(pair_id, {}))
        if claim.replaces_id is not None and pair_id in rewritten:
            versions["writing"] = rewritten[pair_id]
        return versions | per_claim.get(claim.pk, {})

    return of


def dataset_card(
    split: SplitVersion,
    parts: dict[str, list[ReleaseClaim]],
    papers: list[ReleasePaper],
    hide_test_labels: bool,
    *,
    files: Mapping[str, Mapping] | None = None,
    context_words: Mapping[int, int] | None = None,
) -> str:
    """The release's README: licence, each paper's licence, how it was built, statistics,
    which papers are synthetic demo data (warned about first), and how paperids are made.
    `files` (the paper files) and `context_words` (request_id → words a model is given) spare
    reading each record again when the caller has done so."""
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
        f"Split seed {split.seed}; licence filter: {_licence_filter(split)}; "
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
    used = sorted({n for claims in parts.values() for c in claims
                   for n in c.guideline_versions.values() if n is not None})  # fmt: skip
    lines += [
        "## Guidelines",
        "",
        "Each claim's record in data/*.jsonl gives `guideline_versions`: the version of the "
        "annotation guidelines each stage (writing, second annotation, adjudication, "
        "validation) was done under. Versions used: "
        + (", ".join(str(n) for n in used) if used else "none recorded")
        + ".",
        "",
    ]
    lines += [
        "## Statistics",
        "",
        stats.MODEL_WORDS_NOTE[:1].upper() + stats.MODEL_WORDS_NOTE[1:] + ".",
        "",
    ]
    curated = {p.paperid: sum(stats.words(s.text) for s in p.sections) for p in papers}
    for name, claims in parts.items():
        table = stats.release_table(
            claims, by_id, files=files, context_words=context_words, curated_words=curated
        )
        lines.append(f"### {name} ({len(claims)} claims)")
        lines.append("")
        lines.append("| figure | value |")
        lines.append("|---|---:|")
        for key, value in table.items():
            lines.append(f"| {key} | {value} |")
        lines.append("")
    lines += _licence_lines(split, papers)
    lines.append("")
    return "\n".join(lines)


def _licence_filter(split: SplitVersion) -> str:
    if not split.licences:
        return "none (any licence; this split was made before the default filter)"
    codes = ", ".join(split.licences)
    if split.licences_by_default:
        return f"{codes} (the default: licences that allow redistribution with adaptations)"
    return f"{codes} (named by whoever made the split)"


def _licence_lines(split: SplitVersion, papers: list[ReleasePaper]) -> list[str]:
    """The card's papers, listed under their licences; a paper whose licence does not allow
    redistribution with adaptations says why it is here anyway."""
    by_code: dict[str, list[ReleasePaper]] = defaultdict(list)
    for paper in papers:
        by_code[licence_code(paper.licence)].append(paper)
    lines = ["## Papers and their licences", ""]
    if split.left_out:
        lines += [
            "Left out by the licence filter (complete pairs): "
            + ", ".join(f"{licence_name(code)} {n}" for code, n in split.left_out.items())
            + ".",
            "",
        ]
    for code in sorted(by_code, key=lambda c: (not allows_redistribution(c), c)):
        group = by_code[code]
        lines += [f"### {licence_name(code)} (`{code}`): {len(group)} paper(s)", ""]
        if not allows_redistribution(code):
            lines += [
                f"> **{licence_name(code)} does not allow redistribution with adaptations.** "
                f"These papers are here because split {split.name}'s licence filter names "
                f"`{code}`"
                + (" (made before the default filter)" if not split.licences else "")
                + ": make sure you may publish them before you do.",
                "",
            ]
        lines += ["| paper | arXiv | licence | synthetic |", "|---|---|---|---|"]
        mark = "" if allows_redistribution(code) else " ⚠ not redistributable with adaptations"
        lines += [
            f"| {p.paperid} | {p.arxiv_id or p.paperid}"
            f"{f'v{p.version}' if p.version is not None else ''} | {p.licence}{mark} | "
            f"{'yes' if p.synthetic else 'no'} |"
            for p in group
        ]
        lines.append("")
    return lines


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
