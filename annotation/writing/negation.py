"""Whether a refuted claim only negates its entailed claim (pure, no Django): the artifact a
model learns from the claim alone ("not" means refuted), which SciVer's guideline rules out
("introduce a factual error that contradicts the evidence"). One place for the writer's
warning, the validator's, the suggester's filter, the artifact audit and the statistics.

`pair_artifact(entailed, refuted)` is "negation" when the two claims differ only by negation
words added or removed ("not", "no", "never", "n't", "cannot", "neither", "nor", "without",
"fails to"…), "antonym" when they differ only by one word swapped for its opposite ("higher" →
"lower", "outperforms" → "underperforms"…, with negation words allowed beside it), and None
otherwise (a changed value, entity or comparison with other words: a real factual error)."""

from __future__ import annotations

import re

__all__ = ["ANTONYMS", "NEGATIONS", "has_negation", "pair_artifact"]

NEGATIONS = frozenset(
    {
        "not",
        "no",
        "never",
        "none",
        "nor",
        "neither",
        "nothing",
        "nobody",
        "cannot",
        "without",
        "fails",
        "fail",
        "failed",
        "n't",
        "isn't",
        "aren't",
        "doesn't",
        "don't",
        "didn't",
        "wasn't",
        "weren't",
        "hasn't",
        "haven't",
        "can't",
        "won't",
        "shouldn't",
        "couldn't",
        "does",  # "does not" → only "not" matters, "does" comes along with it
        "do",
        "did",
        "to",  # "fails to"
        "can",  # "can not", from "cannot"
        "the",  # "is best" → "is not the best"
        "a",
        "an",
    }
)
# Only these are negations on their own; the rest of NEGATIONS are the words that come with one.
_CORE_NEGATIONS = NEGATIONS - {"does", "do", "did", "to", "can", "the", "a", "an"}

_PAIRS = (
    ("higher", "lower"),
    ("high", "low"),
    ("highest", "lowest"),
    ("more", "less"),
    ("more", "fewer"),
    ("most", "least"),
    ("larger", "smaller"),
    ("largest", "smallest"),
    ("large", "small"),
    ("bigger", "smaller"),
    ("greater", "smaller"),
    ("greater", "less"),
    ("better", "worse"),
    ("best", "worst"),
    ("increase", "decrease"),
    ("increases", "decreases"),
    ("increased", "decreased"),
    ("increasing", "decreasing"),
    ("improves", "degrades"),
    ("improves", "worsens"),
    ("improved", "degraded"),
    ("improve", "degrade"),
    ("outperforms", "underperforms"),
    ("outperform", "underperform"),
    ("outperformed", "underperformed"),
    ("above", "below"),
    ("faster", "slower"),
    ("fastest", "slowest"),
    ("longer", "shorter"),
    ("longest", "shortest"),
    ("maximum", "minimum"),
    ("max", "min"),
    ("positive", "negative"),
    ("gain", "loss"),
    ("gains", "losses"),
    ("rises", "falls"),
    ("rise", "fall"),
    ("consistently", "inconsistently"),
    ("always", "never"),
    ("all", "none"),
    ("before", "after"),
    ("first", "last"),
    ("same", "different"),
    ("similar", "different"),
    ("stronger", "weaker"),
    ("strongest", "weakest"),
    ("exceeds", "trails"),
    ("benefits", "hurts"),
    ("helps", "hurts"),
)
ANTONYMS: dict[str, frozenset[str]] = {}  # by word as written
for _a, _b in _PAIRS:
    ANTONYMS[_a] = ANTONYMS.get(_a, frozenset()) | {_b}
    ANTONYMS[_b] = ANTONYMS.get(_b, frozenset()) | {_a}

_STEMMED_ANTONYMS: dict[str, frozenset[str]] = {}
_WORD = re.compile(r"[a-z0-9]+(?:'[a-z]+)?(?:[.,][0-9]+)*")


def _words(text: str) -> list[str]:
    text = text.lower().replace("\u2019", "'")
    text = re.sub(r"\b(\w+)n't\b", r"\1 n't", text)  # "doesn't" → "does n't"
    text = text.replace("cannot", "can not")
    return [_stem(w) for w in _WORD.findall(text)]


def _stem(word: str) -> str:
    """A light stem, so that "outperforms" and "(does not) outperform" compare alike."""
    if word in NEGATIONS or word == "n't" or not word.isalpha() or len(word) <= 3:
        return word
    if word.endswith("s") and not word.endswith("ss"):
        word = word[:-1]
    return word[:-1] if word.endswith("e") and len(word) > 3 else word


def _diff(a: list[str], b: list[str]) -> tuple[list[str], list[str]]:
    """Words of `a` not matched in `b` and of `b` not in `a` (as multisets)."""
    left, right = list(a), list(b)
    for word in a:
        if word in right:
            right.remove(word)
            left.remove(word)
    return left, right


for _word, _opposites in ANTONYMS.items():
    _STEMMED_ANTONYMS[_stem(_word)] = _STEMMED_ANTONYMS.get(_stem(_word), frozenset()) | {
        _stem(o) for o in _opposites
    }


def has_negation(text: str) -> bool:
    return any(w in _CORE_NEGATIONS or w == "n't" for w in _words(text))


def pair_artifact(entailed: str, refuted: str) -> str | None:
    """ "negation", "antonym" or None: see the module's docstring."""
    if not entailed.strip() or not refuted.strip():
        return None
    removed, added = _diff(_words(entailed), _words(refuted))
    if not removed and not added:
        return None  # the same words: reordered, or only punctuation changed
    changed = removed + added
    negations = [w for w in changed if w in NEGATIONS or w == "n't"]
    others_removed = [w for w in removed if w not in NEGATIONS and w != "n't"]
    others_added = [w for w in added if w not in NEGATIONS and w != "n't"]
    if not others_removed and not others_added:
        if any(w in _CORE_NEGATIONS or w == "n't" for w in negations):
            return "negation"
        return None
    if len(others_removed) == 1 and len(others_added) == 1:
        if others_added[0] in _STEMMED_ANTONYMS.get(others_removed[0], frozenset()):
            return "antonym"
    return None
