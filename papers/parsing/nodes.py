"""The LaTeXML tree as the walk reads it: node classes, the tags and containers that hold no
context, where a node sits (inside a caption, a note, another float), and a node's visible
text, its math written as `$alttext$`."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TypeAlias

import lxml.etree

from papers.parsing.text import collapse

# Plain lxml.etree elements: lxml.html's element classes cost a lookup per node touched.
El: TypeAlias = lxml.etree._Element

# Containers inside the article that hold no context (metadata, page chrome, browser debris).
SKIP_CLASSES = frozenset(
    {
        "ltx_authors",
        "ltx_dates",
        "ltx_keywords",
        "ltx_classification",
        "ltx_title_document",
        "ltx_TOC",
        "ltx_page_navbar",
        "ltx_page_footer",
        "package-alerts",
        "ltx_note",
        "ltx_pagination",
    }
)
SKIP_TAGS = frozenset({"nav", "footer", "header", "button", "script", "style", "noscript"})
HEADING_TAGS = frozenset({"h1", "h2", "h3", "h4", "h5", "h6"})
_BLOCK_TAGS = frozenset(
    {"p", "div", "li", "ul", "ol", "table", "tr", "figure", "figcaption", "section", "dd", "dt"}
)


def class_names(el: El) -> list[str]:
    value = el.get("class")
    return value.split() if value else []


def text_of(el: El, *, skip_tags: bool = False, skip_floats: bool = False) -> str:
    """Visible text of a node: math as $alttext$, notes and buttons out, whitespace collapsed
    (and, when asked, the floats it holds out: they are elements of their own)."""
    if len(el) == 0:
        return collapse(el.text or "")
    parts: list[str] = []
    _collect_text(el, parts, skip_tags, _FLOAT_TEXTLESS_TAGS if skip_floats else _TEXTLESS_TAGS)
    return collapse("".join(parts))


_TEXTLESS_TAGS = SKIP_TAGS | {"annotation", "annotation-xml", "img"}
_FLOAT_TEXTLESS_TAGS = _TEXTLESS_TAGS | {"figure"}
_SPACED_TAGS = _BLOCK_TAGS | {"td", "th", "br"}


def _collect_box_text(svg: El, parts: list[str], skip_tags: bool, textless: frozenset[str]) -> None:
    """A drawn picture's text: what its foreignObjects hold (a tcolorbox's paragraphs, with or
    without oxide's ltx_foreignobject_container/_content spans); its paths and shapes, none."""
    stack = [iter(svg)]
    while stack:
        node = next(stack[-1], None)
        if node is None:
            stack.pop()
        elif node.tag == "foreignobject":
            parts.append(" ")
            _collect_text(node, parts, skip_tags, textless)
            parts.append(" ")
        elif node.tag.__class__ is str:
            stack.append(iter(node))


def _collect_text(el: El, parts: list[str], skip_tags: bool, textless: frozenset[str]) -> None:
    text = el.text
    if text:
        parts.append(text)
    for child in el:
        tag = child.tag
        if tag == "math":
            alt = child.get("alttext")
            if alt is None:
                alt = collapse("".join(child.itertext()))
            parts.append(f"${alt.strip()}$")
        elif tag == "svg":
            _collect_box_text(child, parts, skip_tags, textless)
        elif tag.__class__ is not str or tag in textless:
            pass  # comments, images, page chrome
        else:
            classes = child.get("class")
            if classes and (
                ("ltx_note" in classes and ("ltx_role_" in classes or "ltx_note_outer" in classes))
                or (skip_tags and "ltx_tag" in classes.split())
            ):
                pass  # footnotes out; caption tags ("Table 1:") out when asked
            elif tag in _SPACED_TAGS:
                parts.append(" ")
                _collect_text(child, parts, skip_tags, textless)
                parts.append(" ")
            else:
                _collect_text(child, parts, skip_tags, textless)
        tail = child.tail
        if tail:
            parts.append(tail)


def is_text_box(svg: El) -> bool:
    """A box drawn around text (tcolorbox, a framed prompt), not a drawing: its words sit in
    one to three foreignObjects, in paragraphs or in runs of eight words or more (a plot's or a
    diagram's labels are short, and usually many)."""
    objects = [fo for fo in svg.iter("foreignobject") if not inside(fo, svg, "foreignobject")]
    if not objects or len(objects) > 3:
        return False
    for fo in objects:
        if len(text_of(fo).split()) >= 8:
            return True
        for el in fo.iter("p", "div"):
            if any(c in ("ltx_p", "ltx_para") for c in class_names(el)):
                return True
    return False


def child_floats(node: El) -> Iterator[El]:
    """Figures nested in `node`, not counting those nested inside another of them."""
    for child in node:
        if not isinstance(child.tag, str):
            continue
        if child.tag == "figure":
            yield child
        else:
            yield from child_floats(child)


def inside(el: El, stop: El, tag: str) -> bool:
    parent = el.getparent()
    while parent is not None and parent is not stop:
        if parent.tag == tag:
            return True
        parent = parent.getparent()
    return False


def ancestor(el: El, stop: El, tag: str) -> El | None:
    parent = el.getparent()
    while parent is not None and parent is not stop:
        if parent.tag == tag:
            return parent
        parent = parent.getparent()
    return None


def inside_note(el: El, stop: El) -> bool:
    parent = el.getparent()
    while parent is not None and parent is not stop:
        if "ltx_note" in (parent.get("class") or ""):
            return True
        parent = parent.getparent()
    return False


def owning_float(el: El, stop: El) -> El | None:
    """The nearest figure (or div.ltx_float) above `el`, below `stop`."""
    parent = el.getparent()
    while parent is not None and parent is not stop:
        if parent.tag == "figure" or (parent.tag == "div" and "ltx_float" in class_names(parent)):
            return parent
        parent = parent.getparent()
    return None
