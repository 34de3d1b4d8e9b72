"""How errors reach people and the console: the project's own 404 page under DEBUG (`make run`),
and a 400 logged as one line (its path and message, not a traceback)."""

from __future__ import annotations

import logging
from collections.abc import Callable

from django.conf import settings
from django.http import Http404, HttpRequest, HttpResponse
from django.views.defaults import page_not_found


class OwnNotFoundPage:
    """Under DEBUG, Django answers an unknown address or key with its technical page, which
    lists every URL pattern: show templates/404.html instead, as production does. An unknown
    key raises Http404 in its view (process_exception); an unknown address never reaches a
    view (no resolver match). Redirects to the address with a slash (CommonMiddleware, outside
    this one) still happen: it sees the 404 this answers."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]):
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        if (
            settings.DEBUG
            and response.status_code == 404
            and getattr(request, "resolver_match", None) is None
        ):
            return page_not_found(request, Http404())
        return response

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        if settings.DEBUG and isinstance(exception, Http404):
            return page_not_found(request, exception)
        return None


class OneLineBadRequests(logging.Filter):
    """A 400 (a BadRequest or SuspiciousOperation raised by a view) is logged by Django with its
    traceback: print it as one line, "Bad request (400) /path: message". Other records pass
    as they are."""

    def filter(self, record: logging.LogRecord) -> bool:
        if getattr(record, "status_code", None) == 400 and record.exc_info:
            exc = record.exc_info[1] if isinstance(record.exc_info, tuple) else None
            request = getattr(record, "request", None)
            path = getattr(request, "path", "")
            message = str(exc) if exc is not None else record.getMessage()
            record.msg = "Bad request (400) %s: %s"
            record.args = (path, " ".join(message.split()))
            record.exc_info = None
            record.exc_text = None
        return True
