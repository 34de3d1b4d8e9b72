"""A frozen split → release records, as a pipeline of small steps:

    pairs → evidence → elements → paper files → records → checked records → dataset card

each reading the database at most a fixed number of times (`rows` holds what is read), each
refusal said by `refusals`. `validation.release`'s formatters and atomic writer do the rest;
with a `validation.release.Staging`, the images are copied while the records are built."""

from __future__ import annotations

import random
from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from django.conf import settings
from django.db.models import QuerySet

from annotation.evidence import evidence_rule_problem
from annotation.models import (
    Adjudication,
    ClaimReview,
    CuratedElement,
    EvidenceAnnotation,
    PairReview,
    WorkItem,
    WorkKind,
    WorkStatus,
)
from annotation.models.review import FINAL_STATES, ReviewState
from papers.models import Element
from validation import stats
from validation.export.card import dataset_card
from validation.export.refusals import (
    EVIDENCE_FIX,
    StaleClaim,
    claim_ref,
    no_image,
    rule_message,
    same_number,
    stale_message,
    unfaithful_message,
)
from validation.export.rows import (
    ELEMENT_FIELDS,
    PairClaim,
    ReleaseElement,
    ReleasePair,
    ReleasePaperRow,
    item_number,
    read_pairs,
)
from validation.models import SplitVersion, ValidationStatus
from validation.release.formats import jsonl_record, sciver_paper, sciver_record
from validation.release.reading import model_input
from validation.release.records import (
    EvidencePiece,
    ReleaseClaim,
    ReleasePaper,
    VisualElement,
    image_name,
    pseudonymise,
    release_paperids,
)
from validation.release.sections import paper_sections, record_sections
from validation.release.writer import Release, ReleaseError, Staging
from validation.release_check import REWRITE_PERTURBATION, record_findings
from validation.selectors import section_tree

__all__ = ["BUILDING", "build_release"]

Progress = Callable[[int, int, str], None]
BUILDING = "building records"  # the first phase's progress message; then the files are written
VISUAL = ("table", "chart")


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

    With `staging` (the release folder being written), the images are copied into it from
    the moment the records' tables/charts are known, while the records are built."""
    split_pairs = pairs_of(split)
    evidence = evidence_of(split_pairs)
    elements = elements_of(split_pairs, evidence)
    files = paper_files(split_pairs, elements)
    visuals = Visuals(split_pairs, evidence, elements, files.paperids, staging)
    parts, whose = records(split_pairs, evidence, elements, files, visuals, progress)
    paper_json = {p.paperid: sciver_paper(p) for p in files.papers}
    context_words = check_records(split, parts, files.papers, paper_json, whose)
    readme = dataset_card(
        split,
        parts,
        files.papers,
        hide_test_labels,
        files=paper_json,
        context_words=context_words,
    )
    return Release(
        name=split.name,
        splits=parts,
        papers=files.papers,
        images=visuals.images,
        readme=readme,
        hide_test_labels=hide_test_labels,
        seed=split.seed,
        split=split_facts(split, parts),
        progress=progress,
    )


def split_facts(split: SplitVersion, parts: Mapping[str, Sequence[ReleaseClaim]]) -> dict:
    """The manifest's "split": its seed, papers per part, and whether a paper has claims in
    both parts (allowed only for a split made with --allow-shared-papers)."""
    papers = {name: {c.paperid for c in claims} for name, claims in sorted(parts.items())}
    shared = set.intersection(*papers.values()) if len(papers) > 1 else set()
    return {
        "seed": split.seed,
        "papers": {name: len(ids) for name, ids in papers.items()},
        "paper_disjoint": not shared,
        "shared_papers": len(shared),
        "shared_papers_allowed": split.shared_papers_allowed,
    }


