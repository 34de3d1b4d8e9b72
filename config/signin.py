"""Sign-in throttling (django-axes) and what the sign-in page says about it and about transport.

Axes counts failed sign-ins; this module decides what pauses a sign-in (`PairThenAddress`: one
username's failures from one address, or very many from one address, which never pause an
admin), gives axes the client's address behind our proxies, the page a locked-out person sees
(with the real wait), who is paused for the admins' page, and the sign-in page's warning when
Secure cookies meet a plain-HTTP request.
"""

from __future__ import annotations

import ipaddress
import math
from datetime import datetime, timedelta

from axes.backends import AxesStandaloneBackend
from axes.handlers.database import AxesDatabaseHandler
from axes.helpers import get_client_username, get_cool_off
from axes.models import AccessAttempt
from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.forms import AuthenticationForm
from django.db.models import Max, Min, Sum
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.http.request import split_domain_port
from django.shortcuts import render
from django.utils import timezone

LOOPBACK_HOSTS = frozenset({"localhost", "127.0.0.1", "[::1]", "::1"})


class SignInThrottle(AxesStandaloneBackend):
    """Axes' gate before the password check. Django's test client signs in without a request
    (`client.login`); under SCIVER_TESTING such a call passes to the next backend, in every other
    mode it is refused as axes refuses it, so no sign-in path can bypass the count unnoticed."""

    def authenticate(self, request: HttpRequest | None, username=None, password=None, **kwargs):
        if request is None and getattr(settings, "TESTING", False):
            return None
        return super().authenticate(request, username=username, password=password, **kwargs)


def _failures(attempts) -> int:
    return attempts.aggregate(n=Sum("failures_since_start"))["n"] or 0


class PairThenAddress(AxesDatabaseHandler):
    """Axes' database handler, locking by two counts (AXES_LOCKOUT_PARAMETERS: the pair, then
    the address): one username's failures from one address reaching AXES_FAILURE_LIMIT pause that
    username there only (a colleague behind the same lab NAT or proxy signs in as before);
    failures from one address whatever the usernames reaching SIGNIN_ADDRESS_LIMIT (far above
    one lab's typos: a guesser) pause the address, except for an admin's account, which only
    their own failures pause."""

    def is_locked(self, request, credentials: dict | None = None) -> bool:
        if not settings.AXES_LOCK_OUT_AT_FAILURE:
            return False
        pair, address = self.get_user_attempts(request, credentials)
        if _failures(pair) >= settings.AXES_FAILURE_LIMIT:
            return True
        if _failures(address) < settings.SIGNIN_ADDRESS_LIMIT:
            return False
        username = get_client_username(request, credentials)
        staff = get_user_model().objects.filter(username=username, is_staff=True).exists()
        return not staff


USERNAME_LENGTH = 150  # Django's username field; axes stores up to 255


def client_username(request: HttpRequest, credentials: dict | None) -> str | None:
    """The username a sign-in attempt names, as axes counts and stores it: from the credentials
    (or the form), cut to the longest username there can be, so that a 5,000-character guess is
    counted like any other instead of failing to be stored (PostgreSQL refuses it)."""
    field = getattr(settings, "AXES_USERNAME_FORM_FIELD", "username")
    source = credentials if credentials else getattr(request, "POST", {})
    value = source.get(field) if hasattr(source, "get") else None
    return str(value)[:USERNAME_LENGTH] if value else None


def client_ip(request: HttpRequest) -> str | None:
    """The client's address: the connection's, or with PROXY_COUNT proxies in front, the entry
    the outermost of them appended to X-Forwarded-For (entries left of it are the client's own
    claims, which anyone can forge)."""
    remote = request.META.get("REMOTE_ADDR") or None
    count = getattr(settings, "PROXY_COUNT", 0)
    if count <= 0:
        return remote
    hops = [h.strip() for h in request.META.get("HTTP_X_FORWARDED_FOR", "").split(",") if h.strip()]
    if len(hops) < count:
        return remote
    try:
        return str(ipaddress.ip_address(hops[-count]))
    except ValueError:
        return remote


