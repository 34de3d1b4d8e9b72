"""Random validation/test split over claim pairs, as SciVer made its parts: paper-disjoint
(papers are drawn into parts, then their claim pairs), exact sizes in claims, whole-pair quotas
spread evenly over the subsets (SciVer's 2,000-claim test part: 250 pairs of each subset)."""

from __future__ import annotations

import random
import re
from collections import Counter
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from annotation.errors import AnnotationError

__all__ = [
    "DEFAULT_SEED",
    "SPLIT_NAME_RULE",
    "Split",
    "SplitError",
    "SplitPair",
    "SplitShortfall",
    "check_licence_codes",
    "check_new_split",
    "check_split_name",
    "chosen_licences",
    "default_sizes",
    "even_quotas",
    "left_out_by_licence",
    "make_split",
    "reachable_sizes",
    "shortfall_message",
]

SCIVER_SIZES = (1000, 2000)  # validation and test claims of the SciVer benchmark
SCIVER_PAPERS = (327, 786)  # papers in SciVer's validation and test parts (1,113 in all)
CLAIMS_PER_PAIR = 2
DEFAULT_SEED = 13  # make_split's and the releases page's
PARTS = ("validation", "test")
# The local search that repairs a greedy assignment of papers to parts: moves tried per
# paper before a draw gives up (enough for SciVer's scale, where the pool holds 4% spare).
SEARCH_STEPS_PER_PAPER = 40
# ...and steps a paper without a lower deficit before it gives up.
STALL_STEPS_PER_PAPER = 4

# A split's name becomes part of folder names (RELEASE_DIR/<name>-<stamp>/SciVer): one path
# component, no separators, no leading dot, nothing a shell or a zip tool would mangle.
SPLIT_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}")
SPLIT_NAME_RULE = (
    "1 to 64 letters, digits, dots, hyphens or underscores, starting with a letter or a digit "
    "(e.g. v3, sciver-2025.1)"
)


class SplitError(ValueError):
    """A split that cannot be made as asked; the message says why and what is available."""


def check_split_name(name: str) -> str:
    """`name` if it is a safe split name (see SPLIT_NAME_RULE); SplitError otherwise."""
    if not SPLIT_NAME.fullmatch(name):
        raise SplitError(f"The split name {name!r} is not allowed: use {SPLIT_NAME_RULE}.")
    return name


def default_sizes(pairs: int, *, claims_per_pair: int = CLAIMS_PER_PAIR) -> tuple[int, int]:
    """The sizes a form offers: SciVer's 1,000 + 2,000 claims when the pool has them, else the
    whole pool in the same 1:2 proportion (in whole pairs), so that the default can be made."""
    validation, test = SCIVER_SIZES
    if pairs * claims_per_pair >= validation + test:
        return validation, test
    val_pairs = pairs * validation // (validation + test)
    return val_pairs * claims_per_pair, (pairs - val_pairs) * claims_per_pair


def check_licence_codes(codes: Iterable[str], known: Collection[str]) -> list[str]:
    """The licence filter's codes, normalised (lower case, sorted, once each); SplitError
    naming the unknown ones and listing the valid ones (a typo would silently empty the pool)."""
    wanted = sorted({_normalise_licence(code) for code in codes if code.strip()})
    valid = {_normalise_licence(code) for code in known}
    unknown = [code for code in wanted if code not in valid]
    if unknown:
        raise SplitError(
            f"Unknown licence code(s): {', '.join(unknown)}. Valid codes: "
            f"{', '.join(sorted(valid))}."
        )
    return wanted


Key = tuple[str, str, object]  # a paper's sort key: kind, type name, value


@dataclass(frozen=True)
class SplitPair:
    """A claim pair that may take part: both its claims travel together, and so do all the
    pairs of its paper (no paper has claims in both parts). `paper` None: a paper of its own."""

    pair_id: int | str
    subset: str
    paper: int | str | None = None
    licence: str | None = None

    @property
    def paper_key(self) -> Key:
        if self.paper is None:
            return ("pair", type(self.pair_id).__name__, self.pair_id)
        return ("paper", type(self.paper).__name__, self.paper)


