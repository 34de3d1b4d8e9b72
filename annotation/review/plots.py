"""Small SVG charts drawn on the server (no JavaScript, no CDN): grouped bars and step lines,
drawn with the app's one chart kit (`charts.svg`)."""

from __future__ import annotations

import datetime as dt
import math
from collections.abc import Sequence

from charts import svg

COLOURS = ("#2f6db5", "#e08a2c", "#3a9a5b", "#b5443a")


def _tick(value: float, percent: bool) -> str:
    if percent:
        return f"{value:.0%}"
    return f"{value:.0f}" if value == int(value) else f"{value:.2f}"


def bar_chart(
    title: str,
    rows: Sequence[tuple[str, Sequence[float | None]]],
    *,
    series: Sequence[str],
    maximum: float | None = None,
    percent: bool = True,
    counts: Sequence[int] | None = None,
    axis: str = "",
) -> str:
    """Horizontal grouped bars: one group per row, one bar per series; None draws 'n/a'. The
    value axis is drawn with ticks and its name (`axis`); `counts` gives each row's n (the
    items behind its bars), printed under its label."""
    label_width, bar_height, gap, width = 170, 14, 10, 620
    plot_width = width - label_width - 70
    values = [v for _, vs in rows for v in vs if v is not None]
    top = maximum if maximum is not None else max([1.0, *values])
    if maximum is None and all(float(v).is_integer() for v in values):
        top = max(4, math.ceil(top / 4) * 4)  # counts: whole-number ticks
    legend_height, axis_height = 40, 34
    group_height = max(len(series) * bar_height, 28 if counts is not None else 0)
    body = [svg.heading(title, x=4, y=14, weight=600)]
    for index, name in enumerate(series):
        body.append(svg.swatch(label_width + index * 150, 31, COLOURS[index % 4], name))
    y = legend_height
    for row, (label, vs) in enumerate(rows):
        middle = y + group_height / 2
        body.append(
            svg.text(
                label_width - 6,
                middle + (0 if counts is not None else 4),
                label[:28],
                font_size=11,
                text_anchor="end",
            )
        )
        if counts is not None:
            body.append(
                svg.text(
                    label_width - 6,
                    middle + 12,
                    f"n = {counts[row]}",
                    font_size=10,
                    text_anchor="end",
                    fill="#555",
                )
            )
        bar_y = y
        for index, value in enumerate(vs):
            if value is None:
                text, w = "n/a", 0.0
            else:
                w = max(0.0, value) / top * plot_width if top else 0.0
                text = f"{value:.0%}" if percent else f"{value:.2f}"
                text = (
                    text[:-3]
                    if text.endswith(".00") and not percent and value == int(value)
                    else text
                )
            colour = COLOURS[index % 4]
            body.append(
                svg.rect(
                    label_width,
                    bar_y,
                    f"{w:.1f}",
                    bar_height - 2,
                    colour,
                    hint=f"{label} · {series[index]}: {text}",
                )
                + svg.text(f"{label_width + w + 4:.1f}", bar_y + bar_height - 4, text, font_size=10)
            )
            bar_y += bar_height
        y += group_height + gap
    if not rows:
        body.append(svg.text(label_width, legend_height + 14, "no data yet", font_size=12))
        y += bar_height + gap
    # The value axis: a baseline, five ticks with their values, and the axis' name.
    axis_y = y - gap / 2
    body.append(
        svg.line(label_width, legend_height - 4, label_width, axis_y, class_="axis", stroke="#999")
        + svg.line(
            label_width, axis_y, label_width + plot_width, axis_y, class_="axis", stroke="#999"
        )
    )
    for step in range(5):
        value = top * step / 4
        x = f"{label_width + plot_width * step / 4:.1f}"
        body.append(
            svg.line(x, axis_y, x, axis_y + 4, stroke="#999")
            + svg.text(
                x,
                axis_y + 14,
                _tick(value, percent),
                class_="tick",
                font_size=10,
                text_anchor="middle",
            )
        )
    if axis:
        body.append(
            svg.text(
                f"{label_width + plot_width / 2:.1f}",
                axis_y + 28,
                axis,
                class_="axis-label",
                font_size=10,
                text_anchor="middle",
            )
        )
    return svg.svg(width, int(axis_y + axis_height), title, body)


def line_chart(title: str, days: Sequence[dt.date], series: dict[str, Sequence[int]]) -> str:
    """Cumulative counts over days, one step line per series (one day: a bar per series)."""
    if len(days) == 1:
        return bar_chart(
            f"{title}: all on {days[0].isoformat()}",
            [(name, [values[0]]) for name, values in series.items()],
            series=["count"],
            percent=False,
            axis="count (cumulative)",
        )
    width, height, left, bottom, top = 620, 240, 50, 30, 46
    plot_w, plot_h = width - left - 20, height - top - bottom
    peak = max([1, *(v for vs in series.values() for v in vs)])
    middle = f"{top + plot_h / 2:.1f}"
    body = [
        svg.heading(title, x=4, y=14, weight=600),
        svg.line(left, top + plot_h, left + plot_w, top + plot_h, stroke="#999"),
        svg.line(left, top, left, top + plot_h, stroke="#999"),
        svg.text(left - 6, top + 4, peak, font_size=10, text_anchor="end"),
        svg.text(left - 6, top + plot_h, 0, font_size=10, text_anchor="end"),
        svg.text(
            12,
            middle,
            "count (cumulative)",
            class_="axis-label",
            font_size=10,
            text_anchor="middle",
            transform=f"rotate(-90 12 {middle})",
        ),
    ]
    for index, name in enumerate(series):
        body.append(svg.swatch(left + index * 150, 31, COLOURS[index % 4], name))
    if not days:
        body.append(svg.text(left + 10, top + 30, "no data yet", font_size=12))
        return svg.svg(width, height, title, body)
    step = plot_w / max(1, len(days) - 1) if len(days) > 1 else 0

    def xy(i: int, v: int) -> str:
        x = left + (i * step if len(days) > 1 else plot_w / 2)
        return f"{x:.1f},{top + plot_h - v / peak * plot_h:.1f}"

    for index, (name, values) in enumerate(series.items()):
        colour = COLOURS[index % 4]
        points = " ".join(xy(i, v) for i, v in enumerate(values))
        body.append(
            svg.element(
                "polyline",
                svg.tooltip(name),
                fill="none",
                stroke=colour,
                stroke_width=2,
                points=points,
            )
        )
        for i, v in enumerate(values):
            x, y = xy(i, v).split(",")
            body.append(
                svg.element(
                    "circle",
                    svg.tooltip(f"{name} {days[i].isoformat()}: {v}"),
                    cx=x,
                    cy=y,
                    r=2.5,
                    fill=colour,
                )
            )
    for i in {0, len(days) - 1}:
        x = xy(i, 0).split(",")[0]
        body.append(
            svg.text(x, height - 10, days[i].isoformat(), font_size=10, text_anchor="middle")
        )
    return svg.svg(width, height, title, body)
