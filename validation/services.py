"""Writes of the validation stage: handing final claims to validators, recording passes and
revisions, re-opening, the human-baseline study, freezing splits and exporting releases (one
transaction each, keyword-only arguments, domain errors, a history row per state change)."""

from __future__ import annotations

import random
import shutil
import uuid
from collections import Counter
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import ClassVar

from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from django.utils import timezone

from annotation import access, lifecycle
from annotation import request_parsing as parse
from annotation.errors import AnnotationError, InvalidTransition, too_long
from annotation.evidence import evidence_rule_problem, visual_ids
from annotation.experts import selectors as expert_selectors
from annotation.models import (
    Claim,
    ClaimPair,
    ClaimReview,
    PairRole,
    PairState,
    Role,
    Subset,
    WorkAction,
    WorkItem,
    WorkKind,
    WorkStatus,
)
from annotation.models.review import LABELS
from annotation.queue import work
from annotation.request_parsing import MAX_TEXT, id_set
from annotation.review.services import element_labels
from annotation.writing import reperturbation
from annotation.writing import selectors as writing_selectors
from papers.licences import (
    KNOWN_LICENCES,
    REDISTRIBUTABLE,
    allows_redistribution,
    licence_name,
    paper_licence,
)
from validation import routing, selectors
from validation.models import (
    CRITERIA,
    BaselineAnswer,
    BaselineItem,
    BaselineStudy,
    ReleaseExport,
    SplitMember,
    SplitVersion,
    Validation,
    ValidationRevision,
    ValidationStatus,
)
from validation.split import SplitError, SplitPair, make_split


class InvalidValidation(AnnotationError):
    """A validation refused; `errors` maps each form field to what is wrong with it."""

    def __init__(self, errors: dict[str, str]):
        super().__init__("Nothing was recorded: " + " ".join(errors.values()))
        self.errors = errors


def long_text_errors(**texts: str) -> dict[str, str]:
    """Field -> refusal for each text longer than MAX_TEXT (with the limit and its length): a
    validation or an answer refuses it whole, whoever calls, and never cuts it."""
    return {
        name: message for name, text in texts.items() if (message := too_long(name, text, MAX_TEXT))
    }


def labelled_rule_problem(
    subset: str, evidence: Collection[int], kinds: Mapping[int, str], sampled: Collection[int]
) -> str:
    """The evidence rule (`evidence_rule_problem`) for a validator's final evidence, its tables
    and charts named by their labels ("Table 2"; one query, only when the rule is broken); ""
    when the evidence meets it. A validation and an edit of one refuse with it."""
    return evidence_rule_problem(subset, evidence, kinds, sampled, labels=element_labels)


# --- Validation ------------------------------------------------------------------------------


def open_validation(review: ClaimReview, *, actor: AbstractBaseUser | None) -> Validation | None:
    """A claim that became final is handed to validation in the same transaction (registered
    with `annotation.lifecycle.on_enter` in `validation.apps`): its validation item goes to the
    pair's validator where the blindness rule lets them, else to anyone it lets (never the
    claim's writer, second annotator or adjudicator; with nobody, it waits for an admin). A perturbation found true is not validated: its writer replaces it, and
    the new claim is. A dropped pair's or a replaced claim's claims are not either."""
    claim = _cached(review, "claim")
    if claim is None or _cached(claim, "pair") is None:  # a caller that did not join them
        claim = Claim.objects.select_related("pair").get(pk=review.claim_id)
    pair = claim.pair
    if (
        claim.superseded
        or pair.state == PairState.DROPPED
        or (claim.label == "refuted" and review.final_label == "entailed")
    ):
        return None
    withdrawn = None
    if _has_validation(claim):
        # Only a validation withdrawn before anyone took it (its second annotator edited their
        # answer, `annotation.review.edits`) is handed out again, with a new item.
        withdrawn = Validation.objects.filter(
            claim=claim, status=ValidationStatus.PENDING, item__status=WorkStatus.CANCELLED
        ).first()
        if withdrawn is None:
            return None
    # Only a pair with a validator routes its claim (to them): the full rule's three reads are
    # asked only then.
    route = routing.Route(None)
    if PairRole.objects.filter(pair_id=pair.pk, role=Role.VALIDATOR).exists():
        roles, pending = work.pair_roles([pair.pk])
        eligible = [u.pk for u in expert_selectors.eligible_experts(pair.subfield_code)]
        route = routing.route_validation(claim.pk, eligible, roles[pair.pk], pending[pair.pk])
    item = work.create_item(
        kind=WorkKind.VALIDATE,
        paper_id=pair.paper_id,
        subfield_code=pair.subfield_code,
        actor=actor,
        pair=pair,
        claim=claim,
        assignee_id=route.assignee,
    )
    if route.assignee is not None:
        work.record(
            item, route.action, actor=actor, new={"assignee": route.assignee}, note=route.note
        )
    if withdrawn is not None:
        withdrawn.claim = claim
        return lifecycle.change(
            withdrawn,
            actor=actor,
            action=WorkAction.OPENED,
            changes={"item": item},
            old={"item": withdrawn.item_id},
            new={"item": item.pk},
        )
    validation = Validation.objects.create(claim=claim, item=item)
    lifecycle.opened(validation, actor=actor, action=WorkAction.OPENED)
    return validation


