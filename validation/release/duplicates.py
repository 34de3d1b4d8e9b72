"""Exact and near-duplicate texts (pure, standard library only): one finder for every caller
(`check_release` across a release's parts, an artifact audit within one part).

**Normalising** (`normalise`): Unicode NFKC (full-width and compatibility forms read as their
plain letters and digits), case folded, and cut into tokens: words (letters and digits) and the
signs that change what a number or a comparison says. Kept: a decimal point or a thousands
comma between two digits (`45.2` stays `45.2`, never `45 2`, and differs from `452`), a minus
sign before a number that does not join two words or numbers (`-3.2`; U+2212 reads as `-`), and
`%` and the mathematical symbols (`<`, `>`, `=`, `+`, `±`, `≤`, `≥`, `×` …) as tokens of their
own, so that `x < 5` and `x > 5` stay different texts. Every other punctuation mark or symbol
(`.,;:!?()[]"'`, dashes, `@`, `/` …) separates words and is dropped, and whitespace is collapsed:
`Ours reaches 73.2 BLEU.` and `ours reaches 73.2 BLEU` normalise alike. Two texts are an
**exact** duplicate when they normalise alike.

**Similarity**: the Jaccard similarity of the two texts' sets of normalised tokens,
|A ∩ B| / |A ∪ B|. **Near duplicates**: similarity ≥ `THRESHOLD` (0.75). Measured on the 68
hand-written claims of tests/annotation/perturbation_set (realistic claims, up to four about one
table of a paper): two different claims of one paper reach at most 0.46, while a claim with one
number changed (the set's refuted rewrites) reaches at least 0.83 and with one word replaced at
least 0.78. A claim of n distinct words with one word replaced scores (n-1)/(n+1), ≥ 0.75 from 7
words on; SciVer's claims average 30 words (some 25 distinct), so three words changed in such a
claim still make a near duplicate, while two templated claims of 12 words that differ in two
slots (10/14 = 0.71) do not. Word 3-shingles and character 5-grams, the usual measures, separate
these worse: one changed word drops them to 0.53 and 0.67 on the same claims, far below the 0.9
commonly used with them. Token order is ignored, so `A beats B` and `B beats A` are near
duplicates (similarity 1.0, not exact): the same fact stated and refuted. A text with no token
(empty, only punctuation) matches nothing.

**Finding them fast** (no all-pairs comparison): prefix filtering, the exact method of
set-similarity joins (Chaudhuri et al. 2006; Bayardo et al. 2007), with PPJoin's positional
filter (Xiao et al. 2008). Tokens are ordered from the rarest to the most common over all the
texts; if two sets have Jaccard similarity ≥ t, the first |x| - ⌈t·|x|⌉ + 1 tokens of one and of
the other share a token. Only those prefixes are indexed (an inverted index token → texts);
a candidate must pass the size bound t·|x| ≤ |y| ≤ |x|/t and, at each shared prefix token, still
be able to share enough tokens with what remains of both; its similarity is then computed
exactly. No match is ever missed (the tests compare with all pairs), and common words ("the",
"of") are almost never looked up. Texts that normalise alike are compared once. 1,000 × 2,000
claims take about 0.2 s, 5 times the time to normalise them (`bench/duplicates.py`).
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

__all__ = ["THRESHOLD", "Match", "near_duplicates", "normalise", "similarity", "tokens"]

THRESHOLD = 0.75
# Jaccard values are ratios of small integers; this only absorbs floating-point rounding.
_EPSILON = 1e-9

# A number, with its decimal point and thousands commas and an optional leading minus sign
# (one that does not join two words: "GPT-4" is "gpt" and "4", "-3.2" is one token).
_NUMBER = r"(?<![\w.,])-?\d+(?:[.,]\d+)*"
# A word: letters and digits (no underscore, which joins words in identifiers and LaTeX).
_WORD = r"[^\W_]+"
_TOKEN = re.compile(rf"{_NUMBER}|{_WORD}|[%<>=+±×÷≤≥≠≈~]")


@dataclass(frozen=True)
class Match:
    """Texts `i` (of `left`) and `j` (of `right`, or of `left` when comparing within it, i < j)
    are duplicates: `exact` when they normalise alike, else `similarity` ≥ the threshold."""

    i: int
    j: int
    similarity: float
    exact: bool


def normalise(text: str) -> str:
    """`text`'s tokens (see the module's docstring) joined by single spaces."""
    return " ".join(_tokens(text))


def _tokens(text: str) -> list[str]:
    folded = unicodedata.normalize("NFKC", text or "").casefold().replace("\u2212", "-")
    return _TOKEN.findall(folded)


def tokens(text: str) -> frozenset[str]:
    """The set of `text`'s normalised tokens, which `similarity` compares."""
    return frozenset(_tokens(text))


