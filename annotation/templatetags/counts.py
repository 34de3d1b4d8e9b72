"""The workspace's counts of work an expert may take."""

from __future__ import annotations

from django import template

from annotation.queue import work

register = template.Library()


@register.filter
def upto(count: object) -> str:
    """A count as the workspace counts it: exact up to the cap (`annotation.queue.work.AVAILABLE_CAP`),
    then "100+"."""
    if isinstance(count, int) and count > work.AVAILABLE_CAP:
        return f"{work.AVAILABLE_CAP}+"
    return str(count)
