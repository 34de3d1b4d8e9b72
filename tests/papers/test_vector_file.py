"""A vector chart's file (issue 39): its panels composed into one inert SVG document, which pages
show as an `<img>` while the chart has no PNG (no Chromium to draw it)."""

from __future__ import annotations

import base64
import io

import lxml.etree
import pytest
from PIL import Image

from papers.parsing.svg import SVG_NS, XLINK_NS, Piece, SvgRefused, composed_svg

PLOT = (
    '<svg xmlns="http://www.w3.org/2000/svg" width="300pt" height="150pt" '
    'viewBox="0 0 300 150"><path d="M0 0 L300 150" stroke="blue"/></svg>'
)


def png(width: int, height: int) -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (width, height), "red").save(out, format="PNG")
    return out.getvalue()


def children(text: str) -> list[lxml.etree._Element]:
    root = lxml.etree.fromstring(text.encode())
    assert root.tag == f"{{{SVG_NS}}}svg"
    return list(root)


def test_panels_are_laid_out_in_their_rows_and_a_raster_panel_is_inlined():
    raster = png(40, 20)
    inert = composed_svg(
        [
            Piece(0, svg=PLOT, width=400, height=200),
            Piece(0, png=raster, width=40, height=20),
            Piece(1, svg=PLOT),  # no size given: the file's own (300 × 150 pt = 400 × 200 px)
        ]
    )
    # Row 0: 400 + 8 + 40 wide, 200 tall; row 1 below it after the 8 px gap.
    assert (inert.width, inert.height) == (448, 408)
    first, second, third = children(inert.text)
    assert [first.get(a) for a in ("x", "y", "width", "height")] == ["0", "0", "400", "200"]
    assert [second.get(a) for a in ("x", "y", "width", "height")] == ["408", "0", "40", "20"]
    assert second.get("href") == "data:image/png;base64," + base64.b64encode(raster).decode()
    assert [third.get(a) for a in ("x", "y", "width", "height")] == ["0", "208", "400", "200"]
    assert third.get("viewBox") == "0 0 300 150" and third[0].get("d") == "M0 0 L300 150"


def test_a_pages_inline_svg_is_given_its_namespaces_and_made_inert():
    # As lxml writes a page's inline TikZ picture: no namespace, an xlink:href, and here a
    # script and an event handler that a hostile page put there.
    inline = (
        '<svg width="120" height="60" onload="alert(1)"><defs><path id="g" d="M0 0 L9 9"/>'
        '</defs><use xlink:href="#g"/><script>alert(2)</script>'
        '<image xlink:href="http://127.0.0.1:9/x.png" width="9" height="9"/></svg>'
    )
    inert = composed_svg([Piece(0, svg=inline)])
    assert (inert.width, inert.height) == (120, 60)
    (panel,) = children(inert.text)
    assert panel.tag == f"{{{SVG_NS}}}svg" and panel.get("onload") is None
    tags = [lxml.etree.QName(el).localname for el in panel.iter()]
    assert tags == ["svg", "defs", "path", "use"]  # no script, no outside image
    assert panel.find(f"{{{SVG_NS}}}use").get(f"{{{XLINK_NS}}}href") == "#g"
    assert "127.0.0.1" not in inert.text and "alert" not in inert.text


@pytest.mark.parametrize(
    "pieces, why",
    [
        ([], "no panel"),
        ([Piece(0, svg="<svg><text>unclosed</svg>")], "not well-formed"),
        (
            [Piece(0, svg=PLOT, width=6000, height=6000), Piece(0, png=png(2, 2), width=6000)],
            "more than the",  # each panel within budget, the whole not
        ),
    ],
    ids=["nothing", "broken", "too-large-together"],
)
def test_what_cannot_be_composed_is_refused_with_why(pieces, why):
    with pytest.raises(SvgRefused, match=why):
        composed_svg(pieces, max_pixels=40_000_000)
