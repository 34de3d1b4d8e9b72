"""The split: exact sizes in claims, stratified by subset, pairs never divided, reproducible."""

from __future__ import annotations

import random
import time

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from validation.split.rules import (
    Split,
    SplitError,
    SplitPair,
    check_licence_codes,
    check_split_name,
    default_sizes,
    make_split,
)

SUBSETS = ("direct", "parallel", "sequential", "analytical")


def _pool(counts: dict[str, int], *, licence: str = "cc-by", start: int = 1) -> list[SplitPair]:
    pool = []
    pair_id = start
    for subset, n in counts.items():
        for _ in range(n):
            pool.append(SplitPair(pair_id, subset, 2, licence))
            pair_id += 1
    return pool


def _assert_proportional(split: Split, pool: list[SplitPair]) -> None:
    total = sum(p.claims for p in pool)
    in_pool: dict[str, int] = {}
    for pair in pool:
        in_pool[pair.subset] = in_pool.get(pair.subset, 0) + pair.claims
    for name in ("validation", "test"):
        size = split.claims(name)
        got = split.claims_by_subset(name)
        for subset, claims in in_pool.items():
            expected = size * claims / total
            # Within one pair (two claims) of the pool's share.
            assert abs(got.get(subset, 0) - expected) <= 2, (name, subset, got, expected)


def _assert_no_leakage(split: Split) -> None:
    val = {p.pair_id for p in split.validation}
    test = {p.pair_id for p in split.test}
    assert not val & test
    assert len(val) == len(split.validation) and len(test) == len(split.test)


def test_sciver_sized_split_is_exact_stratified_and_fast():
    # SciVer: 3,000 claims (1,500 pairs), validation 1,000 and test 2,000, 500 per subset in test.
    pool = _pool(dict.fromkeys(SUBSETS, 375))
    started = time.perf_counter()
    split = make_split(pool, validation=1000, test=2000, seed=13)
    assert time.perf_counter() - started < 1.0
    assert split.claims("validation") == 1000 and split.claims("test") == 2000
    assert split.claims_by_subset("test") == dict.fromkeys(sorted(SUBSETS), 500)
    assert sum(split.claims_by_subset("validation").values()) == 1000
    _assert_no_leakage(split)
    _assert_proportional(split, pool)
    assert {p.pair_id for p in split.validation + split.test} == {p.pair_id for p in pool}


def test_unequal_subsets_are_stratified_by_their_pool_shares():
    pool = _pool({"direct": 40, "parallel": 25, "sequential": 20, "analytical": 15})
    split = make_split(pool, validation=60, test=100, seed=3)
    assert split.claims("validation") == 60 and split.claims("test") == 100
    # Pool shares 40/25/20/15 %: test 100 claims = 50 pairs → 20, 12.5, 10, 7.5 pairs.
    test = split.claims_by_subset("test")
    assert test["direct"] == 40 and test["sequential"] == 20
    assert {test["parallel"], test["analytical"]} in ({24, 16}, {26, 14})
    _assert_proportional(split, pool)
    _assert_no_leakage(split)


def test_same_seed_same_split_whatever_the_input_order():
    pool = _pool(dict.fromkeys(SUBSETS, 30))
    first = make_split(pool, validation=40, test=80, seed=7)
    shuffled = list(pool)
    random.Random(1).shuffle(shuffled)
    assert make_split(shuffled, validation=40, test=80, seed=7) == first
    assert make_split(pool, validation=40, test=80, seed=8) != first
    # The output is sorted, so a frozen split diffs cleanly.
    ids = [p.pair_id for p in first.validation]
    assert ids == sorted(ids)


def test_too_few_claims_says_how_many_exist_per_subset():
    pool = _pool({"direct": 3, "parallel": 2, "sequential": 1, "analytical": 0})
    with pytest.raises(SplitError) as caught:
        make_split(pool, validation=6, test=8, seed=1)
    message = str(caught.value)
    assert "validation=6 + test=8 = 14" in message
    assert "12 available" in message
    assert "direct 6, parallel 4, sequential 2" in message


def test_odd_sizes_are_impossible_with_two_claim_pairs():
    pool = _pool(dict.fromkeys(SUBSETS, 10))
    with pytest.raises(
        SplitError, match=r"validation=11 is impossible: every pair counts 2 claims"
    ):
        make_split(pool, validation=11, test=20, seed=1)
    with pytest.raises(SplitError, match=r"test=3 is impossible"):
        make_split(pool, validation=10, test=3, seed=1)


