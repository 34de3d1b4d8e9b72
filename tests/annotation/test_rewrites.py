"""What a rewrite changes, compared by its values and words (`annotation.writing.rewrites`): the
re-perturbation page leaves out every suggestion that repeats a rewrite found true. No database."""

from __future__ import annotations

import pytest

from annotation.writing.rewrites import Change, changes, found_true, repeats

CLAIM = "Ours achieves a BLEU of 40.3, which is higher than the Baseline model."


def value(old: str, new: str) -> Change:
    return Change("value", (old,), (new,))


def words(old: str, new: str) -> Change:
    return Change("words", tuple(old.split()), tuple(new.split()))


@pytest.mark.parametrize(
    ("rewrite", "made"),
    [
        (
            "Ours achieves a BLEU of 44.1, which is higher than the Baseline model.",
            {value("40.3", "44.1")},
        ),
        # How a number is written, letter case, punctuation and spacing change nothing.
        ("ours achieves a BLEU of 40.30 ,which is higher than the baseline model", set()),
        (
            "Ours achieves a BLEU of 44.10%, which is higher than the Baseline model.",
            {value("40.3", "44.1")},
        ),
        (
            "Ours achieves a BLEU of 40.3, which is lower than the Baseline model.",
            {words("higher", "lower")},
        ),
        (
            "Baseline achieves a BLEU of 40.3, which is higher than the Ours model.",
            {words("ours", "baseline"), words("baseline", "ours")},
        ),
        (
            "Ours does not achieve a BLEU of 40.3, which is higher than the Baseline model.",
            {words("achieves", "does not achieve")},
        ),
        # Reworded around the value: the value's change stands on its own.
        (
            "Our model reaches a BLEU score of 44.1, higher than the Baseline.",
            {
                words("ours achieves", "our model reaches"),
                words("", "score"),
                value("40.3", "44.1"),
                words("which is", ""),
                words("model", ""),
            },
        ),
    ],
)
def test_the_changes_of_a_rewrite_are_its_values_and_words(rewrite, made):
    assert changes(CLAIM, rewrite) == made


def test_thousands_separators_and_signs_read_as_values():
    assert (
        changes(
            "It costs 1,200 steps and gains +2.0 points.", "It costs 1200 steps and gains 2 points."
        )
        == set()
    )
    assert changes("It gains 2.0 points.", "It gains −2 points.") == {value("2", "-2")}


TRUE = "Ours reaches a BLEU of 44.1, which is higher than the Baseline model."


@pytest.mark.parametrize(
    ("suggestion", "repeated"),
    [
        # The rewrite found true, on an entailed claim reworded since ("reaches" → "achieves").
        ("Ours achieves a BLEU of 44.1, which is higher than the Baseline model.", True),
        ("Ours achieves a BLEU of 44.10, which is higher than the Baseline model.", True),
        # Another value, or another change: offered.
        ("Ours achieves a BLEU of 38.2, which is higher than the Baseline model.", False),
        ("Ours achieves a BLEU of 40.3, which is lower than the Baseline model.", False),
        ("Baseline achieves a BLEU of 40.3, which is higher than the Ours model.", False),
        # The entailed claim itself changes nothing: it repeats no rewrite.
        (CLAIM, False),
    ],
)
def test_a_suggestion_repeats_a_rewrite_found_true_by_what_it_changes(suggestion, repeated):
    assert found_true(CLAIM, suggestion, [TRUE]) is repeated


def test_every_rewrite_found_true_counts_not_only_the_last():
    earlier = "Our model gets a BLEU of 38.2, higher than the Baseline."  # worded otherwise
    suggestion = "Ours achieves a BLEU of 38.2, which is higher than the Baseline model."
    assert found_true(CLAIM, suggestion, [TRUE, earlier])
    assert not found_true(CLAIM, suggestion, [TRUE])
    lower = "Ours achieves a BLEU of 40.3, which is lower than the Baseline model."
    assert not found_true(CLAIM, lower, [TRUE, earlier])
    assert found_true(CLAIM, lower, [TRUE, "Ours achieves 44.1 BLEU, lower than the Baseline."])


def test_a_change_repeats_only_what_the_earlier_rewrite_changed_the_same_way():
    earlier = frozenset({value("40.3", "44.1"), words("achieves", "reaches")})
    assert repeats(frozenset({value("40.3", "44.1")}), earlier)
    assert repeats(frozenset({words("achieves", "reaches")}), earlier)
    assert not repeats(frozenset({value("40.3", "41.4")}), earlier)
    assert not repeats(frozenset({value("44.1", "40.3")}), earlier)  # the other way round
    assert not repeats(frozenset({value("40.3", "44.1"), words("higher", "lower")}), earlier)
    assert not repeats(frozenset(), earlier)
    # Words within a longer run the earlier rewrite changed; a word added is a run of its own.
    assert repeats(
        frozenset({words("", "not")}), frozenset({words("achieves", "does not achieve")})
    )
    assert not repeats(frozenset({words("", "not")}), frozenset({words("higher", "lower")}))
