"""Small SVG charts drawn on the server (no JavaScript, no CDN): grouped bars and step lines."""

from __future__ import annotations

import datetime as dt
import math
from collections.abc import Sequence
from html import escape

COLOURS = ("#2f6db5", "#e08a2c", "#3a9a5b", "#b5443a")


def _svg(width: int, height: int, title: str, body: list[str]) -> str:
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" class="plot" role="img" viewBox="0 0 {width} '
        f'{height}" width="{width}" height="{height}"><title>{escape(title)}</title>'
        + "".join(body)
        + "</svg>"
    )


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
    body = [f'<text x="4" y="14" font-size="13" font-weight="600">{escape(title)}</text>']
    for index, name in enumerate(series):
        x = label_width + index * 150
        body.append(
            f'<rect x="{x}" y="22" width="10" height="10" fill="{COLOURS[index % 4]}"/>'
            f'<text x="{x + 14}" y="31" font-size="11">{escape(name)}</text>'
        )
    y = legend_height
    for row, (label, vs) in enumerate(rows):
        middle = y + group_height / 2
        body.append(
            f'<text x="{label_width - 6}" y="{middle + (0 if counts is not None else 4)}" '
            f'font-size="11" text-anchor="end">{escape(label[:28])}</text>'
        )
        if counts is not None:
            body.append(
                f'<text x="{label_width - 6}" y="{middle + 12}" font-size="10" '
                f'text-anchor="end" fill="#555">n = {counts[row]}</text>'
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
            body.append(
                f'<rect x="{label_width}" y="{bar_y}" width="{w:.1f}" height="{bar_height - 2}" '
                f'fill="{COLOURS[index % 4]}"><title>{escape(label)} · {escape(series[index])}: '
                f'{text}</title></rect><text x="{label_width + w + 4:.1f}" '
                f'y="{bar_y + bar_height - 4}" font-size="10">{text}</text>'
            )
            bar_y += bar_height
        y += group_height + gap
    if not rows:
        body.append(
            f'<text x="{label_width}" y="{legend_height + 14}" font-size="12">no data yet</text>'
        )
        y += bar_height + gap
    # The value axis: a baseline, five ticks with their values, and the axis' name.
    axis_y = y - gap / 2
    body.append(
        f'<line class="axis" x1="{label_width}" y1="{legend_height - 4}" '
        f'x2="{label_width}" y2="{axis_y}" stroke="#999"/>'
        f'<line class="axis" x1="{label_width}" y1="{axis_y}" '
        f'x2="{label_width + plot_width}" y2="{axis_y}" stroke="#999"/>'
    )
    for step in range(5):
        value = top * step / 4
        x = label_width + plot_width * step / 4
        body.append(
            f'<line x1="{x:.1f}" y1="{axis_y}" x2="{x:.1f}" y2="{axis_y + 4}" '
            f'stroke="#999"/><text class="tick" x="{x:.1f}" y="{axis_y + 14}" '
            f'font-size="10" text-anchor="middle">{_tick(value, percent)}</text>'
        )
    if axis:
        body.append(
            f'<text class="axis-label" x="{label_width + plot_width / 2:.1f}" '
            f'y="{axis_y + 28}" font-size="10" text-anchor="middle">{escape(axis)}</text>'
        )
    return _svg(width, int(axis_y + axis_height), title, body)


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
    body = [
        f'<text x="4" y="14" font-size="13" font-weight="600">{escape(title)}</text>',
        f'<line x1="{left}" y1="{top + plot_h}" x2="{left + plot_w}" y2="{top + plot_h}" '
        'stroke="#999"/>',
        f'<line x1="{left}" y1="{top}" x2="{left}" y2="{top + plot_h}" stroke="#999"/>',
        f'<text x="{left - 6}" y="{top + 4}" font-size="10" text-anchor="end">{peak}</text>',
        f'<text x="{left - 6}" y="{top + plot_h}" font-size="10" text-anchor="end">0</text>',
        f'<text class="axis-label" x="12" y="{top + plot_h / 2:.1f}" font-size="10" '
        f'text-anchor="middle" transform="rotate(-90 12 {top + plot_h / 2:.1f})">count '
        "(cumulative)</text>",
    ]
    for index, name in enumerate(series):
        x = left + index * 150
        body.append(
            f'<rect x="{x}" y="22" width="10" height="10" fill="{COLOURS[index % 4]}"/>'
            f'<text x="{x + 14}" y="31" font-size="11">{escape(name)}</text>'
        )
    if not days:
        body.append(f'<text x="{left + 10}" y="{top + 30}" font-size="12">no data yet</text>')
        return _svg(width, height, title, body)
    step = plot_w / max(1, len(days) - 1) if len(days) > 1 else 0

    def xy(i: int, v: int) -> str:
        x = left + (i * step if len(days) > 1 else plot_w / 2)
        return f"{x:.1f},{top + plot_h - v / peak * plot_h:.1f}"

    for index, (name, values) in enumerate(series.items()):
        points = " ".join(xy(i, v) for i, v in enumerate(values))
        body.append(
            f'<polyline fill="none" stroke="{COLOURS[index % 4]}" stroke-width="2" '
            f'points="{points}"><title>{escape(name)}</title></polyline>'
        )
        for i, v in enumerate(values):
            x, y = xy(i, v).split(",")
            body.append(
                f'<circle cx="{x}" cy="{y}" r="2.5" fill="{COLOURS[index % 4]}">'
                f"<title>{escape(name)} {days[i].isoformat()}: {v}</title></circle>"
            )
    for i in {0, len(days) - 1}:
        x = xy(i, 0).split(",")[0]
        body.append(
            f'<text x="{x}" y="{height - 10}" font-size="10" text-anchor="middle">'
            f"{days[i].isoformat()}</text>"
        )
    return _svg(width, height, title, body)