# --- 1. pairs ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class SplitPairs:
    """The split's pairs: `members` (pair id, part) in file order, `pairs` by id, and
    `in_split`, the pairs' ids as a subquery (thousands of bound ids cost more to bind and
    parse than the queries take to run)."""

    split: SplitVersion
    members: list[tuple[int, str]]
    in_split: QuerySet
    pairs: dict[int, ReleasePair]

    def in_order(self) -> Iterable[ReleasePair]:
        return (self.pairs[pk] for pk, _ in self.members)


def pairs_of(split: SplitVersion) -> SplitPairs:
    """The split's pairs, their papers and current claims; refuses a split whose pairs no
    longer exist."""
    members = list(split.members.order_by("part", "pair_id").values_list("pair_id", "part"))
    in_split = split.members.order_by().values("pair_id")
    pairs = read_pairs(in_split)
    missing = {pk for pk, _ in members} - set(pairs)
    if missing:
        raise ReleaseError(
            f"{len(missing)} pair(s) of split {split.name} no longer exist; make a new split "
            "and export that one"
        )
    return SplitPairs(split, members, in_split, pairs)


# --- 2. evidence and who annotated ------------------------------------------------------------


@dataclass(frozen=True)
class Evidence:
    """Each claim's final evidence (element ids), its second annotator and adjudicator, and
    the guideline versions each stage was done under."""

    final: dict[int, list[int]]
    seconds: dict[int, int]
    adjudicators: dict[int, int]
    guideline_versions: Callable[[int, PairClaim], dict]


def evidence_of(split_pairs: SplitPairs) -> Evidence:
    """Refuses a split with claims no longer releasable (re-opened, no longer final, dropped)."""
    in_split = split_pairs.in_split
    dropped = set(
        PairReview.objects.filter(pair_id__in=in_split, dropped=True).values_list(
            "pair_id", flat=True
        )
    )
    stale = list(_no_longer_releasable(split_pairs.in_order(), dropped))
    if stale:
        raise ReleaseError(stale_message(split_pairs.split, stale))
    # Final evidence as ids (one query on the link table; the elements are read once, later).
    final: dict[int, list[int]] = defaultdict(list)
    for claim_id, element_id in ClaimReview.final_evidence.through.objects.filter(
        claimreview__claim__pair_id__in=in_split
    ).values_list("claimreview__claim_id", "element_id"):
        final[claim_id].append(element_id)
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
    return Evidence(final, seconds, adjudicators, _guideline_versions(in_split))


# --- 3. elements ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Elements:
    """Every element a release reads (the papers' curated contexts, the sampled and evidence
    elements) by id; each paper's elements in its paper file's context, in order, with their
    not-a-chart flag; and the context each paper file is made of (paper id → context id)."""

    by_pk: dict[int, ReleaseElement]
    by_paper: dict[int, list[tuple[ReleaseElement, bool]]]
    contexts: dict[int, int]


def elements_of(split_pairs: SplitPairs, evidence: Evidence) -> Elements:
    """Refuses a split whose claims' final evidence breaks the evidence rule."""
    pairs = split_pairs.pairs
    # The latest context of each paper among the split's pairs is the paper file's context.
    contexts: dict[int, int] = {}
    for pair in pairs.values():
        contexts[pair.paper_id] = max(contexts.get(pair.paper_id, 0), pair.context_id)
    in_context = (
        CuratedElement.objects.filter(context_id__in=set(contexts.values()), in_context=True)
        .order_by("element__order")
        .values_list("context_id", "not_a_chart", *(f"element__{f}" for f in ELEMENT_FIELDS))
    )
    by_pk: dict[int, ReleaseElement] = {}
    by_paper: dict[int, list[tuple[ReleaseElement, bool]]] = defaultdict(list)
    for context_id, not_a_chart, *values in in_context:
        element = ReleaseElement.from_row(values)
        by_pk[element.pk] = element
        if contexts[element.paper_id] == context_id:
            by_paper[element.paper_id].append((element, not_a_chart))
    needed = {pk for p in pairs.values() for pk in p.sampled_ids} | {
        pk for ids in evidence.final.values() for pk in ids
    }
    for values in Element.objects.filter(pk__in=needed - set(by_pk)).values_list(*ELEMENT_FIELDS):
        element = ReleaseElement.from_row(values)
        by_pk[element.pk] = element
    broken = list(_rule_breakers(split_pairs.in_order(), evidence.final, by_pk))
    if broken:
        raise ReleaseError(rule_message(split_pairs.split, broken))
    return Elements(by_pk, by_paper, contexts)


