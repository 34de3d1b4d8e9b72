"""Sanitize a table's markup: keep structure, text and math; drop scripts, events, external loads."""

from __future__ import annotations

import copy

import lxml.html

_ALLOWED_TAGS = frozenset(
    {
        "table", "thead", "tbody", "tfoot", "tr", "td", "th", "colgroup", "col", "caption",
        "span", "div", "p", "br", "b", "i", "em", "strong", "sub", "sup", "small", "u", "s",
        "cite", "code", "tt", "ul", "ol", "li",
        # MathML presentation markup: Chromium renders it natively.
        "math", "semantics", "mrow", "mi", "mn", "mo", "ms", "mtext", "mspace", "msub", "msup",
        "msubsup", "mfrac", "msqrt", "mroot", "mover", "munder", "munderover", "mtable", "mtr",
        "mtd", "mstyle", "mpadded", "mphantom", "menclose", "merror", "mmultiscripts",
        "mprescripts", "none",
    }
)  # fmt: skip
# Dropped with their content; anything else unknown is unwrapped (its text kept).
_DROP_TAGS = frozenset(
    {
        "script", "style", "iframe", "object", "embed", "img", "picture", "source", "video",
        "audio", "link", "meta", "base", "form", "input", "button", "select", "textarea", "svg",
        "canvas", "annotation", "annotation-xml", "template", "noscript", "frame", "frameset",
    }
)  # fmt: skip
_ALLOWED_ATTRS = frozenset(
    {
        "class", "rowspan", "colspan", "alttext", "display", "mathvariant", "stretchy", "fence",
        "separator", "lspace", "rspace", "columnalign", "displaystyle", "scriptlevel", "width",
        "height", "align", "valign",
    }
)  # fmt: skip


def sanitize_fragment(node: lxml.html.HtmlElement) -> str:
    """Return safe HTML for `node` (not modified): allowed tags and attributes only."""
    root = copy.deepcopy(node)
    root.tail = None
    _clean(root)
    return lxml.html.tostring(root, encoding="unicode", with_tail=False)


def _clean(el: lxml.html.HtmlElement) -> None:
    for name in list(el.attrib):
        lowered = name.lower()
        if lowered not in _ALLOWED_ATTRS:
            del el.attrib[name]
        elif lowered in ("width", "height") and not el.attrib[name].replace(".", "").isdigit():
            del el.attrib[name]
    for child in list(el):
        tag = child.tag
        if not isinstance(tag, str):
            child.drop_tree() if hasattr(child, "drop_tree") else el.remove(child)
            continue
        tag = tag.lower()
        if tag in _DROP_TAGS:
            if tag == "img":
                _replace_with_text(child, "[image]")
            else:
                child.drop_tree()
            continue
        _clean(child)
        if tag not in _ALLOWED_TAGS:
            child.drop_tag()


def _replace_with_text(child: lxml.html.HtmlElement, text: str) -> None:
    span = lxml.html.Element("span", {"class": "ltx_image_placeholder"})
    span.text = text
    span.tail = child.tail
    child.getparent().replace(child, span)
