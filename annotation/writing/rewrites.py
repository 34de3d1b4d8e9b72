"""What a rewrite of a claim changes, compared by the values and words it changes rather than by
its text: a re-perturbation's suggestions leave out every rewrite already found true for the
pair, however the entailed claim or the perturbation was worded around it (issue 44). Pure
functions, no Django."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from difflib import SequenceMatcher
from itertools import zip_longest
from typing import Literal

# A number (sign, thousands separators and decimals; its unit left out: "44.1%" and "44.1" are
# one value), or a word ("GPT-4", "F1", "state-of-the-art"). Punctuation is no token.
_TOKEN = re.compile(
    r"(?P<number>(?<![\w.])[-+−]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?![\w.]*\d))"
    r"|(?P<word>[^\W_][\w'’+@.-]*[\w+]|[^\W_])"
)


@dataclass(frozen=True, slots=True)
class Change:
    """One substitution between a claim and a rewrite: a value for another ("73.2" → "68.9",
    numbers normalised), or a run of words for another ("higher" → "lower"; an empty side
    is a word added or removed: "" → "not")."""

    kind: Literal["value", "words"]
    old: tuple[str, ...]
    new: tuple[str, ...]

    def __str__(self) -> str:
        return f"{' '.join(self.old) or '∅'} → {' '.join(self.new) or '∅'}"


def _value(written: str) -> str:
    """A number by its value: "68.90", "+68.9" and "68.9" alike, "1,000" = "1000"."""
    text = written.replace(",", "").replace("−", "-").lstrip("+")
    try:
        return format(Decimal(text).normalize(), "f")
    except InvalidOperation:  # pragma: no cover - the pattern only matches numbers
        return text


def _tokens(text: str) -> list[tuple[str, str]]:
    return [
        ("value", _value(m.group("number")))
        if m.group("number")
        else ("word", m.group().casefold())
        for m in _TOKEN.finditer(text or "")
    ]


def changes(claim: str, rewrite: str) -> frozenset[Change]:
    """The substitutions that turn `claim` into `rewrite`, aligned token by token: within each
    differing stretch, its numbers paired in order (each pair one value change) and its words
    as one run. Letter case, punctuation, spacing and how a number is written change nothing."""
    before, after = _tokens(claim), _tokens(rewrite)
    found: set[Change] = set()
    matcher = SequenceMatcher(None, before, after, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            continue
        old, new = before[i1:i2], after[j1:j2]
        values = zip_longest(
            [t for k, t in old if k == "value"], [t for k, t in new if k == "value"], fillvalue=""
        )
        for a, b in values:
            if a != b:
                found.add(Change("value", (a,) if a else (), (b,) if b else ()))
        words = tuple(t for k, t in old if k == "word"), tuple(t for k, t in new if k == "word")
        if words[0] != words[1]:
            found.add(Change("words", *words))
    return frozenset(found)


def _within(part: Sequence[str], whole: Sequence[str]) -> bool:
    return not Counter(part) - Counter(whole)


def _covered(change: Change, made: frozenset[Change]) -> bool:
    if change.kind == "value":
        return change in made
    return any(
        m.kind == "words" and _within(change.old, m.old) and _within(change.new, m.new)
        for m in made
    )


def repeats(rewrite: frozenset[Change], earlier: frozenset[Change]) -> bool:
    """Whether a rewrite making the changes `rewrite` makes again what a rewrite making
    `earlier` made (both of the same claim): it changes something, and every value it changes
    the earlier one changed the same way, and every word it changes is among a run of words
    the earlier one changed. What the earlier one changed besides (its wording) is no
    difference."""
    return bool(rewrite) and all(_covered(change, earlier) for change in rewrite)


def found_true(claim: str, rewrite: str, true_rewrites: Iterable[str]) -> bool:
    """Whether `rewrite` of `claim` repeats one of `true_rewrites` (rewrites of the same pair
    found true: entailed after all), compared by what each changes in `claim` (`repeats`),
    never by their texts."""
    made = changes(claim, rewrite)
    return any(repeats(made, changes(claim, true)) for true in true_rewrites)
