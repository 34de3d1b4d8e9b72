"""Lists come a page at a time with an opaque cursor (`next`, `previous`): a page stays right
while rows are added, which offsets do not. `page_size` takes up to MAX_PAGE_SIZE."""

from __future__ import annotations

from rest_framework.pagination import CursorPagination

MAX_PAGE_SIZE = 200


class Cursor(CursorPagination):
    page_size = 50
    page_size_query_param = "page_size"
    max_page_size = MAX_PAGE_SIZE
    ordering = "-id"


class Ascending(Cursor):
    ordering = "id"
