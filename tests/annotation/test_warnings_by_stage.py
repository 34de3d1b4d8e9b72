"""Warnings by stage (issue 44, item 4): those computed from the claim's own text alone (markup,
LaTeX, length, …) reach every stage that reads the claim, the blind second annotator and the
adjudicator too; those comparing the claim with its pair or its evidence (a table named but
not among the evidence, a negation, numbers only in the text) reach the writer and the
validator only: a blind annotator or an adjudicator never sees one, nor the writer's evidence
marks or reason."""

from __future__ import annotations

import re

import pytest
from django.test import Client

from annotation.writing import selectors as writing_selectors
from annotation.writing import warnings as claim_warnings
from tests.annotation.review_factories import FLIP, annotate, crew, writer_evidence, written_pair

# What only a comparison with the pair or the evidence finds.
COMPARING = (
    "text_only",
    "reference_mismatch",
    "trivial_perturbation",
    "negation_artifact",
    "antonym_artifact",
)
TEXT_ONLY = ("repeated_word", "misspelling", "length", "html_markup", "latex_markup")


# --- The split, pure ------------------------------------------------------------------------

MARKED = r"Ours reaches a BLEU of $73.2$ in Table 9, which is higher than the Baseline model."
NEGATED = (
    r"Ours does not reach a BLEU of $73.2$ in Table 9, which is higher than the Baseline model."
)
TABLE_1 = [("table", "Table 1", "1")]


def codes(warnings) -> list[str]:
    return [w.code for w in warnings]


def test_text_warnings_read_the_claim_alone_and_comparing_warnings_the_rest():
    text = claim_warnings.text_warnings(NEGATED + " the the", low=6, high=12)
    assert codes(text) == ["repeated_word", "length", "latex_markup"]
    compared = claim_warnings.comparing_warnings(
        text=NEGATED,
        entailed=MARKED,
        refuted=NEGATED,
        paragraphs=["Table 9 gives 73.2."],
        evidence=TABLE_1,
    )
    assert codes(compared) == ["text_only", "reference_mismatch", "negation_artifact"]
    # Every warning of a claim is one or the other, in the same order as before the split.
    whole = claim_warnings.claim_warnings(
        text=NEGATED,
        entailed=MARKED,
        refuted=NEGATED,
        paragraphs=["Table 9 gives 73.2."],
        evidence=TABLE_1,
    )
    assert whole == compared + claim_warnings.text_warnings(NEGATED)
    for code in codes(whole):
        assert (code in COMPARING) != (code in TEXT_ONLY)
    # Nothing of a text's own warnings depends on its pair or evidence: there is none to pass.
    assert claim_warnings.text_warnings("Ours wins.", low=6, high=120)[0].code == "length"


# --- The blind and adjudication pages --------------------------------------------------------

NOTE = "Table 9 is the appendix's copy of Table 1."
REFUTED_MARKED = MARKED.replace("73.2", "68.9")


def assert_blind(page: str, *, held: str, other: str) -> None:
    """`page` shows the text warning of the held claim and nothing compared."""
    assert 'id="claim-warnings"' in page and 'data-code="latex_markup"' in page
    assert "“$73.2$”" in page or "“$68.9$”" in page
    for code in COMPARING:
        assert f'data-code="{code}"' not in page
    assert "not among its evidence" not in page
    assert NOTE not in page and other not in page and held in page


@pytest.mark.django_db
def test_blind_and_adjudication_pages_show_text_warnings_and_no_comparing_one():
    c = crew("wendy", "sam", "tom", "ada")
    pair = written_pair(
        c["wendy"],
        c["boss"],
        entailed=MARKED,
        refuted=REFUTED_MARKED,
        suggestion="",
        reference_note=NOTE,
    )
    # The writer is warned of both kinds on each claim.
    found = writing_selectors.warnings_for(
        pair.task,
        entailed=MARKED,
        refuted=REFUTED_MARKED,
        evidence=writer_evidence(pair, "entailed"),
    )
    for name in ("entailed", "refuted"):
        assert {"reference_mismatch", "latex_markup"} <= set(codes(found[name])), name
    texts = {"entailed": MARKED, "refuted": REFUTED_MARKED}
    # sam holds one claim blind: its page warns of the LaTeX, of nothing compared, and shows no
    # mark of the writer's evidence.
    sam = Client()
    sam.force_login(c["sam"])
    start = sam.post("/review/annotate/next/")
    assert start.status_code == 302
    page = sam.get(start.url).content.decode()
    held = "entailed" if MARKED in page else "refuted"
    assert_blind(page, held=texts[held], other=texts[FLIP[held]])
    assert "mark-W" not in page and "the writer's evidence" not in page
    for pk in writer_evidence(pair, held):
        assert f'data-ev="{pk}"' in page  # the element is there to mark…
        assert not re.search(rf'value="{pk}" form="review-form" checked', page)  # …unmarked
    # She disagrees with the writer: ada adjudicates, and is warned of the LaTeX only.
    annotate(c["sam"], label=FLIP[held])
    annotate(c["tom"])
    ada = Client()
    ada.force_login(c["ada"])
    start = ada.post("/review/adjudicate/next/")
    assert start.status_code == 302
    assert_blind(ada.get(start.url).content.decode(), held=texts[held], other=texts[FLIP[held]])
