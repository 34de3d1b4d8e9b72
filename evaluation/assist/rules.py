"""What the model in the loop is asked and how its answers are read (pure, no database).

- The text-only check (SciVer's criterion 2, "should not be verifiable using textual context
  alone"): a claim with the curated paragraphs only, asked at each temperature of `SAMPLES`;
  the claim "may be verifiable from the text alone" when every answer gives an explicit label
  (the scorer's reading) that is the claim's own.
- Perturbation ideas: the model's false rewrites of an entailed claim, kept only when they pass
  the suggester's validity filter: not the claim itself, not a no-op that states the same facts
  (`perturbation_problem`), not a rewrite already found true for the pair (`rewrites`), no
  markup; a negation-only rewrite is kept, marked and listed last, as the suggester's are."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from annotation.writing import negation, rewrites
from annotation.writing.warnings import markup_in, perturbation_problem

SAMPLES = (0.0, 0.7)  # temperatures: one deterministic answer and one sampled
MAX_IDEAS = 5
MAX_IDEA_CHARS = 1000
MAX_CONTEXT_CHARS = 60_000  # about 15,000 tokens of paragraphs


def text_context(paragraphs: Iterable[tuple[str, str]]) -> str:
    """The paragraphs as the model reads them: each under its section's heading when the
    section changes, nothing of any table, chart or caption; cut at MAX_CONTEXT_CHARS (said)."""
    lines: list[str] = []
    heading = None
    for section, text in paragraphs:
        if section != heading:
            heading = section
            if section:
                lines.append(f"## {section}")
        lines.append(" ".join(text.split()))
    joined = "\n\n".join(lines)
    if len(joined) > MAX_CONTEXT_CHARS:
        joined = joined[:MAX_CONTEXT_CHARS] + "\n\n[The rest of the paragraphs is left out.]"
    return joined


def right_answers(answers: Sequence[dict], gold: str) -> int:
    """How many answers give the claim's own label explicitly."""
    return sum(1 for a in answers if a.get("parsed") == gold)


@dataclass(frozen=True)
class Idea:
    text: str
    negation_only: bool = False


_LINE = re.compile(r"^\s*(?:[-*•]|\(?\d{1,2}[.)])\s+(.*\S)\s*$")


def idea_lines(answer: str | None) -> list[str]:
    """The rewrites an answer lists, one per line ("- …", "* …" or "1. …"), in its order."""
    found = []
    for line in (answer or "").splitlines():
        match = _LINE.match(line)
        if match:
            found.append(match.group(1).strip().strip('"“”'))
    return found


def _same(a: str, b: str) -> bool:
    return " ".join(a.lower().split()) == " ".join(b.lower().split())


def usable_ideas(
    entailed: str,
    ideas: Iterable[str],
    *,
    found_true: Sequence[str] = (),
    known: Iterable[str] = (),
) -> list[Idea]:
    """The ideas that pass the suggester's validity filter, each once, at most MAX_IDEAS; a
    negation-only rewrite last and marked. `found_true`: rewrites of this pair that turned out
    true; `known`: what the rule-based suggester already offers (not offered twice)."""
    kept: list[Idea] = []
    seen = [entailed, *known]
    for text in ideas:
        text = " ".join(text.split())
        if not text or len(text) > MAX_IDEA_CHARS or any(_same(text, s) for s in seen):
            continue
        if markup_in(text) or perturbation_problem(entailed, text):
            continue
        if found_true and rewrites.found_true(entailed, text, found_true):
            continue
        seen.append(text)
        kept.append(Idea(text, negation.pair_artifact(entailed, text) == "negation"))
    kept.sort(key=lambda idea: idea.negation_only)
    return kept[:MAX_IDEAS]
