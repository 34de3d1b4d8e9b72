"""Opaque identifiers for work items, claims and pairs: what URLs and pages name them by (and
the bounded row ids of the other routes).

Sequential ids told a blind second annotator which claim of a pair they held (a pair's claims
and items were created entailed first, so `id-1` and `id+1` answered differently). A key is 16
random bytes (22 URL-safe characters); nothing about a claim can be read off it."""

from __future__ import annotations

import secrets

from django.db import models
from django.urls import register_converter

KEY_LENGTH = 22
KEY_PATTERN = r"[A-Za-z0-9_-]{22}"


def new_key() -> str:
    return secrets.token_urlsafe(16)


def key_field() -> models.CharField:
    """The `key` of a work item, claim or pair."""
    return models.CharField(
        max_length=KEY_LENGTH,
        unique=True,
        default=new_key,
        editable=False,
        help_text="Opaque identifier used in URLs and pages",
    )


class KeyConverter:
    """`<key:item_key>` in a route: the key as it is; reversing accepts the key or an object
    that has one."""

    regex = KEY_PATTERN

    def to_python(self, value: str) -> str:
        return value

    def to_url(self, value: object) -> str:
        return str(getattr(value, "key", value))


class IdConverter:
    """`<id:…>` in a route: a row id of at most 18 digits (anything longer names no row, and
    SQLite cannot even compare it with a column: Django guards a primary key's lookup against
    that, not a foreign key's, e.g. an element of an item's context)."""

    regex = "[0-9]{1,18}"

    def to_python(self, value: str) -> int:
        return int(value)

    def to_url(self, value: object) -> str:
        return str(value)


class ArxivIdConverter:
    """`<arxiv:…>` in a route: an arXiv identifier as the papers' URLs spell it ("2409.13817",
    "synthetic-00001"; the version follows as `v<id:version>`). Nothing else reaches a view: a
    NUL character would reach PostgreSQL, which refuses it in a query."""

    regex = "[A-Za-z0-9._-]+"

    def to_python(self, value: str) -> str:
        return value

    def to_url(self, value: object) -> str:
        return str(value)


register_converter(KeyConverter, "key")
register_converter(IdConverter, "id")
register_converter(ArxivIdConverter, "arxiv")
