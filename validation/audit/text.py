"""The audit in words (pure): the command's report, the dataset card's section and
`check_release`'s warning."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from validation.audit.core import (
    ARTIFACT_MARGIN,
    ArtifactAudit,
    Cue,
    Score,
    claim_only,
    cue_words,
)

__all__ = ["artifact_warnings", "as_json", "card_lines", "cue_text", "report_lines"]


def _pct(x: float) -> str:
    return f"{100 * x:.1f} %"


def cue_text(cues: Sequence[Cue], shown: int = 5) -> str:
    """`not (120 claims, 98 % refuted), never (…)`."""
    return ", ".join(
        f"{c.word!r} ({c.claims} claims, {_pct(c.with_label / c.claims)} "
        f"{'entailed' if c.label else 'refuted'})"
        for c in cues[:shown]
    )


def _baseline_line(result: ArtifactAudit) -> str:
    baseline = result.baseline
    if baseline.overall is None:
        return f"Claim-only baseline ({baseline.method}): no score, {baseline.needed}."
    line = f"Claim-only baseline ({baseline.method}): {baseline.overall.text()}"
    if result.human is not None:
        line += f"; human baseline {_pct(result.human)}"
    return line + "."


def report_lines(result: ArtifactAudit) -> list[str]:
    """The whole audit, for a terminal."""
    baseline = result.baseline
    lines = [f"{result.claims} claims, {result.labelled} with labels.", _baseline_line(result)]
    for title, scores in (("subset", baseline.by_subset), ("subfield", baseline.by_subfield)):
        for name, score in scores.items():
            lines.append(f"  {title} {name}: {score.text()}")
    for subset, examples in baseline.examples.items():
        for rid, claim, label in examples[:2]:
            lines.append(
                f"    e.g. {subset} #{rid} ({'entailed' if label else 'refuted'}): {claim[:120]}"
            )
    lines.append("Cue words (PMI with the label; claims holding the word):")
    for label in (False, True):
        name = "entailed" if label else "refuted"
        cues = result.cues.get(label, [])
        lines.append(f"  {name}: " + (cue_text(cues, len(cues)) or "none"))
    lines.append("Rule baselines:")
    for rule in result.rules:
        lines.append(f"  {rule.name}: " + (rule.score.text() if rule.score else "no labels"))
    lines.append("Pair artifacts (refuted claim only a negation / an antonym of the entailed one):")
    if not result.pairs:
        lines.append("  no pair has both statements here")
    for name, share in result.pairs.items():
        lines.append(
            f"  {name}: {share.pairs} pairs, negation {share.negation} "
            f"({_pct(share.negation_share)}), antonym {share.antonym} ({_pct(share.antonym_share)})"
        )
        for kind, entailed, refuted in share.examples[:1]:
            lines.append(f"    e.g. {kind}: {entailed[:80]!r} → {refuted[:80]!r}")
    for name, share in result.writers.items():
        if name != "all":
            lines.append(
                f"  writer {name}: negation-only {share.negation} of {share.pairs} pairs "
                f"({_pct(share.negation_share)})"
            )
    lines.append("Near duplicates inside a part (a pair's own two claims aside):")
    for part, (count, found) in result.duplicates.items():
        lines.append(f"  {part}: {count}")
        for a, b, similarity in found[:2]:
            lines.append(f"    {similarity:.2f}: {a[:70]!r} ~ {b[:70]!r}")
    return lines


def card_lines(result: ArtifactAudit) -> list[str]:
    """The dataset card's "Annotation artifacts" section."""
    lines = [
        "## Annotation artifacts",
        "",
        "How far the claim alone gives its label away (a logistic regression on the claim's "
        "words and characters, no evidence): a score well above chance means a model can "
        "learn the annotation's habits instead of verifying claims.",
        "",
        _baseline_line(result),
        "",
    ]
    cues = [c for label in (False, True) for c in result.cues.get(label, [])[:5]]
    if cues:
        lines += ["Top cue words: " + cue_text(cues, len(cues)) + ".", ""]
    every = result.pairs.get("all")
    if every is not None and every.pairs:
        shares = ", ".join(
            f"{name} {_pct(share.negation_share)} / {_pct(share.antonym_share)}"
            for name, share in result.pairs.items()
        )
        lines += [
            "Pairs whose refuted claim only negates the entailed one / only swaps a word for "
            f"its antonym: {shares}.",
            "",
        ]
    return lines


def artifact_warnings(
    records: Iterable[Mapping[str, Any]], *, margin: float = ARTIFACT_MARGIN
) -> list[str]:
    """`check_release`'s warning: the claim-only baseline's interval lower bound beats chance by
    more than `margin` points, with the top cue words."""
    records = list(records)
    baseline = claim_only(records)  # only what the warning says: check_release stays fast
    if baseline.margin is None or baseline.margin <= margin or baseline.overall is None:
        return []
    found = cue_words(records, top=3)
    cues = [c for label in (False, True) for c in found.get(label, [])]
    return [
        f"annotation artifacts: a claim-only baseline ({baseline.method}) scores "
        f"{baseline.overall.text()}, its lower bound more than {margin:g} points above "
        f"chance; top cue words: {cue_text(cues, len(cues)) or 'none'}. Have the refuted claims "
        "rewritten with factual errors (python manage.py audit_release DIR for the details)"
    ]


def _score_json(score: Score | None) -> dict[str, Any] | None:
    if score is None:
        return None
    return {
        "correct": score.correct,
        "total": score.total,
        "accuracy": round(score.accuracy, 4),
        "low": round(score.low, 4),
        "high": round(score.high, 4),
        "chance": round(score.chance, 4),
    }


def as_json(result: ArtifactAudit) -> dict[str, Any]:
    """The audit as plain JSON values."""
    baseline = result.baseline
    return {
        "claims": result.claims,
        "labelled": result.labelled,
        "human": result.human,
        "baseline": {
            "method": baseline.method,
            "needed": baseline.needed,
            "overall": _score_json(baseline.overall),
            "margin_points": None if baseline.margin is None else round(baseline.margin, 2),
            "by_subset": {k: _score_json(v) for k, v in baseline.by_subset.items()},
            "by_subfield": {k: _score_json(v) for k, v in baseline.by_subfield.items()},
        },
        "cues": {
            ("entailed" if label else "refuted"): [
                {
                    "word": c.word,
                    "pmi": round(c.pmi, 4),
                    "claims": c.claims,
                    "with_label": c.with_label,
                }
                for c in cues
            ]
            for label, cues in result.cues.items()
        },
        "rules": [{"rule": r.name, "score": _score_json(r.score)} for r in result.rules],
        "pairs": {
            name: {"pairs": s.pairs, "negation": s.negation, "antonym": s.antonym}
            for name, s in result.pairs.items()
        },
        "writers": {
            name: {"pairs": s.pairs, "negation": s.negation, "antonym": s.antonym}
            for name, s in result.writers.items()
        },
        "duplicates": {part: count for part, (count, _) in result.duplicates.items()},
    }
