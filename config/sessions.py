"""Sessions that bring their user: one statement per signed-in request before the view.

Django reads a signed-in request's session (one statement), then its user (another). Here the
session's table (`config.models.Session`) holds the user's id in a column of its own, and the
session is read joined with its user. Django's own `auth.get_user` still decides who the
request is: it asks the backend, which answers with the row read beside the session when the
ids match (else reads it as Django does), and then checks the session's password hash as always,
so an inactive user, a changed password or a flushed session signs the request out exactly as
before.

Settings: `SESSION_ENGINE = "config.sessions"`, the backend `config.sessions.ModelBackend` in
place of Django's, and the middleware `config.sessions.AuthenticationMiddleware` in place of
Django's. Sessions made before the switch (in `django_session`) are not read: everyone signs in
once more.
"""

from __future__ import annotations

from contextvars import ContextVar
from typing import Any

from django.contrib import auth
from django.contrib.auth import SESSION_KEY, backends, middleware
from django.http import HttpRequest
from django.utils.functional import SimpleLazyObject

from config.models import SessionStore  # noqa: F401  (the engine's store: SESSION_ENGINE)

# The user row read with this request's session, visible to the backend only while
# `auth.get_user` runs for that request (set and reset around the call).
_read_with_session: ContextVar[Any] = ContextVar("read_with_session", default=None)


class ModelBackend(backends.ModelBackend):
    """Django's model backend, which takes the user read with the session when it is the one
    asked for (same id), and otherwise reads it as Django's does. Whether it may sign in (an
    active account) is decided the same way in both cases."""

    def get_user(self, user_id: Any):
        user = _read_with_session.get()
        if user is not None and user.pk == user_id:
            return user if self.user_can_authenticate(user) else None
        return super().get_user(user_id)


def get_user(request: HttpRequest):
    """The request's user, decided by `django.contrib.auth.get_user` (cached on the request as
    Django's middleware caches it), with the session's user row lent to the backend."""
    if not hasattr(request, "_cached_user"):
        session = request.session
        session.get(SESSION_KEY)  # loads the session (and its user row) if not loaded yet
        token = _read_with_session.set(getattr(session, "user_row", None))
        try:
            request._cached_user = auth.get_user(request)
        finally:
            _read_with_session.reset(token)
    return request._cached_user


class AuthenticationMiddleware(middleware.AuthenticationMiddleware):
    """Django's, with `request.user` decided by `get_user` above (`request.auser` as Django's)."""

    def process_request(self, request: HttpRequest) -> None:
        super().process_request(request)
        request.user = SimpleLazyObject(lambda: get_user(request))
