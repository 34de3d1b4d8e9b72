"""`{{ body|guideline_markdown }}`: a guideline's Markdown as sanitised HTML (guidelines/rendering.py)."""

from __future__ import annotations

from django import template
from django.utils.safestring import SafeString

from guidelines.rendering import render_markdown

register = template.Library()


@register.filter
def guideline_markdown(text: str) -> SafeString:
    return render_markdown(text)
