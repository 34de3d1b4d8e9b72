"""Demo and benchmark data: synthetic experts take synthetic papers through the real workflow.

Every write goes through the services the views call (assignment, curation, claim tasks, claim
writing, blind second annotation, adjudication, validation), so the data obeys every rule a
person would meet, and leaves the same history. Only the decisions are simulated: claims are
built from the sampled tables' cells, the values the paragraphs citing a chart state and the
captions, in a few wordings each and in plain text (`plaintext`); refuted claims change a value,
an entity or a comparison (the perturbation suggester's rewrites, never one that only negates);
and second annotators, adjudicators and validators agree, disagree and revise at rates close to
SciVer's (about 94 % label agreement; 232 of 3,000 items revised). Each copy after the first of
its fixture gets its own values and names (`variation`), so copies do not repeat each other's
claims (issue 43).

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
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TypeVar

from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
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
    CuratedElement,
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
from annotation.writing.perturbation import value_spans
from annotation.writing.rules import copied_from
from papers.models import Element, Paper, Section
from papers.synthetic import ensure_copies
from validation import services as validation_services
from workspace.demo.plaintext import plain
from workspace.demo.variation import vary_copy

T = TypeVar("T")

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
    # The facts and statements the run's claims took (`write_claim`), which later ones avoid.
    used: set[str] = field(default_factory=set)

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
    """(row header, column header, number) triples of a table's cell grid, headers in plain
    text (no LaTeX)."""
    facts = []
    for grid in element.cells or []:
        rows = [[" ".join(str(c.get("text", "")).split()) for c in row] for row in grid]
        if len(rows) < 2 or len(rows[0]) < 2:
            continue
        header = rows[0]
        for row in rows[1:]:
            if not row or _NUMBER.match(row[0]) or not row[0]:
                continue
            name = plain(row[0])
            for col in range(1, min(len(row), len(header))):
                column = plain(header[col])
                if not (name and column) or _NUMBER.match(column):
                    continue
                if _NUMBER.match(row[col]):
                    facts.append(
                        Fact(
                            element.pk,
                            element.label or "the table",
                            name,
                            column,
                            row[col],
                        )
                    )
    return facts


_TRAILING = {
    *"the of to a an and in on for with by as at is are when over after than from per".split(),
    *"between under across".split(),
}


def _caption_phrase(element: Element, words: int = 10) -> str:
    """The caption's first clause, at most `words` words, without a dangling function word."""
    caption = re.sub(r"^(Figure|Fig\.|Table)\s*\d+[:.]?\s*", "", plain(element.caption or ""))
    caption = re.split(r"(?<=[A-Za-z0-9)])[.;:]\s", caption.strip())[0]
    kept = caption.split()[:words]
    while kept and kept[-1].lower().strip(",") in _TRAILING:
        kept.pop()
    phrase = " ".join(kept).rstrip(".,;:(")
    if not phrase:
        return "the reported results"
    first = phrase.split()[0]
    # "Learning curves" → "learning curves"; "BLEU lost", "AbsRel on KITTI" keep their case.
    return phrase[:1].lower() + phrase[1:] if first[1:] == first[1:].lower() else phrase


_LABEL = re.compile(r"\b(?:Table|Figure|Fig\.|Tab\.)\s*\d+[a-z]?")
# A proper name (renamed in each copy, `variation`): "RCC", "SlipReG".
_NAMED = re.compile(r"(?<![\w-])[A-Z][A-Za-z]*[A-Z][A-Za-z0-9]*")
_SENTENCE = re.compile(r"(?<=[a-z0-9)%])\.\s+(?=[A-Z])")


def _used_key(text: str) -> str:
    return re.sub(r"[\d.,]+", "#", text)


def fresh_choice(
    items: Sequence[T], rng: random.Random, used: set[str] | None, key: Callable[[T], str]
) -> T:
    """One of `items` at random, one not `used` yet in this run when there is one (its key,
    digits left out, is then used): copies of a fixture then state different facts rather
    than one fact with other values."""
    if used is None:
        return rng.choice(items)
    keys = [_used_key(key(item)) for item in items]
    unused = [i for i, k in enumerate(keys) if k not in used]
    index = rng.choice(unused) if unused else rng.randrange(len(items))
    used.add(keys[index])
    return items[index]