# --- 4. paper files ---------------------------------------------------------------------------


@dataclass(frozen=True)
class PaperFiles:
    """The papers' files (in paperid order), each paper's `paperid`, the paper-file section
    id of every section, and each file's section ids in order."""

    papers: list[ReleasePaper]
    paperids: dict[int, str]
    section_id: dict[int, str]
    file_order: dict[str, list[str]]


def paper_files(split_pairs: SplitPairs, elements: Elements) -> PaperFiles:
    """Refuses a paper with two tables (or charts) of one number: the paper file keys
    captions by number, so the second would silently replace the first one's caption."""
    section_id, section_titles = section_tree(elements.contexts)
    rows: dict[int, ReleasePaperRow] = {p.paper_id: p.paper for p in split_pairs.pairs.values()}
    paperids = release_paperids((p.pk, p.arxiv_id, p.version) for p in rows.values())
    papers: list[ReleasePaper] = []
    for paper_id, paper in sorted(rows.items(), key=lambda kv: paperids[kv[0]]):
        paperid = paperids[paper_id]
        captions: dict[str, dict[str, str]] = {"table": {}, "chart": {}}
        numbered: dict[tuple[str, str], ReleaseElement] = {}
        in_file = elements.by_paper[paper_id]
        for element, not_chart in in_file:
            if element.kind == "table" or (element.kind == "chart" and not not_chart):
                other = numbered.setdefault((element.kind, item_number(element)), element)
                if other.pk != element.pk:
                    raise ReleaseError(same_number(other, element, paperid))
                captions[element.kind][item_number(element)] = element.caption
        blocks = ((e.section.pk, e.kind, e.text) for e, _ in in_file)
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
            )
        )
    file_order = {p.paperid: [s.section_id for s in p.sections] for p in papers}
    return PaperFiles(papers, paperids, section_id, file_order)


# --- 5. images --------------------------------------------------------------------------------


@dataclass
class Visuals:
    """The tables/charts records name: each one's `VisualElement` and image, named once.

    On creation it looks for every image file the records will name (once, up front) and,
    with a `staging`, starts copying them (a process of their own, while the records are
    built: the first element of a path; two elements of one number are refused when a record
    names the second, and the staging is discarded)."""

    split_pairs: SplitPairs
    evidence: Evidence
    elements: Elements
    paperids: dict[int, str]
    staging: Staging | None = None
    images: dict[str, Path] = field(default_factory=dict)  # image path → its file
    _named: dict[str, ReleaseElement] = field(default_factory=dict)  # image path → its element
    _made: dict[int, VisualElement] = field(default_factory=dict)

    def __post_init__(self) -> None:
        by_pk = self.elements.by_pk
        shown = [
            (by_pk[pk], self.paperids[pair.paper_id])
            for pair in self.split_pairs.pairs.values()
            for claim in pair.claims
            for pk in self.evidence.final.get(claim.pk, ())
            if pk in by_pk and by_pk[pk].kind in VISUAL
        ]
        self._sources = _image_sources(element for element, _ in shown)
        if self.staging is not None:
            planned: dict[str, Path] = {}
            for element, paperid in shown:
                if element.pk in self._sources:
                    path = image_name(paperid, element.kind, item_number(element))
                    planned.setdefault(path, self._sources[element.pk])
            self.staging.copy_files(planned)

    def of(self, element: ReleaseElement, paperid: str) -> VisualElement:
        """The element as a record names it; refuses a missing image or a shared number."""
        if element.pk in self._made:
            return self._made[element.pk]
        item = item_number(element)
        path = image_name(paperid, element.kind, item)
        other = self._named.setdefault(path, element)
        if other.pk != element.pk:
            raise ReleaseError(same_number(other, element, paperid))
        source = self._sources.get(element.pk)
        if source is None:
            raise ReleaseError(no_image(element, paperid))
        self.images[path] = source
        if self.staging is not None:
            self.staging.add(path, source)
        self._made[element.pk] = VisualElement(type=element.kind, item=item, image_path=path)
        return self._made[element.pk]


