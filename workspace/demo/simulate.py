"""Demo and benchmark data: synthetic experts take synthetic papers through the real workflow.

Every write goes through the services the views call (assignment, curation, claim tasks, claim
writing, blind second annotation, adjudication, validation), so the data obeys every rule a
person would meet, and leaves the same history. Only the decisions are simulated: claims are
built from the sampled tables' cells and the charts' captions, refuted claims come from the
perturbation suggester, and second annotators, adjudicators and validators agree, disagree and
revise at rates close to SciVer's (about 94 % label agreement; 232 of 3,000 items revised).

The simulation works on synthetic copies of the fixture papers only (`papers.synthetic`): real
papers and the demo people's work are never touched. A copy that already has a writer
assignment was simulated before, so running again with the same arguments adds nothing.

The last papers of a run are left part-way, for people to pick up (the walkthroughs of
docs/admin.md and docs/annotating.md):
papers assigned and waiting for curation, a curated paper waiting for claims, claims waiting
for second annotation and for adjudication, final claims waiting for validation. They go to
people (experts who are not synthetic) where someone eligible exists.
"""

from __future__ import annotations

import datetime as dt
import random
import re
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractBaseUser
from django.db.models import Q

from annotation.assignment import selectors as assignment_selectors
from annotation.assignment import services as assignment_services
from annotation.curation import services as curation_services
from annotation.curation.rules import proposed_for_removal
from annotation.errors import AnnotationError
from annotation.evidence import visuals_needed
from annotation.experts import selectors as expert_selectors
from annotation.experts import services as expert_services
from annotation.experts.synthetic import SYNTHETIC_EXPERT_PREFIX, is_synthetic_expert
from annotation.models import (
    Assignment,
    Claim,
    ClaimReview,
    ClaimTask,
    ExpertProfile,
    Role,
    Subfield,
    WorkItem,
    WorkKind,
    WorkStatus,
)
from annotation.models.review import (
    AdjudicationDecision,
    AdjudicationReason,
    Confidence,
)
from annotation.queue import work
from annotation.review import services as review_services
from annotation.writing import selectors as writing_selectors
from annotation.writing import services as writing_services
from papers.models import Element, Paper, Section
from papers.synthetic import ensure_copies
from validation import services as validation_services

EXPERT_PREFIX = SYNTHETIC_EXPERT_PREFIX
EXPERTS_PER_SUBFIELD = 6  # writer, two second annotators, adjudicator, validator, one spare
SYNTHETIC_NOTE = "synthetic expert (simulate_annotation): demo and benchmark data"

# Rates of the simulated decisions.
LABEL_DISAGREEMENT = 0.06
EVIDENCE_DISAGREEMENT = 0.06
UNRESOLVED = 0.03
REVISED = 0.08

BATCH = 40  # papers written before their claims go through review and validation

Progress = Callable[[int, int, str], None]


@dataclass
class Report:
    papers_imported: int = 0
    papers_simulated: int = 0
    experts_created: int = 0
    pairs: int = 0
    second_annotations: int = 0
    adjudications: int = 0
    validations: int = 0
    revisions: int = 0
    left: dict[str, list[str]] = field(default_factory=dict)

    def lines(self) -> list[str]:
        out = [
            f"papers: {self.papers_simulated} simulated ({self.papers_imported} copies imported)",
            f"experts created: {self.experts_created}",
            f"claim pairs written: {self.pairs}",
            f"second annotations: {self.second_annotations}, adjudications: {self.adjudications}",
            f"validations: {self.validations} ({self.revisions} revised)",
        ]
        for stage, what in self.left.items():
            out.append(f"left {stage}: {', '.join(what)}")
        return out


# --- Experts ---------------------------------------------------------------------------------


def _short(code: str) -> str:
    return code.split(".")[-1].lower()


