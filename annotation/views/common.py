"""What the annotation views share: the staff-only guard and the 403 page."""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render


def forbidden(request: HttpRequest, message: str) -> HttpResponse:
    return render(request, "annotation/forbidden.html", {"message": message}, status=403)


def staff_required(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
    """Sign-in first (anonymous: to the login page), then staff only (others: 403)."""

    @login_required
    @wraps(view)
    def guarded(request: HttpRequest, *args, **kwargs) -> HttpResponse:
        if not request.user.is_staff:
            return forbidden(request, "Only admins can open this page.")
        return view(request, *args, **kwargs)

    return guarded