# --- 6. records -------------------------------------------------------------------------------


def records(
    split_pairs: SplitPairs,
    evidence: Evidence,
    elements: Elements,
    files: PaperFiles,
    visuals: Visuals,
    progress: Progress | None,
) -> tuple[dict[str, list[ReleaseClaim]], dict[int, str]]:
    """Two records per pair, in the parts of the split, and each record's claim as a refusal
    names it (request_id → text). request_ids are a seeded permutation, so that they do not
    reveal which claims form a pair."""
    split, members, by_pk = split_pairs.split, split_pairs.members, elements.by_pk
    salt = settings.RELEASE_SALT or settings.SECRET_KEY
    ids = list(range(1, 2 * len(members) + 1))
    random.Random(split.seed).shuffle(ids)
    next_id = iter(ids)
    parts: dict[str, list[ReleaseClaim]] = {"validation": [], "test": []}
    whose: dict[int, str] = {}
    every = max(1, len(members) // 50)  # the page's bar moves in steps of about 2 %
    if progress:
        progress(0, len(members), BUILDING)
    for done, (pair_id, part) in enumerate(members, start=1):
        pair = split_pairs.pairs[pair_id]
        paperid = files.paperids[pair.paper_id]
        entailed, refuted = _claims(pair, paperid, split)
        gone = [pk for pk in pair.sampled_ids if pk not in by_pk]
        if gone:
            raise ReleaseError(
                f"pair {pair.key} (paper {paperid}): {len(gone)} of its sampled element(s) "
                "no longer exist (the paper was re-imported after the split was frozen?); "
                "make a new split without this pair, or restore the paper's import"
            )
        sampled = tuple(by_pk[pk].anchor for pk in pair.sampled_ids)
        for claim in (entailed, refuted):
            shown = sorted((by_pk[pk] for pk in evidence.final[claim.pk]), key=lambda e: e.order)
            pieces = tuple(
                EvidencePiece(
                    kind=e.kind,
                    anchor=e.anchor,
                    label=e.label,
                    text=e.caption if e.kind in VISUAL else e.text,
                    image_path=visuals.of(e, paperid).image_path if e.kind in VISUAL else None,
                )
                for e in shown
            )
            annotators = {"writer": pseudonymise(pair.writer_id, salt=salt)}
            for role, ids_of in (
                ("second", evidence.seconds),
                ("adjudicator", evidence.adjudicators),
            ):
                if claim.pk in ids_of:
                    annotators[role] = pseudonymise(ids_of[claim.pk], salt=salt)
            if claim.validator_id:
                annotators["validator"] = pseudonymise(claim.validator_id, salt=salt)
            request_id = next(next_id)
            whose[request_id] = claim_ref(claim.key, claim.label, pair.key, pair.paper.versioned_id)
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
                        [(e.kind, e.section.pk) for e in shown],
                        files.section_id,
                        files.file_order[paperid],
                    ),
                    # Exactly the claim's tables/charts (the evidence rule held): what a model
                    # is shown beside the text is what the claim rests on.
                    elements=tuple(visuals.of(e, paperid) for e in shown if e.kind in VISUAL),
                    evidence=pieces,
                    provenance="adjudicated"
                    if claim.review_state == ReviewState.ADJUDICATED
                    else "unanimous",
                    annotators=annotators,
                    pair_id=pair.pk,
                    subfield=pair.subfield,
                    venue=pair.paper.venue or None,
                    sampled=sampled,
                    revisions=claim.revisions or 0,
                    synthetic=pair.paper.synthetic,
                    guideline_versions=evidence.guideline_versions(pair.pk, claim),
                )
            )
        if progress and (done % every == 0 or done == len(members)):
            progress(done, len(members), BUILDING)
    return parts, whose