def similarity(a: str, b: str) -> float:
    """Jaccard similarity of the two texts' token sets (0.0 when either has none)."""
    x, y = tokens(a), tokens(b)
    if not x or not y:
        return 0.0
    return len(x & y) / len(x | y)


def _prefix_length(size: int, threshold: float) -> int:
    """How many of a set's rarest tokens two sets with Jaccard ≥ `threshold` must share one of."""
    return size - math.ceil(threshold * size - _EPSILON) + 1


def near_duplicates(
    left: Sequence[str],
    right: Sequence[str] | None = None,
    *,
    threshold: float = THRESHOLD,
) -> list[Match]:
    """Every pair of duplicate texts, sorted by (i, j): `left[i]` against `right[j]`, or, when
    `right` is None, `left[i]` against `left[j]` with i < j. A pair is reported when the texts
    normalise alike (`exact`, similarity 1.0) or their token sets' Jaccard similarity is at
    least `threshold` (0 < threshold ≤ 1)."""
    if not 0 < threshold <= 1:
        raise ValueError(f"threshold must be in (0, 1], not {threshold!r}")
    within = right is None
    sides = [left] if right is None else [left, right]
    # Texts that normalise alike are one key: compared once, then expanded to every index.
    keys: list[dict[str, list[int]]] = []
    for side in sides:
        by_key: dict[str, list[int]] = defaultdict(list)
        for index, text in enumerate(side):
            key = normalise(text)
            if key:
                by_key[key].append(index)
        keys.append(by_key)
    key_sets = [{key: frozenset(key.split(" ")) for key in by_key} for by_key in keys]
    frequency: Counter[str] = Counter()
    for sets in key_sets:
        for token_set in sets.values():
            frequency.update(token_set)
    rank = {t: r for r, t in enumerate(sorted(frequency, key=lambda t: (frequency[t], t)))}
    ordered = [
        {key: sorted(token_set, key=rank.__getitem__) for key, token_set in sets.items()}
        for sets in key_sets
    ]
    key_pairs = _similar_keys(ordered[0], ordered[-1], threshold, within=within)
    matches = []
    for (a, b), score in key_pairs.items():
        exact = a == b
        for i in keys[0][a]:
            for j in keys[-1][b]:
                if within and i >= j:
                    if exact:
                        continue  # a key with itself: each pair of its texts once
                    matches.append(Match(j, i, score, exact))  # two keys: texts in any order
                else:
                    matches.append(Match(i, j, 1.0 if exact else score, exact))
    matches.sort(key=lambda m: (m.i, m.j))
    return matches


def _similar_keys(
    probes: dict[str, list[str]],
    indexed: dict[str, list[str]],
    threshold: float,
    *,
    within: bool,
) -> dict[tuple[str, str], float]:
    """(probe key, indexed key) → Jaccard similarity ≥ threshold, by prefix filtering with the
    positional filter of PPJoin (Xiao et al. 2008); each key's tokens are in the global
    rarest-first order. Within one side, each unordered pair of keys is found once, and a key
    matches itself (its texts are exact duplicates of one another)."""
    index: dict[str, list[tuple[str, int, int]]] = defaultdict(list)  # (key, position, size)
    sets = {key: frozenset(ordered) for key, ordered in indexed.items()}
    found: dict[tuple[str, str], float] = {}
    ratio = threshold / (1 + threshold)

    def add(key: str, ordered: list[str]) -> None:
        size = len(ordered)
        for position, token in enumerate(ordered[: _prefix_length(size, threshold)]):
            index[token].append((key, position, size))

    if not within:
        for key, ordered in indexed.items():
            add(key, ordered)
    for key, ordered in probes.items():
        size = len(ordered)
        smallest, largest = threshold * size - _EPSILON, size / threshold + _EPSILON
        overlap: dict[str, int] = {}  # candidate → tokens shared so far; -1: cannot reach
        for position, token in enumerate(ordered[: _prefix_length(size, threshold)]):
            left_here = size - position
            for other, other_position, other_size in index.get(token, ()):
                if not smallest <= other_size <= largest:
                    continue
                so_far = overlap.get(other, 0)
                if so_far < 0:
                    continue
                # Shared tokens come in the same order in both: those before this one are
                # counted, and at most the shorter remainder (this token included) can follow.
                right_here = other_size - other_position
                ahead = left_here if left_here < right_here else right_here
                needed = ratio * (size + other_size) - _EPSILON
                overlap[other] = so_far + 1 if so_far + ahead >= needed else -1
        mine = sets.get(key) or frozenset(ordered)
        for other, so_far in overlap.items():
            if so_far <= 0:
                continue
            shared = len(mine & sets[other])
            score = shared / (size + len(indexed[other]) - shared)
            if score >= threshold - _EPSILON:
                found[(key, other)] = score
        if within:
            found[(key, key)] = 1.0
            add(key, ordered)
    return found
