"""Request values Django's admin turns into 500 answer 400 or 404 instead: a bulk action's
selection that is not an id (`pk__in=["²"]` raises ValueError), a number larger than any id
(SQLite cannot even compare it: a many-to-many field's choices, a foreign key's lookup), a NUL
character (PostgreSQL refuses it in a list filter's query), an object id no row can have.

Checked in `site.admin_view`, after the admin's own sign-in and permission checks, for every
admin page (ours, auth's, the sign-in throttle's). A text field cannot hold a NUL character or
a bare number of 20 digits in the admin: both answer 400."""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps

from django.contrib import admin
from django.contrib.admin import helpers
from django.http import Http404, HttpRequest, HttpResponse

from annotation.inputs import MAX_ID, BadInput, parse_id_list


def _too_large(value: str) -> bool:
    return value.isascii() and value.isdigit() and (len(value) > 19 or int(value) > MAX_ID)


def check_admin_request(request: HttpRequest, kwargs: dict) -> None:
    """BadInput (400) or Http404 for what the admin would answer with a server error."""
    object_id = kwargs.get("object_id")
    if isinstance(object_id, str) and (_too_large(object_id) or "\x00" in object_id):
        raise Http404("No such object.")
    for name, values in [*request.GET.lists(), *request.POST.lists()]:
        if any("\x00" in v for v in values):  # a list filter's value goes into the query
            raise BadInput(f"{name}: contains a NUL character.", field=name)
        if any(_too_large(v) for v in values):
            raise BadInput(f"{name}: a number larger than any id or count.", field=name)
    if request.method == "POST":
        parse_id_list(request.POST.getlist(helpers.ACTION_CHECKBOX_NAME), field="selection")


def guard_admin_input(site: admin.AdminSite) -> None:
    """Wrap every view of the site (call before its URLs are built; once is enough)."""
    if getattr(site, "input_guarded", False):
        return
    site.input_guarded = True  # type: ignore[attr-defined]
    original = site.admin_view

    def admin_view(view: Callable[..., HttpResponse], cacheable: bool = False):
        @wraps(view)
        def checked(request: HttpRequest, *args, **kwargs) -> HttpResponse:
            check_admin_request(request, kwargs)
            return view(request, *args, **kwargs)

        return original(checked, cacheable)

    site.admin_view = admin_view  # type: ignore[method-assign]
