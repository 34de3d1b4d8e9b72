"""The pages of API tokens: a person's own (/accounts/api-tokens/: make one, see them, revoke
one) and the admins' view of everyone's (/manage/api-tokens/: revoke anyone's).

A new token is shown once, on the answer to the POST that made it (never stored, never in a
redirect or the session): the list shows only its first characters."""

from __future__ import annotations

from typing import cast

from django.contrib import messages
from django.contrib.auth.base_user import AbstractBaseUser
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_http_methods

from annotation import inputs
from annotation.errors import AnnotationError
from api import tokens
from api.models import ApiToken
from papers.access import staff_required

# Revoked tokens the admins' page lists (newest first).
REVOKED_SHOWN = 200


def _chosen(request: HttpRequest, tokens_of: AbstractBaseUser | None) -> ApiToken:
    """The token the POST names (`revoke`: its id), among `tokens_of`'s (None: anyone's); 404
    when there is none such, so no one learns which ids exist."""
    pk = inputs.parse_id(request.POST.get("revoke"), field="revoke")
    found = ApiToken.objects.select_related("user").filter(pk=pk)
    if tokens_of is not None:
        found = found.filter(user=tokens_of)
    token = found.first() if pk is not None else None
    if token is None:
        raise Http404("No such token.")
    return token


def _revoke(request: HttpRequest, token: ApiToken, by: AbstractBaseUser) -> None:
    try:
        done = tokens.revoke_token(token=token, by=by)
    except AnnotationError as exc:
        messages.error(request, exc.message)
        return
    owner = "" if token.user_id == by.pk else f" of {token.user.get_username()}"
    if done:
        messages.success(request, f"Revoked the token {token}{owner}: it no longer signs in.")
    else:
        messages.info(request, f"The token {token}{owner} was already revoked.")


@never_cache
@login_required
@require_http_methods(["GET", "POST"])
def my_tokens(request: HttpRequest) -> HttpResponse:
    """GET: the person's tokens and the form to make one. POST `name`: make one, answered by
    the page that shows it (once); POST `revoke` (a token's id): revoke one of theirs."""
    person = cast(AbstractBaseUser, request.user)  # signed in (login_required)
    name, status = "", 200
    if request.method == "POST":
        if "revoke" in request.POST:
            _revoke(request, _chosen(request, tokens_of=person), by=person)
            return redirect("api_tokens")
        try:
            name = inputs.parse_text(
                request.POST.get("name", ""), field="Name", max_length=tokens.MAX_NAME
            )
            token, raw = tokens.issue_token(user=person, name=name)
        except inputs.BadInput as exc:
            messages.error(request, exc.message)
            name, status = exc.kept or "", 400
        except AnnotationError as exc:
            messages.error(request, exc.message)
            status = 400
        else:
            context = {"token": token, "raw": raw}
            return render(request, "api/token_made.html", context)
    context = {
        "tokens": ApiToken.objects.filter(user=person).select_related("revoked_by"),
        "name": name,
        "max_name": tokens.MAX_NAME,
        "max_active": tokens.MAX_ACTIVE_PER_PERSON,
    }
    return render(request, "api/tokens.html", context, status=status)


@never_cache
@staff_required
@require_http_methods(["GET", "POST"])
def all_tokens(request: HttpRequest) -> HttpResponse:
    """Every person's active tokens (with their owners) and the latest revoked ones; POST
    `revoke` (a token's id) revokes anyone's."""
    admin = cast(AbstractBaseUser, request.user)
    if request.method == "POST":
        _revoke(request, _chosen(request, tokens_of=None), by=admin)
        return redirect("manage_api_tokens")
    rows = ApiToken.objects.select_related("user", "revoked_by")
    context = {
        "active": rows.filter(revoked_at__isnull=True).order_by("user__username", "-created_at"),
        "revoked": rows.filter(revoked_at__isnull=False).order_by("-revoked_at")[:REVOKED_SHOWN],
        "revoked_shown": REVOKED_SHOWN,
    }
    return render(request, "api/all_tokens.html", context)
