"""Site-wide views that are no app's: the answer to a refused CSRF check, and the admins' page of
paused sign-ins."""

from __future__ import annotations

import ipaddress

from django.conf import settings
from django.contrib import messages
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.middleware.csrf import REASON_NO_CSRF_COOKIE
from django.shortcuts import redirect, render
from django.utils import timezone
from django.views.decorators.http import require_http_methods

from annotation import inputs
from config import signin
from config.middleware import wants_json
from config.signin import transport
from papers.access import staff_required


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


@staff_required
@require_http_methods(["GET", "POST"])
def sign_ins(request: HttpRequest) -> HttpResponse:
    """Who may not sign in now (a username from an address, or an address), since when and until
    when; POST unlocks one (its failures are forgotten)."""
    if request.method == "POST":
        address = inputs.parse_text(request.POST.get("address"), field="address", max_length=64)
        username = request.POST.get("username")
        if username is not None:
            username = inputs.parse_text(username, field="username", max_length=255)
        if not address:
            raise inputs.BadInput("address: which address to unlock.", field="address")
        try:
            address = str(ipaddress.ip_address(address))
        except ValueError:
            raise inputs.BadInput(
                f"address: {address[:64]!r} is not an IP address.", field="address"
            ) from None
        gone = signin.unlock(username=username, address=address)
        who = f"{username} from {address}" if username is not None else f"the address {address}"
        messages.success(
            request,
            f"Unlocked {who}: {gone} failure record{'' if gone == 1 else 's'} forgotten."
            if gone
            else f"{who} was not paused.",
        )
        return redirect("sign_ins")
    context = {
        "paused": signin.paused(timezone.now()),
        "pair_limit": settings.AXES_FAILURE_LIMIT,
        "address_limit": settings.SIGNIN_ADDRESS_LIMIT,
        "cool_off_minutes": int(settings.AXES_COOLOFF_TIME.total_seconds() // 60),
    }
    return render(request, "registration/sign_ins.html", context)
