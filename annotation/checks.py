"""Automatic warnings on a claim, shown to writers as they type and to validators, never
blocking: pure functions, no Django."""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass

from annotation.evidence import evidence_rule_problem

NUMBER = re.compile(r"(?<![\w.])[-+]?\d+(?:[.,]\d+)*%?")
WORD = re.compile(r"[A-Za-z][A-Za-z'-]*")
# A short list of frequent English misspellings (wrong → right).
MISSPELLINGS: dict[str, str] = {
    "acheive": "achieve", "acheives": "achieves", "acheived": "achieved", "accross": "across",
    "accuray": "accuracy", "accuarcy": "accuracy", "begining": "beginning",
    "beleive": "believe", "comparision": "comparison", "compatable": "compatible",
    "definately": "definitely", "dependant": "dependent", "existance": "existence",
    "goverment": "government", "higer": "higher", "independant": "independent",
    "lenght": "length", "occured": "occurred", "occurence": "occurrence",
    "outperfoms": "outperforms", "outpeforms": "outperforms", "perfomance": "performance",
    "performace": "performance", "preformance": "performance", "recieve": "receive",
    "relevent": "relevant", "seperate": "separate", "signficant": "significant",
    "significantely": "significantly", "similiar": "similar", "succesful": "successful",
    "teh": "the", "thier": "their", "untill": "until", "wich": "which", "wiht": "with",
}  # fmt: skip


@dataclass(frozen=True)
class Warning:
    code: str
    message: str


def visual_text(caption: str, cells: Iterable[Iterable[Iterable[object]]] | None) -> str:
    """A table's caption and cells (a chart: its caption): where a claim's numbers are sought."""
    parts = [caption or ""]
    for grid in cells or []:
        for row in grid:
            parts.extend(str(cell.get("text", "")) for cell in row if isinstance(cell, dict))
    return " ".join(parts)


def numbers_in(text: str) -> set[str]:
    """Numbers as written, normalised: `73.2`, `12%` → `12`, `1,000` → `1000`."""
    found = set()
    for match in NUMBER.findall(text):
        value = match.rstrip("%").lstrip("+").replace(",", "")
        if value.strip("-"):
            found.add(value)
    return found


def text_only_numbers(
    claim: str, paragraphs: Iterable[str], visuals: Iterable[str]
) -> Warning | None:
    """All the claim's numbers appear in paragraph text and none in the sampled tables/charts:
    the claim may be verifiable from the text alone."""
    numbers = numbers_in(claim)
    if not numbers:
        return None
    in_text = set().union(*(numbers_in(p) for p in paragraphs)) if paragraphs else set()
    in_visuals = set().union(*(numbers_in(v) for v in visuals)) if visuals else set()
    if numbers <= in_text and not numbers & in_visuals:
        listed = ", ".join(sorted(numbers))
        return Warning(
            "text_only",
            f"Every number of the claim ({listed}) is in the paragraphs and none is in the "
            "sampled tables/charts: it may be verifiable from the text alone.",
        )
    return None


def _squash(text: str) -> str:
    return " ".join(text.split()).casefold()


def trivial_perturbation(entailed: str, refuted: str) -> Warning | None:
    """The refuted claim differs from the entailed one only in whitespace or case."""
    if entailed and refuted and _squash(entailed) == _squash(refuted):
        return Warning(
            "trivial_perturbation",
            "The refuted claim differs from the entailed one only in spaces or letter case.",
        )
    return None


def repeated_words(text: str) -> Warning | None:
    words = [w.casefold() for w in WORD.findall(text)]
    twice = sorted({a for a, b in zip(words, words[1:], strict=False) if a == b})
    if twice:
        return Warning("repeated_word", "Repeated word: " + ", ".join(f"“{w} {w}”" for w in twice))
    return None


def misspellings(text: str) -> Warning | None:
    found = sorted({w.casefold() for w in WORD.findall(text) if w.casefold() in MISSPELLINGS})
    if found:
        fixes = ", ".join(f"{w} → {MISSPELLINGS[w]}" for w in found)
        return Warning("misspelling", f"Possible misspelling: {fixes}")
    return None


def length_out_of_range(text: str, *, low: int, high: int) -> Warning | None:
    n = len(text.split())
    if n < low or n > high:
        return Warning("length", f"The claim has {n} words; the usual range is {low}–{high}.")
    return None


def evidence_rule(
    subset: str,
    evidence: Collection[int],
    kinds: Mapping[int, str],
    sampled: Collection[int],
    labels: Mapping[int, str] | None = None,
) -> Warning | None:
    """The claim's final evidence breaks the evidence rule (e.g. a claim written before it):
    shown to its validator, who fixes the evidence (submitting is held to the rule)."""
    problem = evidence_rule_problem(subset, evidence, kinds, sampled, labels=labels)
    if problem:
        return Warning("evidence_rule", f"The evidence breaks the evidence rule. {problem}")
    return None


def claim_warnings(
    *,
    text: str,
    entailed: str = "",
    refuted: str = "",
    paragraphs: Iterable[str] = (),
    visuals: Iterable[str] = (),
    low: int = 6,
    high: int = 120,
) -> list[Warning]:
    """Every warning for one claim, in a fixed order."""
    paragraphs, visuals = list(paragraphs), list(visuals)
    found = [
        text_only_numbers(text, paragraphs, visuals),
        trivial_perturbation(entailed, refuted),
        repeated_words(text),
        misspellings(text),
        length_out_of_range(text, low=low, high=high),
    ]
    return [w for w in found if w is not None]