def synthetic_experts(codes: Sequence[str], report: Report) -> dict[str, list[AbstractBaseUser]]:
    """EXPERTS_PER_SUBFIELD eligible synthetic experts per subfield (made once; no password, so
    nobody can sign in as them)."""
    Subfield.ensure_sciver_subfields()
    subfields = {s.code: s for s in Subfield.objects.filter(code__in=codes)}
    users = get_user_model()
    out: dict[str, list[AbstractBaseUser]] = {}
    for code in codes:
        out[code] = []
        for k in range(1, EXPERTS_PER_SUBFIELD + 1):
            username = f"{EXPERT_PREFIX}{_short(code)}-{k}"
            user = users.objects.filter(username=username).first()
            if user is None:
                user, _ = expert_services.create_account(
                    username=username, first_name="Synthetic", last_name=f"{code} {k}"
                )
                profile = expert_services.ensure_expert_profile(user=user)
                expert_services.update_expert_profile(
                    profile=profile, subfields=[subfields[code]], active=True, notes=SYNTHETIC_NOTE
                )
                for n in (1, 2):
                    expert_services.add_publication(
                        profile=profile,
                        title=f"Synthetic study {n} in {code} ({username})",
                        venue="SimConf",
                        year=2023 + n - 1,
                        subfield=subfields[code],
                    )
                expert_services.record_training(
                    profile=profile,
                    completed_on=dt.date(2024, 11, 18),
                    trainer="simulation",
                    notes=SYNTHETIC_NOTE,
                )
                report.experts_created += 1
            out[code].append(user)
    # Inactive between runs (see simulate); active while the simulation drives them.
    ExpertProfile.objects.filter(user__in=[u for users_ in out.values() for u in users_]).update(
        active=True
    )
    return out


def retire_synthetic_experts() -> int:
    """Synthetic experts take no work outside a simulation run: once it ends they are inactive,
    so people's new papers and the work left for people never go to an account nobody can
    sign in as (their past work stays theirs)."""
    return ExpertProfile.objects.filter(user__username__startswith=EXPERT_PREFIX).update(
        active=False
    )


def people_for(code: str) -> list[AbstractBaseUser]:
    """Eligible experts for `code` who are people, not simulated."""
    return [
        u
        for u in expert_selectors.eligible_experts(code)
        if not is_synthetic_expert(u) and not u.is_staff
    ]


# --- Claims from tables and captions ---------------------------------------------------------

_NUMBER = re.compile(r"^[-+]?\d+(?:\.\d+)?%?$")


@dataclass(frozen=True)
class Fact:
    element: int
    label: str  # "Table 2"
    row: str
    column: str
    value: str


def table_facts(element: Element) -> list[Fact]:
    """(row header, column header, number) triples of a table's cell grid."""
    facts = []
    for grid in element.cells or []:
        rows = [[" ".join(str(c.get("text", "")).split()) for c in row] for row in grid]
        if len(rows) < 2 or len(rows[0]) < 2:
            continue
        header = rows[0]
        for row in rows[1:]:
            if not row or _NUMBER.match(row[0]) or not row[0]:
                continue
            for col in range(1, min(len(row), len(header))):
                if _NUMBER.match(row[col]) and header[col] and not _NUMBER.match(header[col]):
                    facts.append(
                        Fact(
                            element.pk, element.label or "the table", row[0], header[col], row[col]
                        )
                    )
    return facts


_TRAILING = {"the", "of", "to", "a", "an", "and", "in", "on", "for", "with", "by", "as", "at"}


def _caption_phrase(element: Element, words: int = 10) -> str:
    """The caption's first clause, at most `words` words, without a dangling function word."""
    caption = re.sub(r"^(Figure|Fig\.|Table)\s*\d+[:.]?\s*", "", element.caption or "").strip()
    caption = re.split(r"(?<=[a-z0-9)])[.;:]\s", caption)[0]
    kept = caption.split()[:words]
    while kept and kept[-1].lower().strip(",") in _TRAILING:
        kept.pop()
    phrase = " ".join(kept).rstrip(".,;:(")
    return phrase[:1].lower() + phrase[1:] if phrase else "the reported results"


