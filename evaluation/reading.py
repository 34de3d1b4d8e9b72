"""The reading of a model's response (pure): which verdict it concludes, or None when it gives
none, and SciVer's own substring rule beside it for comparability.

Our reading takes the answer from the response's conclusion, in this order: the last explicit
answer line ("Final answer:", a LaTeX `\\boxed{}`, else the last "Answer:"/"Label:"/
"Verdict:"/"Conclusion:" line or "the answer is …"); else the last sentence that states a
verdict (about the claim, or a bare "Refuted." / "No." sentence, or after "therefore"/"thus"/
"so"/"in conclusion"). Verdict words come with their synonyms ("supported", "contradicted",
"true"/"false", "correct"/"incorrect", FEVER's SUPPORTS/REFUTES, NLI's entailment/
contradiction), negation flips them ("not entailed", "does not support", "isn't true"), and
they are whole words only: "eyes", "yesterday", "truest" or "supportive" say nothing. A
response that abstains ("not enough information", "cannot be determined", "neutral"), hedges
between both verdicts, echoes the template ("Answer: yes/no"), stops inside a reasoning block
or is empty reads as None: no guess.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = [
    "ENTAILED",
    "REFUTED",
    "official_correct",
    "official_reading",
    "read_response",
]

ENTAILED = "entailed"
REFUTED = "refuted"
ABSTAIN = "abstain"  # a mention that decides "no answer"


def official_reading(response: str | None) -> str | None:
    """SciVer's acc_evaluation.py read as a verdict: "entailed" when the lower-cased response
    contains the substring "yes" anywhere, else "refuted"; an empty response is neither."""
    if not response:
        return None
    return ENTAILED if "yes" in response.lower() else REFUTED


def official_correct(response: str | None, label: bool) -> bool:
    """SciVer's rule: right when the label is true and "yes" occurs in the lower-cased response,
    or the label is false and it does not; an empty response is wrong either way."""
    reading = official_reading(response)
    return reading is not None and (reading == ENTAILED) == label


# --- Vocabulary ------------------------------------------------------------------------------

POSITIVE = (
    "entailed|entails|entail|entailment|supported|supports|support|true|correct|accurate|valid|"
    "confirmed|confirms|confirm|verified|holds|right|consistent with"
)
NEGATIVE = (
    "refuted|refutes|refute|refutation|contradicted|contradicts|contradict|contradiction|"
    "contradictory|false|incorrect|inaccurate|invalid|untrue|unsupported|wrong|disproved|"
    "disproves|inconsistent with"
)
ABSTAINING = (
    r"not enough (?:info|information|evidence)|insufficient (?:information|evidence|data)|"
    r"(?:cannot|can not|unable to|impossible to|not possible to) (?:be )?(?:determine[d]?|"
    r"verif(?:y|ied)|confirm(?:ed)?|tell|say|conclude[d]?|decide[d]?)|unverifiable|"
    r"undetermined|indeterminate|neither (?:entailed|supported|true|confirmed) nor|"
    r"\bneutral\b|\bunknown\b|no conclusion|cannot answer|can't answer"
)
# Words before a verdict word that flip it ("not", "n't" are spelled out by `_normalise`).
NEGATORS = {"not", "no", "never", "neither", "nor", "hardly", "fails", "fail", "failed", "lacks"}
NEGATION_WINDOW = 3  # words back from a verdict word
# Technical terms made of verdict words: "true positives", "false negative rate", …
TERMS = re.compile(
    r"\b(?:true|false|correct|incorrect)[ -](?:positives?|negatives?|positive rate|"
    r"discovery|labels?|answers?|predictions?|classification)\b|\bground[ -]truth\b|"
    r"\bsupport (?:vector|set|sets)\b|\bright(?:-| )(?:hand|side)\b|\bvalid(?:ation)? (?:set|split)\b",
    re.IGNORECASE,
)
VERDICT = re.compile(
    rf"\b(?P<abstain>{ABSTAINING})|\b(?P<neg>{NEGATIVE})\b|\b(?P<pos>{POSITIVE})\b", re.IGNORECASE
)
YES_NO = re.compile(
    r"^\W*(?:(?:so|therefore|thus|hence|overall|in conclusion|in short)\W+)?"
    r"(?P<word>yes|no)\b(?![-/ ]*(?:or\b|/))(?P<rest>.*)$",
    re.IGNORECASE,
)
# Where the verdict is about the claim, or the sentence is a conclusion.
ABOUT_CLAIM = re.compile(
    r"\b(?:claim|claims|statement|hypothesis|assertion)\b|\b(?:it|this|that) (?:is|was|seems|"
    r"appears|would be|holds)\b|\bthe answer\b|\bmy (?:answer|verdict|label)\b",
    re.IGNORECASE,
)
CONCLUDING = re.compile(
    r"^\W*(?:therefore|thus|hence|so|consequently|in conclusion|in summary|to conclude|"
    r"to summari[sz]e|overall|accordingly|in short|as a result|final(?:ly)?)\b",
    re.IGNORECASE,
)
# A sentence that asks or supposes rather than concludes.
ASKING = re.compile(
    r"\?\s*$|\bwhether\b|^\W*(?:if|let's|let us|let me|we need|i need|to (?:determine|verify|"
    r"check|decide|evaluate|assess)|first|i will|i'll|we will|we'll)\b|\bneed to (?:determine|"
    r"verify|check)\b|\b(?:entailed|supported|true|yes) or (?:refuted|not|false|no|contradicted)\b",
    re.IGNORECASE,
)
MARKER = re.compile(
    r"^\W*(?P<name>final answer|final verdict|final label|final judg(?:e)?ment|final decision|"
    r"answer|verdict|label|prediction|judg(?:e)?ment|decision|classification|conclusion|"
    r"output|result)\s*(?:\((?:yes|no|entailed|refuted)[^)]*\))?\s*(?:is\s*)?[:=\-–—]\s*"
    r"(?P<value>.*)$",
    re.IGNORECASE | re.MULTILINE,
)
INLINE_ANSWER = re.compile(
    r"\b(?P<name>the final answer|final answer|the answer|my answer|the verdict|my verdict|"
    r"the label|the correct label)\s+(?:is|would be|will be|:)\s*:?\s*(?P<value>[^.\n;]*)",
    re.IGNORECASE,
)
BOXED = re.compile(r"\\boxed\{\s*(?:\\text\{)?\s*(?P<value>[^{}]*?)\s*\}?\s*\}")
TEMPLATE_ECHO = re.compile(
    r"^\W*(?:yes\s*/\s*no|yes or no|entailed\s*/\s*refuted|entailed or refuted|\[.*\]|<.*>)\W*$",
    re.IGNORECASE,
)
THINK_OPEN = re.compile(r"<think(?:ing)?>", re.IGNORECASE)
THINK_CLOSE = re.compile(r"</think(?:ing)?>", re.IGNORECASE)
SENTENCE_END = re.compile(r"(?<=[.!?])\s+|\n+")
MAX_VALUE_WORDS = 25  # an answer line's verdict is in its opening words


@dataclass(frozen=True)
class Mention:
    polarity: str  # ENTAILED, REFUTED or ABSTAIN
    start: int


def _normalise(text: str) -> str:
    """Markdown and LaTeX decoration away, contractions spelled out, quotes plain."""
    text = text.replace("\u2019", "'").replace("\u2018", "'").replace("\u201c", '"')
    text = text.replace("\u201d", '"')
    text = re.sub(r"\\text(?:bf|it)?\{([^{}]*)\}", r"\1", text)
    text = re.sub(r"[*_`#>]+", " ", text)
    text = re.sub(r"\$+", " ", text)
    text = re.sub(r"\b(can)(?:not|'t)\b", r"\1 not", text, flags=re.IGNORECASE)
    text = re.sub(r"\bwon't\b", "will not", text, flags=re.IGNORECASE)
    text = re.sub(
        r"\b(do|does|did|is|are|was|were|has|have|had|should|would|could)n't\b",
        r"\1 not",
        text,
        flags=re.IGNORECASE,
    )
    return "\n".join(" ".join(line.split()) for line in text.splitlines())


def _words_before(text: str, start: int) -> list[str]:
    """The words just before `start`, back to the clause's start (a comma, a colon)."""
    head = re.split(
        r"[,;:.!?()\n]|\b(?:but|however|although|though|while|whereas)\b",
        text[:start],
        flags=re.IGNORECASE,
    )[-1]
    return re.findall(r"[a-z']+", head.lower())[-NEGATION_WINDOW:]


