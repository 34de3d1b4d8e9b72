"""`{% assistant_on as on %}`: whether a model in the loop is set, for the pages of lower apps
(writing, validation, statistics) that offer its check and ideas without importing it."""

from __future__ import annotations

from django import template

from evaluation.assist import services

register = template.Library()


@register.simple_tag
def assistant_on() -> bool:
    return services.current() is not None
