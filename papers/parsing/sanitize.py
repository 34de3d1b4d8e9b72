"""Sanitize a table's markup: keep structure, text and math; drop scripts, events, external loads."""

from __future__ import annotations

import copy

import lxml.etree

from papers.parsing.text import strip_control

_ALLOWED_TAGS = frozenset(
    {
        "table",
        "thead",
        "tbody",
        "tfoot",
        "tr",
        "td",
        "th",
        "colgroup",
        "col",
        "caption",
        "span",
        "div",
        "p",
        "br",
        "b",
        "i",
        "em",
        "strong",
        "sub",
        "sup",
        "small",
        "u",
        "s",
        "cite",
        "code",
        "tt",
        "ul",
        "ol",
        "li",
        # MathML presentation markup: Chromium renders it natively.
        "math",
        "semantics",
        "mrow",
        "mi",
        "mn",
        "mo",
        "ms",
        "mtext",
        "mspace",
        "msub",
        "msup",
        "msubsup",
        "mfrac",
        "msqrt",
        "mroot",
        "mover",
        "munder",
        "munderover",
        "mtable",
        "mtr",
        "mtd",
        "mstyle",
        "mpadded",
        "mphantom",
        "menclose",
        "merror",
        "mmultiscripts",
        "mprescripts",
        "none",
    }
)
# Dropped with their content; anything else unknown is unwrapped (its text kept).
_DROP_TAGS = frozenset(
    {
        "script",
        "style",
        "iframe",
        "object",
        "embed",
        "img",
        "picture",
        "source",
        "video",
        "audio",
        "link",
        "meta",
        "base",
        "form",
        "input",
        "button",
        "select",
        "textarea",
        "svg",
        "canvas",
        "annotation",
        "annotation-xml",
        "template",
        "noscript",
        "frame",
        "frameset",
    }
)
_ALLOWED_ATTRS = frozenset(
    {
        "class",
        "rowspan",
        "colspan",
        "alttext",
        "display",
        "mathvariant",
        "stretchy",
        "fence",
        "separator",
        "lspace",
        "rspace",
        "columnalign",
        "displaystyle",
        "scriptlevel",
        "width",
        "height",
        "align",
        "valign",
    }
)


_UNWRAP = "sciver-unwrap"
_SIZES = frozenset({"width", "height"})


def _refused(el: lxml.etree._Element, name: str) -> bool:
    if name not in _ALLOWED_ATTRS:
        return True
    return name in ("width", "height") and not (el.get(name) or "").replace(".", "").isdigit()


def _keep_allowed(el: lxml.etree._Element) -> None:
    # Cleared and set again rather than deleted by name: lxml refuses to look up some names
    # a page may hold, and checks what is set (not what it read) for control characters.
    kept = [(n, v) for n, v in el.items() if not _refused(el, n)]
    el.attrib.clear()
    for name, value in kept:
        el.set(name, strip_control(value))


def sanitize_fragment(node: lxml.etree._Element, *, in_place: bool = False) -> str:
    """Return safe HTML for `node`: allowed tags and attributes only.

    `node` is left as it was unless `in_place` is set, for a caller done with the tree (the
    parser, once its walk is over), which saves a copy of every table.
    """
    root = node if in_place else copy.deepcopy(node)
    # One pass renames unknown tags and drops attributes (neither changes the structure it
    # walks); images, dropped and unknown elements are dealt with after it.
    images: list[lxml.etree._Element] = []
    dropped = False
    unknown = False
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
            if el is not root:
                # Renamed, and unwrapped below by our own name: lxml refuses to look up some
                # names a page may hold (U+FFFE, say).
                el.tag = _UNWRAP
                unknown = True
        # The HTML parser lowercases tag and attribute names, so exact lookups suffice.
        for name in el.keys():
            if name not in _ALLOWED_ATTRS or (name in _SIZES and _refused(el, name)):
                _keep_allowed(el)
                break
    for img in images:
        # The image becomes its placeholder in place: its tail (the text after it) is never
        # set again, so no character lxml would refuse to set is met (`&#1;` after an image).
        img.tag = "span"
        img.attrib.clear()
        img.set("class", "ltx_image_placeholder")
        img.text = "[image]"
    if dropped:
        lxml.etree.strip_elements(
            root, lxml.etree.Comment, lxml.etree.ProcessingInstruction, *_DROP_TAGS, with_tail=False
        )
    if unknown:
        lxml.etree.strip_tags(root, _UNWRAP)
    if not isinstance(root.tag, str) or root.tag.lower() not in _ALLOWED_TAGS:
        root.tag = "div"
    return lxml.etree.tostring(root, method="html", encoding="unicode", with_tail=False)