def _cached(obj, relation: str):
    """A forward relation already loaded with `obj` (select_related), else None."""
    return obj._state.fields_cache.get(relation)


def _has_validation(claim: Claim) -> bool:
    """Whether the claim has its validation row (read from the join when the caller made one:
    `select_related("claim__validation")` caches a missing one too)."""
    if "validation" in claim._state.fields_cache:
        return claim._state.fields_cache["validation"] is not None
    return Validation.objects.filter(claim=claim).exists()


@transaction.atomic
def take_next(*, user: AbstractBaseUser) -> WorkItem:
    """Lease the expert's next validation item, record their role on its claim, and name them
    for the pair's other claim where the blindness rule lets them."""
    item = work.next_item(user=user, kind=WorkKind.VALIDATE)
    PairRole.objects.get_or_create(
        pair_id=item.pair_id, claim_id=item.claim_id, expert=user, defaults={"role": Role.VALIDATOR}
    )
    for other in (
        WorkItem.objects.select_for_update(of=("self",))
        .filter(
            pair_id=item.pair_id,
            kind=WorkKind.VALIDATE,
            status=WorkStatus.OPEN,
            assignee__isnull=True,
            claim__validation__validator__isnull=True,  # a re-opened claim goes to another
        )
        .exclude(pk=item.pk)
    ):
        if not work.refusal_for(other, user.pk):
            work.assign(
                other, user.pk, actor=user, note="the pair's validator validates its claims"
            )
    return item


@dataclass
class ValidationDraft:
    """The validator's unfinished choices, autosaved on the item (`autosave_draft` reads it
    with `from_data` and stores `as_draft`) and put back on the page when it is reloaded."""

    text: str = ""
    subset: str = ""
    label: str = ""
    evidence: list[int] = field(default_factory=list)
    explanation: str = ""
    criteria_failed: list[str] = field(default_factory=list)

    FIELDS: ClassVar[dict[str, parse.Field]] = {
        "text": parse.Text(MAX_TEXT),
        "subset": parse.Text(16),
        "label": parse.Text(16),
        "evidence": parse.Ids(),
        "explanation": parse.Text(MAX_TEXT),
        "criteria_failed": parse.Strings(),
    }

    @classmethod
    def from_data(cls, data: object, *, errors: dict[str, str] | None = None) -> ValidationDraft:
        """From an autosaved JSON draft: a bad value raises BadInput (the request parsing
        layer's 400; a text too long is refused, never cut), or with `errors` is recorded there
        (the field left empty; a text too long kept whole)."""
        values = parse.parse_fields(data, cls.FIELDS, errors=errors)
        return cls(
            **values
            | {
                "evidence": sorted(values["evidence"]),
                "criteria_failed": sorted(
                    c for c in set(values["criteria_failed"]) if c in CRITERIA
                ),
            }
        )

    def as_draft(self) -> dict:
        return {
            "text": self.text,
            "subset": self.subset,
            "label": self.label,
            "evidence": self.evidence,
            "explanation": self.explanation,
            "criteria_failed": self.criteria_failed,
        }

    def as_form(self) -> dict:
        """The page's form (what a refused submission shows) from the draft."""
        return {
            "criteria_failed": self.criteria_failed,
            "text": self.text,
            "subset": self.subset,
            "label": self.label,
            "evidence_ids": self.evidence,
            "explanation": self.explanation,
        }

    @staticmethod
    def is_draft(data: object) -> bool:
        """Whether an item's draft holds a validator's choices (an unsaved item's is empty)."""
        return isinstance(data, dict) and "text" in data and "evidence" in data


