"""The person's own sessions: how many others are signed in, and signing them all out."""

from __future__ import annotations

from typing import cast

from django.contrib import messages
from django.contrib.auth.base_user import AbstractBaseUser
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_http_methods

from annotation import sessions


@login_required
@require_http_methods(["GET", "POST"])
def my_sessions(request: HttpRequest) -> HttpResponse:
    """GET: the page (how many other sessions); POST: sign out every other session (another
    browser, a shared computer left signed in), this one kept."""
    key = request.session.session_key or ""
    person = cast(AbstractBaseUser, request.user)  # signed in (login_required)
    if request.method == "POST":
        ended = sessions.end_other_sessions(person, keep=key)
        messages.success(
            request,
            f"Signed out of {ended} other session{'' if ended == 1 else 's'}."
            if ended
            else "No other session was signed in.",
        )
        return redirect("account_sessions")
    others = sessions.other_sessions(person, keep=key)
    return render(request, "registration/sessions.html", {"others": others})