def write_claim(subset: str, visuals: Sequence[Element], rng: random.Random) -> str:
    """A plausible entailed claim over `visuals`, the tables/charts it cites (one, or two for
    parallel and sequential claims): it names each of them and no other."""
    facts = [f for v in visuals if v.kind == Element.Kind.TABLE for f in table_facts(v)]
    charts = [v for v in visuals if v.kind == Element.Kind.CHART]
    fact = rng.choice(facts) if facts else None
    other_visual = next((v for v in visuals if fact is None or v.pk != fact.element), None)
    if fact is not None and subset == "analytical":
        peers = [
            f
            for f in facts
            if f.element == fact.element and f.column == fact.column and f.row != fact.row
        ]
        if peers:
            peer = rng.choice(peers)
            a, b = float(fact.value.rstrip("%")), float(peer.value.rstrip("%"))
            if a != b:
                high, low = (fact, peer) if a > b else (peer, fact)
                return (
                    f"On {high.column}, {high.row} obtains a higher score than {low.row} in "
                    f"{high.label}, reaching {high.value} against {low.value}."
                )
    if fact is not None and subset in ("parallel", "sequential") and other_visual is not None:
        joiner = "while" if subset == "parallel" else "and, building on this,"
        return (
            f"{fact.row} reaches {fact.value} on {fact.column} in {fact.label}, {joiner} "
            f"{other_visual.label or 'the figure'} reports {_caption_phrase(other_visual)}."
        )
    if fact is not None:
        return f"In {fact.label}, {fact.row} reaches {fact.value} on {fact.column}."
    chart = charts[0] if charts else visuals[0]
    second = next((v for v in visuals if v is not chart), None)
    text = f"{chart.label or 'The figure'} shows {_caption_phrase(chart)}"
    if subset in ("parallel", "sequential") and second is not None:
        text += f", consistent with {second.label or 'the other figure'} on {_caption_phrase(second, 6)}"
    return text + "."


def refute(
    task: ClaimTask, entailed: str, evidence: set[int], rng: random.Random
) -> tuple[str, str, str]:
    """(refuted claim, explanation, perturbation kind): a suggester rewrite when there is one,
    else a negation written by hand."""
    found = writing_selectors.suggestions(task, entailed, evidence)
    # Rewrites to another value of the evidence first: a table's cell, a caption, a paragraph.
    options = [o for o in found if o.source.kind != "change"][:3] or found[:3]
    if options:
        choice = rng.choice(options)
        where = f" ({choice.source})" if choice.source.kind != "change" else ""
        return (
            choice.text,
            f"The evidence contradicts it: {choice.description}{where}.",
            choice.kind,
        )
    negated = re.sub(r"\b(shows|reaches|reports|obtains)\b", r"does not \1", entailed, count=1)
    negated = re.sub(r"does not (show|reach|report|obtain)s", r"does not \1", negated)
    if negated == entailed:
        negated = "It is not the case that " + entailed[:1].lower() + entailed[1:]
    return negated, "The evidence shows the opposite of what this claim states.", "other"


# --- Stages ----------------------------------------------------------------------------------


def curate(paper: Paper, user: AbstractBaseUser) -> None:
    """Keep what the curation page proposes: everything but related work, acknowledgments,
    references and appendix; and, as a person would, drop a table or chart that has no picture
    (e.g. a TikZ chart on a machine without Chromium to rasterise it): it could not be
    released."""
    sections = list(Section.objects.filter(paper=paper).values_list("pk", "kind"))
    kept = [pk for pk, kind in sections if not proposed_for_removal(kind)]
    elements = Element.objects.filter(paper=paper).exclude(
        Q(kind__in=[Element.Kind.TABLE, Element.Kind.CHART]) & Q(image="")
    )
    curation_services.save_curated_context(
        paper=paper,
        user=user,
        kept_section_ids=kept,
        kept_element_ids=elements.values_list("pk", flat=True),
        not_chart_ids=[],
        latest_seen=None,
        note="simulated curation",
    )


