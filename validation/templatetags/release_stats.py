"""Template tags of the statistics and release pages: synthetic content, job errors."""

from __future__ import annotations

from django import template

from validation import stats

register = template.Library()


@register.simple_tag
def synthetic_summary(split_name: str | None = None) -> dict:
    """`{% synthetic_summary name as synthetic %}`: see `stats.synthetic_summary`."""
    return stats.synthetic_summary(split_name or None)


@register.filter
def error_message(error: str) -> str:
    """A failed job's message without its traceback (jobs record `Class: message\\n\\ntrace`)."""
    message = (error or "").split("\n\n", 1)[0].strip()
    for prefix in ("ReleaseError: ", "AnnotationError: "):
        message = message.removeprefix(prefix)
    return message
