"""What a float is, read from its markup: its own caption and tag (kind and number), its
anchor, and, for a numbered float that is not kept, what it holds instead or what hid it, said
as a person reading the warning needs it."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from papers.parsing import numbering
from papers.parsing.nodes import (
    HEADING_TAGS,
    SKIP_CLASSES,
    El,
    class_names,
    is_text_box,
    owning_float,
    text_of,
)
from papers.parsing.text import collapse


@dataclass(frozen=True, slots=True)
class Caption:
    element: El | None  # the figcaption
    kind: str | None  # "table", "chart"; None without a tag or for an Algorithm/Listing tag
    tag: str  # the tag's text as printed ("TABLE II: "); "" without a tag
    number: numbering.FloatNumber | None  # None: unnumbered, a panel's tag, or unreadable
    span: El | None = None  # the tag's span, when the tag is a table's or a figure's


def own_caption(node: El) -> Caption:
    """The float's own caption (not a sub-figure's), with its tag read."""
    for caption in _own_figcaptions(node):
        for span in caption.iter("span"):
            classes = class_names(span)
            if "ltx_tag_table" in classes:
                kind = "table"
            elif "ltx_tag_figure" in classes:
                kind = "chart"
            elif "ltx_tag" in classes:
                return Caption(caption, None, text_of(span), None)  # Algorithm, Listing, ...
            else:
                continue
            tag = text_of(span)
            return Caption(caption, kind, tag, numbering.read_tag(tag, kind), span)
        return Caption(caption, None, "", None)
    return Caption(None, None, "", None)


def _own_figcaptions(node: El) -> Iterator[El]:
    """The figcaptions of `node` itself: its children, else wrapped ones no inner float owns."""
    direct = [c for c in node if c.tag == "figcaption"]
    if direct:
        yield from direct
        return
    for caption in node.iter("figcaption"):
        if owning_float(caption, node) is None:
            yield caption


_FLOAT_WRAPPERS = frozenset({"ltx_table", "ltx_figure", "ltx_float", "ltx_transformed_outer"})


def float_anchor(node: El) -> str:
    """A float's id; a rotated float (sidewaystable) has its id on the wrapper around it:
    div.ltx_table.ltx_transformed_outer > div.ltx_transformed_inner > figure."""
    anchor = node.get("id")
    if anchor:
        return anchor
    parent = node.getparent()
    while parent is not None and parent.tag == "div":
        classes = class_names(parent)
        if parent.get("id") and any(c in _FLOAT_WRAPPERS for c in classes):
            return parent.get("id") or ""
        if not any(c.startswith("ltx_transformed") for c in classes):
            return ""
        parent = parent.getparent()
    return ""


def float_class(node: El) -> str:
    classes = " ".join(class_names(node))
    if "algorithm" in classes:
        return "an algorithm"
    if "listing" in classes:
        return "a listing"
    return "a float of another kind"


_CHROME_CLASSES = frozenset({"ltx_TOC", "ltx_page_navbar", "ltx_page_footer", "ltx_toclist"})


def in_chrome(el: El, stop: El) -> bool:
    """Inside a table of contents, a list of tables or figures, page chrome, or a link."""
    parent = el.getparent()
    while parent is not None and parent is not stop:
        if parent.tag in ("nav", "footer", "a") or any(
            c in _CHROME_CLASSES for c in class_names(parent)
        ):
            return True
        parent = parent.getparent()
    return False


def unreached(el: El, stop: El) -> str:
    """Why the walk never reached a caption tag: the container that hid it."""
    parent = el.getparent()
    while parent is not None and parent is not stop:
        classes = class_names(parent)
        if "ltx_bibliography" in classes:
            return "inside the bibliography, which holds no elements"
        if "ltx_note" in classes:
            return "inside a footnote or note, which holds no elements"
        if parent.tag in HEADING_TAGS:
            return "inside a heading"
        if parent.tag == "table" and any("ltx_equation" in c for c in classes):
            return "inside an equation"
        skipped = next((c for c in classes if c in SKIP_CLASSES), None)
        if skipped:
            return f"inside {skipped}, which holds no elements"
        parent = parent.getparent()
    return "its caption tag sits outside any table or figure float"


def found_instead(node: El, kind: str) -> str:
    """Why a numbered float with no panel (and, for a table, no cells) was not kept: what it
    holds instead, as a person reading the warning needs it."""
    what = "a chart" if kind == "chart" else "a table"
    boxes = listing = False
    for el in _outside_captions(node):
        tag = el.tag
        if tag in ("object", "embed"):
            mime = (el.get("type") or "").strip()[:60] or "no type given"
            source = (el.get("data") or el.get("src") or "").strip()
            name = source.rsplit("/", 1)[-1][:80] or "no file named"
            return f"its graphic is an <{tag}> ({mime}, {name}), which the parser does not keep"
        if tag == "svg" and is_text_box(el):
            boxes = True
        elif any(c in ("ltx_listing", "ltx_lstlisting") for c in class_names(el)):
            listing = True
    if boxes:
        return f"a text box, not {what}"
    if listing:
        return f"a listing, not {what}"
    if collapse(" ".join(text_of(c) for c in node if c.tag != "figcaption")):
        if kind == "table":
            return "a table with neither cells nor an image (text or markup)"
        return "a figure without images (text or markup) is not a chart"
    if kind == "table":
        return "a table with neither cells nor an image"
    return "a figure with nothing in it (no image, drawing, box or text)"


def _outside_captions(node: El) -> Iterator[El]:
    """The elements below `node`, in document order, but for its figcaptions and what they
    hold (comments and processing instructions left out)."""
    stack = [c for c in reversed(node) if isinstance(c.tag, str)]
    while stack:
        el = stack.pop()
        if el.tag == "figcaption":
            continue
        yield el
        stack.extend(c for c in reversed(el) if isinstance(c.tag, str))


def caption_text(caption: El | None) -> str:
    return text_of(caption, skip_tags=True) if caption is not None else ""
