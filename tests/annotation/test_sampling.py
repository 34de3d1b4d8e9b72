"""Sampling three elements and keeping the four subsets balanced."""

from __future__ import annotations

from collections import Counter

import pytest

from annotation.writing.sampling import SUBSETS, choose_subset, sample_elements


def test_sample_is_reproducible_from_its_seed_and_independent_of_order():
    ids = [5, 9, 2, 14, 7, 11]
    first = sample_elements(ids, seed=42)
    assert len(first) == 3 and len(set(first)) == 3 and set(first) <= set(ids)
    assert sample_elements(list(reversed(ids)), seed=42) == first
    assert any(sample_elements(ids, seed=s) != first for s in range(1, 20))


def test_sample_is_uniform():
    ids = list(range(6))
    seen = Counter(e for seed in range(6000) for e in sample_elements(ids, seed=seed))
    # Each element appears in about half of the draws (3 of 6): 3,000 ± a few percent.
    assert all(2800 < n < 3200 for n in seen.values()), seen


def test_too_few_candidates_is_an_error():
    with pytest.raises(ValueError, match="at least 3"):
        sample_elements([1, 2], seed=1)


def test_subsets_stay_balanced_with_equal_targets():
    counts: Counter[str] = Counter()
    for seed in range(40):
        counts[choose_subset(counts, seed=seed)] += 1
    assert set(counts.values()) == {10}


def test_subsets_follow_configured_targets():
    counts: Counter[str] = Counter()
    targets = {"direct": 2, "parallel": 1, "sequential": 1, "analytical": 0}
    for seed in range(40):
        counts[choose_subset(counts, targets, seed=seed)] += 1
    assert counts == {"direct": 20, "parallel": 10, "sequential": 10}


def test_most_lacking_subset_comes_next():
    assert choose_subset({"direct": 5, "parallel": 5, "sequential": 5, "analytical": 1}) == (
        "analytical"
    )


def test_bad_targets_are_refused():
    with pytest.raises(ValueError, match="unknown subsets"):
        choose_subset({}, {"direct": 1, "comparative": 1})
    with pytest.raises(ValueError, match="positive"):
        choose_subset({}, dict.fromkeys(SUBSETS, 0))