def chart_statement(
    chart: Element, paragraphs: Sequence[str], rng: random.Random, used: set[str] | None = None
) -> str:
    """What a paragraph citing the chart states with a value, as a clause without the chart's
    label ("full fine-tuning loses 3.1 BLEU on average, LoRA 1.2 and RouteAdapt 0.4"), else
    what it says of a named method ("RCC converges faster"); "" when no sentence does and
    names no other table or chart. The copy's values and names
    vary (`variation`), so claims built on it differ between copies, unlike a caption's
    words."""
    label = chart.label or "the figure"
    lead = re.compile(rf"^(?:as\s+)?{re.escape(label)}\s+[a-z]+(?:\s+that)?(?:[^:;]*:)?\s*", re.I)
    cited = re.compile(rf"\s*\((?:see\s+)?{re.escape(label)}\)", re.I)
    stating: list[str] = []
    naming: list[str] = []
    for paragraph in paragraphs:
        for sentence in _SENTENCE.split(plain(paragraph)):
            sentence = lead.sub("", cited.sub("", sentence.strip(" •·-–—*").rstrip(".")))
            # The clause that states the value: a long sentence's first one that does.
            clauses = [c.strip() for c in re.split(r";\s|,\s(?=which|whereas|while)", sentence)]
            valued = next((c for c in clauses if value_spans(c)), "")
            sentence = valued or (clauses[0] if _NAMED.search(clauses[0]) else "")
            if _LABEL.search(sentence) or not 6 <= len(sentence.split()) <= 40:
                continue
            if not sentence[:1].isalnum():
                continue
            if "$" in sentence or "\\" in sentence:
                continue
            first = sentence.split()[0]
            if first[1:] == first[1:].lower():  # "The margin", not "LoRA"
                sentence = sentence[:1].lower() + sentence[1:]
            forms = [form.format(label=label, what=sentence) for form in _STATED]
            if not any(copied_from(form, paragraphs) for form in forms):  # one's own words
                (stating if valued else naming).append(sentence)
    found = stating or naming
    if used is not None and found:
        # Every statement taken already: the caption, if no claim took it yet.
        caption = _used_key(f"caption|{label}|{_caption_phrase(chart)}")
        if {_used_key(text) for text in found} <= used and caption not in used:
            used.add(caption)
            return ""
    return fresh_choice(found, rng, used, lambda text: text) if found else ""


_STATED = (
    "As {label} shows, {what}",
    "{label} shows that {what}",
    "According to {label}, {what}",
    "In {label}, {what}",
)
_REACHES = (
    "In {label}, {row} reaches {value} on {column}",
    "{row} scores {value} on {column} in {label}",
    "{label} reports a {column} of {value} for {row}",
    "According to {label}, {row} obtains {value} on {column}",
)
_HIGHER = (
    "On {column}, {high} obtains a higher score than {low} in {label}, reaching {hv} against {lv}",
    "In {label}, {high} scores higher than {low} on {column} ({hv} against {lv})",
    "{label} shows {high} ahead of {low} on {column}, with {hv} against {lv}",
    "With {hv} against {lv} on {column}, {high} does better than {low} in {label}",
)
_SHOWS = (
    "{label} shows {what}",
    "{label} presents {what}",
    "{label} reports {what}",
)


def _reaches(fact: Fact, rng: random.Random) -> str:
    return rng.choice(_REACHES).format(
        label=fact.label, row=fact.row, value=fact.value, column=fact.column
    )


def _capital(text: str) -> str:
    return text[:1].upper() + text[1:]


def _inner(text: str) -> str:
    """A clause that follows a comma: "In Table 2, …" → "in Table 2, …"; a label or a name
    keeps its capital."""
    first = text.split(" ", 1)[0]
    return text[:1].lower() + text[1:] if first in ("In", "As", "According", "With") else text