def write_pairs(user: AbstractBaseUser, rng: random.Random, report: Report) -> None:
    """The writer writes every claim task they may take."""
    while True:
        try:
            item = work.next_item(user=user, kind=WorkKind.WRITE)
        except work.NothingToDo:
            return
        task = ClaimTask.objects.get(pk=item.task_id)
        elements = {e.pk: e for e in Element.objects.filter(pk__in=task.sampled_ids)}
        visuals = [elements[pk] for pk in task.sampled_ids if pk in elements]
        rng.shuffle(visuals)
        # The evidence rule: exactly the subset's tables/charts, and the claim talks about them.
        chosen = visuals[: visuals_needed(task.subset)]
        entailed = write_claim(task.subset, chosen, rng)
        evidence = {v.pk for v in chosen}
        if task.paragraph_ids and rng.random() < 0.35:
            evidence.add(rng.choice(task.paragraph_ids))
        refuted, explanation, kind = refute(task, entailed, evidence, rng)
        writing_services.submit_claim_pair(
            item=item,
            user=user,
            version=item.version,
            token=uuid.uuid4(),
            entailed=entailed,
            evidence_ids=sorted(evidence),
            refuted=refuted,
            explanation=explanation,
            perturbation_kind=kind,
        )
        report.pairs += 1


def _final_evidence_other(item: WorkItem, written: set[int], rng: random.Random) -> set[int]:
    """Evidence that differs enough from the writer's to count as a disagreement."""
    kinds, _ = writing_selectors.evidence_kinds_and_texts(item.pair.context)
    visuals = [pk for pk, kind in kinds.items() if kind in ("table", "chart") and pk not in written]
    extra = set(rng.sample(visuals, min(2, len(visuals)))) if visuals else set()
    kept = {pk for pk in written if kinds.get(pk) in ("table", "chart")}
    return (set(sorted(kept)[:1]) | extra) or written


def drain(
    kind: str,
    experts: Sequence[AbstractBaseUser],
    act: Callable[[WorkItem, AbstractBaseUser], None],
) -> int:
    """Round-robin over the experts: each takes their next item of `kind` (their queue decides
    which) and acts on it, until nobody has anything left."""
    done = 0
    active = list(experts)
    while active:
        still = []
        for user in active:
            try:
                if kind == WorkKind.VALIDATE:
                    item = validation_services.take_next(user=user)
                else:
                    item = review_services.take_next(user=user, kind=kind)
            except work.NothingToDo:
                continue
            act(item, user)
            done += 1
            still.append(user)
        active = still
    return done


def second_annotate(rng: random.Random, report: Report) -> Callable:
    def act(item: WorkItem, user: AbstractBaseUser) -> None:
        item = WorkItem.objects.select_related("pair__context", "claim").get(pk=item.pk)
        claim = item.claim
        written = set(claim.evidence.values_list("pk", flat=True))
        label, evidence = claim.label, written
        roll = rng.random()
        if roll < LABEL_DISAGREEMENT:
            label = "refuted" if claim.label == "entailed" else "entailed"
        elif roll < LABEL_DISAGREEMENT + EVIDENCE_DISAGREEMENT:
            evidence = _final_evidence_other(item, written, rng)
        review_services.submit_second_annotation(
            item=item,
            user=user,
            version=item.version,
            token=uuid.uuid4(),
            label=label,
            evidence_ids=sorted(evidence),
        )
        report.second_annotations += 1

    return act


def adjudicate(rng: random.Random, report: Report) -> Callable:
    def act(item: WorkItem, user: AbstractBaseUser) -> None:
        claim = Claim.objects.get(pk=item.claim_id)
        written = sorted(claim.evidence.values_list("pk", flat=True))
        if rng.random() < UNRESOLVED:
            decision, label, evidence = AdjudicationDecision.UNRESOLVED, "", []
            notes = "The table does not settle this claim either way."
        else:
            decision, label, evidence, notes = (
                AdjudicationDecision.DECIDED,
                claim.label,
                written,
                "",
            )
        review_services.submit_adjudication(
            item=item,
            user=user,
            version=item.version,
            token=uuid.uuid4(),
            decision=decision,
            label=label,
            evidence_ids=evidence,
            confidence=rng.choice(Confidence.values),
            reason=rng.choice([AdjudicationReason.SECOND_ERROR, AdjudicationReason.AMBIGUOUS]),
            notes=notes,
        )
        report.adjudications += 1

    return act


