"""The human baseline: a sample of final claims answered blind by experts who did not
annotate them."""

from __future__ import annotations

import random
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction

from annotation import access
from annotation.errors import AnnotationError
from annotation.experts import selectors as expert_selectors
from annotation.models import (
    Claim,
    PairRole,
    Subfield,
    Subset,
    WorkItem,
    WorkKind,
)
from annotation.models.review import LABELS
from annotation.queue import work
from validation import selectors
from validation.models import (
    BaselineAnswer,
    BaselineItem,
    BaselineStudy,
)
from validation.services import InvalidValidation, long_text_errors


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


@dataclass(frozen=True)
class ExpertPool:
    """What one expert could answer in a study: the validated claims they never worked on, in
    the subfields they are eligible for."""

    claims: int
    eligible_for: tuple[str, ...]  # subfield codes
    subfields_in_pool: tuple[str, ...]  # where the validated claims they never saw are

    def why_empty(self) -> str:
        """Why there is nothing for them ("" when there is)."""
        if self.claims:
            return ""
        if not self.eligible_for:
            return "eligible for no subfield (a declared subfield, training and publications)"
        if not self.subfields_in_pool:
            return "every validated claim is on a pair they worked on"
        return (
            f"eligible for {', '.join(self.eligible_for)}; the validated claims they never "
            f"worked on are in {', '.join(self.subfields_in_pool)}"
        )


def expert_pools(expert_ids: Sequence[int]) -> dict[int, ExpertPool]:
    """Per expert, what they could answer (a fixed number of queries for any number)."""
    claims = list(selectors.validated_claims().values_list("pair_id", "pair__subfield_code"))
    worked: dict[int, set[int]] = {e: set() for e in expert_ids}
    for expert_id, pair_id in PairRole.objects.filter(expert_id__in=expert_ids).values_list(
        "expert_id", "pair_id"
    ):
        worked[expert_id].add(pair_id)
    codes = list(Subfield.objects.order_by("code").values_list("code", flat=True))
    eligibility = expert_selectors.eligibility_by_expert(list(expert_ids), codes)
    pools = {}
    for expert_id in expert_ids:
        eligible = tuple(c for c in codes if eligibility[expert_id][c].eligible)
        unseen = [code for pair_id, code in claims if pair_id not in worked[expert_id]]
        pools[expert_id] = ExpertPool(
            claims=sum(1 for code in unseen if code in eligible),
            eligible_for=eligible,
            subfields_in_pool=tuple(sorted(set(unseen))),
        )
    return pools


class NothingToAnswer(AnnotationError):
    """An expert chosen for a study could answer none of its claims."""


def check_pools(users: Sequence[AbstractBaseUser]) -> None:
    """Refuse experts with nothing in their pool, naming each and why."""
    pools = expert_pools([u.pk for u in users])
    empty = [
        f"{u.get_username()}: {pools[u.pk].why_empty()}" for u in users if not pools[u.pk].claims
    ]
    if empty:
        raise NothingToAnswer(
            "No study started: an expert is eligible for none of the validated claims ("
            + "; ".join(empty)
            + "). Choose another, or tick “start anyway” to give them the claims regardless."
        )


def baseline_candidates() -> list[AbstractBaseUser]:

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
    *,
    by: AbstractBaseUser,
    expert_ids: list[int],
    per_subset: int = 10,
    seed: int = 0,
    anyway: bool = False,
) -> BaselineStudy:
    """Sample `per_subset` validated claims of each subset that the two experts never worked
    on, at most one per pair and labels balanced, and hand each to both, blind, each expert in
    their own shuffled order. An expert eligible for none of the validated claims is refused
    unless `anyway` (the admin's explicit override)."""
    access.require_staff(by)
    expert_ids = sorted(set(expert_ids))
    if len(expert_ids) != 2:
        raise AnnotationError("Choose exactly two experts for the study.")
    if per_subset < 1:
        raise AnnotationError("Sample at least one claim per subset.")
    if not anyway:
        check_pools(list(get_user_model().objects.filter(pk__in=expert_ids).order_by("username")))
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