@dataclass(frozen=True)
class Split:
    """The chosen pairs of each part, sorted by pair id so that a frozen split diffs cleanly.
    `shared_papers`: made with `allow_shared_papers` where no paper-disjoint draw existed."""

    validation: tuple[SplitPair, ...]
    test: tuple[SplitPair, ...]
    seed: int
    shared_papers: bool = False

    def pairs(self, name: str) -> tuple[SplitPair, ...]:
        if name not in PARTS:
            raise KeyError(name)
        return self.validation if name == "validation" else self.test

    def claims(self, name: str) -> int:
        return CLAIMS_PER_PAIR * len(self.pairs(name))

    def claims_by_subset(self, name: str) -> dict[str, int]:
        counts = Counter(p.subset for p in self.pairs(name))
        return {s: CLAIMS_PER_PAIR * n for s, n in sorted(counts.items())}

    def papers(self, name: str) -> frozenset[Key]:
        return frozenset(p.paper_key for p in self.pairs(name))

    def shared(self) -> frozenset[Key]:
        """Papers with pairs in both parts (none unless `shared_papers`)."""
        return self.papers("validation") & self.papers("test")


class SplitShortfall(SplitError):
    """No draw as asked; `reachable` is what a paper-disjoint draw with this seed can make
    (validation, test claims), when anything."""

    def __init__(self, message: str, reachable: tuple[int, int] | None = None) -> None:
        super().__init__(message)
        self.reachable = reachable


def _sort_key(pair: SplitPair) -> tuple[str, int | str]:
    # Mixed int/str ids cannot be compared directly; the type name keeps the order total.
    return (type(pair.pair_id).__name__, pair.pair_id)


def _normalise_licence(licence: str) -> str:
    return licence.strip().lower()


def _describe(counts: Mapping[str, int]) -> str:
    if not counts:
        return "none"
    return ", ".join(f"{subset} {n:,}" for subset, n in sorted(counts.items()))


def even_quotas(pairs: int, available: Mapping[str, int], rng: random.Random) -> dict[str, int]:
    """`pairs` spread over the subsets of `available` as evenly as whole pairs allow: each gets
    the floor of an equal share, and the pairs left over go one each to the subsets with the
    most pairs available (ties broken by the seeded `rng`, so no subset wins by its name)."""
    subsets = sorted(available)
    if not subsets:
        return {}
    base, extra = divmod(pairs, len(subsets))
    order = list(subsets)
    rng.shuffle(order)
    order.sort(key=lambda s: -available[s])  # stable: random among equals
    return {s: base + (1 if s in order[:extra] else 0) for s in subsets}


