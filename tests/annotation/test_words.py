"""The article before a subset or label in page text."""

from __future__ import annotations

import pytest
from django.template import Context, Template


@pytest.mark.parametrize(
    ("word", "expected"),
    [
        ("analytical", "an"),
        ("entailed", "an"),
        ("direct", "a"),
        ("parallel", "a"),
        ("sequential", "a"),
        ("refuted", "a"),
        ("", "a"),
    ],
)
def test_indefinite_article(word: str, expected: str) -> None:
    out = Template("{% load words %}{{ w|indefinite }} {{ w }}").render(Context({"w": word}))
    assert out == f"{expected} {word}"
