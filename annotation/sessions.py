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

from datetime import timedelta
from importlib import import_module
from typing import Any

from django.conf import settings
from django.contrib.auth.base_user import AbstractBaseUser
from django.contrib.sessions.models import Session
from django.http import HttpRequest
from django.utils import timezone

from annotation.models import SessionLink


def link_session(sender: Any, request: HttpRequest, user: AbstractBaseUser, **kwargs: Any) -> None:
    """On sign-in (`user_logged_in`): the session, now under its new key, is this person's;
    their links to sessions that are gone (expired and cleared, or ended) go."""
    session = getattr(request, "session", None)
    key = getattr(session, "session_key", None)
    if key:
        SessionLink.objects.update_or_create(session_key=key, defaults={"user_id": user.pk})
        SessionLink.objects.filter(user_id=user.pk).exclude(
            session_key__in=Session.objects.values("session_key")
        ).delete()


def unlink_session(sender: Any, request: HttpRequest, user: Any, **kwargs: Any) -> None:
    """On sign-out (`user_logged_out`, before Django flushes the session): its link goes too."""
    key = getattr(getattr(request, "session", None), "session_key", None)
    if key:
        SessionLink.objects.filter(session_key=key).delete()


def end_sessions_of_inactive(sender: Any, instance: AbstractBaseUser, **kwargs: Any) -> None:
    """On every save of a person (`post_save`): one who is not active (deactivated, in the
    admin or anywhere) has no session left, in the transaction of that save."""
    if not instance.is_active:
        end_sessions(instance)


def end_other_sessions(user: AbstractBaseUser, keep: str) -> int:
    """End every session of `user` but the one whose key is `keep` (the page that asks);
    returns how many ended."""
    others = SessionLink.objects.filter(user_id=user.pk).exclude(session_key=keep)
    ended, _ = Session.objects.filter(session_key__in=others.values("session_key")).delete()
    others.delete()
    return ended


def other_sessions(user: AbstractBaseUser, keep: str) -> int:
    """How many sessions `user` is signed in to besides `keep` (those not expired)."""
    keys = SessionLink.objects.filter(user_id=user.pk).exclude(session_key=keep)
    return Session.objects.filter(
        session_key__in=keys.values("session_key"), expire_date__gt=timezone.now()
    ).count()


def end_sessions(user: AbstractBaseUser) -> int:
    """End every session `user` signed in to, wherever: one DELETE of their sessions, found
    through the link's index (then their links). The next request of each is signed out.
    Returns how many sessions ended."""
    keys = SessionLink.objects.filter(user_id=user.pk).values("session_key")
    ended, _ = Session.objects.filter(session_key__in=keys).delete()
    SessionLink.objects.filter(user_id=user.pk).delete()
    return ended


# --- Expired sessions cleared -----------------------------------------------------------------

CLEANUP_JOB_ID = "sciver-clear-expired-sessions"
CLEANUP_EVERY = timedelta(days=1)


def clear_expired() -> int:
    """What Django's `clearsessions` does (the engine's store removes expired sessions), and
    the links whose session is gone; returns how many links went."""
    engine = import_module(settings.SESSION_ENGINE)
    engine.SessionStore.clear_expired()
    gone, _ = SessionLink.objects.exclude(
        session_key__in=Session.objects.values("session_key")
    ).delete()
    return gone


def clear_expired_and_reschedule() -> None:
    """The RQ job: clear expired sessions, then queue the next run a day later."""
    clear_expired()
    schedule_cleanup(CLEANUP_EVERY)


def schedule_cleanup(delay: timedelta = CLEANUP_EVERY) -> bool:
    """With REDIS_URL: the next clearing of expired sessions, queued on the default queue to run
    after `delay` (one such job, by its fixed id; run by a worker started `--with-scheduler`).
    Without Redis: False (cron runs `manage.py clearsessions`, docs/deploying.md)."""
    if not settings.REDIS_URL:
        return False
    import django_rq  # noqa: PLC0415 - only with REDIS_URL set

    queue = django_rq.get_queue("default")
    queue.enqueue_in(delay, clear_expired_and_reschedule, job_id=CLEANUP_JOB_ID)
    return True
