"""What a request to arXiv can end in, for the crawler to tell apart: no HTML version, too
large, the wrong type, a failed conversion, retries exhausted, an unreadable API page."""

from __future__ import annotations

import requests


class FetchError(Exception):
    """A request to arXiv gave no usable answer; `reason` says why, for people."""

    retryable = False

    def __init__(self, reason: str, *, url: str = "", status: int | None = None):
        super().__init__(reason)
        self.reason = reason
        self.url = url
        self.status = status


class NotFound(FetchError):
    """404/410: for an HTML page, the paper has no HTML version."""


class TooLarge(FetchError):
    """The response is over the size limit."""


class WrongContentType(FetchError):
    """The response is not of the expected type (an HTML error page instead of an image)."""


class ConversionFailed(FetchError):
    """arXiv answered 200 but its LaTeXML conversion failed: no usable HTML."""


class TransientError(FetchError):
    """Retries, back-off and Retry-After were exhausted (5xx, 429, timeouts, truncation)."""

    retryable = True


class SearchError(FetchError):
    """An API page could not be read after its tries (malformed, empty, HTTP error)."""

    retryable = True


class RetriesExhausted(requests.exceptions.ConnectionError):
    """Raised by PoliteSession when every try failed on a network error."""

    def __init__(self, reason: str, *, tries: int):
        super().__init__(reason)
        self.reason = reason
        self.tries = tries