def write_claim(
    subset: str,
    visuals: Sequence[Element],
    rng: random.Random,
    citing: Mapping[int, Sequence[str]] | None = None,
    used: set[str] | None = None,
) -> str:
    """A plausible entailed claim over `visuals`, the tables/charts it cites (one, or two for
    parallel and sequential claims): it names each of them and no other. `citing`: the
    paragraphs citing each chart, by id, whose stated values a chart's claim reports. `used`:
    the facts and statements the run's claims took so far, which the claim avoids when it can.
    Each kind of claim has a few wordings, so that claims of one table or chart seldom read
    alike."""
    citing = citing or {}
    facts = [f for v in visuals if v.kind == Element.Kind.TABLE for f in table_facts(v)]
    charts = [v for v in visuals if v.kind == Element.Kind.CHART]
    fact_key: Callable[[Fact], str] = lambda f: f"{f.label}|{f.row}|{f.column}"  # noqa: E731
    fact = fresh_choice(facts, rng, used, fact_key) if facts else None
    other_visual = next((v for v in visuals if fact is None or v.pk != fact.element), None)

    def about(visual: Element, words: int = 10) -> str:
        """A clause on a second table or chart: one of its cells or stated values, else what
        its caption says it shows."""
        label = visual.label or "the figure"
        own = [f for f in facts if f.element == visual.pk]
        if own:
            return _reaches(fresh_choice(own, rng, used, fact_key), rng)
        stated = chart_statement(visual, citing.get(visual.pk, ()), rng, used)
        if stated:
            return rng.choice(_STATED).format(label=label, what=stated)
        if used is not None:
            used.add(_used_key(f"caption|{label}|{_caption_phrase(visual)}"))
        phrase = _caption_phrase(visual, words)
        # Another copy's claim on this caption took one wording: this one takes another.
        form = fresh_choice(_SHOWS, rng, used, lambda f: f"{f}|{label}|{phrase}")
        return form.format(label=label, what=phrase)

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
                text = rng.choice(_HIGHER).format(
                    column=high.column,
                    high=high.row,
                    low=low.row,
                    label=high.label,
                    hv=high.value,
                    lv=low.value,
                )
                return _capital(text) + "."
    if fact is not None and subset in ("parallel", "sequential") and other_visual is not None:
        joiner = "while" if subset == "parallel" else "and, building on this,"
        second = about(other_visual)
        return f"{_capital(_reaches(fact, rng))}, {joiner} {_inner(second)}."
    if fact is not None:
        return _capital(_reaches(fact, rng)) + "."
    chart = charts[0] if charts else visuals[0]
    second_visual = next((v for v in visuals if v is not chart), None)
    text = about(chart)
    if subset in ("parallel", "sequential") and second_visual is not None:
        more = about(second_visual, 6)
        text += f", and {_inner(more)}"
    if len(text.split()) < 7:  # a short caption: a claim has at least six words
        text += " in the paper's experiments"
    return _capital(text) + "."


def refute(
    task: ClaimTask,
    entailed: str,
    evidence: set[int],
    rng: random.Random,
) -> tuple[str, str, str]:
    """(refuted claim, explanation, perturbation kind): a suggester rewrite that changes a value,
    an entity or a comparison when there is one (never one that only adds a negation: a model
    would learn that "not" means refuted), else the claim with another table's or chart's
    content put in place of its own."""
    found = [
        s for s in writing_selectors.suggestions(task, entailed, evidence) if not s.negation_only
    ]
    # Rewrites to another value of the evidence first: a table's cell, a caption, a paragraph;
    # then a value of the claim changed; a flipped word ("maximises" → "minimises") last of
    # these, since papers state the true direction: refuted claims alone would say "minimises"
    # and "shorter", and a claim-only model would learn the words.
    valued = [o for o in found if o.source.kind != "change"][:3]
    changed = None if valued else change_a_value(entailed, rng)
    if changed is not None:
        return changed
    options = valued or found[:3]
    if options:
        choice = rng.choice(options)
        where = f" ({choice.source})" if choice.source.kind != "change" else ""
        return (
            choice.text,
            f"The evidence contradicts it: {choice.description}{where}.",
            choice.kind,
        )
    swapped = swap_content(task, entailed, rng)
    if swapped is not None:
        return swapped
    # Nothing to change (no paper has a single table or chart): a flat contradiction, noted.
    return (
        re.sub(r"\.?$", ", on every setting it reports.", entailed.rstrip(), count=1),
        "The evidence does not cover every setting.",
        "other",
    )


def change_a_value(entailed: str, rng: random.Random) -> tuple[str, str, str] | None:
    """The claim with one of its values changed by 20–45 %, as a writer would when the evidence
    offers no other value to take (a value stated in a paragraph on its own): the evidence
    states the old one."""
    spans = [
        (a, b)
        for a, b in value_spans(entailed)
        if any(c != "0" for c in entailed[a:b] if c.isdigit())
    ]
    if not spans:
        return None
    start, end = rng.choice(spans)
    old = entailed[start:end]
    factor = rng.choice((rng.uniform(0.55, 0.8), rng.uniform(1.2, 1.45)))
    decimals = len(old.split(".")[1]) if "." in old else 0
    value = float(old.replace(",", "").lstrip("+−-"))
    new = f"{value * factor:.{decimals}f}"
    if decimals == 0 and new == old.lstrip("+−-"):
        new = str(int(value) + 1)
    if "," in old:
        new = f"{float(new):,.{decimals}f}"
    new = old[: len(old) - len(old.lstrip("+−-"))] + new
    if new == old:
        return None
    return (
        entailed[:start] + new + entailed[end:],
        f"The evidence states {old}, not {new}.",
        "number",
    )


