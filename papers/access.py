"""The one staff check and the one 403 page, for every app's views (papers is the lowest app
with pages, so every app above may import them).

`staff_required`: anonymous people go to the sign-in page; signed in without staff rights,
403 with why. `forbidden`: that 403, as the page `forbidden.html` ("Not allowed", the reason,
a link back to the workspace), or as JSON (`error`, `reason`, `message`) to a page's script.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render

View = Callable[..., HttpResponse]

STAFF_ONLY = "Only admins can open this page."


def is_script(request: HttpRequest) -> bool:
    """A page's script (fetch, htmx) rather than a form post: it reads JSON."""
    return (
        request.content_type == "application/json"
        or "application/json" in request.headers.get("Accept", "")
        or "HX-Request" in request.headers
        or "X-Requested-With" in request.headers
    )


def forbidden_page(request: HttpRequest, message: str) -> HttpResponse:
    """The 403 page: "Not allowed", why, and the way back to the workspace."""
    return render(request, "forbidden.html", {"message": message}, status=403)


def forbidden(request: HttpRequest, message: str, reason: str = "forbidden") -> HttpResponse:
    """403 with why: the page, or to a page's script JSON with a reason code."""
    if is_script(request):
        return JsonResponse({"error": message, "reason": reason, "message": message}, status=403)
    return forbidden_page(request, message)


def staff_required(view: View) -> View:
    """Sign-in first (anonymous: to the login page), then staff only (others: 403)."""

    @login_required
    @wraps(view)
    def guarded(request: HttpRequest, *args, **kwargs) -> HttpResponse:
        if not request.user.is_staff:
            return forbidden(request, STAFF_ONLY)
        return view(request, *args, **kwargs)

    return guarded
