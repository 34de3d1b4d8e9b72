"""The automatic warnings: pure functions, and shown (never blocking) on the validator's page."""

from __future__ import annotations

from annotation import checks


def codes(**kw) -> list[str]:
    return [w.code for w in checks.claim_warnings(**kw)]


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
    assert checks.numbers_in("1,000 samples, 12% and -3.5 but v2") == {"1000", "12", "-3.5"}


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
    warnings = checks.claim_warnings(text="The the model acheives a higer score than the baseline.")
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