@dataclass
class _Assignment:
    """Papers assigned to parts (index → part number, or None when unused) with each part's
    pairs per subset; `deficit` is the pairs still missing from the quotas."""

    counts: list[tuple[int, ...]]
    quotas: list[tuple[int, ...]]
    where: list[int | None] = field(default_factory=list)
    have: list[list[int]] = field(default_factory=list)
    # Each part's papers, and each paper's place in its part's list (swap-removal: O(1)).
    members: list[list[int]] = field(default_factory=list)
    place: list[int] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.where = [None] * len(self.counts)
        self.have = [[0] * len(q) for q in self.quotas]
        self.members = [[] for _ in self.quotas]
        self.place = [-1] * len(self.counts)

    def change(self, part: int, delta: Sequence[int]) -> int:
        """How the deficit changes if part `part` gains `delta` (per subset)."""
        have, quota = self.have[part], self.quotas[part]
        return sum(
            max(0, quota[j] - have[j] - d) - max(0, quota[j] - have[j])
            for j, d in enumerate(delta)
            if d
        )

    def move(self, paper: int, part: int | None) -> None:
        old = self.where[paper]
        for j, n in enumerate(self.counts[paper]):
            if old is not None:
                self.have[old][j] -= n
            if part is not None:
                self.have[part][j] += n
        if old is not None:
            group, at = self.members[old], self.place[paper]
            group[at] = group[-1]
            self.place[group[at]] = at
            group.pop()
        if part is not None:
            self.place[paper] = len(self.members[part])
            self.members[part].append(paper)
        self.where[paper] = part

    def move_delta(self, paper: int, to: int) -> int:
        c = self.counts[paper]
        old = self.where[paper]
        out = 0 if old is None else self.change(old, [-n for n in c])
        return out + self.change(to, c)

    def swap_delta(self, a: int, b: int) -> int:
        """a goes from its part to b's, b to a's."""
        pa, pb = self.where[a], self.where[b]
        assert pa is not None and pb is not None
        d = [x - y for x, y in zip(self.counts[a], self.counts[b], strict=True)]
        return self.change(pb, d) + self.change(pa, [-x for x in d])

    def deficits(self) -> list[tuple[int, int]]:
        return [
            (part, j)
            for part, quota in enumerate(self.quotas)
            for j, q in enumerate(quota)
            if self.have[part][j] < q
        ]

    def deficit(self) -> int:
        return sum(
            max(0, q - self.have[part][j])
            for part, quota in enumerate(self.quotas)
            for j, q in enumerate(quota)
        )


def _assign(
    counts: list[tuple[int, ...]], quotas: list[tuple[int, ...]], rng: random.Random
) -> _Assignment:
    """Papers into parts so that each part holds at least its quota of each subset: a greedy
    pass in a seeded random order, then a local search (moves and swaps that lower the
    deficit, sideways moves to leave a plateau) for at most SEARCH_STEPS_PER_PAPER steps a
    paper. Deterministic for a seed."""
    state = _Assignment(counts, quotas)
    order = list(range(len(counts)))
    rng.shuffle(order)
    totals = [max(1, sum(q)) for q in quotas]
    for paper in order:
        c = counts[paper]
        scores = [
            sum(min(n, max(0, q - h)) for n, q, h in zip(c, quota, state.have[part], strict=True))
            for part, quota in enumerate(quotas)
        ]
        if max(scores) == 0:
            continue
        need = [
            sum(max(0, q - h) for q, h in zip(quota, state.have[part], strict=True)) / totals[part]
            for part, quota in enumerate(quotas)
        ]
        best = max(range(len(quotas)), key=lambda p: (scores[p], need[p]))
        state.move(paper, best)

    having = [[i for i, c in enumerate(counts) if c[j]] for j in range(len(quotas[0]))]
    totals = [sum(c[j] for c in counts) for j in range(len(quotas[0]))]
    steps = SEARCH_STEPS_PER_PAPER * len(counts)
    # A search that has not lowered the deficit for this many steps has met a pool no
    # paper-disjoint draw fits (a refusal must not take minutes).
    patience = STALL_STEPS_PER_PAPER * len(counts) + 100
    best, since = state.deficit(), 0
    while steps > 0 and best > 0 and since < patience:
        steps -= 1
        part, j = rng.choice(state.deficits())
        if state.have[part][j] == totals[j]:
            break  # every paper with such pairs is in this part already: nothing can help
        drawn = rng.sample(having[j], min(len(having[j]), 48))
        sample = [i for i in drawn if state.where[i] != part][:24]
        if sample:
            _step(state, rng, part, sample)
        deficit = state.deficit()
        if deficit < best:
            best, since = deficit, 0
        else:
            since += 1
    return state


def _step(state: _Assignment, rng: random.Random, part: int, sample: list[int]) -> None:
    """One step of the search for `part`'s deficit: the best move of a sampled paper into it,
    else the best swap with one of its papers, else a sideways move off a plateau."""
    moves = [(state.move_delta(i, part), i) for i in sample]
    delta, paper = min(moves)
    if delta < 0:
        state.move(paper, part)
        return
    inside = state.members[part]
    swaps = [
        (state.swap_delta(a, b), a, b)
        for a in sample
        if state.where[a] is not None
        for b in rng.sample(inside, min(len(inside), 8))
    ]
    if swaps:
        best_swap = min(swaps)
        if best_swap[0] < 0 or (best_swap[0] == 0 and best_swap[0] <= delta):
            _, a, b = best_swap
            other = state.where[a]
            state.move(a, part)
            state.move(b, other)
            return
    if delta == 0:
        state.move(paper, part)


