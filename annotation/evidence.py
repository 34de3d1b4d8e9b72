"""The one evidence rule (pure): how many tables/charts a claim of each subset rests on.

SciVer's release names exactly one table or chart for a direct or analytical claim (`type`,
`item`, `image_path`) and exactly two for a parallel or sequential one (`item1…`, `item2…`),
and a model sees nothing else visual (its Table 2: 0.55 tables + 0.94 charts per example). So a
claim's evidence holds exactly that many tables/charts, at least one of them among the task's
sampled ones, plus any paragraphs. The writer, the adjudicator and the validator are held to it;
the second annotator is not (a count that breaks it is a disagreement); the export refuses a
claim that breaks it.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping

from annotation.templatetags.words import indefinite

VISUAL_KINDS = ("table", "chart")
VISUALS_PER_SUBSET = {"direct": 1, "analytical": 1, "parallel": 2, "sequential": 2}
_WORDS = {0: "none", 1: "one", 2: "two", 3: "three"}


def visuals_needed(subset: str) -> int:
    return VISUALS_PER_SUBSET.get(subset, 1)


def visual_ids(evidence: Collection[int], kinds: Mapping[int, str]) -> list[int]:
    """The tables and charts among `evidence` (in the order given)."""
    return [pk for pk in evidence if kinds.get(pk) in VISUAL_KINDS]


def _word(n: int) -> str:
    return _WORDS.get(n, str(n))


def _names(ids: Collection[int], labels: Mapping[int, str] | None) -> str:
    if not labels or not ids:
        return ""
    named = [labels.get(pk) or f"element {pk}" for pk in ids]
    return " (" + ", ".join(named) + ")"


def rule_text(subset: str, *, whole: bool = False) -> str:
    """The rule for one subset ("A direct claim rests on exactly one table or chart"); `whole`
    adds the sampled tables/charts and the paragraphs, as the pages state it."""
    need = visuals_needed(subset)
    what = "one table or chart" if need == 1 else f"{_word(need)} tables/charts"
    text = f"{indefinite(subset).capitalize()} {subset} claim rests on exactly {what}"
    if whole:
        which = "one of" if need == 1 else "at least one of them among"
        text += f", {which} the three sampled, plus any paragraphs"
    return text


def evidence_rule_problem(
    subset: str,
    evidence: Collection[int],
    kinds: Mapping[int, str],
    sampled: Collection[int] = (),
    *,
    labels: Mapping[int, str] | Callable[[list[int]], Mapping[int, str]] | None = None,
) -> str:
    """What breaks the rule, said so that the person knows what to tick or untick; "" when
    the evidence meets it. `kinds` maps element ids to their kind (at least the evidence's);
    `sampled` are the task's sampled tables/charts (empty: not checked); `labels` name elements
    in the message (e.g. "Table 2"): a mapping, or a function of the marked tables/charts' ids
    that is asked only when the rule is broken (a query a met rule never runs)."""
    need = visuals_needed(subset)
    visuals = visual_ids(sorted(evidence), kinds)
    none_sampled = bool(sampled) and not set(visuals) & set(sampled)
    if len(visuals) == need and not none_sampled:
        return ""
    if callable(labels):
        labels = labels(visuals)
    marked = f"{len(visuals)} {'is' if len(visuals) == 1 else 'are'} marked"
    if not visuals:
        marked = "none is marked"
    stated = f"{rule_text(subset)} (plus any paragraphs): {marked}{_names(visuals, labels)}."
    if len(visuals) > need:
        if none_sampled:
            untick = len(visuals) - need + 1
            return stated + (
                f" None of them is one of the three sampled: untick {_word(untick)} and mark a "
                "sampled table or chart instead."
            )
        return stated + (
            f" Untick {_word(len(visuals) - need)} (a paragraph may state what the claim needs "
            "from it)."
        )
    if len(visuals) < need:
        more = need - len(visuals)
        if none_sampled and more == 1:
            return stated + " Mark one of the three sampled tables/charts."
        if none_sampled:
            return stated + f" Mark {_word(more)}, at least one of them among the three sampled."
        return stated + f" Mark {_word(more)}{' more' if visuals else ''}."
    if none_sampled:
        names = _names(visuals, labels)
        if need == 1:
            found, fix = f"the one marked{names} is not sampled", "Untick it"
        else:
            found, fix = f"none of those marked{names} is sampled", "Untick one"
        return (
            f"{rule_text(subset, whole=True)}: {found}. {fix} and mark a sampled table or chart "
            "instead."
        )
    return ""