@transaction.atomic
def submit_validation(
    *,
    item: WorkItem,
    user: AbstractBaseUser,
    version: int | None,
    token: uuid.UUID,
    criteria_failed: Iterable[str],
    text: str,
    subset: str,
    label: str,
    evidence_ids: Iterable[object],
    explanation: str = "",
) -> Validation:
    """Pass (no criterion failed, nothing changed) or fail and revise: the claim's text, the
    pair's subset (both claims), the final label, evidence or explanation are changed in place
    and every changed field is kept as a revision."""
    item, replay = work.begin_submission(item=item, user=user, version=version, token=token)
    if replay:
        return Validation.objects.get(claim_id=item.claim_id)
    if item.kind != WorkKind.VALIDATE:
        raise AnnotationError("This is not a validation item.")
    claim = (
        Claim.objects.select_related("pair__context", "pair__task")
        .select_for_update(of=("self",))
        .get(pk=item.claim_id)
    )
    pair = ClaimPair.objects.select_for_update().get(pk=claim.pair_id)
    review = ClaimReview.objects.select_for_update().get(claim=claim)
    validation = Validation.objects.get(claim=claim)
    validation.claim = claim
    if validation.status != ValidationStatus.PENDING:
        raise InvalidTransition("This claim is already validated.")
    failed = sorted(set(criteria_failed))
    text, explanation = " ".join(str(text).split()), str(explanation).strip()
    evidence = id_set(evidence_ids)
    errors: dict[str, str] = long_text_errors(text=text, explanation=explanation)
    if any(c not in CRITERIA for c in failed):
        errors["criteria"] = "Unknown criterion."
    if not text:
        errors["text"] = "The claim cannot be empty."
    if subset not in Subset.values:
        errors["subset"] = "Choose one of the four subsets."
    if label not in LABELS:
        errors["label"] = "Choose the label: entailed or refuted."
    kinds, _ = writing_selectors.evidence_kinds_and_texts(claim.pair.context)
    if not evidence:
        errors["evidence"] = "Mark the evidence."
    elif any(pk not in kinds for pk in evidence):
        errors["evidence"] = "Some evidence is not part of this paper's curated context."
    else:  # the evidence rule, for the subset the claim leaves with (the validator may revise it)
        final_subset = subset if subset in Subset.values else pair.subset
        sampled = claim.pair.task.sampled_ids
        if problem := labelled_rule_problem(final_subset, evidence, kinds, sampled):
            errors["evidence"] = problem
        elif final_subset != pair.subset:  # the subset is the pair's: its validated claim too
            sibling = (
                ClaimReview.objects.filter(
                    claim__pair=pair,
                    claim__superseded_at__isnull=True,
                    claim__validation__status=ValidationStatus.VALIDATED,
                )
                .exclude(claim=claim)
                .first()
            )
            cited = set(sibling.final_evidence.values_list("pk", flat=True)) if sibling else set()
            if sibling and evidence_rule_problem(final_subset, cited, kinds, sampled):
                errors["subset"] = (
                    f"The pair's other claim, already validated, cites "
                    f"{len(visual_ids(cited, kinds))} table(s)/chart(s): as {final_subset} it "
                    "would break the evidence rule. Keep the subset, or ask an admin to re-open "
                    "the other claim."
                )
    if claim.label == "refuted" and not explanation:
        errors["explanation"] = "A refuted claim keeps an explanation of why it is false."
    before = {
        "text": claim.text,
        "subset": pair.subset,
        "label": review.final_label,
        "evidence": sorted(review.final_evidence.values_list("pk", flat=True)),
        "explanation": claim.explanation,
    }
    after = {
        "text": text,
        "subset": subset,
        "label": label,
        "evidence": sorted(evidence),
        "explanation": explanation if claim.label == "refuted" else "",
    }
    changed = [f for f in before if before[f] != after[f]]
    if not errors:
        if failed and not changed:
            errors["criteria"] = (
                "You marked failed criteria but changed nothing: revise the claim, or untick "
                "them to pass it."
            )
        elif changed and not failed:
            errors["criteria"] = "You revised the claim: tick the criteria it failed."
    if errors:
        raise InvalidValidation(errors)
    for name in changed:
        ValidationRevision.objects.create(
            validation=validation,
            item=item,
            field=name,
            before=before[name],
            after=after[name],
            criteria_failed=failed,
            by=user,
        )
    if "text" in changed or "explanation" in changed:
        claim.text, claim.explanation = after["text"], after["explanation"]
        claim.save(update_fields=["text", "explanation"])
    if "subset" in changed:  # the subset belongs to the pair: both claims change
        pair.subset = subset
        pair.save(update_fields=["subset"])
    if "label" in changed:
        review.final_label = label
        review.save(update_fields=["final_label", "updated_at"])
        if claim.label == "refuted" and label == "entailed":
            reperturbation.open_reperturbation(
                claim=claim,
                actor=user,
                why=f"revised to entailed by its validator ({', '.join(failed)})",
            )
        elif claim.label == "refuted":  # false again: no new perturbation needed any more
            reperturbation.cancel_reperturbation(
                pair=pair,
                actor=user,
                note="its validator revised the refuted claim back to refuted",
            )
    if "evidence" in changed:
        review.final_evidence.set(after["evidence"])
    outcome = "revised" if changed else "passed"
    lifecycle.move(
        validation,
        ValidationStatus.VALIDATED,
        actor=user,
        action=WorkAction.VALIDATED,
        changes={
            "validator": user,
            "validated_at": timezone.now(),
            "criteria_failed": failed,
            "revisions": validation.revisions + (1 if changed else 0),
            "reopen_reason": "",
        },
        new={"outcome": outcome, "criteria_failed": failed},
        refusal="This claim is already validated.",
    )
    work.finish_submission(
        item,
        user=user,
        token=token,
        pair=None,
        old={k: before[k] for k in changed} | {"draft": item.draft},
        new={k: after[k] for k in changed} | {"criteria_failed": failed, "outcome": outcome},
    )
    return validation