def make_split(
    pairs: Iterable[SplitPair],
    *,
    validation: int,
    test: int,
    seed: int,
    licences: Collection[str] | None = None,
    allow_shared_papers: bool = False,
) -> Split:
    """Draw exactly `validation` and `test` claims (two per pair), as SciVer made its parts.

    Papers are drawn into parts, then their pairs: no paper has pairs in both parts. Each part
    takes half its size in pairs, spread over the pool's subsets as evenly as whole pairs
    allow (`even_quotas`). Both claims of a pair always land in the same part. With
    `licences`, only pairs whose paper licence is one of them (case-insensitive) take part; a
    pair without a licence never passes a licence filter. The same pool and seed give the
    same split whatever the order of `pairs`. `allow_shared_papers` lets the parts share
    papers, and only when no paper-disjoint draw with this seed exists (`Split.shared_papers`
    says so). SplitShortfall says per subset what is needed and available, and the sizes a
    paper-disjoint draw with this seed reaches.
    """
    if validation < 0 or test < 0:
        raise SplitError(f"split sizes cannot be negative (validation={validation}, test={test})")
    if validation + test == 0:
        raise SplitError(
            "a split needs at least one claim in total (validation=0, test=0); "
            "ask for some validation and/or test claims"
        )
    for name, size in (("validation", validation), ("test", test)):
        if size % CLAIMS_PER_PAIR:
            raise SplitError(
                f"{name}={size:,} is impossible: every pair counts {CLAIMS_PER_PAIR} claims and "
                "both claims of a pair stay in the same part, so sizes must be even"
            )
    pool = _checked(pairs)
    excluded: list[SplitPair] = []
    if licences is not None:
        allowed = {_normalise_licence(lic) for lic in licences}
        passes = [p.licence is not None and _normalise_licence(p.licence) in allowed for p in pool]
        excluded = [p for p, ok in zip(pool, passes, strict=True) if not ok]
        pool = [p for p, ok in zip(pool, passes, strict=True) if ok]
    try:
        return _draw(pool, validation, test, seed, allow_shared_papers=allow_shared_papers)
    except SplitShortfall as exc:
        reachable = _search_sizes(pool, validation, test, seed)
        message = str(exc) + ". " + _reachable_text(reachable)
        if excluded:
            dropped = Counter(p.subset for p in excluded)
            allowed_text = ", ".join(sorted(licences or ())) or "none"
            message += (
                f"{CLAIMS_PER_PAIR * len(excluded):,} more claims were left out by the licence "
                f"filter [{allowed_text}] "
                f"({_describe({s: CLAIMS_PER_PAIR * n for s, n in dropped.items()})})."
            )
        raise SplitShortfall(message.rstrip(), reachable=reachable) from None


