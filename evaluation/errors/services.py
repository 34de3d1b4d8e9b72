"""Error analysis services: start one on a run (sample its wrong answers per subset, tie each to
its claim in this database, assign two eligible experts), and record a tagger's tag."""

from __future__ import annotations

import json
import secrets
from collections.abc import Sequence
from pathlib import Path

from django.contrib.auth.models import AbstractBaseUser, User
from django.db import transaction
from django.utils import timezone

from annotation import access
from annotation.errors import too_long
from annotation.experts.selectors import eligible_experts
from annotation.inputs import MAX_TEXT
from annotation.models import Claim
from evaluation.errors import rules
from evaluation.errors.models import ErrorAnalysis, ErrorCase, ErrorTag
from evaluation.errors.rules import ErrorAnalysisRefused
from evaluation.models import EvaluationRun, RecordOutcome
from evaluation.release import EvaluationError, load_part
from validation.release.formats import SPLIT_FILES

MAX_NOTE = MAX_TEXT  # 5,000 characters, as every note of the workflow


def _labels_file(root: Path, given: Path | None) -> Path | None:
    """The organisers' labels file of a release with hidden test labels: the one given, else
    where the manifest says (as `evaluation.release.load_part` finds it)."""
    if given is not None:
        return given
    manifest = json.loads((root / "manifest.json").read_text("utf-8"))
    said = manifest.get("hidden_labels") or {}
    return root / str(said["path"]) if isinstance(said, dict) and said.get("path") else None


def _pair_ids(root: Path, part: str, hidden: bool, given: Path | None) -> dict[int, str]:
    """request_id → pair_id from the release's JSON Lines (or, for hidden test labels, from
    the organisers' labels file, which keeps the pairing)."""
    found: dict[int, str] = {}
    jsonl = root / SPLIT_FILES[part][1]
    rows: list = []
    try:
        labels = _labels_file(root, given) if hidden else None
        if jsonl.is_file():
            rows += [json.loads(line) for line in jsonl.read_text("utf-8").splitlines() if line]
        if labels is not None:
            rows += json.loads(labels.read_text("utf-8")).get("records") or []
    except (OSError, ValueError) as exc:
        raise ErrorAnalysisRefused(f"The release's records cannot be read ({exc}).") from exc
    for row in rows:
        if isinstance(row, dict) and row.get("pair_id") not in (None, ""):
            found[row.get("request_id")] = str(row["pair_id"])  # type: ignore[index]
    return found


def claims_of(run: EvaluationRun, outcomes: Sequence[RecordOutcome]) -> dict[int, Claim]:
    """Each outcome's claim in this database (by request id): the release record's pair, the
    claim of that pair with the record's gold label and text. Refuses, saying so, when the
    release folder is gone or a record is not a claim of this database (a run scored from
    a responses file on someone else's release)."""
    try:
        part = load_part(Path(run.release_dir), run.part)
    except EvaluationError as exc:
        raise ErrorAnalysisRefused(
            f"No error analysis: the run's release folder cannot be read ({exc})."
        ) from exc
    pairs = _pair_ids(part.root, run.part, part.hidden, part.labels_file)
    texts = {item.request_id: item.claim for item in part.items}
    wanted = {
        o.request_id: (pairs.get(o.request_id), o.gold, texts.get(o.request_id)) for o in outcomes
    }
    pair_pks = {int(p) for p, _, _ in wanted.values() if p and p.isdigit()}
    known = {
        (c.pair_id, c.label, c.text): c
        for c in Claim.objects.filter(pair_id__in=pair_pks).select_related("pair")
    }
    found: dict[int, Claim] = {}
    for request_id, (pair, gold, text) in wanted.items():
        claim = known.get((int(pair), gold, text or "")) if pair and pair.isdigit() else None
        if claim is not None:
            found[request_id] = claim
    missing = sorted(set(wanted) - set(found))
    if missing:
        raise ErrorAnalysisRefused(
            f"No error analysis: {len(missing)} of the run's {len(wanted)} wrong answers are not "
            f"claims of this database (first: request {missing[0]}); the run was scored on a "
            "release this tool did not export, so there is no claim, subfield or expert to "
            "tag it."
        )
    return found


def _eligible(codes: set[str]) -> dict[str, list[int]]:
    return {code: list(eligible_experts(code).values_list("pk", flat=True)) for code in codes}