@transaction.atomic
def reopen_validation(*, claim: Claim, by: AbstractBaseUser, reason: str) -> Validation:
    """An admin sends a validated claim back to validation, with the reason; another validator
    takes it (the work queue never hands a re-opened claim to whoever did it before)."""
    access.require_staff(by)
    reason = reason.strip()
    if not reason:
        raise AnnotationError("Say why the item is re-opened.")
    validation = Validation.objects.select_related("claim__pair").get(claim=claim)
    if validation.claim.superseded:
        raise InvalidTransition("A new perturbation replaced this claim: it is no longer released.")
    if validation.claim.pair.state == PairState.DROPPED:
        raise InvalidTransition("This claim's pair was dropped.")
    pair = validation.claim.pair
    previous = validation.item_id
    item = work.create_item(
        kind=WorkKind.VALIDATE,
        paper_id=pair.paper_id,
        subfield_code=pair.subfield_code,
        actor=by,
        pair=pair,
        claim=validation.claim,
    )
    lifecycle.move(
        validation,
        ValidationStatus.PENDING,
        actor=by,
        action=WorkAction.REOPENED,
        changes={"item": item, "reopen_reason": reason},
        old={"item": previous},
        new={"item": item.pk},
        note=reason,
        refusal="Only validated items can be re-opened.",
    )
    return validation


# --- Human baseline --------------------------------------------------------------------------


@dataclass(frozen=True)
class PoolClaim:
    """A validated claim the baseline may sample: its pair and gold (final) label."""

    claim_id: int
    pair_id: int
    label: str


def baseline_pool(expert_ids: list[int]) -> dict[str, list[PoolClaim]]:
    """Validated claims by subset whose pairs none of the experts worked on."""
    worked = set(
        PairRole.objects.filter(expert_id__in=expert_ids).values_list("pair_id", flat=True)
    )
    pool: dict[str, list[PoolClaim]] = {s: [] for s in Subset.values}
    for claim_id, pair_id, subset, label in selectors.validated_claims().values_list(
        "pk", "pair_id", "pair__subset", "review__final_label"
    ):
        if pair_id not in worked:
            pool[subset].append(PoolClaim(claim_id, pair_id, label))
    return pool


