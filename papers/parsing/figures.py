"""A float's panels: its images and vector files (`<img>`, `<object>`, `<embed>`) with their
URLs resolved the way arXiv and LaTeXML write them, its inline SVG drawings, and each panel's
sub-caption and row."""

from __future__ import annotations

import re
from collections.abc import Iterator
from urllib.parse import urljoin, urlsplit

import lxml.etree

from papers.parsing.document import Panel, ParseError
from papers.parsing.floats import float_anchor
from papers.parsing.nodes import El, ancestor, inside, is_text_box, text_of

# A relative path of plain segments (no scheme, query, fragment, dot segment or leading slash):
# joined to a base ending in "/", it is the base followed by it (urljoin's own answer).
_PLAIN_SRC = re.compile(r"(?:[A-Za-z0-9_\-][A-Za-z0-9_\-.]*/)*[A-Za-z0-9_\-][A-Za-z0-9_\-.]*")


def resolve_asset(base_url: str, src: str, *, has_base: bool) -> str:
    """An image's URL. Without <base>, arXiv writes `<id>vN/x1.png` (relative to /html/) and
    LaTeXML writes `x1.png` (relative to the paper's folder): the page URL `/html/<id>vN`
    serves both, so a src that does not start with the page's own name resolves in that folder.
    """
    if not base_url:
        return src
    if has_base or base_url.endswith("/"):
        return _join(base_url, src)
    name = base_url.rstrip("/").rsplit("/", 1)[-1]
    if src.split("/", 1)[0] == name or "://" in src or src.startswith(("/", "data:")):
        return _join(base_url, src)
    return _join(base_url + "/", src)


def _join(base_url: str, src: str) -> str:
    """urljoin's answer; for a plain relative path after a base ending in "/" (most images of
    a page), without asking urljoin (a tenth of the time)."""
    if base_url.endswith("/") and "?" not in base_url and "#" not in base_url:
        if _PLAIN_SRC.fullmatch(src):
            return base_url + src
    return urljoin(base_url, src)


def float_panels(node: El, base_url: str, has_base: bool) -> Iterator[Panel]:
    """The panels of a table's or figure's float: its images and vector files (each with
    its URL resolved against the page), and its inline SVG drawings; their row in the float."""
    row = 0
    grid_rows: dict[El, int] = {}  # keeps each row proxy alive: the key is stable
    for el in node.iter():
        tag = el.tag
        if not isinstance(tag, str):
            continue
        classes = el.get("class") or ""
        if "ltx_flex_break" in classes:
            row += 1
            continue
        if tag not in ("img", "svg", "object", "embed"):
            continue
        if inside(el, node, "figcaption"):
            continue
        if tag in ("object", "embed") and inside(el, node, "object"):
            continue  # an <object>'s fallback content: the object is the panel
        tr = ancestor(el, node, "tr")
        panel_row = row
        if tr is not None:
            panel_row = grid_rows.setdefault(tr, len(grid_rows))
        if tag in ("img", "object", "embed"):
            # A vector graphic (arXiv's 2026 pages: <object type="image/svg+xml"
            # data="x1.svg">) is a panel like an image: its file is fetched, made inert
            # (papers.parsing.svg) and rasterised.
            src = (el.get("data") if tag == "object" else el.get("src")) or ""
            src = src.strip()
            if not src:
                continue
            try:
                # urljoin parses the src (and refuses it) unless there is no base to join.
                url = resolve_asset(base_url, src, has_base=has_base)
                if not base_url:
                    urlsplit(src)
            except ValueError as exc:
                where = float_anchor(node) or "a float without an id"
                raise ParseError(
                    f"an image of {where} has a src that is not a usable URL ({src[:200]!r}: {exc})"
                ) from None
            yield Panel(src=src, url=url, caption=panel_caption(el, node), row=panel_row)
        elif not inside(el, node, "svg") and not is_text_box(el):
            yield Panel(
                src="",
                url="",
                caption=panel_caption(el, node),
                row=panel_row,
                svg=lxml.etree.tostring(el, method="html", encoding="unicode", with_tail=False),
            )


def panel_caption(el: El, float_node: El) -> str:
    """Caption of the sub-figure (panel) holding `el`, e.g. "(a) Accuracy"."""
    parent = el.getparent()
    while parent is not None and parent is not float_node:
        if parent.tag == "figure":
            for child in parent:
                if child.tag == "figcaption":
                    return text_of(child)
            return ""
        parent = parent.getparent()
    return ""
