"""The workspace home: the signed-in expert's queue, and for admins what waits for them."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from annotation import selectors


@login_required
def home(request: HttpRequest) -> HttpResponse:
    context: dict[str, object] = {"ws": selectors.workspace(request.user)}
    if request.user.is_staff:
        context["overview"] = selectors.assignment_overview()
    return render(request, "annotation/home.html", context)
