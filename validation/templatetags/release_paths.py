"""Where a release is written, as pages name it: relative to RELEASE_DIR (the server's own
absolute folder is no one's business on a page), else the folder's or file's own name."""

from __future__ import annotations

from pathlib import Path

from django import template
from django.conf import settings

register = template.Library()


@register.filter
def release_path(path: object) -> str:
    """`path` relative to RELEASE_DIR ("v1", "v1.test-labels.jsonl"), or its last part when
    it lies elsewhere; "" for none."""
    if not path:
        return ""
    where = Path(str(path))
    try:
        return where.resolve().relative_to(Path(settings.RELEASE_DIR).resolve()).as_posix()
    except ValueError:
        return where.name