def swap_content(task: ClaimTask, entailed: str, rng: random.Random) -> tuple[str, str, str] | None:
    """The claim with what one of its tables/charts shows (its caption's words) replaced by what
    another table or chart of the paper shows: "Figure 2 shows learning curves" becomes
    "Figure 2 shows the ablation on the African group"."""
    elements = list(
        Element.objects.filter(
            paper_id=task.paper_id, kind__in=[Element.Kind.TABLE, Element.Kind.CHART]
        ).only("id", "kind", "label", "caption")
    )
    for words in (10, 6):
        phrases = {e.pk: _caption_phrase(e, words) for e in elements if e.caption}
        for pk, phrase in phrases.items():
            if phrase not in entailed:
                continue
            others = sorted({p for p in phrases.values() if p != phrase and p not in entailed})
            texts = {o: entailed.replace(phrase, o, 1) for o in others}
            others = [o for o in others if len(texts[o].split()) >= 7]
            if not others:
                continue
            other = rng.choice(others)
            label = next(e.label for e in elements if e.pk == pk) or "the figure"
            return (
                texts[other],
                f"{label} shows {phrase}, not {other}.",
                "entity",
            )
    return None


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
        # The claims' content and wording draw from a generator of the task's own (its seed):
        # the run's other draws (who disagrees, what is revised) do not depend on them.
        words = random.Random(task.seed)
        entailed = write_claim(
            task.subset, chosen, words, citing_paragraphs(task, chosen), report.used
        )
        evidence = {v.pk for v in chosen}
        if task.paragraph_ids and rng.random() < 0.35:
            evidence.add(rng.choice(task.paragraph_ids))
        refuted, explanation, kind = refute(task, entailed, evidence, words)
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


def citing_paragraphs(task: ClaimTask, visuals: Sequence[Element]) -> dict[int, list[str]]:
    """The texts of the context's paragraphs citing each chart of `visuals`, by chart id."""
    charts = [v.pk for v in visuals if v.kind == Element.Kind.CHART]
    if not charts:
        return {}
    links = (
        Element.references.through.objects.filter(
            to_element_id__in=charts,
            from_element__kind=Element.Kind.PARAGRAPH,
            from_element_id__in=CuratedElement.objects.filter(
                context_id=task.context_id, in_context=True
            ).values("element_id"),
        )
        .order_by("from_element__order")
        .values_list("to_element_id", "from_element__text")
    )
    out: dict[int, list[str]] = {}
    for chart, text in links:
        out.setdefault(chart, []).append(text)
    return out


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
    copies = ensure_copies(
        papers,
        progress=None if progress is None else (lambda d, t, m: progress(d, t, f"imported {m}")),
    )
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
        return _simulate(fresh, codes, rng, report, pairs_per_paper, leave, progress, seed)
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
    seed: int,
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
    # Progress counts every paper, one step each as it is written or left for people (the
    # tail too): a batch's review and validation are said at its last paper's count.
    done = [0]

    def step(paper: Paper, what: str) -> None:
        done[0] += 1
        if progress is not None:
            progress(done[0], len(full) + len(tail), f"{paper.versioned_id}: {what}")

    def writer_for(paper: Paper, *, person: bool) -> AbstractBaseUser:
        people = people_for(paper.subfield_code or "") if person else []
        return people[0] if people else rng.choice(experts[paper.subfield_code][:3])

    def assign(paper: Paper, user: AbstractBaseUser) -> None:
        # A copy gets its own values and names (`variation`) in the transaction that first
        # assigns it: a copy with a writer was varied once, and a copy without none was varied.
        with transaction.atomic():
            vary_copy(paper, seed)
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
            step(paper, "claims written")
        drain(WorkKind.BLIND, everyone, second_annotate(rng, report))
        drain(WorkKind.ADJUDICATE, everyone, adjudicate(rng, report))
        drain(WorkKind.VALIDATE, everyone, validate(rng, report))
        if progress is not None:
            progress(done[0], len(full) + len(tail), f"{report.pairs} pairs through validation")
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
        step(paper, f"left {stage.strip()}")
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
