"""What a signed-out request gets instead of a bare redirect to the sign-in page.

A session can expire mid-task. The page's autosave then posts to an endpoint that needs signing
in: it gets 401 JSON (not the sign-in page's HTML, which a script would read as "saved"), with a
sign-in link that returns to the work page. A signed-out form post is sent to sign in with the
page it came from as `next`, never the endpoint it posted to (a GET there answers 405). The
draft itself is on the server already: the work page shows it after signing in again.
"""

from __future__ import annotations

from collections.abc import Callable
from urllib.parse import urlsplit

from django.conf import settings
from django.contrib.auth import REDIRECT_FIELD_NAME
from django.http import HttpRequest, HttpResponse, JsonResponse, QueryDict
from django.shortcuts import resolve_url
from django.utils.http import url_has_allowed_host_and_scheme

from papers.access import is_script

SIGNED_OUT = (
    "You are signed out (your session ended). Nothing you saved is lost: sign in again to go "
    "on where you were."
)


# A script's request (fetch with a JSON body or asking for JSON, htmx), not a page load: the
# one rule, `papers.access.is_script`.
wants_json = is_script


def page_of(request: HttpRequest) -> str | None:
    """The page this request was sent from (its Referer), when it is one of ours."""
    referer = request.headers.get("Referer", "")
    if not referer or not url_has_allowed_host_and_scheme(
        referer, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    ):
        return None
    parts = urlsplit(referer)
    return parts.path + (f"?{parts.query}" if parts.query else "")


def sign_in_url(next_url: str | None) -> str:
    """The sign-in page returning to `next_url`, spelled as `login_required` spells it."""
    login = resolve_url(settings.LOGIN_URL)
    if not next_url:
        return login
    query = QueryDict(mutable=True)
    query[REDIRECT_FIELD_NAME] = next_url
    return f"{login}?{query.urlencode(safe='/')}"


class SignedOutAnswers:
    """Rewrites the sign-in redirect of a signed-out request (`login_required`'s answer) for
    scripts and for form posts; page loads keep Django's redirect with their own `next`."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        response = self.get_response(request)
        if response.status_code != 302 or request.user.is_authenticated:
            return response
        location = urlsplit(response.get("Location", ""))
        if location.path != resolve_url(settings.LOGIN_URL) or location.netloc:
            return response
        if wants_json(request):
            # The work page (the script's page) when the Referer names it, else the home page.
            login_url = sign_in_url(page_of(request) or "/")
            answer = JsonResponse(
                {"error": SIGNED_OUT, "signed_out": True, "login_url": login_url}, status=401
            )
            answer["WWW-Authenticate"] = 'Session realm="SciVer Studio"'
            return answer
        if request.method not in ("GET", "HEAD"):
            page = page_of(request)
            if page is not None:
                response["Location"] = sign_in_url(page)
        return response
