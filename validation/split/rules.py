"""Random validation/test split over claim pairs: stratified by subset, exact sizes in claims."""

from __future__ import annotations

import math
import random
import re
from collections import Counter
from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass

__all__ = [
    "SPLIT_NAME_RULE",
    "Split",
    "SplitError",
    "SplitPair",
    "check_licence_codes",
    "check_split_name",
    "default_sizes",
    "make_split",
]

SCIVER_SIZES = (1000, 2000)  # validation and test claims of the SciVer benchmark

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


def default_sizes(pairs: int, *, claims_per_pair: int = 2) -> tuple[int, int]:
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


@dataclass(frozen=True)
class SplitPair:
    """A claim pair that may take part: both claims travel together (no leakage)."""

    pair_id: int | str
    subset: str
    claims: int = 2
    licence: str | None = None


@dataclass(frozen=True)
class Split:
    """The chosen pairs of each split, sorted by pair id so that a frozen split diffs cleanly."""

    validation: tuple[SplitPair, ...]
    test: tuple[SplitPair, ...]
    seed: int

    def pairs(self, name: str) -> tuple[SplitPair, ...]:
        if name not in ("validation", "test"):
            raise KeyError(name)
        return self.validation if name == "validation" else self.test

    def claims(self, name: str) -> int:
        return sum(p.claims for p in self.pairs(name))

    def claims_by_subset(self, name: str) -> dict[str, int]:
        counts: Counter[str] = Counter()
        for pair in self.pairs(name):
            counts[pair.subset] += pair.claims
        return dict(sorted(counts.items()))


def _sort_key(pair: SplitPair) -> tuple[str, int | str]:
    # Mixed int/str ids cannot be compared directly; the type name keeps the order total.
    return (type(pair.pair_id).__name__, pair.pair_id)


def _normalise_licence(licence: str) -> str:
    return licence.strip().lower()


def _describe(claims_by_subset: Mapping[str, int]) -> str:
    if not claims_by_subset:
        return "none"
    return ", ".join(f"{subset} {n:,}" for subset, n in sorted(claims_by_subset.items()))