def test_licence_filter_keeps_only_allowed_papers_and_explains_a_shortfall():
    pool = _pool({"direct": 10, "parallel": 10}, licence="CC-BY") + _pool(
        {"direct": 5, "parallel": 5}, licence="arxiv-nonexclusive", start=100
    )
    pool.append(SplitPair(999, "direct", 2, None))
    split = make_split(pool, validation=10, test=20, seed=2, licences=["cc-by", "cc0"])
    chosen = split.validation + split.test
    assert all(p.licence == "CC-BY" for p in chosen)
    with pytest.raises(SplitError) as caught:
        make_split(pool, validation=20, test=30, seed=2, licences=["cc-by"])
    message = str(caught.value)
    assert "40 available (direct 20, parallel 20)" in message
    assert "22 more were left out by the licence filter [cc-by] (direct 12, parallel 10)" in message


def test_bad_records_are_rejected():
    with pytest.raises(SplitError, match="appears twice"):
        make_split([SplitPair(1, "direct"), SplitPair(1, "parallel")], validation=2, test=0, seed=1)
    with pytest.raises(SplitError, match="at least one"):
        make_split([SplitPair(1, "direct", 0)], validation=2, test=0, seed=1)
    with pytest.raises(SplitError, match="negative"):
        make_split([], validation=-2, test=0, seed=1)


def test_single_claim_pairs_allow_odd_sizes():
    pool = _pool({"direct": 4, "parallel": 4}) + [
        SplitPair(f"s{i}", s, 1) for i, s in enumerate(["direct", "parallel"] * 2)
    ]
    split = make_split(pool, validation=5, test=7, seed=4)
    assert split.claims("validation") == 5 and split.claims("test") == 7
    _assert_no_leakage(split)


def test_an_empty_split_is_refused():
    for pool in ([], _pool({"direct": 2})):
        with pytest.raises(
            SplitError, match=r"at least one claim in total \(validation=0, test=0\)"
        ):
            make_split(pool, validation=0, test=0, seed=1)
    split = make_split(_pool({"direct": 2}), validation=0, test=2, seed=1)
    assert split.validation == () and split.claims("test") == 2
    with pytest.raises(KeyError):
        split.pairs("train")


@st.composite
def pools_and_sizes(draw):
    counts = {s: draw(st.integers(0, 40)) for s in SUBSETS}
    pairs = sum(counts.values())
    assume(pairs > 0)  # an empty split is refused (test_an_empty_split_is_refused)
    val = draw(st.integers(0, pairs))
    test = draw(st.integers(0 if val else 1, max(pairs - val, 0 if val else 1)))
    return _pool(counts), 2 * val, 2 * test, draw(st.integers(0, 2**32))


@given(pools_and_sizes())
def test_any_feasible_request_is_exact_proportional_and_leak_free(case):
    pool, validation, test, seed = case
    split = make_split(pool, validation=validation, test=test, seed=seed)
    assert split.claims("validation") == validation and split.claims("test") == test
    _assert_no_leakage(split)
    _assert_proportional(split, pool)
    assert make_split(pool, validation=validation, test=test, seed=seed) == split


@pytest.mark.parametrize(
    "name",
    [
        "../../qaB-escape",
        "bad name/../x",
        "/tmp/abs",
        "a/b",
        "..",
        ".hidden",
        "",
        " v1",
        "-x",
        "a\\b",
        "é",
        "x" * 65,
        "v1\n",
    ],
)
def test_unsafe_split_names_are_refused(name):
    with pytest.raises(SplitError, match="letters, digits, dots, hyphens or underscores"):
        check_split_name(name)


@pytest.mark.parametrize("name", ["v1", "v12", "sciver-2025.1", "demo_2", "A", "x" * 64])
def test_slug_like_split_names_pass(name):
    assert check_split_name(name) == name


def test_licence_codes_are_checked_against_the_known_ones():
    known = ["cc-by", "cc-by-sa", "cc0", "arxiv"]
    assert check_licence_codes([" CC-BY", "cc0", "", "cc-by"], known) == ["cc-by", "cc0"]
    assert check_licence_codes([], known) == []
    with pytest.raises(SplitError) as caught:
        check_licence_codes(["cc-by", "bogus", "cc-bysa"], known)
    assert str(caught.value) == (
        "Unknown licence code(s): bogus, cc-bysa. Valid codes: arxiv, cc-by, cc-by-sa, cc0."
    )


def test_default_sizes_are_scivers_or_what_the_pool_holds():
    assert default_sizes(5000) == (1000, 2000)
    assert default_sizes(1500) == (1000, 2000)
    assert default_sizes(24) == (16, 32)  # the demo's 24 pairs: all of them, 1:2
    assert default_sizes(1) == (0, 2)
    assert default_sizes(0) == (0, 0)
