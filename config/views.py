"""Site-wide views that are no app's: the answer to a refused CSRF check."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse, JsonResponse
from django.middleware.csrf import REASON_NO_CSRF_COOKIE
from django.shortcuts import render

from config.middleware import wants_json
from config.signin import transport


def csrf_failure(request: HttpRequest, reason: str = "") -> HttpResponse:
    """403 that says what happened: a page older than the last sign-in (its token was renewed),
    or Secure cookies over plain HTTP (the browser never sent the cookie back). A script gets
    JSON, so the work page can keep its draft and say so."""

    # Without the cookie, and over plain HTTP to Secure cookies: the browser never sent it.
    insecure = reason == REASON_NO_CSRF_COOKIE and transport(request)["insecure_signin"]
    if insecure:
        message = (
            "This server sends its cookies over HTTPS only, and this request came over plain "
            "HTTP, so the browser did not send them back. Open the https:// address."
        )
    else:
        message = (
            "This page is out of date (you signed in or out since it was opened, perhaps in "
            "another tab). Reload it and try again; what was saved is kept."
        )
    if wants_json(request):
        return JsonResponse({"error": message, "csrf": True}, status=403)
    context = {"message": message, "insecure_signin": insecure}
    return render(request, "registration/csrf_failure.html", context, status=403)
