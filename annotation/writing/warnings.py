"""Automatic warnings on a claim, never blocking: pure functions, no Django. Those of the claim's
own text (`text_warnings`) are shown to every stage that reads it; those comparing it with its
pair or its evidence (`comparing_warnings`) to writers as they type and to validators only."""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass

from annotation.evidence import evidence_rule_problem
from annotation.writing.negation import pair_artifact
from annotation.writing.perturbation import REFERENCE
from papers.parsing import numbering
from papers.parsing.numbering import tag_kind

NUMBER = re.compile(r"(?<![\w.])[-+]?\d+(?:[.,]\d+)*%?")
WORD = re.compile(r"[A-Za-z][A-Za-z'-]*")
# A short list of frequent English misspellings (wrong → right).
MISSPELLINGS: dict[str, str] = {
    "acheive": "achieve",
    "acheives": "achieves",
    "acheived": "achieved",
    "accross": "across",
    "accuray": "accuracy",
    "accuarcy": "accuracy",
    "begining": "beginning",
    "beleive": "believe",
    "comparision": "comparison",
    "compatable": "compatible",
    "definately": "definitely",
    "dependant": "dependent",
    "existance": "existence",
    "goverment": "government",
    "higer": "higher",
    "independant": "independent",
    "lenght": "length",
    "occured": "occurred",
    "occurence": "occurrence",
    "outperfoms": "outperforms",
    "outpeforms": "outperforms",
    "perfomance": "performance",
    "performace": "performance",
    "preformance": "performance",
    "recieve": "receive",
    "relevent": "relevant",
    "seperate": "separate",
    "signficant": "significant",
    "significantely": "significantly",
    "similiar": "similar",
    "succesful": "successful",
    "teh": "the",
    "thier": "their",
    "untill": "until",
    "wich": "which",
    "wiht": "with",
}


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


# A number as written, for comparing by value: "45.20" and "45.2", "1,000" and "1000",
# "70.0 %" and "70%" read alike.
# Every match holds a digit: an all-optional pattern matched (and called back) an empty
# string at most positions of a text, for nothing.
_WRITTEN_NUMBER = re.compile(r"(?<![\w.])(?:(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?|\.\d+)(?![\w])")


def _by_value(match: re.Match[str]) -> str:
    value = match.group(0)
    if not any(c.isdigit() for c in value):
        return value
    whole, _, fraction = value.replace(",", "").partition(".")
    whole = whole.lstrip("0") or "0"
    fraction = fraction.rstrip("0")
    return f"{whole}.{fraction}" if fraction else whole


def _spacing(text: str) -> str:
    return re.sub(r"\s+%", "%", _squash(text).replace("−", "-"))


def _values(text: str) -> str:
    return _spacing(_WRITTEN_NUMBER.sub(_by_value, text))


def _reference_kind(word: str) -> str:
    """What a reference's word names, whatever its spelling ("Sec.", "§" and "Section")."""
    kind = tag_kind(word)
    if kind is not None:
        return kind
    word = word.casefold()
    for prefix, name in (
        ("sec", "section"),
        ("§", "section"),
        ("eq", "equation"),
        ("alg", "algorithm"),
        ("listing", "listing"),
    ):
        if word.startswith(prefix):
            return name
    return word


def _mask_references(text: str) -> str:
    return REFERENCE.sub(lambda m: f"{_reference_kind(m.group(1))} #", text)


def perturbation_problem(origin: str, perturbed: str) -> str:
    """How a refuted rewrite fails to contradict its entailed claim by a factual error: ""
    when it does. A rewrite that changes only spaces or letter case, only which table, figure,
    section, equation or algorithm is cited, or only how a number is written (45.2 → 45.20,
    1,000 → 1000, 70% → 70.0 %), states the same facts: a model need not check any evidence
    to tell the two apart. Shown to the writer and the validator, and refused by
    `check_release`."""
    if _squash(origin) == _squash(perturbed):
        return "is its entailed claim itself"
    formatting = _values(origin) == _values(perturbed)
    masked = _mask_references(origin), _mask_references(perturbed)
    references = _spacing(masked[0]) == _spacing(masked[1])
    if references and not formatting:
        return "differs from its entailed claim only in a reference number"
    if formatting:
        return "differs from its entailed claim only in number formatting"
    if _values(masked[0]) == _values(masked[1]):
        return "differs from its entailed claim only in a reference number and number formatting"
    return ""