def _apportion(
    total: int, weights: Mapping[str, int], caps: Mapping[str, int], rng: random.Random
) -> dict[str, int]:
    """Split `total` units across keys in proportion to `weights`, never above `caps`.

    Largest remainders (Hamilton): everyone gets the floor of their exact share, then the
    leftover units go one at a time to the largest fractional parts; ties are broken by a
    seeded shuffle so that no subset is favoured by its name. A key at its cap is skipped and
    the unit goes to the next one, so each quota stays within one unit of the exact share
    whenever the caps allow it.
    """
    weight = sum(weights.values())
    if total == 0 or weight == 0:
        return dict.fromkeys(weights, 0)
    quotas = {k: min(total * w // weight, caps[k]) for k, w in weights.items()}
    keys = list(weights)
    rng.shuffle(keys)
    # Exact remainders from integers: (total·w) mod weight, compared without floats.
    keys.sort(key=lambda k: (total * weights[k]) % weight, reverse=True)
    left = total - sum(quotas.values())
    while left > 0:
        progressed = False
        for key in keys:
            if left == 0:
                break
            if quotas[key] < caps[key]:
                quotas[key] += 1
                left -= 1
                progressed = True
        if not progressed:
            raise SplitError("internal: not enough room to place every unit")  # pragma: no cover
    return quotas


def make_split(
    pairs: Iterable[SplitPair],
    *,
    validation: int,
    test: int,
    seed: int,
    licences: Collection[str] | None = None,
) -> Split:
    """Draw exactly `validation` and `test` claims (a pair counts its claims, normally two).

    Stratified by subset: each split's subset shares follow the pool's within one pair.
    Both claims of a pair always land in the same split. With `licences`, only pairs whose
    paper licence is one of them (case-insensitive) take part; a pair without a licence
    never passes a licence filter. The same pool and seed give the same split whatever the
    order of `pairs`.
    """
    if validation < 0 or test < 0:
        raise SplitError(f"split sizes cannot be negative (validation={validation}, test={test})")
    if validation + test == 0:
        raise SplitError(
            "a split needs at least one claim in total (validation=0, test=0); "
            "ask for some validation and/or test claims"
        )
    pool = list(pairs)
    seen: set[tuple[str, int | str]] = set()
    for pair in pool:
        if pair.claims < 1:
            raise SplitError(
                f"pair {pair.pair_id!r} has {pair.claims} claims; it needs at least one"
            )
        if _sort_key(pair) in seen:
            raise SplitError(f"pair {pair.pair_id!r} appears twice")
        seen.add(_sort_key(pair))

    excluded: list[SplitPair] = []
    if licences is not None:
        allowed = {_normalise_licence(lic) for lic in licences}
        passes = [p.licence is not None and _normalise_licence(p.licence) in allowed for p in pool]
        excluded = [p for p, ok in zip(pool, passes, strict=True) if not ok]
        pool = [p for p, ok in zip(pool, passes, strict=True) if ok]

    available: Counter[str] = Counter()
    for pair in pool:
        available[pair.subset] += pair.claims
    wanted = validation + test
    if wanted > sum(available.values()):
        message = (
            f"too few validated claims for validation={validation:,} + test={test:,} = "
            f"{wanted:,}: {sum(available.values()):,} available ({_describe(available)})"
        )
        if excluded:
            dropped: Counter[str] = Counter()
            for pair in excluded:
                dropped[pair.subset] += pair.claims
            allowed_text = ", ".join(sorted(licences or ())) or "none"
            message += (
                f"; {sum(dropped.values()):,} more were left out by the licence filter "
                f"[{allowed_text}] ({_describe(dropped)})"
            )
        raise SplitError(message)

    # The unit every split size must be a multiple of: 2 when every pair has two claims.
    unit = math.gcd(*(p.claims for p in pool)) if pool else 1
    for name, size in (("validation", validation), ("test", test)):
        if size % unit:
            raise SplitError(
                f"{name}={size:,} is impossible: every pair counts {unit} claims and both "
                f"claims of a pair stay in the same split, so sizes must be multiples of {unit}"
            )

    rng = random.Random(seed)
    by_subset: dict[str, list[SplitPair]] = {}
    for pair in sorted(pool, key=_sort_key):
        by_subset.setdefault(pair.subset, []).append(pair)
    for subset in sorted(by_subset):
        rng.shuffle(by_subset[subset])

    units = {s: available[s] // unit for s in sorted(by_subset)}
    val_quota = _apportion(validation // unit, units, units, rng)
    room = {s: units[s] - val_quota[s] for s in units}
    test_quota = _apportion(test // unit, units, room, rng)

    chosen: dict[str, list[SplitPair]] = {"validation": [], "test": []}
    for subset, shuffled in sorted(by_subset.items()):
        # Largest pairs first (stable, so random within a size): a split fills up with whole
        # pairs and leaves the smaller ones to the next split, which may need them to hit
        # an odd size. With one size per subset (the normal case) this is the shuffled order.
        rest = sorted(shuffled, key=lambda p: -p.claims)
        for name, quota in (("validation", val_quota[subset]), ("test", test_quota[subset])):
            need = quota * unit
            taken: list[SplitPair] = []
            # First fit: exact whenever the subset's pairs all have one size.
            for pair in rest:
                if pair.claims <= need:
                    taken.append(pair)
                    need -= pair.claims
                if need == 0:
                    break
            if need:
                sizes = ", ".join(str(n) for n in sorted({p.claims for p in shuffled}))
                raise SplitError(
                    f"cannot draw exactly {quota * unit:,} {name} claims from subset {subset!r} "
                    f"with pairs of {sizes} claims; pass sizes that fit, or fix the pool"
                )
            taken_ids = {id(p) for p in taken}
            rest = [p for p in rest if id(p) not in taken_ids]
            chosen[name].extend(taken)

    return Split(
        validation=tuple(sorted(chosen["validation"], key=_sort_key)),
        test=tuple(sorted(chosen["test"], key=_sort_key)),
        seed=seed,
    )
