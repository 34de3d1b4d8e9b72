"""Sanitize a table's markup: keep structure, text and math; drop scripts, events, external loads."""

from __future__ import annotations

import copy

import lxml.etree

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


def sanitize_fragment(node: lxml.etree._Element, *, in_place: bool = False) -> str:
    """Return safe HTML for `node`: allowed tags and attributes only.

    `node` is left as it was unless `in_place` is set, for a caller done with the tree (the
    parser, once its walk is over), which saves a copy of every table.
    """
    root = node if in_place else copy.deepcopy(node)
    # One pass notes what to change; the tree is changed after it (never while iterating).
    images: list[lxml.etree._Element] = []
    dropped = False
    unknown: set[str] = set()
    for el in root.iter():
        tag = el.tag
        if tag.__class__ is not str:
            dropped = True  # a comment or processing instruction
            continue
        if tag not in _ALLOWED_TAGS:
            if tag == "img":
                images.append(el)
                continue
            if tag in _DROP_TAGS:
                dropped = True
                continue
            unknown.add(tag)
        # The HTML parser lowercases tag and attribute names, so exact lookups suffice.
        for name in el.keys():
            if name not in _ALLOWED_ATTRS or (
                name in ("width", "height") and not el.get(name).replace(".", "").isdigit()
            ):
                del el.attrib[name]
    for img in images:
        parent = img.getparent()
        if parent is None:
            continue
        placeholder = lxml.etree.Element("span", {"class": "ltx_image_placeholder"})
        placeholder.text = "[image]"
        placeholder.tail = img.tail
        parent.replace(img, placeholder)
    if dropped:
        lxml.etree.strip_elements(
            root, lxml.etree.Comment, lxml.etree.ProcessingInstruction, *_DROP_TAGS, with_tail=False
        )
    if unknown:
        unknown.discard(root.tag)
        lxml.etree.strip_tags(root, *unknown)
    if not isinstance(root.tag, str) or root.tag.lower() not in _ALLOWED_TAGS:
        root.tag = "div"
    return lxml.etree.tostring(root, method="html", encoding="unicode", with_tail=False)
