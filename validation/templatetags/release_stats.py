"""Template filters of the release pages: a failed export job's message, and whether a refusal's
fix is a new split (the page then offers the split form)."""

from __future__ import annotations

from django import template

from validation.export import refusals

register = template.Library()


@register.filter
def error_message(error: str) -> str:
    """A failed job's message without its traceback (jobs record `Class: message\\n\\ntrace`)."""
    message = (error or "").split("\n\n", 1)[0].strip()
    for prefix in ("ReleaseError: ", "AnnotationError: "):
        message = message.removeprefix(prefix)
    return message


@register.filter
def offers_new_split(message: object) -> bool:
    """Whether a refusal (a message, or a failed job's error) is fixed by a new split."""
    return refusals.offers_new_split(error_message(str(message or "")))