def lockout_wait(request: HttpRequest, credentials: dict | None, *, at: datetime) -> timedelta:
    """How long until a sign-in for this username from this address is counted again: for each
    count that pauses it (the pair's, the address's) whose failures within the cool-off reach its
    limit, the time the oldest failure that still makes up the limit leaves the window; the later
    of them."""
    cool_off = get_cool_off(request) or timedelta(0)
    username = get_client_username(request, credentials)
    address = getattr(request, "axes_ip_address", None)
    subjects = [
        ({"username": username, "ip_address": address}, settings.AXES_FAILURE_LIMIT),
        ({"ip_address": address}, settings.SIGNIN_ADDRESS_LIMIT),
    ]
    unlocked_at = at
    for match, limit in subjects:
        if None in match.values():
            continue
        rows = (
            AccessAttempt.objects.filter(**match, attempt_time__gte=at - cool_off)
            .order_by("-attempt_time")
            .values_list("attempt_time", "failures_since_start")
        )
        total = 0
        for attempt_time, failures in rows:
            total += failures
            if total >= limit:
                unlocked_at = max(unlocked_at, attempt_time + cool_off)
                break
    return max(unlocked_at - at, timedelta(0))


def _minutes(wait: timedelta) -> int:
    return max(1, math.ceil(wait.total_seconds() / 60))


def lockout_response(
    request: HttpRequest, original_response: HttpResponse | None, credentials: dict | None
) -> HttpResponse:
    """The answer to a sign-in refused by the throttle: the sign-in page again, saying why and
    for how long (429, with Retry-After); JSON for scripts."""
    wait = lockout_wait(request, credentials, at=timezone.now())
    minutes = _minutes(wait)
    message = (
        f"Too many failed sign-ins for this account from this address "
        f"({settings.AXES_FAILURE_LIMIT} in a row), or from this address "
        f"({settings.SIGNIN_ADDRESS_LIMIT}). Signing in is paused: try again in "
        f"{minutes} minute{'s' if minutes != 1 else ''}, or ask an admin to unlock it now "
        "(Manage → Sign-ins)."
    )
    headers = {"Retry-After": str(max(1, math.ceil(wait.total_seconds())))}
    if "application/json" in request.headers.get("Accept", "") or request.headers.get(
        "X-Requested-With"
    ):
        response = JsonResponse({"error": message, "retry_after_minutes": minutes}, status=429)
    else:
        username = get_client_username(request, credentials) or ""
        form = AuthenticationForm(request, initial={"username": username})
        context = {
            "form": form,
            "next": request.POST.get("next", request.GET.get("next", "")),
            "locked_out": message,
        }
        response = render(request, "registration/login.html", context, status=429)
    for name, value in headers.items():
        response[name] = value
    return response


def _on_loopback(request: HttpRequest) -> bool:
    """Browsers treat http://localhost as a secure context and keep Secure cookies there."""
    domain, _ = split_domain_port(request.META.get("HTTP_HOST", ""))
    return domain in LOOPBACK_HOSTS or domain.endswith(".localhost")


def transport(request: HttpRequest) -> dict:
    """Context processor: `insecure_signin` is true when this request came over plain HTTP to a
    server whose sign-in cookies are Secure: the browser will not send them back, and signing in
    fails (the sign-in page says so instead of failing with a bare 403)."""
    secure_cookies = settings.SESSION_COOKIE_SECURE or settings.CSRF_COOKIE_SECURE
    return {
        "insecure_signin": bool(
            secure_cookies and not request.is_secure() and not _on_loopback(request)
        )
    }


# --- Who is paused, for the admins' page ---------------------------------------------------------


def paused(at: datetime) -> dict[str, list[dict]]:
    """The sign-ins paused now: pairs (username, address) and addresses whose failures within
    the cool-off reach their limit, with how many, since when and until when (roughly: the
    cool-off after the last failure)."""
    cool_off = settings.AXES_COOLOFF_TIME
    recent = AccessAttempt.objects.filter(attempt_time__gte=at - cool_off)

    def over(fields: list[str], limit: int) -> list[dict]:
        rows = (
            recent.values(*fields)
            .annotate(failures=Sum("failures_since_start"), since=Min("attempt_time"))
            .annotate(last=Max("attempt_time"))
            .filter(failures__gte=limit)
            .order_by("-last")
        )
        return [dict(row, until=row["last"] + cool_off) for row in rows]

    return {
        "pairs": over(["username", "ip_address"], settings.AXES_FAILURE_LIMIT),
        "addresses": over(["ip_address"], settings.SIGNIN_ADDRESS_LIMIT),
    }


def unlock(*, username: str | None, address: str) -> int:
    """Forget the failures of a pair (`username` from `address`) or of an address (`username`
    None): signing in is no longer paused for it. Returns how many records went."""
    found = AccessAttempt.objects.filter(ip_address=address)
    if username is not None:
        found = found.filter(username=username)
    deleted, _ = found.delete()
    return deleted