@transaction.atomic
def start_analysis(
    *, run: EvaluationRun, by: User, sample_size: int | None, seed: int | None = None
) -> ErrorAnalysis:
    """Sample up to `sample_size` wrong answers per subset of a scored run and assign each to
    two eligible experts of its claim's subfield (one when only one is eligible, none: it
    waits). One analysis per run."""
    access.require_staff(by, ErrorAnalysisRefused, "Only admins can start an error analysis.")
    size = rules.check_sample_size(sample_size)
    if not run.scored:
        raise ErrorAnalysisRefused("The run has no scored answers yet.")
    # Two admins starting at once: the second waits here, then finds the first's analysis.
    run = EvaluationRun.objects.select_for_update().get(pk=run.pk)
    if ErrorAnalysis.objects.filter(run=run).exists():
        raise ErrorAnalysisRefused("This run already has an error analysis.")
    wrong = list(run.outcomes.filter(correct=False))
    if not wrong:
        raise ErrorAnalysisRefused("The run has no wrong answers to analyse.")
    seed = secrets.randbelow(2**31) if seed is None else seed
    by_subset: dict[str, list[int]] = {}
    for outcome in wrong:
        by_subset.setdefault(outcome.claim_type, []).append(outcome.request_id)
    chosen = {
        rid for ids in rules.sample_cases(by_subset, size=size, seed=seed).values() for rid in ids
    }
    sampled = [o for o in wrong if o.request_id in chosen]
    claims = claims_of(run, sampled)
    analysis = ErrorAnalysis.objects.create(run=run, sample_size=size, seed=seed, created_by=by)
    cases = ErrorCase.objects.bulk_create(
        ErrorCase(
            analysis=analysis,
            outcome=o,
            claim=claims[o.request_id],
            subset=o.claim_type,
            subfield_code=claims[o.request_id].pair.subfield_code,
        )
        for o in sampled
    )
    assign(cases)
    return analysis


def assign(cases: Sequence[ErrorCase]) -> int:
    """Give each case without its two taggers the eligible experts it lacks, spreading the
    work (the experts' open error cases count); returns the tags created."""
    eligible = _eligible({c.subfield_code for c in cases})
    held = {c.pk: set(c.tags.values_list("tagger_id", flat=True)) for c in cases if c.pk}
    load: dict[int, int] = {}
    for tagger in ErrorTag.objects.filter(submitted_at__isnull=True).values_list(
        "tagger_id", flat=True
    ):
        load[tagger] = load.get(tagger, 0) + 1
    wanted = [
        (c.pk, [u for u in eligible[c.subfield_code] if u not in held.get(c.pk, set())])
        for c in cases
        if len(held.get(c.pk, set())) < rules.TAGGERS_PER_CASE
    ]
    per_case = {pk: rules.TAGGERS_PER_CASE - len(held.get(pk, set())) for pk, _ in wanted}
    tags = []
    for pk, people in wanted:
        picked = rules.assign_taggers([(pk, people)], load=load, per_case=per_case[pk])[pk]
        for tagger in picked:
            load[tagger] = load.get(tagger, 0) + 1
            tags.append(ErrorTag(case_id=pk, tagger_id=tagger))
    ErrorTag.objects.bulk_create(tags)
    return len(tags)


def assign_waiting(*, analysis: ErrorAnalysis, by: AbstractBaseUser) -> int:
    """Assign again the cases that lack taggers (an expert became eligible since)."""
    access.require_staff(by, ErrorAnalysisRefused, "Only admins can assign error cases.")
    with transaction.atomic():
        return assign(list(analysis.cases.all()))


def may_tag(case: ErrorCase, user: AbstractBaseUser) -> ErrorTag:
    """The user's tag of the case; refused when the case is not theirs, or when they are no
    longer an eligible expert of its subfield."""
    tag = ErrorTag.objects.filter(case=case, tagger_id=user.pk).first()
    if tag is None:
        raise ErrorAnalysisRefused("This error case is not assigned to you.")
    if not eligible_experts(case.subfield_code).filter(pk=user.pk).exists():
        raise ErrorAnalysisRefused(
            f"You are no longer an eligible expert of {case.subfield_code}; an admin can see why "
            "on the People page."
        )
    return tag


def submit_tag(
    *, case: ErrorCase, by: AbstractBaseUser, categories: Sequence[str], note: str
) -> ErrorTag:
    """Record the tagger's error types (one or more) and note; a later submission replaces
    their earlier one."""
    codes = rules.check_categories(categories)
    if len(note) > MAX_NOTE:
        raise ErrorAnalysisRefused(too_long("Note", note, MAX_NOTE))
    with transaction.atomic():
        tag = may_tag(case, by)
        tag = ErrorTag.objects.select_for_update().get(pk=tag.pk)
        tag.categories, tag.note, tag.submitted_at = codes, note, timezone.now()
        tag.save(update_fields=["categories", "note", "submitted_at"])
    return tag
