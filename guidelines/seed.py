"""The first guideline version, from the texts the app already shows (pure: no database).

The subset definitions are the claim-writing guide's (`annotation.writing.rules`), the evidence
section states the evidence rule as the pages do (`annotation.evidence`), and the five criteria
are the validation checklist's (`validation.models.CRITERIA`; a test keeps the two equal),
each with an example of a claim that fails it."""

from __future__ import annotations

from annotation.evidence import rule_text
from annotation.writing.rules import SUBSET_GUIDE

SUBSETS = ("direct", "parallel", "sequential", "analytical")

# Key, title (as the validation checklist words it), and an example of a failure.
CRITERIA_EXAMPLES: tuple[tuple[str, str, str], ...] = (
    (
        "language",
        "Grammatical, well structured, no spelling or typographical errors",
        "Fails: “the model acheive 91.2 F1 on SQuAD , better then baseline” (spelling, "
        "grammar, spacing).",
    ),
    (
        "subset",
        "Fits its subset's requirements and is not verifiable from the text alone",
        "Fails: a “parallel” claim that reads one number from one table, or any claim whose "
        "number is also stated in a paragraph (the text alone verifies it).",
    ),
    (
        "significance",
        "Meaningfully situated in the paper and of practical significance",
        "Fails: “Table 2 has five rows.” (true, but says nothing about the paper's findings).",
    ),
    (
        "evidence",
        "Evidence directly relevant and complete enough to verify the claim",
        "Fails: the claim compares with the baseline of Figure 3 but only Table 1 is marked.",
    ),
    (
        "label",
        "The gold label and, for a refuted claim, the explanation are correct",
        "Fails: a refuted claim whose changed number is in fact the one in the table, or whose "
        "explanation names the wrong cell.",
    ),
)

EVIDENCE_TEXT = (
    "Evidence is every paragraph, table and chart of the curated context that a reader needs "
    "to verify the claim, and nothing that is merely on the same topic. Mark what the claim "
    "rests on; a paragraph counts when it supplies a definition, a setting or a number the "
    "claim uses. Captions are part of their table or chart.\n\n"
    "The evidence rule: {rules}.\n\n"
    "SciVer's release names exactly these tables/charts for a model to see, so a claim that "
    "needs another table, chart or a section that was removed is not verifiable: rewrite it."
)


def first_sections() -> list[dict[str, str]]:
    """Version 1: one section per subset, one on evidence, one per validation criterion."""
    sections = []
    for subset in SUBSETS:
        definition, example = SUBSET_GUIDE[subset]
        sections.append(
            {
                "key": f"subset-{subset}",
                "title": f"Subset: {subset}",
                "body": f"{definition}\n\nExample: {example}",
            }
        )
    rules = "; ".join(rule_text(s, whole=True) for s in SUBSETS)
    sections.append(
        {
            "key": "evidence",
            "title": "What counts as evidence",
            "body": EVIDENCE_TEXT.format(rules=rules),
        }
    )
    for number, (key, title, example) in enumerate(CRITERIA_EXAMPLES, start=1):
        sections.append(
            {
                "key": f"criterion-{key}",
                "title": f"Validation criterion {number}: {title}",
                "body": example,
            }
        )
    return sections
