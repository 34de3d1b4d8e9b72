"""Server-side SVG plots comparing runs (pure): accuracy per subset as grouped bars, and
accuracy by number of evidence pieces as SciVer's Figure 4 curve. Drawn with the app's one
chart kit (`charts.svg`): presentation attributes only (the Content-Security-Policy allows no
inline style), every label escaped."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from charts import svg
from charts.svg import PALETTE
from evaluation.release import EVIDENCE_BUCKETS
from evaluation.scoring import CHANCE, SUBSETS

# (legend label, {key: accuracy in 0..1 or None}) per run
Series = tuple[str, Mapping[str, float | None]]
LEGEND_ROOM = 140  # pixels the legend has at the right; longer labels widen the plot


def _more_room(series: Sequence[Series]) -> int:
    """Pixels to add to a plot's width so its longest legend label fits (about 6.5 a letter
    at 11 px)."""
    longest = max((len(label) for label, _ in series), default=0)
    return max(0, round(6.5 * longest + 24) - LEGEND_ROOM)


def _legend(series: Sequence[Series], x: int, y: int) -> list[str]:
    return [
        svg.swatch(x, y + 16 * i, PALETTE[i % len(PALETTE)], label)
        for i, (label, _) in enumerate(series)
    ]


def subset_bars(
    series: Sequence[Series],
    *,
    title: str = "Accuracy per subset",
    keys: Sequence[str] = SUBSETS,
    width: int = 560,
) -> str:
    """One group of bars per subset, a bar per run; the dashed line is chance."""
    left, top, bar = 90, 28, 12
    group = bar * max(len(series), 1) + 10
    span = width - left - 150
    height = top + group * len(keys) + 24
    legend_x = left + span + 10
    parts = [svg.heading(title)]
    for g, key in enumerate(keys):
        y = top + g * group
        parts.append(svg.text(left - 6, y + group / 2, key, font_size=12, text_anchor="end"))
        for i, (label, values) in enumerate(series):
            value = values.get(key)
            if value is None:
                continue
            length = round(span * value, 1)
            shown = f"{100 * value:.1f}"
            parts.append(
                svg.rect(
                    left,
                    y + i * bar,
                    length,
                    bar - 2,
                    PALETTE[i % len(PALETTE)],
                    hint=f"{label}, {key}: {shown} %",
                )
                + svg.text(left + length + 3, y + i * bar + bar - 3, shown, font_size=10)
            )
    chance = left + span * CHANCE
    bottom = top + group * len(keys)
    parts.append(
        svg.line(chance, top - 4, chance, bottom, stroke="#666", stroke_dasharray="4 3")
        + svg.text(chance, bottom + 14, "chance", font_size=10, text_anchor="middle")
    )
    parts += _legend(series, legend_x, top + 8)
    return svg.svg(width + _more_room(series), height, title, parts)


def evidence_curve(
    series: Sequence[Series],
    *,
    title: str = "Accuracy by number of evidence pieces (SciVer Figure 4)",
    keys: Sequence[str] = EVIDENCE_BUCKETS,
    width: int = 560,
    height: int = 260,
) -> str:
    """Accuracy (0–100 %) against the evidence buckets, a line per run."""
    left, top, right, bottom = 44, 30, 150, 40
    plot_w, plot_h = width - left - right, height - top - bottom
    parts = [svg.heading(title)]

    def x(i: int) -> float:
        return round(left + plot_w * (i + 0.5) / len(keys), 1)

    def y(value: float) -> float:
        return round(top + plot_h * (1 - value), 1)

    for tick in (0, 0.25, 0.5, 0.75, 1.0):
        parts.append(
            svg.line(left, y(tick), left + plot_w, y(tick), stroke="#ddd")
            + svg.text(left - 4, y(tick) + 4, round(100 * tick), font_size=10, text_anchor="end")
        )
    for i, key in enumerate(keys):
        parts.append(svg.text(x(i), top + plot_h + 16, key, font_size=11, text_anchor="middle"))
    parts.append(
        svg.line(left, y(CHANCE), left + plot_w, y(CHANCE), stroke="#666", stroke_dasharray="4 3")
    )
    for n, (label, values) in enumerate(series):
        colour = PALETTE[n % len(PALETTE)]
        points = [(x(i), y(values[k])) for i, k in enumerate(keys) if values.get(k) is not None]
        if len(points) > 1:
            path = " ".join(f"{px},{py}" for px, py in points)
            parts.append(
                svg.element("polyline", points=path, fill="none", stroke=colour, stroke_width=2)
            )
        for (px, py), key in zip(
            points, [k for k in keys if values.get(k) is not None], strict=True
        ):
            parts.append(
                svg.element(
                    "circle",
                    svg.tooltip(f"{label}, {key}: {100 * values[key]:.1f} %"),
                    cx=px,
                    cy=py,
                    r=3.5,
                    fill=colour,
                )
            )
    parts += _legend(series, width - right + 10, top + 8)
    return svg.svg(width + _more_room(series), height, title, parts)