def _draw(
    pool: Sequence[SplitPair],
    validation: int,
    test: int,
    seed: int,
    *,
    allow_shared_papers: bool = False,
) -> Split:
    """make_split on a checked, licence-filtered pool; SplitShortfall without `reachable`."""
    available = Counter(p.subset for p in pool)
    wanted = (validation + test) // CLAIMS_PER_PAIR
    rng = random.Random(seed)
    val_quota = even_quotas(validation // CLAIMS_PER_PAIR, available, rng)
    room = {s: available[s] - val_quota.get(s, 0) for s in available}
    test_quota = even_quotas(test // CLAIMS_PER_PAIR, room, rng)
    needed = {s: val_quota[s] + test_quota[s] for s in available}
    short = {s for s in available if needed[s] > available[s]}
    if wanted > len(pool) or short or not pool:
        message = (
            f"too few validated claims for validation={validation:,} + test={test:,} = "
            f"{CLAIMS_PER_PAIR * wanted:,}: {CLAIMS_PER_PAIR * len(pool):,} available "
            f"({_describe({s: CLAIMS_PER_PAIR * n for s, n in available.items()})})"
        )
        if pool:
            message += "; per subset, pairs needed / available: " + _needs(needed, available)
        raise SplitShortfall(message)

    subsets = sorted(available)
    by_paper: dict[Key, list[SplitPair]] = {}
    for pair in sorted(pool, key=_sort_key):
        by_paper.setdefault(pair.paper_key, []).append(pair)
    keys = sorted(by_paper)
    counts = [tuple(sum(p.subset == s for p in by_paper[k]) for s in subsets) for k in keys]
    quotas = [tuple(q[s] for s in subsets) for q in (val_quota, test_quota)]
    state = _assign(counts, quotas, rng)
    if state.deficit() == 0:
        members = {
            part: [by_paper[keys[i]] for i, p in enumerate(state.where) if p == n]
            for n, part in enumerate(PARTS)
        }
        return _draw_pairs(members, (val_quota, test_quota), rng, seed, shared=False)
    if allow_shared_papers:
        # No paper-disjoint draw: the pairs of each subset are drawn as if from one paper each.
        shuffled = {s: [p for p in sorted(pool, key=_sort_key) if p.subset == s] for s in subsets}
        for s in subsets:
            rng.shuffle(shuffled[s])
        members = {
            "validation": [shuffled[s][: val_quota[s]] for s in subsets],
            "test": [shuffled[s][val_quota[s] : needed[s]] for s in subsets],
        }
        return _draw_pairs(members, (val_quota, test_quota), rng, seed, shared=True)
    reached = [
        {s: min(state.have[n][j], quota[j]) for j, s in enumerate(subsets)}
        for n, quota in enumerate(quotas)
    ]
    rows = [
        f"{s} {needed[s]:,} / {available[s]:,} (reached {reached[0][s]:,} + {reached[1][s]:,})"
        for s in subsets
    ]
    raise SplitShortfall(
        f"no paper-disjoint draw of validation={validation:,} + test={test:,} claims with seed "
        f"{seed}: no paper may have claims in both parts, and whole papers leave too few pairs "
        f"of some subsets. Per subset, pairs needed / available (reached by the draw in "
        f"validation + test): {'; '.join(rows)}. Ask for smaller sizes, add validated "
        "pairs, or try another seed; --allow-shared-papers lets the parts share papers (said "
        "in the manifest and the card)"
    )


def _needs(needed: Mapping[str, int], available: Mapping[str, int]) -> str:
    return "; ".join(
        f"{s} {needed[s]:,} / {available[s]:,}" + (" (short)" if needed[s] > available[s] else "")
        for s in sorted(needed)
    )


def _reachable_text(reachable: tuple[int, int] | None) -> str:
    if reachable is None:
        return "Reachable with this seed (paper-disjoint): none. "
    return (
        f"Reachable with this seed (paper-disjoint): validation {reachable[0]:,} + test "
        f"{reachable[1]:,} claims. "
    )


def _checked(pairs: Iterable[SplitPair]) -> list[SplitPair]:
    pool = list(pairs)
    seen: set[tuple[str, int | str]] = set()
    for pair in pool:
        if _sort_key(pair) in seen:
            raise SplitError(f"pair {pair.pair_id!r} appears twice")
        seen.add(_sort_key(pair))
    return pool


def _draw_pairs(
    members: Mapping[str, Sequence[Sequence[SplitPair]]],
    quotas: tuple[Mapping[str, int], Mapping[str, int]],
    rng: random.Random,
    seed: int,
    *,
    shared: bool,
) -> Split:
    """Each part's quota of each subset, drawn at random from the pairs of its papers."""
    chosen: dict[str, list[SplitPair]] = {}
    for part, quota in zip(PARTS, quotas, strict=True):
        candidates = sorted((p for group in members[part] for p in group), key=_sort_key)
        rng.shuffle(candidates)
        taken: list[SplitPair] = []
        left = dict(quota)
        for pair in candidates:
            if left.get(pair.subset, 0) > 0:
                taken.append(pair)
                left[pair.subset] -= 1
        chosen[part] = sorted(taken, key=_sort_key)
    return Split(
        validation=tuple(chosen["validation"]),
        test=tuple(chosen["test"]),
        seed=seed,
        shared_papers=shared,
    )


def _search_sizes(
    pool: Sequence[SplitPair], validation: int, test: int, seed: int
) -> tuple[int, int] | None:
    """The largest sizes in the asked proportion (validation:test), at most the asked ones,
    that a paper-disjoint draw with `seed` makes from `pool` (already licence-filtered): a
    binary search over the number of pairs, each step a real draw; a part asked for is never
    offered empty. None when no such draw exists."""
    asked = (validation + test) // CLAIMS_PER_PAIR
    share = validation / (validation + test)

    def sizes(total: int) -> tuple[int, int]:
        val = round(total * share)
        return CLAIMS_PER_PAIR * val, CLAIMS_PER_PAIR * (total - val)

    def works(total: int) -> bool:
        v, t = sizes(total)
        if v + t == 0 or (validation and not v) or (test and not t):
            return False  # a part that was asked for stays in
        try:
            _draw(pool, v, t, seed)
        except SplitError:
            return False
        return True

    low, high = 0, min(asked, len(pool))
    if high == asked:
        high -= 1  # the asked sizes failed already
    while low < high:
        middle = (low + high + 1) // 2
        if works(middle):
            low = middle
        else:
            high = middle - 1
    return sizes(low) if low and works(low) else None


def reachable_sizes(
    pairs: Iterable[SplitPair],
    *,
    validation: int,
    test: int,
    seed: int,
    licences: Collection[str] | None = None,
) -> tuple[int, int] | None:
    """The asked sizes when a paper-disjoint draw makes them, else the largest in the same
    proportion that one does (None when none): what the releases page offers."""
    try:
        make_split(pairs, validation=validation, test=test, seed=seed, licences=licences)
    except SplitShortfall as exc:
        return exc.reachable
    return validation, test


def chosen_licences(licences: Iterable[str], *, default: Collection[str]) -> tuple[list[str], bool]:
    """The licences a split takes, normalised and sorted, and whether they are the `default`
    (none named: those that allow redistribution with adaptations)."""
    chosen = sorted({lic.strip().lower() for lic in licences if lic.strip()})
    return (chosen, False) if chosen else (sorted(default), True)


def left_out_by_licence(pool: Iterable[SplitPair], licences: Collection[str]) -> dict[str, int]:
    """The pool's pairs a split leaves out for their licence, counted by licence (sorted)."""
    left_out = Counter(p.licence or "unknown" for p in pool if p.licence not in licences)
    return dict(sorted(left_out.items()))


def shortfall_message(problem: str, *, validated: int, pairs: int, waiting: int) -> str:
    """A split the pool cannot draw, with the pool's numbers: the validated claims, the
    complete pairs that may take part, and the pairs waiting for a new perturbation."""
    return (
        f"{problem} — {validated} validated claims exist, {2 * pairs} of them in "
        f"{pairs} complete pair(s) that may take part"
        + (f"; {waiting} pair(s) wait for a new perturbation by their writer" if waiting else "")
        + "."
    )


def check_new_split(
    name: str, licences: Iterable[str], *, known: Collection[str], taken: bool
) -> list[str]:
    """Refuse a split name that is malformed or `taken` (splits are frozen), or an unknown
    licence code, as AnnotationError (every caller, command, page or shell, gets the same
    guards); returns the licence codes."""
    try:
        check_split_name(name)
        codes = check_licence_codes(licences, known)
    except SplitError as exc:
        raise AnnotationError(str(exc)) from exc
    if taken:
        raise AnnotationError(f"A split named {name} exists; splits are frozen, choose a new name.")
    return codes