def _mentions(text: str) -> list[Mention]:
    """Every verdict word of `text`, negation applied, technical terms left out."""
    masked = TERMS.sub(lambda m: " " * len(m.group(0)), text)
    found = []
    for match in VERDICT.finditer(masked):
        if match.group("abstain"):
            found.append(Mention(ABSTAIN, match.start()))
            continue
        polarity = ENTAILED if match.group("pos") else REFUTED
        word = (match.group("pos") or match.group("neg")).lower()
        before = _words_before(masked, match.start())
        if word == "right" and before[-1:] not in (["is"], ["not"], ["be"]):
            continue  # "right" as a direction or a column, not a verdict
        if sum(w in NEGATORS for w in before) % 2 == 1:  # "not false" is a double negation
            polarity = REFUTED if polarity == ENTAILED else ENTAILED
        found.append(Mention(polarity, match.start()))
    return found


def _decide(mentions: list[Mention]) -> str | None:
    """One verdict from a sentence's mentions: an abstention wins, else the last one (after a
    "but", the conclusion follows)."""
    if not mentions:
        return None
    if any(m.polarity == ABSTAIN for m in mentions):
        return ABSTAIN
    return mentions[-1].polarity


def _read_value(value: str) -> str | None:
    """The verdict of an answer line's value: a leading yes/no, else its verdict words;
    ABSTAIN when it abstains, hedges or echoes the template; None when it says nothing."""
    value = value.strip()
    if not value:
        return None
    if TEMPLATE_ECHO.match(value):
        return ABSTAIN
    opening = " ".join(value.split()[:MAX_VALUE_WORDS])
    mentions = _mentions(opening)
    if any(m.polarity == ABSTAIN for m in mentions):
        return ABSTAIN
    yes_no = YES_NO.match(opening)
    if yes_no:
        return ENTAILED if yes_no.group("word").lower() == "yes" else REFUTED
    first_clause = re.split(r"[.;\n]", opening, maxsplit=1)[0]
    polarities = {m.polarity for m in _mentions(first_clause)}
    if len(polarities) == 1:
        return polarities.pop()
    if len(polarities) > 1:
        return ABSTAIN  # "Answer: partly true, partly false"
    return None


