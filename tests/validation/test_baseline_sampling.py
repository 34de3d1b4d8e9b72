"""The human-baseline study stays blind: at most one claim per pair (a pair's two claims give
each other's label away), labels balanced where the pairs allow, and each expert served the
claims in their own shuffled, reproducible order (not the table's, subset after subset)."""

from __future__ import annotations

import random
import uuid
from collections import Counter

import pytest

from annotation.models import Claim, ClaimPair, WorkItem, WorkKind
from annotation.queue import work
from tests.annotation.factories import make_expert
from tests.validation.factories import Team, validated_pairs
from validation.baseline import services as baseline_services
from validation.models import BaselineItem


def complete_pairs(subset: str, n: int, start: int = 1) -> list:
    """n pairs, each with a validated entailed and refuted claim (claim ids 10·pair + 1, + 2)."""
    return [
        baseline_services.PoolClaim(10 * pair + offset, pair, label)
        for pair in range(start, start + n)
        for offset, label in ((1, "entailed"), (2, "refuted"))
    ]


def pairs_of(sample, pool) -> dict:
    by_id = {c.claim_id: c for claims in pool.values() for c in claims}
    return {c: by_id[c] for c in sample.claim_ids()}


@pytest.mark.parametrize("seed", range(20))
def test_at_most_one_claim_per_pair_and_n_per_subset(seed):
    pool = {"direct": complete_pairs("direct", 6), "parallel": complete_pairs("parallel", 5, 100)}
    sample = baseline_services.sample_baseline(pool, per_subset=4, rng=random.Random(seed))
    chosen = pairs_of(sample, pool)
    pairs = [c.pair_id for c in chosen.values()]
    assert len(pairs) == len(set(pairs)) == 8
    assert {s: len(ids) for s, ids in sample.chosen.items()} == {"direct": 4, "parallel": 4}
    assert Counter(c.label for c in chosen.values()) == {"entailed": 4, "refuted": 4}
    assert sample.short == {}


@pytest.mark.parametrize("seed", range(20))
def test_odd_subsets_balance_across_the_study(seed):
    pool = {s: complete_pairs(s, 4, 10 * i) for i, s in enumerate(["a", "b", "c", "d"], 1)}
    sample = baseline_services.sample_baseline(pool, per_subset=3, rng=random.Random(seed))
    labels = Counter(c.label for c in pairs_of(sample, pool).values())
    assert labels == {"entailed": 6, "refuted": 6}


def test_pairs_with_one_validated_claim_give_it_and_the_others_fill_the_balance():
    # Pairs 1-3 have only their entailed claim validated; pairs 4-5 both.
    pool = {
        "direct": [baseline_services.PoolClaim(10 * p + 1, p, "entailed") for p in (1, 2, 3)]
        + complete_pairs("direct", 2, 4)
    }
    for seed in range(20):
        sample = baseline_services.sample_baseline(pool, per_subset=5, rng=random.Random(seed))
        labels = Counter(c.label for c in pairs_of(sample, pool).values())
        assert labels == {"entailed": 3, "refuted": 2}  # as balanced as these pairs allow


def test_a_subset_with_fewer_pairs_than_asked_says_so():
    pool = {"direct": complete_pairs("direct", 2), "sequential": []}
    sample = baseline_services.sample_baseline(pool, per_subset=3, rng=random.Random(1))
    assert sample.short == {"direct": 2, "sequential": 0}
    assert len(sample.claim_ids()) == 2  # two pairs, not their four claims


def test_the_same_seed_draws_the_same_claims():
    pool = {"direct": complete_pairs("direct", 9)}
    draw = [
        baseline_services.sample_baseline(pool, per_subset=4, rng=random.Random(7)).claim_ids()
        for _ in "ab"
    ]
    assert draw[0] == draw[1]


def test_each_expert_has_their_own_reproducible_order():
    entries = list(range(1, 41))
    first = baseline_services.baseline_order(entries, seed=3, expert_id=1)
    assert sorted(first) == entries and first != entries
    assert baseline_services.baseline_order(entries, seed=3, expert_id=1) == first
    assert baseline_services.baseline_order(entries, seed=3, expert_id=2) != first
    assert baseline_services.baseline_order(entries, seed=4, expert_id=1) != first


@pytest.mark.django_db
def test_a_study_samples_one_claim_per_pair_and_serves_each_expert_their_own_order():
    team = Team()
    pairs = validated_pairs(team, 4)
    ClaimPair.objects.filter(pk__in=[p.pk for p in pairs]).update(subset="direct")
    a, b = make_expert("ann"), make_expert("ben")
    study = baseline_services.start_baseline(
        by=team.admin, expert_ids=[a.pk, b.pk], per_subset=4, seed=5
    )
    entries = list(BaselineItem.objects.filter(study=study).select_related("claim"))
    assert len(entries) == 4 and "direct" not in study.note
    assert len({e.claim.pair_id for e in entries}) == 4  # never both claims of a pair
    assert Counter(e.gold_label for e in entries) == {"entailed": 2, "refuted": 2}

    served = {}
    for expert in (a, b):
        order = []
        while True:
            try:
                item = baseline_services.take_next_baseline(user=expert)
            except work.NothingToDo:
                break
            order.append(item.draft["baseline_item"])
            baseline_services.submit_baseline_answer(
                item=item,
                user=expert,
                version=item.version,
                token=uuid.uuid4(),
                label="entailed",
                explanation="the table says so",
            )
        served[expert.pk] = order
        expected = baseline_services.baseline_order(
            [e.pk for e in entries], seed=5, expert_id=expert.pk
        )
        assert order == expected
    assert sorted(served[a.pk]) == sorted(served[b.pk]) == sorted(e.pk for e in entries)
    assert WorkItem.objects.filter(kind=WorkKind.BASELINE).count() == 8


@pytest.mark.django_db
def test_a_study_short_of_pairs_notes_it():
    team = Team()
    pairs = validated_pairs(team, 2)
    ClaimPair.objects.filter(pk__in=[p.pk for p in pairs]).update(subset="direct")
    a, b = make_expert("ann"), make_expert("ben")
    study = baseline_services.start_baseline(by=team.admin, expert_ids=[a.pk, b.pk], per_subset=3)
    assert study.items.count() == 2
    assert "direct 2" in study.note
    assert (
        Claim.objects.filter(pk__in=study.items.values("claim")).values("pair").distinct().count()
        == 2
    )
