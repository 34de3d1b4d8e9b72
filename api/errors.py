"""One JSON shape for every refusal: `{"status", "code", "message", "field"}` (field "" when
the refusal is about the request as a whole), plus `errors` (every field's messages) when a form
refused the input. The pages' messages, word for word: the API reads input with their forms."""

from __future__ import annotations

from typing import Any

from django.core.exceptions import (
    PermissionDenied,
    RequestDataTooBig,
    SuspiciousOperation,
    TooManyFieldsSent,
)
from django.http import Http404
from rest_framework import exceptions, status
from rest_framework.response import Response
from rest_framework.views import exception_handler

from annotation.errors import AnnotationError
from annotation.inputs import BadInput


class FormRefused(exceptions.APIException):
    """A form refused the input: the first problem is the message, every problem in `errors`."""

    status_code = status.HTTP_400_BAD_REQUEST
    default_code = "invalid"

    def __init__(self, problems: dict[str, list[str]]):
        self.problems = problems
        field, messages = next(iter(problems.items()))
        self.field = "" if field == "__all__" else field
        super().__init__(messages[0])


class Refused(exceptions.APIException):
    """The input is well formed but the work's state refuses it (the page's error message)."""

    status_code = status.HTTP_409_CONFLICT
    default_code = "refused"

    def __init__(self, message: str, *, code: str = "refused"):
        super().__init__(message, code)


def printable(value: Any) -> Any:
    """`value` with lone surrogates (which no UTF-8 body can carry) shown as U+FFFD: a message
    may quote what was sent, and "\\ud800" is a JSON string a client can send."""
    if isinstance(value, str):
        return value.encode("utf-8", "surrogatepass").decode("utf-8", "replace")
    if isinstance(value, dict):
        return {printable(k): printable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [printable(v) for v in value]
    return value


def refusal(status_code: int, code: str, message: str, field: str = "", **more: Any) -> Response:
    body = {"status": status_code, "code": code, "message": message, "field": field, **more}
    return Response(printable(body), status=status_code)


def _first(detail: Any) -> tuple[str, str, str]:
    """(field, message, code) of a DRF error detail: a string, a list or a dict of them."""
    if isinstance(detail, dict):
        field, inner = next(iter(detail.items()))
        _, message, code = _first(inner)
        return ("" if field in ("non_field_errors", "__all__") else str(field)), message, code
    if isinstance(detail, list):
        return _first(detail[0]) if detail else ("", "Invalid input.", "invalid")
    return "", str(detail), getattr(detail, "code", "error") or "error"


def handler(exc: Exception, context: dict) -> Response | None:
    if isinstance(exc, FormRefused):
        return refusal(400, "invalid", str(exc.detail), exc.field, errors=exc.problems)
    if isinstance(exc, BadInput):
        return refusal(400, "invalid", exc.message, exc.field)
    if isinstance(exc, AnnotationError):
        return refusal(409, exc.reason or "refused", exc.message)
    if isinstance(exc, Http404):
        message = str(exc) or "Not found."
        return refusal(404, "not_found", message)
    if isinstance(exc, RequestDataTooBig | TooManyFieldsSent):
        return refusal(413, "too_large", f"The request is too large: {exc}")
    if isinstance(exc, SuspiciousOperation):
        return refusal(400, "invalid", str(exc) or "The request could not be read.")
    if isinstance(exc, PermissionDenied):
        return refusal(403, "permission_denied", str(exc) or "Not allowed.")
    response = exception_handler(exc, context)
    if response is None or not isinstance(exc, exceptions.APIException):
        return response
    field, message, code = _first(exc.detail)
    if isinstance(exc, exceptions.ValidationError):
        code = "invalid"
    elif isinstance(exc, exceptions.NotAuthenticated | exceptions.AuthenticationFailed):
        code = "not_authenticated" if isinstance(exc, exceptions.NotAuthenticated) else code
    elif isinstance(exc, exceptions.Throttled):
        code = "throttled"
    body = {"status": response.status_code, "code": code, "message": message, "field": field}
    response.data = printable(body)
    return response


def not_found(request: object, path: str = "") -> Response:
    """Any /api/ address no route takes: the same JSON shape, not the HTML 404 page."""
    return refusal(404, "not_found", "No API route at this address (see /api/docs/).")