def _answer_lines(text: str) -> str | None:
    """The verdict of the last explicit answer: a final one if any, else the last plain one."""
    final: list[tuple[int, str]] = []
    plain: list[tuple[int, str]] = []
    lines = text.split("\n")
    for match in MARKER.finditer(text):
        value = match.group("value")
        if not value.strip():  # the value on the next non-empty line
            index = text.count("\n", 0, match.start()) + 1
            value = next((line for line in lines[index:] if line.strip()), "")
        kind = final if match.group("name").lower().startswith("final") else plain
        if match.group("name").lower() in ("conclusion", "result", "output"):
            kind = plain
        kind.append((match.start(), value))
    for match in INLINE_ANSWER.finditer(text):
        kind = final if "final" in match.group("name").lower() else plain
        kind.append((match.start(), match.group("value")))
    for match in BOXED.finditer(text):
        final.append((match.start(), match.group("value")))
    for group in (final, plain):
        for _, value in sorted(group, reverse=True):
            verdict = _read_value(value)
            if verdict is not None:
                return verdict
    return None


def _sentences(text: str) -> list[str]:
    return [s.strip() for s in SENTENCE_END.split(text) if s and s.strip()]


def _sentence_verdict(sentence: str) -> str | None:
    """A sentence's verdict, if it states one: about the claim, as a conclusion, or as a bare
    verdict ("Refuted.", "No, …")."""
    mentions = _mentions(sentence)
    if any(m.polarity == ABSTAIN for m in mentions) and not re.match(
        r"\W*if\b", sentence, re.IGNORECASE
    ):
        return ABSTAIN
    if ASKING.search(sentence):
        return None
    yes_no = YES_NO.match(sentence)
    if yes_no and not (
        not yes_no.group("rest").strip() or re.match(r"\s*[,.!:;\-–—)]", yes_no.group("rest"))
    ):
        yes_no = None  # "No significant difference …": not an answer
    bare = len(re.findall(r"[a-z]+", sentence.lower())) <= 4
    if mentions and (yes_no or bare or ABOUT_CLAIM.search(sentence) or CONCLUDING.search(sentence)):
        # The verdict words decide over a leading yes/no, which may answer a question of the
        # response's own: "Is the claim refuted? No, it is entailed."
        return _decide(mentions)
    if yes_no:
        return ENTAILED if yes_no.group("word").lower() == "yes" else REFUTED
    return None


def read_response(response: str | None) -> str | None:
    """ "entailed", "refuted", or None when the response gives no answer that can be read."""
    if not response or not response.strip():
        return None
    text = response
    closes = list(THINK_CLOSE.finditer(text))
    if closes:
        text = text[closes[-1].end() :]  # the answer follows the reasoning block
    elif THINK_OPEN.search(text):
        return None  # stopped inside its reasoning: no answer was given
    text = _normalise(text)
    verdict = _answer_lines(text)
    if verdict is None:
        for sentence in reversed(_sentences(text)):
            verdict = _sentence_verdict(sentence)
            if verdict is not None:
                break
    return None if verdict in (None, ABSTAIN) else verdict
