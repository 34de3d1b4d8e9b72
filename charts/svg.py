"""The one kit the app's charts are drawn with: inline SVG built on the server (no JavaScript,
no CDN), as strings a page marks safe. Pure: the standard library only, no Django.

The agreement page (`annotation.review.plots`), the dataset statistics
(`validation.stats`) and the comparison of evaluation runs (`evaluation.plots`) all draw with
it. It is a top-level package of its own, the lowest layer of the pipeline
(`tests/test_architecture.py`), because those three apps sit at different layers and each may
import only its own app or a lower one: kept in `annotation`, drawing a bar would make the
dataset statistics and the evaluation depend on the annotation app for something that has
nothing to do with annotating.

What a chart is made of, each defined here once:

- `svg`: the `<svg>` element (class "plot", role "img", width, height and a matching viewBox)
  with its `<title>`, the name assistive technology reads;
- `element`, `text`, `rect`, `line`, `tooltip`: the elements, with presentation attributes
  only (the Content-Security-Policy allows no inline style);
- `heading`: the chart's title drawn at its top;
- `swatch`: a legend entry (a coloured square and its name);
- `PALETTE`: the colours of series and bars (the agreement page keeps its own four,
  `annotation.review.plots.COLOURS`).

Every text and every attribute value is escaped here, so a caller passes plain strings (a
paper's label, an expert's name) and never escapes them itself. Numbers are written as the
caller gives them (`f"{x:.1f}"`, `round(x, 1)`, an int), so each chart keeps its own
rounding. Attributes keep the order they are given in, after `class`.
"""

from __future__ import annotations

from collections.abc import Iterable
from html import escape

PALETTE = ("#3b6ea5", "#c0504d", "#9bbb59", "#8064a2", "#4bacc6", "#f79646")

Number = int | float | str


def _name(keyword: str) -> str:
    """An attribute's name from a keyword: `class_` is "class", `font_size` "font-size"."""
    return keyword.rstrip("_").replace("_", "-")


def attributes(**attrs: object) -> str:
    """` name="value"` for each attribute that is not None, `class_` first, values escaped."""
    ordered = {"class_": attrs.pop("class_", None), **attrs}
    return "".join(
        f' {_name(key)}="{escape(str(value))}"'
        for key, value in ordered.items()
        if value is not None
    )


def element(tag: str, content: str | None = None, /, **attrs: object) -> str:
    """`<tag …/>`, or `<tag …>content</tag>` where `content` is markup built with this kit."""
    if content is None:
        return f"<{tag}{attributes(**attrs)}/>"
    return f"<{tag}{attributes(**attrs)}>{content}</{tag}>"


def tooltip(words: str) -> str:
    """The `<title>` child that names a bar or a point when the pointer rests on it."""
    return f"<title>{escape(words)}</title>"


def text(x: Number, y: Number, words: object, /, **attrs: object) -> str:
    """A text at (x, y): `words` escaped; e.g. `font_size=11, text_anchor="end"`."""
    return element("text", escape(str(words)), x=x, y=y, **attrs)


def rect(
    x: Number, y: Number, width: Number, height: Number, fill: str, /, *, hint: str | None = None
) -> str:
    """A filled rectangle (a bar), with `hint` as its tooltip."""
    content = tooltip(hint) if hint is not None else None
    return element("rect", content, x=x, y=y, width=width, height=height, fill=fill)


def line(x1: Number, y1: Number, x2: Number, y2: Number, /, *, stroke: str, **attrs: object) -> str:
    """A line (an axis, a tick, a grid line; `stroke_dasharray="4 3"` for chance)."""
    return element("line", x1=x1, y1=y1, x2=x2, y2=y2, stroke=stroke, **attrs)


def swatch(x: Number, y: Number, colour: str, name: str) -> str:
    """A legend entry: a 10-pixel square of `colour` and `name` beside it on baseline `y`."""
    return rect(x, y - 9, 10, 10, colour) + text(x + 14, y, name, font_size=11)


def heading(title: str, *, x: Number = 0, y: Number = 16, weight: str | int = "bold") -> str:
    """The chart's title drawn at its top left (the `<title>` of `svg` is not drawn)."""
    return text(x, y, title, font_size=13, font_weight=weight)


def svg(width: Number, height: Number, title: str, body: Iterable[str]) -> str:
    """The chart: an `<svg>` of that size (and a matching viewBox, so it scales), named by
    `title`, around the `body` elements."""
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" class="plot" role="img" width="{width}" '
        f'height="{height}" viewBox="0 0 {width} {height}">{tooltip(title)}'
        + "".join(body)
        + "</svg>"
    )
