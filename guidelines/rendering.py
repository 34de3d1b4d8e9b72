"""Guideline text as HTML: Markdown (markdown-it-py, CommonMark with tables and strikethrough)
sanitised by nh3, with math left as written (`$…$`, `\\(…\\)`) for the page's KaTeX
(static/js/math.js renders what a `data-math` element holds)."""

from __future__ import annotations

import html
import re

import nh3
from django.utils.safestring import SafeString, mark_safe
from markdown_it import MarkdownIt

# Markdown would read a formula's `_`, `*` and `\(` as its own: each formula is set aside
# before parsing and put back, as text, after.
MATH = re.compile(r"\$[^$\n]+\$|\\\(.+?\\\)", re.DOTALL)
HOLD = "sciverMathHold{}End"
HELD = re.compile(r"sciverMathHold(\d+)End")

TAGS = {
    "p", "br", "hr", "em", "strong", "del", "code", "pre", "blockquote", "ul", "ol", "li", "a",
    "h3", "h4", "h5", "h6", "table", "thead", "tbody", "tr", "th", "td",
}  # fmt: skip
ATTRIBUTES = {"a": {"href", "title"}, "ol": {"start"}, "th": {"align"}, "td": {"align"}}

# Raw HTML in the text is shown as text (html off); nh3 removes whatever else should not be
# there (scripts, event handlers, javascript: links) should a rule of the parser let it by.
_markdown = MarkdownIt("commonmark", {"html": False, "linkify": False}).enable(
    ["table", "strikethrough"]
)


def render_markdown(text: str) -> SafeString:
    """A guideline section's body as sanitised HTML, its math kept as text for KaTeX."""
    formulas: list[str] = []

    def hold(match: re.Match[str]) -> str:
        formulas.append(match.group(0))
        return HOLD.format(len(formulas) - 1)

    rendered = _markdown.render(MATH.sub(hold, text or ""))
    rendered = HELD.sub(lambda m: html.escape(formulas[int(m.group(1))], quote=False), rendered)
    clean = nh3.clean(
        rendered, tags=TAGS, attributes=ATTRIBUTES, url_schemes={"http", "https", "mailto"}
    )
    return mark_safe(clean)  # noqa: S308 - sanitised by nh3 just above