@dataclass
class BaselineSample:
    """The claims drawn per subset, and the subsets that had fewer pairs than asked."""

    chosen: dict[str, list[int]] = field(default_factory=dict)
    short: dict[str, int] = field(default_factory=dict)

    def claim_ids(self) -> list[int]:
        return [c for ids in self.chosen.values() for c in ids]


def sample_baseline(
    pool: Mapping[str, Sequence[PoolClaim]], *, per_subset: int, rng: random.Random
) -> BaselineSample:
    """Draw `per_subset` claims of each subset (pure), at most one per pair: the two claims of
    a pair share their evidence and differ by the perturbation, so seeing both gives the label
    away. The pairs are drawn uniformly; then each drawn pair gives its entailed or its refuted
    claim so that the labels are as balanced as the pairs allow (a subset's odd claim goes to
    the label behind across the study so far)."""
    sample = BaselineSample()
    totals = dict.fromkeys(LABELS, 0)
    for subset in sorted(pool):
        by_pair: dict[int, dict[str, list[int]]] = {}
        for claim in pool[subset]:
            by_pair.setdefault(claim.pair_id, {}).setdefault(claim.label, []).append(claim.claim_id)
        pairs = sorted(by_pair)
        if len(pairs) < per_subset:
            sample.short[subset] = len(pairs)
        drawn = rng.sample(pairs, min(per_subset, len(pairs)))
        if not drawn:
            continue
        # Pairs with one label give that one; the others fill in towards the balance.
        forced = dict.fromkeys(LABELS, 0)
        flexible = []
        for pair_id in drawn:
            labels = sorted(by_pair[pair_id])
            if len(labels) == 1:
                forced[labels[0]] += 1
            else:
                flexible.append(pair_id)
        n = len(drawn)
        first, second = LABELS
        extra_first = bool(n % 2) and (
            totals[first] < totals[second]
            or (totals[first] == totals[second] and rng.random() < 0.5)
        )
        want_first = n // 2 + (1 if extra_first else 0)
        want_first = max(forced[first], min(forced[first] + len(flexible), want_first))
        to_first = set(rng.sample(flexible, want_first - forced[first]))
        chosen = []
        for pair_id in drawn:
            labels = by_pair[pair_id]
            if len(labels) == 1:
                label = next(iter(labels))
            else:
                label = first if pair_id in to_first else second
            chosen.append(rng.choice(sorted(labels[label])))
            totals[label] += 1
        sample.chosen[subset] = chosen
    return sample


def baseline_candidates() -> list[AbstractBaseUser]:
    from django.contrib.auth import get_user_model

    return list(
        get_user_model().objects.filter(is_active=True, expert__active=True).order_by("username")
    )


def baseline_order(entries: Sequence[int], *, seed: int, expert_id: int) -> list[int]:
    """The order one expert is served a study's claims in (pure): shuffled per expert, so two
    experts never read the same sequence, and reproducible from the study's seed."""
    order = sorted(entries)
    random.Random(f"baseline-{seed}-expert-{expert_id}").shuffle(order)
    return order


@transaction.atomic
def start_baseline(
    *, by: AbstractBaseUser, expert_ids: list[int], per_subset: int = 10, seed: int = 0
) -> BaselineStudy:
    """Sample `per_subset` validated claims of each subset that the two experts never worked
    on, at most one per pair and labels balanced, and hand each to both, blind, each expert in
    their own shuffled order."""
    access.require_staff(by)
    expert_ids = sorted(set(expert_ids))
    if len(expert_ids) != 2:
        raise AnnotationError("Choose exactly two experts for the study.")
    if per_subset < 1:
        raise AnnotationError("Sample at least one claim per subset.")
    sample = sample_baseline(
        baseline_pool(expert_ids), per_subset=per_subset, rng=random.Random(seed)
    )
    chosen = sample.claim_ids()
    if not chosen:
        raise AnnotationError(
            "No validated claim is free of these experts' work: choose others, or validate more."
        )
    short = [f"{subset} {n}" for subset, n in sample.short.items()]
    study = BaselineStudy.objects.create(
        per_subset=per_subset,
        seed=seed,
        created_by=by,
        note=("fewer pairs than asked: " + ", ".join(short)) if short else "",
    )
    study.experts.set(expert_ids)
    claims = Claim.objects.select_related("pair", "review").in_bulk(chosen)
    entries = {}
    for claim_id in chosen:
        claim = claims[claim_id]
        entry = BaselineItem.objects.create(
            study=study, claim=claim, subset=claim.pair.subset, gold_label=claim.review.final_label
        )
        entries[entry.pk] = entry
    # An expert's items are served oldest first: created in that expert's own order.
    for expert_id in expert_ids:
        for entry_id in baseline_order(list(entries), seed=seed, expert_id=expert_id):
            claim = entries[entry_id].claim
            work.create_item(
                kind=WorkKind.BASELINE,
                paper_id=claim.pair.paper_id,
                subfield_code=claim.pair.subfield_code,
                actor=by,
                pair=claim.pair,
                claim=claim,
                assignee_id=expert_id,
                draft={"baseline_item": entry_id},
            )
    return study


