"""Small English helpers for templates."""

from __future__ import annotations

from django import template

from annotation import work

register = template.Library()


@register.filter
def indefinite(word: object) -> str:
    """The article for `word`: "an analytical", "an entailed", "a direct", "a refuted"."""
    text = str(word).strip()
    return "an" if text[:1].lower() in ("a", "e", "i", "o", "u") else "a"


@register.filter
def upto(count: object) -> str:
    """A count of work an expert may take, as the workspace counts it: exact up to the cap
    (`annotation.work.AVAILABLE_CAP`), then "100+"."""
    if isinstance(count, int) and count > work.AVAILABLE_CAP:
        return f"{work.AVAILABLE_CAP}+"
    return str(count)