# --- 7. the records as SciVer's code reads them -----------------------------------------------


def check_records(
    split: SplitVersion,
    parts: Mapping[str, list[ReleaseClaim]],
    papers: list[ReleasePaper],
    files: Mapping[str, Mapping],
    whose: Mapping[int, str],
) -> dict[int, int]:
    """Each record read as SciVer's code reads a release (`files`: the paper files), with
    the checks check_release makes (`record_findings`); refuses the release when any would
    not give a model what its claim needs. Returns the words of the text each record gives a
    model (request_id → words), for the dataset card."""
    by_id = {p.paperid: p for p in papers}
    found = []
    context_words = {}
    for claims in parts.values():
        for claim in claims:
            record = sciver_record(claim)
            seen = model_input(record, files[claim.paperid])
            context_words[claim.request_id] = stats.words(seen.context)
            for finding in record_findings(
                record,
                jsonl_record(claim, by_id[claim.paperid]),
                files[claim.paperid],
                seen=seen,
            ):
                fix = finding.fix if finding.fix == REWRITE_PERTURBATION else EVIDENCE_FIX
                found.append((f"{whose[claim.request_id]}: {finding.what}", fix))
    if found:
        raise ReleaseError(unfaithful_message(split, found))
    return context_words


# --- the rules behind the refusals ------------------------------------------------------------


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
                ref = claim_ref(
                    claim.key, claim.label, pair.key, pair.paper.versioned_id, pair.subset
                )
                yield f"{ref}: {problem}"


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
                yield StaleClaim(claim.key, pair.key, pair.paper.versioned_id, claim.label, why)


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
                f"pair {pair.key} (paper {paperid}) of split {split.name}: its {label} claim "
                f"{problem} (changed after the split was frozen); make a new split and export it"
            )
    return claims["entailed"], claims["refuted"]


# A work item's kind → the stage of a record's `guideline_versions`.
GUIDELINE_STAGES = {
    WorkKind.WRITE: "writing",
    WorkKind.REPERTURB: "writing",
    WorkKind.BLIND: "second_annotation",
    WorkKind.ADJUDICATE: "adjudication",
    WorkKind.VALIDATE: "validation",
}


def _guideline_versions(pairs: QuerySet) -> Callable[[int, PairClaim], dict]:
    """One query: the guideline version each stage of each claim of `pairs` (a subquery of
    pair ids) was submitted under (the latest submission of a stage; writing is the pair's, or
    the new perturbation's for a refuted claim that replaced another)."""
    per_pair: dict[int, dict[str, int | None]] = defaultdict(dict)
    per_claim: dict[int, dict[str, int | None]] = defaultdict(dict)
    rewritten: dict[int, int | None] = {}
    for kind, pair_id, claim_id, number in (
        WorkItem.objects.filter(
            pair_id__in=pairs, kind__in=list(GUIDELINE_STAGES), status=WorkStatus.DONE
        )
        .order_by("done_at", "pk")
        .values_list("kind", "pair_id", "claim_id", "guideline__number")
    ):
        if kind == WorkKind.WRITE:
            per_pair[pair_id]["writing"] = number
        elif kind == WorkKind.REPERTURB:
            rewritten[pair_id] = number
        else:
            per_claim[claim_id][GUIDELINE_STAGES[WorkKind(kind)]] = number

    def of(pair_id: int, claim: PairClaim) -> dict[str, int | None]:
        versions = dict(per_pair.get(pair_id, {}))
        if claim.replaces_id is not None and pair_id in rewritten:
            versions["writing"] = rewritten[pair_id]
        return versions | per_claim.get(claim.pk, {})

    return of