@transaction.atomic
def take_next_baseline(*, user: AbstractBaseUser) -> WorkItem:
    return work.next_item(user=user, kind=WorkKind.BASELINE)


@transaction.atomic
def submit_baseline_answer(
    *,
    item: WorkItem,
    user: AbstractBaseUser,
    version: int | None,
    token: uuid.UUID,
    label: str,
    explanation: str,
) -> BaselineAnswer:
    item, replay = work.begin_submission(item=item, user=user, version=version, token=token)
    if replay:
        return BaselineAnswer.objects.get(work_item=item)
    if item.kind != WorkKind.BASELINE:
        raise AnnotationError("This is not a baseline item.")
    explanation = explanation.strip()
    errors = long_text_errors(explanation=explanation)
    if label not in LABELS:
        errors["label"] = "Answer entailed or refuted."
    if not explanation:
        errors["explanation"] = "Explain your answer."
    if errors:
        raise InvalidValidation(errors)
    entry = BaselineItem.objects.get(
        study__items__claim_id=item.claim_id, pk=item.draft.get("baseline_item")
    )
    answer = BaselineAnswer.objects.create(
        item=entry,
        work_item=item,
        expert=user,
        label=label,
        explanation=explanation,
    )
    work.finish_submission(
        item,
        user=user,
        token=token,
        pair=None,
        new={"label": label, "explanation": answer.explanation},
    )
    return answer


# --- Split -----------------------------------------------------------------------------------


def split_pool() -> list[SplitPair]:
    ok, _ = selectors.complete_pair_ids()
    pairs = (
        ClaimPair.objects.filter(pk__in=ok)
        .select_related("paper")
        .only("id", "subset", "paper__license_url", "paper__license_name")
    )
    return [
        SplitPair(pair_id=p.pk, subset=p.subset, claims=2, licence=paper_licence(p.paper))
        for p in pairs
    ]


@dataclass(frozen=True)
class LicenceShare:
    """The complete pairs of one licence, and whether a default split takes them."""

    code: str
    name: str
    pairs: int
    by_default: bool

    @property
    def claims(self) -> int:
        return 2 * self.pairs


def licence_breakdown(pool: Sequence[SplitPair] | None = None) -> list[LicenceShare]:
    """The pool's complete pairs by their papers' licence (most first), for the releases page
    and the command: what a default split takes and what it leaves out."""
    counts = Counter(p.licence or "unknown" for p in (split_pool() if pool is None else pool))
    return [
        LicenceShare(code, licence_name(code), n, allows_redistribution(code))
        for code, n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
    ]


def default_pool_pairs() -> int:
    """Complete pairs a split made with the default licence filter may draw from."""
    return sum(share.pairs for share in licence_breakdown() if share.by_default)


def next_split_name() -> str:
    n = SplitVersion.objects.count() + 1
    while SplitVersion.objects.filter(name=f"v{n}").exists():
        n += 1
    return f"v{n}"


