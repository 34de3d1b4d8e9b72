"""Vector graphics made inert before anything draws them.

A chart's SVG comes from a page's `<object>`, `<embed>` or `<img src="….svg">` (arXiv's 2026
pages, LaTeXML oxide) and is drawn by Chromium into the chart's PNG. Before that it is parsed
without entities, DTDs or network, and rebuilt from what may draw: no script, no event handler,
no `foreignObject` (HTML inside, a meta refresh), no animation (it can rewrite a link), no link
or reference outside the file (images, fonts, styles, `url(…)`), and a budget on elements, path
nodes and canvas pixels, because drawing cost is not byte size. What is removed is counted, for
the paper's parse report; what is over budget is refused with the reason.
"""

from __future__ import annotations

import base64
import re
from collections import Counter
from dataclasses import dataclass, field

import lxml.etree

SVG_NS = "http://www.w3.org/2000/svg"
XLINK_NS = "http://www.w3.org/1999/xlink"

MAX_ELEMENTS = 50_000
MAX_PATH_NODES = 500_000
MAX_CANVAS_PIXELS = 40_000_000  # about 6,300 × 6,300

# What a chart is drawn with; anything else is dropped with its content.
DRAWING = frozenset(
    """svg g defs symbol use path rect circle ellipse line polyline polygon text tspan textPath
    title desc clipPath mask marker pattern linearGradient radialGradient stop style image
    filter feGaussianBlur feOffset feBlend feColorMatrix feFlood feComposite feMerge feMergeNode
    feMorphology switch view""".split()
)
# Dropped, but their children kept (a link around a drawing).
UNWRAPPED = frozenset({"a"})
# Dropped without a word: what every plotting library writes and nothing draws.
SILENT = frozenset({"metadata"})
_URL = re.compile(r"url\(\s*['\"]?\s*([^)'\"\s]*)", re.IGNORECASE)
_PATH_COMMANDS = re.compile(r"[MmLlHhVvCcSsQqTtAaZz]")
_NUMBER = re.compile(r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?")
_LENGTH = re.compile(
    r"\s*([-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)\s*(px|pt|pc|in|cm|mm|em|ex)?\s*$"
)
_UNIT_PX = {None: 1.0, "px": 1.0, "pt": 4 / 3, "pc": 16.0, "in": 96.0, "cm": 96 / 2.54}
_UNIT_PX |= {"mm": 96 / 25.4, "em": 16.0, "ex": 8.0}
_RASTER_DATA = re.compile(r"^data:image/(png|jpeg|gif|webp);base64,", re.IGNORECASE)


class SvgRefused(ValueError):
    """The SVG cannot be drawn safely or within budget; the message says why."""


@dataclass
class InertSvg:
    text: str  # the rebuilt SVG markup, safe to draw
    width: float | None  # its canvas in CSS px, when it says
    height: float | None
    removed: Counter[str] = field(default_factory=Counter)  # what was taken out, by kind

    def report(self) -> str:
        """ "removed 1 script, 2 event handlers" or ""."""
        if not self.removed:
            return ""
        return "removed " + ", ".join(f"{n} {kind}" for kind, n in sorted(self.removed.items()))


def _local(tag: object) -> str:
    return lxml.etree.QName(tag).localname if isinstance(tag, str) else ""


def _length(value: str | None) -> float | None:
    if not value:
        return None
    match = _LENGTH.match(value)
    if not match:
        return None  # a percentage, or nothing readable: no size of its own
    return float(match.group(1)) * _UNIT_PX[match.group(2)]


def _canvas(root: lxml.etree._Element) -> tuple[float | None, float | None]:
    width, height = _length(root.get("width")), _length(root.get("height"))
    box = _NUMBER.findall(root.get("viewBox") or "")
    if (width is None or height is None) and len(box) == 4:
        width = width if width is not None else abs(float(box[2]))
        height = height if height is not None else abs(float(box[3]))
    return width, height


def _external(value: str) -> bool:
    """Whether an attribute value points outside the file (anything but `#id` and a raster
    image inlined as a data: URL)."""
    value = value.strip()
    return not (value.startswith("#") or _RASTER_DATA.match(value))


def inert_svg(
    data: bytes,
    *,
    max_elements: int = MAX_ELEMENTS,
    max_path_nodes: int = MAX_PATH_NODES,
    max_pixels: int = MAX_CANVAS_PIXELS,
) -> InertSvg:
    """The SVG in `data`, rebuilt to draw nothing but itself; SvgRefused when it cannot be
    read without entities, is not SVG, or is over a budget."""
    head = data[:4096].lower()
    if b"<!entity" in head or b"<!entity" in data.lower():
        raise SvgRefused("the SVG declares entities (an entity expansion is refused, not run)")
    parser = lxml.etree.XMLParser(
        resolve_entities=False,
        no_network=True,
        load_dtd=False,
        dtd_validation=False,
        huge_tree=False,
        remove_comments=True,
        remove_pis=True,
        recover=False,
    )
    try:
        root = lxml.etree.fromstring(data, parser=parser)
    except lxml.etree.XMLSyntaxError as exc:
        raise SvgRefused(f"the SVG is not well-formed XML: {exc}") from None
    if _local(root.tag) != "svg":
        raise SvgRefused(f"the file is not SVG (its root is <{_local(root.tag) or '?'}>)")
    elements = sum(1 for _ in root.iter())
    if elements > max_elements:
        raise SvgRefused(f"the SVG has {elements:,} elements, more than the {max_elements:,} drawn")
    nodes = 0
    for el in root.iter():
        if not isinstance(el.tag, str):
            continue
        nodes += len(_PATH_COMMANDS.findall(el.get("d") or ""))
        nodes += len(_NUMBER.findall(el.get("points") or "")) // 2
        if nodes > max_path_nodes:
            raise SvgRefused(f"the SVG has over {max_path_nodes:,} path nodes: too costly to draw")
    width, height = _canvas(root)
    if width is not None and height is not None and width * height > max_pixels:
        raise SvgRefused(
            f"the SVG's canvas is {width:,.0f} × {height:,.0f} px, more than the "
            f"{max_pixels:,} pixels drawn"
        )
    removed: Counter[str] = Counter()
    _clean(root, removed)
    text = lxml.etree.tostring(root, encoding="unicode")
    return InertSvg(text=text, width=width, height=height, removed=removed)


def _clean(root: lxml.etree._Element, removed: Counter[str]) -> None:
    for el in list(root.iter()):
        if not _attached(el, root):
            continue  # dropped with an ancestor
        if not isinstance(el.tag, str):
            _drop(el)
            continue
        name = _local(el.tag)
        namespace = lxml.etree.QName(el.tag).namespace
        if name in UNWRAPPED and namespace == SVG_NS:
            removed["links"] += 1
            _unwrap(el)
            continue
        if namespace != SVG_NS or name not in DRAWING:
            if not (namespace == SVG_NS and name in SILENT):
                removed[_kind(name)] += 1
            _drop(el)
            continue
        if name == "style":
            css = el.text or ""
            if "@import" in css.lower() or any(_external(u) for u in _URL.findall(css)):
                removed["style sheets with outside references"] += 1
                _drop(el)
            continue
        for attribute in list(el.attrib):
            local = _local(attribute)
            value = el.get(attribute) or ""
            if local.lower().startswith("on"):
                removed["event handlers"] += 1
                del el.attrib[attribute]
            elif local == "href" and _external(value):
                removed["outside references"] += 1
                del el.attrib[attribute]
            elif any(_external(u) for u in _URL.findall(value)) or "javascript:" in value.lower():
                removed["outside references"] += 1
                del el.attrib[attribute]
        if name == "image" and not any(_local(a) == "href" for a in el.attrib):
            removed["outside images"] += 1
            _drop(el)


def _attached(el: lxml.etree._Element, root: lxml.etree._Element) -> bool:
    while el is not root:
        parent = el.getparent()
        if parent is None:
            return False
        el = parent
    return True


def _kind(name: str) -> str:
    if name == "script":
        return "scripts"
    if name == "foreignObject":
        return "foreignObjects"
    if name.startswith(("animate", "set")):
        return "animations"
    return "other elements"


def _drop(el: lxml.etree._Element) -> None:
    parent = el.getparent()
    if parent is None:
        return
    tail = el.tail
    if tail and tail.strip():
        previous = el.getprevious()
        if previous is not None:
            previous.tail = (previous.tail or "") + tail
        else:
            parent.text = (parent.text or "") + tail
    parent.remove(el)


def _unwrap(el: lxml.etree._Element) -> None:
    parent = el.getparent()
    if parent is None:
        return
    index = parent.index(el)
    for offset, child in enumerate(list(el)):
        parent.insert(index + offset, child)
    _drop(el)


# --- A chart's panels as one SVG file --------------------------------------------------------

PANEL_GAP = 8.0  # px between panels, as the composed PNG leaves them
DEFAULT_PANEL = (400.0, 300.0)  # a panel that states no size of its own
# What a vector file is served with, wherever it is served: drawn by an <img> it could do
# nothing anyway; opened on its own (a new tab), it runs nothing and loads nothing either.
SERVED_CSP = "default-src 'none'; img-src data:; style-src 'unsafe-inline'; sandbox"


@dataclass
class Piece:
    """One panel of a chart for `composed_svg`: SVG markup (inert, or a page's inline TikZ) or
    a PNG, in its layout row, with its size in CSS px when known."""

    row: int
    svg: str = ""
    png: bytes = b""
    width: float | None = None
    height: float | None = None


def composed_svg(pieces: list[Piece], *, max_pixels: int = MAX_CANVAS_PIXELS) -> InertSvg:
    """One SVG document drawing a chart's panels in their rows, SVG panels as they are and PNG
    panels inlined as data: URLs: what pages show (as an `<img>`, never inline) while a vector
    chart has no PNG. The whole is made inert and measured once more, so that a panel that
    never went through `inert_svg` (a page's inline TikZ) is cleaned too. SvgRefused says why
    none can be made."""

    if not pieces:
        raise SvgRefused("the chart has no panel to draw")
    root = lxml.etree.Element(f"{{{SVG_NS}}}svg", nsmap={None: SVG_NS})
    rows: dict[int, list[Piece]] = {}
    for piece in pieces:
        rows.setdefault(piece.row, []).append(piece)
    top = width = 0.0
    for number in sorted(rows):
        left = tallest = 0.0
        for piece in rows[number]:
            if piece.svg:
                panel = _panel_root(piece.svg)
                measured = _canvas(panel)
                w = piece.width or measured[0] or DEFAULT_PANEL[0]
                h = piece.height or measured[1] or DEFAULT_PANEL[1]
                if not panel.get("viewBox") and None not in measured:
                    panel.set("viewBox", f"0 0 {measured[0]:g} {measured[1]:g}")
            else:
                w = piece.width or DEFAULT_PANEL[0]
                h = piece.height or DEFAULT_PANEL[1]
                panel = lxml.etree.Element(f"{{{SVG_NS}}}image")
                encoded = base64.b64encode(piece.png).decode("ascii")
                panel.set("href", f"data:image/png;base64,{encoded}")
            for name, value in (("x", left), ("y", top), ("width", w), ("height", h)):
                panel.set(name, f"{value:g}")
            root.append(panel)
            left += w + PANEL_GAP
            tallest = max(tallest, h)
        width = max(width, left - PANEL_GAP)
        top += tallest + PANEL_GAP
    height = top - PANEL_GAP
    root.set("width", f"{width:g}")
    root.set("height", f"{height:g}")
    root.set("viewBox", f"0 0 {width:g} {height:g}")
    return inert_svg(lxml.etree.tostring(root), max_pixels=max_pixels)


def _panel_root(markup: str) -> lxml.etree._Element:
    """An SVG panel's root element. A page's inline SVG (serialised from HTML) may lack SVG's
    namespace, or XLink's for its `xlink:href`s; they are declared before it is read as XML."""
    first = markup[: markup.find(">") + 1]
    declare = ""
    if "xmlns=" not in first:
        declare += f' xmlns="{SVG_NS}"'
    if "xmlns:xlink=" not in first and "xlink:" in markup:
        declare += f' xmlns:xlink="{XLINK_NS}"'
    if declare:
        markup = re.sub(r"^\s*<svg\b", "<svg" + declare, markup, count=1, flags=re.IGNORECASE)
    # Read as the files are (no entities, budgets); the pixel budget is the whole's, below.
    inert = inert_svg(markup.encode("utf-8"), max_pixels=2**62)
    return lxml.etree.fromstring(inert.text.encode("utf-8"))
