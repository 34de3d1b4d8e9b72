"""Template filters of the release pages: a failed export job's message."""

from __future__ import annotations

from django import template

register = template.Library()


@register.filter
def error_message(error: str) -> str:
    """A failed job's message without its traceback (jobs record `Class: message\\n\\ntrace`)."""
    message = (error or "").split("\n\n", 1)[0].strip()
    for prefix in ("ReleaseError: ", "AnnotationError: "):
        message = message.removeprefix(prefix)
    return message
