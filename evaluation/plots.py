"""Server-side SVG plots comparing runs (pure): accuracy per subset as grouped bars, and
accuracy by number of evidence pieces as SciVer's Figure 4 curve. Presentation attributes
only (the Content-Security-Policy allows no inline style), every label escaped."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from html import escape

from evaluation.release import EVIDENCE_BUCKETS
from evaluation.scoring import CHANCE, SUBSETS
from validation.stats import PALETTE

# (legend label, {key: accuracy in 0..1 or None}) per run
Series = tuple[str, Mapping[str, float | None]]
LEGEND_ROOM = 140  # pixels the legend has at the right; longer labels widen the plot


def _open(width: int, height: int, title: str) -> list[str]:
    return [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="plot" role="img" width="{width}" '
        f'height="{height}" viewBox="0 0 {width} {height}" aria-label="{escape(title)}">',
        f"<title>{escape(title)}</title>",
        f'<text x="0" y="16" font-size="13" font-weight="bold">{escape(title)}</text>',
    ]


def _more_room(series: Sequence[Series]) -> int:
    """Pixels to add to a plot's width so its longest legend label fits (about 6.5 a letter
    at 11 px)."""
    longest = max((len(label) for label, _ in series), default=0)
    return max(0, round(6.5 * longest + 24) - LEGEND_ROOM)


def _legend(series: Sequence[Series], x: int, y: int) -> list[str]:
    parts = []
    for i, (label, _) in enumerate(series):
        parts.append(
            f'<rect x="{x}" y="{y + 16 * i - 9}" width="10" height="10" '
            f'fill="{PALETTE[i % len(PALETTE)]}"/><text x="{x + 14}" y="{y + 16 * i}" '
            f'font-size="11">{escape(label)}</text>'
        )
    return parts


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
    parts = _open(width + _more_room(series), height, title)
    for g, key in enumerate(keys):
        y = top + g * group
        parts.append(
            f'<text x="{left - 6}" y="{y + group / 2}" font-size="12" '
            f'text-anchor="end">{escape(key)}</text>'
        )
        for i, (label, values) in enumerate(series):
            value = values.get(key)
            if value is None:
                continue
            length = round(span * value, 1)
            shown = f"{100 * value:.1f}"
            parts.append(
                f'<rect x="{left}" y="{y + i * bar}" width="{length}" height="{bar - 2}" '
                f'fill="{PALETTE[i % len(PALETTE)]}"><title>{escape(label)}, {escape(key)}: '
                f"{shown} %</title></rect>"
                f'<text x="{left + length + 3}" y="{y + i * bar + bar - 3}" font-size="10">'
                f"{shown}</text>"
            )
    chance = left + span * CHANCE
    bottom = top + group * len(keys)
    parts.append(
        f'<line x1="{chance}" y1="{top - 4}" x2="{chance}" y2="{bottom}" stroke="#666" '
        f'stroke-dasharray="4 3"/><text x="{chance}" y="{bottom + 14}" font-size="10" '
        f'text-anchor="middle">chance</text>'
    )
    parts += _legend(series, legend_x, top + 8)
    parts.append("</svg>")
    return "".join(parts)


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
    parts = _open(width + _more_room(series), height, title)

    def x(i: int) -> float:
        return round(left + plot_w * (i + 0.5) / len(keys), 1)

    def y(value: float) -> float:
        return round(top + plot_h * (1 - value), 1)

    for tick in (0, 0.25, 0.5, 0.75, 1.0):
        parts.append(
            f'<line x1="{left}" y1="{y(tick)}" x2="{left + plot_w}" y2="{y(tick)}" '
            f'stroke="#ddd"/><text x="{left - 4}" y="{y(tick) + 4}" font-size="10" '
            f'text-anchor="end">{round(100 * tick)}</text>'
        )
    for i, key in enumerate(keys):
        parts.append(
            f'<text x="{x(i)}" y="{top + plot_h + 16}" font-size="11" '
            f'text-anchor="middle">{escape(key)}</text>'
        )
    parts.append(
        f'<line x1="{left}" y1="{y(CHANCE)}" x2="{left + plot_w}" y2="{y(CHANCE)}" '
        f'stroke="#666" stroke-dasharray="4 3"/>'
    )
    for n, (label, values) in enumerate(series):
        colour = PALETTE[n % len(PALETTE)]
        points = [(x(i), y(values[k])) for i, k in enumerate(keys) if values.get(k) is not None]
        if len(points) > 1:
            path = " ".join(f"{px},{py}" for px, py in points)
            parts.append(
                f'<polyline points="{path}" fill="none" stroke="{colour}" stroke-width="2"/>'
            )
        for (px, py), key in zip(
            points, [k for k in keys if values.get(k) is not None], strict=True
        ):
            parts.append(
                f'<circle cx="{px}" cy="{py}" r="3.5" fill="{colour}"><title>{escape(label)}, '
                f"{escape(key)}: {100 * values[key]:.1f} %</title></circle>"
            )
    parts += _legend(series, width - right + 10, top + 8)
    parts.append("</svg>")
    return "".join(parts)