def validate(rng: random.Random, report: Report, *, perturbation_true: bool = False) -> Callable:
    """Validators pass, or revise the wording now and then; with `perturbation_true` they find
    every refuted claim true (criterion 5): its pair goes back to the writer."""

    def act(item: WorkItem, user: AbstractBaseUser) -> None:
        claim = Claim.objects.select_related("pair").get(pk=item.claim_id)
        review = ClaimReview.objects.get(claim=claim)
        evidence = sorted(review.final_evidence.values_list("pk", flat=True))
        text, failed, label = claim.text, [], review.final_label
        if perturbation_true and claim.label == "refuted" and label == "refuted":
            label, failed = "entailed", ["label"]
            report.revisions += 1
        elif rng.random() < REVISED:
            if claim.text.startswith("In "):
                text = "As reported " + claim.text[:1].lower() + claim.text[1:]
            else:
                text = claim.text.rstrip(".") + " in the reported experiments."
            failed = ["language"]
            report.revisions += 1
        validation_services.submit_validation(
            item=item,
            user=user,
            version=item.version,
            token=uuid.uuid4(),
            criteria_failed=failed,
            text=text,
            subset=claim.pair.subset,
            label=label,
            evidence_ids=evidence,
            explanation=claim.explanation,
        )
        report.validations += 1

    return act


# --- The run ---------------------------------------------------------------------------------


def _writer_of(paper: Paper) -> int | None:
    return (
        Assignment.objects.filter(paper=paper, role=Role.WRITER)
        .values_list("expert_id", flat=True)
        .first()
    )


def _pairs_for(rng: random.Random, mean: float) -> int:
    whole = int(mean)
    return max(1, whole + (1 if rng.random() < mean - whole else 0))


def _pick_tail(papers: list[Paper], want_people: int) -> Paper | None:
    """The last paper whose subfield has at least `want_people` eligible people, else the last."""
    for paper in reversed(papers):
        if len(people_for(paper.subfield_code or "")) >= want_people:
            papers.remove(paper)
            return paper
    return papers.pop() if papers else None


def simulate(
    *,
    papers: int,
    seed: int,
    pairs_per_paper: float = 1.4,
    leave: bool = True,
    progress: Progress | None = None,
) -> Report:
    """Take synthetic copies 1..`papers` through the workflow (the ones not simulated before)."""
    if papers < 0:
        raise AnnotationError("--papers cannot be negative.")
    if _demo_archived():
        raise AnnotationError(
            "The demo data is archived (archive_demo): its papers and synthetic experts take no "
            "work. Bring it back first with `python manage.py archive_demo --undo`, or leave it "
            "archived and do not simulate."
        )
    report = Report()
    before = Paper.objects.filter(synthetic=True).count()
    copies = ensure_copies(papers, progress=progress)
    report.papers_imported = Paper.objects.filter(synthetic=True).count() - before
    fresh = [p for p in copies if _writer_of(p) is None]
    if not fresh:
        return report
    rng = random.Random(seed)
    codes_of = assignment_selectors.paper_subfield_codes([p.pk for p in fresh])
    for paper in fresh:
        paper.subfield_code = codes_of[paper.pk]
    codes = sorted({p.subfield_code for p in fresh if p.subfield_code})
    try:
        return _simulate(fresh, codes, rng, report, pairs_per_paper, leave, progress)
    finally:
        retire_synthetic_experts()