_NO_FACT_CHANGED = {
    "is its entailed claim itself": "differs from the entailed one only in spaces or letter case",
    "differs from its entailed claim only in a reference number": (
        "differs from the entailed one only in which table, figure, section, equation or "
        "algorithm it cites"
    ),
    "differs from its entailed claim only in number formatting": (
        "differs from the entailed one only in how a number is written (45.2 = 45.20, "
        "1,000 = 1000, 70% = 70.0 %)"
    ),
    "differs from its entailed claim only in a reference number and number formatting": (
        "differs from the entailed one only in a reference number and in how a number is written"
    ),
}


def trivial_perturbation(entailed: str, refuted: str) -> Warning | None:
    """The refuted claim states the entailed one's facts (`perturbation_problem`): a release
    refuses it (`check_release`)."""
    why = perturbation_problem(entailed, refuted) if entailed and refuted else ""
    if why:
        return Warning(
            "trivial_perturbation",
            f"The refuted claim {_NO_FACT_CHANGED[why]}: it states the same facts, so it is "
            "not false. Change a value, a direction or an entity instead.",
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


# Markup a claim would carry into the release as typed (testset.json holds the claim's text):
# HTML tags and entities (`<script>`, `<img src=x onerror=…>`, `&amp;`) and LaTeX (`$\rightarrow$`,
# `70\%`, `\mathcal{L}_{\text{bal}}`). Pages escape a claim and never render it, so a reader, and
# a model given the release, sees the raw markup.
HTML_MARKUP = re.compile(
    r"</?[A-Za-z][A-Za-z0-9-]*(?:\s[^<>]*)?/?>"  # a tag: <script>, </b>, <img src=x onerror=…>
    r"|&(?:[A-Za-z][A-Za-z0-9]{1,31}|#\d{1,7}|#[xX][0-9A-Fa-f]{1,6});"  # an entity: &amp; &#60;
)
LATEX_MARKUP = re.compile(
    r"\$(?=\S)[^$\n]*?(?<=\S)\$(?!\d)"  # $…$, but not the prices in "$5 and $10"
    r"|\\[()\[\]]"  # \( \) \[ \]
    r"|\\[A-Za-z]+"  # a command: \rightarrow, \mathcal
    r"|\\[%$&#_{}]"  # an escape: 70\%
    r"|[_^]\{"  # a braced sub- or superscript: L_{bal}, 10^{-4}
)


def markup_in(text: str) -> dict[str, list[str]]:
    """The markup in `text` by kind ("html", "latex"), as written; kinds not found are left out.
    Shared by the writer's and validator's warnings and `check_release`."""
    found = {
        kind: [m.group(0) for m in pattern.finditer(text or "")]
        for kind, pattern in (("html", HTML_MARKUP), ("latex", LATEX_MARKUP))
    }
    return {kind: spans for kind, spans in found.items() if spans}


def _shown(spans: list[str]) -> str:
    first = spans[0] if len(spans[0]) <= 40 else spans[0][:39] + "…"
    return f"“{first}”" + (f" and {len(spans) - 1} more" if len(spans) > 1 else "")


def markup(text: str) -> list[Warning]:
    """HTML or LaTeX in a claim: it is released exactly as typed and shown as plain text (never
    rendered as HTML or math), so it must be written as plain text."""
    found = markup_in(text)
    warnings = []
    if "html" in found:
        warnings.append(
            Warning(
                "html_markup",
                f"The claim contains HTML markup ({_shown(found['html'])}): claims are shown and "
                "released exactly as typed, never as HTML. Write plain text.",
            )
        )
    if "latex" in found:
        warnings.append(
            Warning(
                "latex_markup",
                f"The claim contains LaTeX ({_shown(found['latex'])}): claims are shown and "
                "released exactly as typed, never rendered as math. Write it in plain text "
                "(→, 70%, L_bal).",
            )
        )
    return warnings


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


# --- The tables and figures a claim names, against its evidence -------------------------------

# "Table 2", "Tab. 3", "Fig. 3", "Figure 1(b)", "TABLE II", "Fig. 4a", and a plural's list
# ("Tables 2 and 3", "Figs. 1, 2 & 4", "Tables 2–4"): the parser's own tag words and numbers.
_NAMED = re.compile(
    rf"\b(?P<word>{numbering.TAG_WORDS})(?:\s*|~)(?P<first>{numbering.CITED_NUMBER})"
    rf"{numbering.NUMBER_END}"
    rf"(?P<more>(?:\s*(?:,\s*(?:and\s+|or\s+)?|and|or|&|–|-|to)\s*"
    rf"{numbering.CITED_NUMBER}{numbering.NUMBER_END})*)"
)
_MORE = re.compile(
    rf"(?P<sep>,\s*(?:and\s+|or\s+)?|and|or|&|–|-|to)\s*(?P<number>{numbering.CITED_NUMBER})"
    rf"{numbering.NUMBER_END}"
)
_ROMAN = re.compile(rf"{numbering.ROMAN_UPPER}|{numbering.ROMAN_LOWER}")
_ROMAN_VALUES = {"i": 1, "v": 5, "x": 10, "l": 50, "c": 100}
_RANGE_MAX = 20  # "Tables 2–4" is 2, 3 and 4; a longer range is not a list of tables


def _roman(text: str) -> int:
    values = [_ROMAN_VALUES[c] for c in text.casefold()]
    return sum(-v if v < w else v for v, w in zip(values, [*values[1:], 0], strict=True))


def number_key(number: str) -> str:
    """A table's or figure's number, compared whatever its style: "II" = "ii" = "2", a
    sub-figure letter dropped ("4a", "4(b)" → "4"), "A.1" = "A1" = "a-1"."""
    text = number.strip().rstrip(")").split("(")[0].strip()
    if _ROMAN.fullmatch(text):
        return str(_roman(text))
    text = re.sub(r"(?<=\d)[a-z]$", "", text).casefold()
    return re.sub(r"^([a-z]{1,2})[.\-]", r"\1", text)


def _plural(word: str) -> bool:
    return word.rstrip(".").casefold().endswith("s")


def named_elements(text: str) -> list[tuple[str, str]]:
    """The tables and figures a text names, as (kind, number as written), each once, in order:
    kind "table" or "chart" (`papers.parsing.numbering.tag_kind`). A plural's list names each
    ("Tables 2 and 3", "Figs. 2–4"); a singular takes one number ("Table 2 and 3 baselines" names
    Table 2 only)."""
    found: dict[tuple[str, str], tuple[str, str]] = {}
    for match in _NAMED.finditer(text or ""):
        kind = tag_kind(match.group("word"))
        if kind is None:
            continue
        numbers = [match.group("first")]
        if _plural(match.group("word")):
            for more in _MORE.finditer(match.group("more")):
                previous, number = numbers[-1], more.group("number")
                if (
                    more.group("sep") in ("–", "-", "to")
                    and previous.isdigit()
                    and number.isdigit()
                ):
                    low, high = int(previous), int(number)
                    if 0 < high - low <= _RANGE_MAX:
                        numbers.extend(str(n) for n in range(low + 1, high))
                numbers.append(number)
        for number in numbers:
            found.setdefault((kind, number_key(number)), (kind, number))
    return list(found.values())


def _kind_of(label: str, kind: str) -> str:
    """An element's kind as a claim names it: its label's word ("Table 2" → table, "Figure 3"
    → chart), else its stored kind (a figure marked 'not a chart' still is a figure)."""
    word = label.split()[0] if label.split() else ""
    return tag_kind(word) or ("table" if kind == "table" else "chart")


def _number_of(label: str, number: str) -> str:
    if number:
        return number
    parts = label.split()
    return parts[-1] if len(parts) > 1 else ""


def _name(kind: str, number: str) -> str:
    return f"{'Table' if kind == 'table' else 'Figure'} {number}"


def _listed(names: list[str]) -> str:
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def reference_mismatch(text: str, evidence: Iterable[tuple[str, str, str]]) -> Warning | None:
    """The claim names a table or figure that is not among its evidence: `evidence` holds the
    claim's tables/charts as (kind, label, number) — "table"/"chart"/"figure", "Table 2" or
    "TABLE II", "2" or "II" (either may be empty). A model is given only the evidence's
    tables/charts: a claim citing another one cannot be checked against it."""
    marked = [
        (_kind_of(label, kind), label, _number_of(label, number))
        for kind, label, number in evidence
    ]
    have = {(kind, number_key(number)) for kind, _, number in marked if number}
    missing = [
        _name(kind, number)
        for kind, number in named_elements(text)
        if (kind, number_key(number)) not in have
    ]
    if not missing:
        return None
    shown = ", ".join(label or _name(kind, number) for kind, label, number in marked)
    which = "which is" if len(missing) == 1 else "which are"
    return Warning(
        "reference_mismatch",
        f"The claim names {_listed(missing)}, {which} not among its evidence "
        f"({shown or 'no table or chart marked'}): a model is given only the evidence's tables "
        "and charts. Mark it as evidence or remove the reference.",
    )


_ARTIFACT = {
    "negation": "differs from the entailed one only by a negation added or removed",
    "antonym": "differs from the entailed one only by a word swapped for its opposite",
}


def negation_artifact(entailed: str, refuted: str) -> Warning | None:
    """The refuted claim only negates the entailed one, or only swaps one word for its opposite
    (`negation.pair_artifact`): a model learns "not" means refuted without reading the
    evidence."""
    kind = pair_artifact(entailed, refuted) if entailed and refuted else None
    if kind is None:
        return None
    return Warning(
        f"{kind}_artifact",
        f"The refuted claim {_ARTIFACT[kind]}: introduce a factual error "
        "that contradicts the evidence (a changed value, entity or comparison), not a negation.",
    )


def text_warnings(text: str, *, low: int = 6, high: int = 120) -> list[Warning]:
    """The warnings computed from the claim's own text alone (repeated words, misspellings,
    length, HTML or LaTeX markup), in a fixed order: shown to every stage that reads the claim,
    the blind second annotator and the adjudicator too, since they tell nothing of its pair,
    its label or its evidence."""
    found = [
        repeated_words(text),
        misspellings(text),
        length_out_of_range(text, low=low, high=high),
    ]
    return [w for w in found if w is not None] + markup(text)


def comparing_warnings(
    *,
    text: str,
    entailed: str = "",
    refuted: str = "",
    paragraphs: Iterable[str] = (),
    visuals: Iterable[str] = (),
    evidence: Iterable[tuple[str, str, str]] | None = None,
) -> list[Warning]:
    """The warnings that compare the claim with its pair or its evidence (numbers only in the
    text, a table or figure named but not among its evidence, a refuted claim stating the
    entailed one's facts or only negating it), in a fixed order: for the writer and the
    validator only. A blind annotator or an adjudicator never sees one: each would tell them
    something of the pair, the claim's label or the writer's evidence."""
    paragraphs, visuals = list(paragraphs), list(visuals)
    trivial = trivial_perturbation(entailed, refuted)
    found = [
        text_only_numbers(text, paragraphs, visuals),
        reference_mismatch(text, evidence) if evidence is not None else None,
        trivial,
        None if trivial else negation_artifact(entailed, refuted),
    ]
    return [w for w in found if w is not None]


def claim_warnings(
    *,
    text: str,
    entailed: str = "",
    refuted: str = "",
    paragraphs: Iterable[str] = (),
    visuals: Iterable[str] = (),
    evidence: Iterable[tuple[str, str, str]] | None = None,
    low: int = 6,
    high: int = 120,
) -> list[Warning]:
    """Every warning for one claim, in a fixed order: those comparing it with its pair or
    evidence, then those of its own text. `evidence`: the claim's tables/charts as
    (kind, label, number), when known (`reference_mismatch`)."""
    return comparing_warnings(
        text=text,
        entailed=entailed,
        refuted=refuted,
        paragraphs=paragraphs,
        visuals=visuals,
        evidence=evidence,
    ) + text_warnings(text, low=low, high=high)