@transaction.atomic
def freeze_split(
    *,
    validation: int,
    test: int,
    seed: int,
    licences: Iterable[str] | None = None,
    name: str | None = None,
    by: AbstractBaseUser | None = None,
) -> SplitVersion:
    """Draw and freeze a split over the complete validated pairs. A name is a version: an
    existing split is never changed. Without `licences`, only papers whose licence allows
    redistribution with adaptations take part (`papers.licences.REDISTRIBUTABLE`); the pairs
    left out are counted by licence on the split."""
    from validation.split import check_licence_codes, check_split_name

    name = (name or next_split_name()).strip()
    try:  # every caller (command, page, shell) gets the same guards
        check_split_name(name)
        licences = check_licence_codes(licences or (), KNOWN_LICENCES)
    except SplitError as exc:
        raise AnnotationError(str(exc)) from exc
    if SplitVersion.objects.filter(name=name).exists():
        raise AnnotationError(f"A split named {name} exists; splits are frozen, choose a new name.")
    pool = split_pool()
    licence_list = sorted({lic.strip().lower() for lic in licences or () if lic.strip()})
    by_default = not licence_list
    if by_default:
        licence_list = sorted(REDISTRIBUTABLE)
    left_out = Counter(p.licence or "unknown" for p in pool if p.licence not in licence_list)
    try:
        split = make_split(pool, validation=validation, test=test, seed=seed, licences=licence_list)
    except SplitError as exc:
        validated = selectors.validated_claims().count()
        _, back = selectors.complete_pair_ids()
        raise AnnotationError(
            f"{exc} — {validated} validated claims exist, {2 * len(pool)} of them in "
            f"{len(pool)} complete pair(s) that may take part"
            + (f"; {len(back)} pair(s) wait for a new perturbation by their writer" if back else "")
            + "."
        ) from exc
    version = SplitVersion.objects.create(
        name=name,
        seed=seed,
        validation_size=validation,
        test_size=test,
        licences=licence_list,
        licences_by_default=by_default,
        left_out=dict(sorted(left_out.items())),
        created_by=by,
        counts={part: split.claims_by_subset(part) for part in ("validation", "test")},
    )
    SplitMember.objects.bulk_create(
        SplitMember(split=version, pair_id=p.pair_id, part=part, subset=p.subset)
        for part in ("validation", "test")
        for p in split.pairs(part)
    )
    return version


# --- Export ----------------------------------------------------------------------------------


def export_release(
    *,
    split: SplitVersion,
    out: str,
    hide_test_labels: bool = False,
    overwrite: bool = False,
    progress: Callable[[int, int, str], None] | None = None,
) -> dict:
    """Write the release of a frozen split to `out` (atomically) and return its manifest."""
    from validation.export.build import build_release
    from validation.release import Staging

    # The folder is staged first, so that each image is copied while the records are built.
    with Staging(Path(out), overwrite=overwrite) as staging:
        release = build_release(
            split, hide_test_labels=hide_test_labels, progress=progress, staging=staging
        )
        manifest = staging.commit(release)
    if progress:
        progress(1, 1, f"wrote {len(manifest['files'])} files")
    return manifest


def release_salt() -> str:
    return getattr(settings, "RELEASE_SALT", "") or settings.SECRET_KEY


def start_export(
    *, split: SplitVersion, by: AbstractBaseUser, hide_test_labels: bool = False
) -> ReleaseExport:
    """Record an export and start its background job (RQ on the default queue, else a thread)."""
    from jobs.dispatch import start_job

    access.require_staff(by)
    from validation.export import release_out

    out = release_out(settings.RELEASE_DIR, split.name, timezone.now(), hidden=hide_test_labels)
    export = ReleaseExport.objects.create(
        split=split, out=str(out), hide_test_labels=hide_test_labels, created_by=by
    )
    job = start_job(
        kind="export_release",
        function="validation.jobs.export_release_job",
        params={"export_id": export.pk},
        queue="default",
        timeout=6 * 3600,
        mode="thread",
    )
    ReleaseExport.objects.filter(pk=export.pk).update(job=job)
    export.job = job
    return export


def run_export(*, export_id: int, progress: Callable[[int, int, str], None] | None = None) -> dict:
    """Write an export's folder and a zip of it for download (what the job runs)."""
    export = ReleaseExport.objects.select_related("split").get(pk=export_id)
    manifest = export_release(
        split=export.split,
        out=export.out,
        hide_test_labels=export.hide_test_labels,
        progress=progress,
    )
    out = Path(export.out)
    archive = shutil.make_archive(
        str(out.parent / out.name), "zip", root_dir=out.parent, base_dir=out.name
    )
    ReleaseExport.objects.filter(pk=export.pk).update(manifest=manifest, archive=archive)
    return {"out": export.out, "archive": archive, "files": len(manifest["files"])}
