"""The split: paper-disjoint parts, exact sizes in claims, whole-pair quotas even over the
subsets, pairs never divided, reproducible."""

from __future__ import annotations

import random

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from validation.split.rules import (
    Split,
    SplitError,
    SplitPair,
    SplitShortfall,
    check_licence_codes,
    check_split_name,
    default_sizes,
    even_quotas,
    make_split,
)

SUBSETS = ("direct", "parallel", "sequential", "analytical")


def _pool(
    counts: dict[str, int], *, licence: str = "cc-by", start: int = 1, per_paper: int = 1
) -> list[SplitPair]:
    """`counts` pairs per subset; consecutive pairs share a paper, `per_paper` at a time."""
    pool = []
    pair_id = start
    for subset, n in counts.items():
        for _ in range(n):
            pool.append(
                SplitPair(pair_id, subset, paper=f"p{pair_id // per_paper}", licence=licence)
            )
            pair_id += 1
    return pool


def _sciver_like(seed: int, *, papers: int = 1100, pairs: int = 1558) -> list[SplitPair]:
    """A pool shaped like SciVer's: about 1,100 papers with one to a few pairs each, 4% more
    pairs than a 1,000 + 2,000 split needs."""
    rng = random.Random(seed)
    return [
        SplitPair(i, SUBSETS[i % 4], paper=rng.randrange(papers), licence="cc-by")
        for i in range(pairs)
    ]


def _assert_even(split: Split) -> None:
    for name in ("validation", "test"):
        counts = split.claims_by_subset(name).values()
        assert max(counts, default=0) - min(counts, default=0) <= 2, (name, counts)


def _assert_no_leakage(split: Split) -> None:
    val = {p.pair_id for p in split.validation}
    test = {p.pair_id for p in split.test}
    assert not val & test
    assert len(val) == len(split.validation) and len(test) == len(split.test)
    if not split.shared_papers:
        assert not split.shared()
        assert not {p.paper for p in split.validation} & {p.paper for p in split.test}


def test_a_sciver_sized_split_is_paper_disjoint_with_250_pairs_of_each_subset_in_test():
    for seed in (1, 2):
        pool = _sciver_like(seed)
        split = make_split(pool, validation=1000, test=2000, seed=13)
        assert split.claims("validation") == 1000 and split.claims("test") == 2000
        assert split.claims_by_subset("test") == dict.fromkeys(sorted(SUBSETS), 500)
        assert split.claims_by_subset("validation") == dict.fromkeys(sorted(SUBSETS), 250)
        _assert_no_leakage(split)
        assert not split.shared_papers and not split.shared()
        assert len(split.papers("validation")) + len(split.papers("test")) > 700


def test_quotas_are_even_over_the_subsets_whatever_their_shares_in_the_pool():
    pool = _pool({"direct": 40, "parallel": 25, "sequential": 20, "analytical": 15})
    split = make_split(pool, validation=24, test=50, seed=3)
    # 12 pairs: 3 of each; 25 pairs: 6 of each and one more for the subset with the most
    # pairs left (direct), never proportional to the pool's shares.
    assert split.claims_by_subset("validation") == dict.fromkeys(sorted(SUBSETS), 6)
    assert split.claims_by_subset("test") == {
        "analytical": 12,
        "direct": 14,
        "parallel": 12,
        "sequential": 12,
    }
    _assert_no_leakage(split)


def test_even_quotas_give_the_odd_pairs_to_the_subsets_with_most_pairs():
    rng = random.Random(1)
    assert even_quotas(10, {"a": 5, "b": 9, "c": 9, "d": 2}, rng) == {
        "a": 2,
        "b": 3,
        "c": 3,
        "d": 2,
    }
    assert even_quotas(0, {"a": 1}, rng) == {"a": 0}
    assert even_quotas(3, {}, rng) == {}
    # Ties among equals go by the seed, not by name.
    winners = {
        next(s for s, n in even_quotas(1, dict.fromkeys("abcd", 4), random.Random(k)).items() if n)
        for k in range(40)
    }
    assert winners == set("abcd")


