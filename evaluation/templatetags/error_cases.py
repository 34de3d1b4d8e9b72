"""`{% error_cases user as counts %}`: the error cases a person tags (the workspace's link)."""

from __future__ import annotations

from django import template
from django.db.models import Count, Q

from evaluation.errors.models import ErrorTag

register = template.Library()


@register.simple_tag
def error_cases(user) -> dict[str, int]:
    """{"all": cases assigned, "open": not yet tagged}; zeros for anyone else."""
    if not getattr(user, "is_authenticated", False):
        return {"all": 0, "open": 0}
    return ErrorTag.objects.filter(tagger=user).aggregate(
        all=Count("id"), open=Count("id", filter=Q(submitted_at__isnull=True))
    )