def _simulate(
    fresh: list[Paper],
    codes: list[str],
    rng: random.Random,
    report: Report,
    pairs_per_paper: float,
    leave: bool,
    progress: Progress | None,
) -> Report:
    experts = synthetic_experts(codes, report)
    everyone = [u for code in codes for u in experts[code]]
    admin = get_user_model().objects.filter(is_staff=True).order_by("pk").first()

    # The tail, left for people: (stage, paper).
    pool = list(fresh)
    tail: dict[str, Paper] = {}
    if leave and len(fresh) >= 9:
        for stage, want in (
            ("waiting for a new perturbation", 1),
            ("waiting for validation", 1),
            ("waiting for adjudication", 1),
            ("waiting for second annotation", 1),
            ("waiting for claims", 1),
            ("waiting for curation", 1),
            ("waiting for curation ", 1),
        ):
            picked = _pick_tail(pool, want)
            if picked is not None:
                tail[stage] = picked
    full = pool

    def writer_for(paper: Paper, *, person: bool) -> AbstractBaseUser:
        people = people_for(paper.subfield_code or "") if person else []
        return people[0] if people else rng.choice(experts[paper.subfield_code][:3])

    def assign(paper: Paper, user: AbstractBaseUser) -> None:
        assignment_services.assign_papers(
            papers=[paper], experts=[user], assigned_by=admin, note="simulate_annotation"
        )

    def write(paper: Paper, writer: AbstractBaseUser) -> None:
        assign(paper, writer)
        curate(paper, writer)
        writing_services.create_claim_tasks(
            paper=paper,
            by=writer,
            count=_pairs_for(rng, pairs_per_paper),
            seed=rng.getrandbits(40),
        )
        write_pairs(writer, rng, report)

    # In batches, so that the queues stay short (an expert's next item is found among the
    # open ones) and an interrupted run keeps whole batches.
    for start in range(0, len(full), BATCH):
        batch = full[start : start + BATCH]
        for paper in batch:
            write(paper, writer_for(paper, person=False))
        drain(WorkKind.BLIND, everyone, second_annotate(rng, report))
        drain(WorkKind.ADJUDICATE, everyone, adjudicate(rng, report))
        drain(WorkKind.VALIDATE, everyone, validate(rng, report))
        if progress is not None:
            progress(start + len(batch), len(full), f"{report.pairs} pairs through validation")
    report.papers_simulated = len(full)

    # The tail, in this order so that each stage's queue holds only its own paper's items.
    for stage, paper in tail.items():
        report.papers_simulated += 1
        if stage == "waiting for a new perturbation":
            write(paper, writer_for(paper, person=False))
            drain(WorkKind.BLIND, everyone, second_annotate(rng, report))
            drain(WorkKind.ADJUDICATE, everyone, adjudicate(rng, report))
            drain(WorkKind.VALIDATE, everyone, validate(rng, report, perturbation_true=True))
        elif stage == "waiting for validation":
            write(paper, writer_for(paper, person=False))
            drain(WorkKind.BLIND, everyone, second_annotate(rng, report))
            drain(WorkKind.ADJUDICATE, everyone, adjudicate(rng, report))
        elif stage == "waiting for adjudication":
            write(paper, writer_for(paper, person=False))
            drain(WorkKind.BLIND, everyone, disagree(report))
        elif stage == "waiting for second annotation":
            write(paper, writer_for(paper, person=False))
        elif stage == "waiting for claims":
            person = writer_for(paper, person=True)
            assign(paper, person)
            curate(paper, person)
        else:
            assign(paper, writer_for(paper, person=True))
        report.left.setdefault(stage.strip(), []).append(paper.versioned_id)
    return report


def disagree(report: Report) -> Callable:
    """Second annotators who all disagree on the label: the claims wait for adjudication."""

    def act(item: WorkItem, user: AbstractBaseUser) -> None:
        claim = Claim.objects.get(pk=item.claim_id)
        review_services.submit_second_annotation(
            item=item,
            user=user,
            version=item.version,
            token=uuid.uuid4(),
            label="refuted" if claim.label == "entailed" else "entailed",
            evidence_ids=sorted(claim.evidence.values_list("pk", flat=True)),
        )
        report.second_annotations += 1

    return act


def _demo_archived() -> bool:
    return (
        Paper.objects.filter(synthetic=True, archived_at__isnull=False).exists()
        or ExpertProfile.objects.filter(
            user__username__startswith=EXPERT_PREFIX, archived_at__isnull=False
        ).exists()
    )


def leftover_counts() -> dict[str, int]:
    """Open items per kind (what people can pick up)."""
    return {
        kind: WorkItem.objects.filter(kind=kind)
        .filter(Q(status=WorkStatus.OPEN) | Q(status=WorkStatus.LEASED))
        .count()
        for kind in WorkKind.values
    }