def test_no_paper_has_pairs_in_both_parts():
    # Papers of three pairs each, all subsets mixed within a paper.
    pool = [SplitPair(i, SUBSETS[i % 4], paper=i // 3) for i in range(240)]
    split = make_split(pool, validation=64, test=128, seed=5)
    _assert_no_leakage(split)
    _assert_even(split)
    assert split.claims("validation") == 64 and split.claims("test") == 128


def test_same_seed_same_split_whatever_the_input_order():
    pool = _pool(dict.fromkeys(SUBSETS, 30), per_paper=2)
    first = make_split(pool, validation=40, test=80, seed=7)
    shuffled = list(pool)
    random.Random(1).shuffle(shuffled)
    assert make_split(shuffled, validation=40, test=80, seed=7) == first
    assert make_split(pool, validation=40, test=80, seed=8) != first
    # The output is sorted, so a frozen split diffs cleanly.
    ids = [p.pair_id for p in first.validation]
    assert ids == sorted(ids)


def test_too_few_claims_says_per_subset_what_is_needed_and_what_is_reachable():
    pool = _pool({"direct": 3, "parallel": 2, "sequential": 1})
    with pytest.raises(SplitShortfall) as caught:
        make_split(pool, validation=6, test=8, seed=1)
    message = str(caught.value)
    assert "validation=6 + test=8 = 14" in message
    assert "12 available (direct 6, parallel 4, sequential 2)" in message
    assert "direct 3 / 3; parallel 2 / 2; sequential 2 / 1 (short)" in message
    reachable = caught.value.reachable
    assert reachable is not None
    assert (
        f"Reachable with this seed (paper-disjoint): validation {reachable[0]} + test {reachable[1]}"
        in message
    )
    v, t = reachable
    assert make_split(pool, validation=v, test=t, seed=1).claims("test") == t


def test_a_pool_whose_papers_cannot_be_parted_is_refused_unless_shared_papers_are_allowed():
    # One paper holds every pair: no paper-disjoint draw of two non-empty parts exists.
    pool = [SplitPair(i, SUBSETS[i % 4], paper="big") for i in range(16)]
    with pytest.raises(SplitShortfall) as caught:
        make_split(pool, validation=4, test=8, seed=2)
    message = str(caught.value)
    assert "no paper-disjoint draw of validation=4 + test=8 claims with seed 2" in message
    assert "--allow-shared-papers" in message
    assert "Reachable with this seed (paper-disjoint): none" in message
    split = make_split(pool, validation=4, test=8, seed=2, allow_shared_papers=True)
    assert split.shared_papers and split.shared()
    assert split.claims("validation") == 4 and split.claims("test") == 8
    _assert_no_leakage(split)
    # Where a disjoint draw exists, the flag changes nothing.
    pool = _pool(dict.fromkeys(SUBSETS, 6))
    assert make_split(pool, validation=8, test=16, seed=2, allow_shared_papers=True) == (
        make_split(pool, validation=8, test=16, seed=2)
    )


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
    pool.append(SplitPair(999, "direct", paper="x", licence=None))
    split = make_split(pool, validation=10, test=20, seed=2, licences=["cc-by", "cc0"])
    chosen = split.validation + split.test
    assert all(p.licence == "CC-BY" for p in chosen)
    with pytest.raises(SplitError) as caught:
        make_split(pool, validation=20, test=30, seed=2, licences=["cc-by"])
    message = str(caught.value)
    assert "40 available (direct 20, parallel 20)" in message
    assert (
        "22 more claims were left out by the licence filter [cc-by] (direct 12, parallel 10)"
        in message
    )


def test_bad_records_are_rejected():
    with pytest.raises(SplitError, match="appears twice"):
        make_split([SplitPair(1, "direct"), SplitPair(1, "parallel")], validation=2, test=0, seed=1)
    with pytest.raises(SplitError, match="negative"):
        make_split([], validation=-2, test=0, seed=1)


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
    per_paper = draw(st.integers(1, 4))
    val = draw(st.integers(0, pairs))
    test = draw(st.integers(0 if val else 1, max(pairs - val, 0 if val else 1)))
    return _pool(counts, per_paper=per_paper), 2 * val, 2 * test, draw(st.integers(0, 2**32))


@given(pools_and_sizes())
def test_any_request_is_drawn_exact_even_and_paper_disjoint_or_refused_with_reachable_sizes(case):
    pool, validation, test, seed = case
    try:
        split = make_split(pool, validation=validation, test=test, seed=seed)
    except SplitShortfall as refused:
        if refused.reachable is not None:  # what it offers instead is drawn
            v, t = refused.reachable
            assert v + t < validation + test
            again = make_split(pool, validation=v, test=t, seed=seed)
            assert again.claims("validation") == v and again.claims("test") == t
        return
    assert split.claims("validation") == validation and split.claims("test") == test
    _assert_no_leakage(split)
    _assert_even(split)
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
