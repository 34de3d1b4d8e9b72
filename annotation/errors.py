"""Domain errors raised by the annotation services; views turn them into clear messages."""

from __future__ import annotations


class AnnotationError(Exception):
    """A request the workflow refuses; `message` is meant for the person who made it, `reason`
    (a short code: "stale", "submitted", "cancelled", …) for the page's script, which says why
    without reading the message."""

    reason = "refused"

    def __init__(self, message: str, *, reason: str | None = None):
        super().__init__(message)
        self.message = message
        if reason is not None:
            self.reason = reason


class AccountError(AnnotationError):
    pass


class IneligibleExpert(AnnotationError):
    pass


class AlreadyAssigned(AnnotationError):
    pass


class NotAssigned(AnnotationError):
    pass


class InvalidTransition(AnnotationError):
    pass


class InvalidCuration(AnnotationError):
    pass


class StaleContext(AnnotationError):
    """Someone saved a newer version since the page was opened."""

    reason = "stale"


def too_long(field: str, text: str, limit: int) -> str:
    """Why `text` cannot be stored in a field that holds `limit` characters, naming the field,
    the limit and the length ("" when it fits). Text is refused, never cut: every layer (a
    page's form, a service called from a command, the admin or a script) says it the same way
    and records nothing."""
    if len(text) <= limit:
        return ""
    return f"{field}: longer than {limit:,} characters (it has {len(text):,}); shorten it."
