"""pair_artifact: a refuted claim that only negates its entailed claim, or only swaps a word
for its opposite, is an artifact; a changed value, entity or comparison is not."""

from __future__ import annotations

import pytest

from annotation.writing.negation import has_negation, pair_artifact


@pytest.mark.parametrize(
    ("entailed", "refuted", "kind"),
    [
        ("Model A outperforms B on SQuAD.", "Model A does not outperform B on SQuAD.", "negation"),
        ("A beats B", "A never beats B", "negation"),
        ("A doesn't help", "A helps", "negation"),
        ("The method improves accuracy", "The method cannot improve accuracy", "negation"),
        ("Ours fails to converge", "Ours converges", "negation"),
        ("A is best", "A is not the best", "negation"),
        ("A is higher than B", "A is lower than B", "antonym"),
        ("A outperforms B", "A underperforms B", "antonym"),
        ("Accuracy increases with depth", "Accuracy decreases with depth", "antonym"),
        ("Accuracy is 45.2 on X", "Accuracy is 47.1 on X", None),
        ("BERT reaches 90% F1", "RoBERTa reaches 90% F1", None),
        ("A is higher than B on X", "A is lower than B on Y", None),
        ("A beats B", "A beats B.", None),
        ("", "A does not beat B", None),
    ],
)
def test_pair_artifacts(entailed, refuted, kind):
    assert pair_artifact(entailed, refuted) == kind


def test_negation_words():
    assert has_negation("It does not help") and has_negation("It doesn't help")
    assert has_negation("No model beats it") and not has_negation("Notably, A beats B")
