"""Who is signed in where: Django's own database sessions, each sign-in linked to its person
(`SessionLink`, kept by the sign-in and sign-out signals), so that all of one person's sessions
end in one indexed statement.

The project used to read a session joined with its user (a session engine, backend and
middleware of its own: one statement fewer per request). In the load benchmark (production
shape, 16 clients, alternating runs) it gave 0.89× the cycles per second of Django's stock
sessions, within the noise and short of the 10 % that would have kept it (docs/benchmarks.md):
Django's sessions are used, and this link is what the custom table gave that they lack.
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth.base_user import AbstractBaseUser
from django.contrib.sessions.models import Session
from django.http import HttpRequest

from config.models import SessionLink


def link_session(sender: Any, request: HttpRequest, user: AbstractBaseUser, **kwargs: Any) -> None:
    """On sign-in (`user_logged_in`): the session, now under its new key, is this person's."""
    session = getattr(request, "session", None)
    key = getattr(session, "session_key", None)
    if key:
        SessionLink.objects.update_or_create(session_key=key, defaults={"user_id": user.pk})


def unlink_session(sender: Any, request: HttpRequest, user: Any, **kwargs: Any) -> None:
    """On sign-out (`user_logged_out`, before Django flushes the session): its link goes too."""
    key = getattr(getattr(request, "session", None), "session_key", None)
    if key:
        SessionLink.objects.filter(session_key=key).delete()


def end_sessions(user: AbstractBaseUser) -> int:
    """End every session `user` signed in to, wherever: one DELETE of their sessions, found
    through the link's index (then their links). The next request of each is signed out.
    Returns how many sessions ended."""
    keys = SessionLink.objects.filter(user_id=user.pk).values("session_key")
    ended, _ = Session.objects.filter(session_key__in=keys).delete()
    SessionLink.objects.filter(user_id=user.pk).delete()
    return ended
