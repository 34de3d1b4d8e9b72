"""Addresses in the API's answers: absolute for the request being answered (a script follows
them as they are), the path alone when no request is known."""

from __future__ import annotations

from typing import Any

from django.urls import reverse


def absolute(context: dict[str, Any], name: str, *args: Any) -> str:
    """The API's (or a page's) address `name`, absolute for the request being answered."""
    path = reverse(name, args=args)
    request = context.get("request")
    return request.build_absolute_uri(path) if request is not None else path


def media_url(context: dict[str, Any], file: Any) -> str | None:
    """The media URL the pages show a stored file at (None: no file)."""
    if not file:
        return None
    request = context.get("request")
    return request.build_absolute_uri(file.url) if request is not None else file.url
