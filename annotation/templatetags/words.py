"""Small English helpers for templates."""

from __future__ import annotations

from django import template

register = template.Library()


@register.filter
def indefinite(word: object) -> str:
    """The article for `word`: "an analytical", "an entailed", "a direct", "a refuted"."""
    text = str(word).strip()
    return "an" if text[:1].lower() in ("a", "e", "i", "o", "u") else "a"
