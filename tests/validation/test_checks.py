"""The automatic warnings: pure functions, and shown (never blocking) on the validator's page."""

from __future__ import annotations

import pytest

from annotation.writing import warnings as claim_warnings


def codes(**kw) -> list[str]:
    return [w.code for w in claim_warnings.claim_warnings(**kw)]


def test_numbers_only_in_paragraphs_and_in_no_sampled_visual():
    text = "The model reaches 73.2 BLEU and improves by 4%."
    assert codes(
        text=text, paragraphs=["It reaches 73.2 BLEU, up 4 %."], visuals=["Table 1 BLEU 68.9"]
    ) == ["text_only"]
    assert (
        codes(text=text, paragraphs=["It reaches 73.2 BLEU, up 4%."], visuals=["Ours 73.2"]) == []
    )
    assert codes(text=text, paragraphs=["It reaches 73.2 BLEU."], visuals=[]) == []
    assert codes(text="The model is better than the baseline overall.", paragraphs=["1"]) == []


def test_numbers_are_normalised():
    assert claim_warnings.numbers_in("1,000 samples, 12% and -3.5 but v2") == {"1000", "12", "-3.5"}


@pytest.mark.parametrize(
    ("entailed", "refuted", "why"),
    [
        (
            "Ours reaches 45.2 F1 on the test set.",
            "Ours reaches 45.20 F1 on the test set.",
            "number formatting",
        ),
        (
            "The log holds 1,000 sessions in total.",
            "The log holds 1000 sessions in total.",
            "number formatting",
        ),
        (
            "Recall reaches 70% on the test set.",
            "Recall reaches 70.0 % on the test set.",
            "number formatting",
        ),
        (
            "Ours reaches 0.5 F1 on the test set.",
            "Ours reaches .50 F1 on the test set.",
            "number formatting",
        ),
        (
            "Table 2 shows ours reaching 45.2 F1.",
            "Table 3 shows ours reaching 45.2 F1.",
            "a reference number",
        ),
        (
            "As Eq 2 and Fig. 3b show, loss falls.",
            "As Eq 4 and Fig. 3c show, loss falls.",
            "a reference number",
        ),
        (
            "Section 4.1 reports 45.2 for ours.",
            "§5.2 reports 45.20 for ours.",
            "a reference number and number formatting",
        ),
    ],
)
def test_a_refuted_claim_equal_by_value_or_by_facts_is_a_trivial_perturbation(
    entailed, refuted, why
):
    assert claim_warnings.perturbation_problem(entailed, refuted).endswith(f"only in {why}")
    (warning,) = [
        w
        for w in claim_warnings.claim_warnings(text=refuted, entailed=entailed, refuted=refuted)
        if w.code == "trivial_perturbation"
    ]
    assert "states the same facts" in warning.message


@pytest.mark.parametrize(
    ("entailed", "refuted"),
    [
        ("Ours reaches 45.2 F1 on the test set.", "Ours reaches 45.3 F1 on the test set."),
        ("The log holds 1,000 sessions in total.", "The log holds 10,000 sessions in total."),
        ("Recall reaches 70% on the test set.", "Recall reaches 7.0 % on the test set."),
        ("Table 2 shows ours reaching 45.2 F1.", "Table 2 shows ours reaching 54.2 F1."),
    ],
)
def test_a_changed_value_is_no_trivial_perturbation(entailed, refuted):
    assert claim_warnings.perturbation_problem(entailed, refuted) == ""
    assert "trivial_perturbation" not in codes(text=refuted, entailed=entailed, refuted=refuted)


def test_trivial_perturbation_differs_only_in_spaces_or_case():
    entailed = "Ours beats the Baseline on BLEU by a wide margin."
    assert "trivial_perturbation" in codes(
        text=entailed,
        entailed=entailed,
        refuted="ours  beats the baseline on BLEU by a wide margin.",
    )
    assert "trivial_perturbation" not in codes(
        text=entailed,
        entailed=entailed,
        refuted="Ours trails the Baseline on BLEU by a wide margin.",
    )


def test_repeated_words_and_misspellings():
    warnings = claim_warnings.claim_warnings(
        text="The the model acheives a higer score than the baseline."
    )
    messages = {w.code: w.message for w in warnings}
    assert "the the" in messages["repeated_word"]
    assert (
        "acheives → achieves" in messages["misspelling"]
        and "higer → higher" in messages["misspelling"]
    )


def test_length_out_of_range():
    assert codes(text="Too short.", low=6, high=120) == ["length"]
    assert codes(text=" ".join(["word"] * 10), low=6, high=8) == ["repeated_word", "length"]
    assert codes(text="A claim of exactly the usual length here.", low=6, high=120) == []
