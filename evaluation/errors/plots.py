"""The error analysis chart (pure SVG, the app's chart kit): for each model and subset, the
share of its tagged wrong answers per error type, a bar per type."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from charts import svg
from charts.svg import PALETTE
from evaluation.errors.rules import CATEGORIES

# (row label "model · subset", tagged cases, {category code: cases})
Row = tuple[str, int, Mapping[str, int]]


def category_bars(rows: Sequence[Row], *, title: str = "Error types per model and subset") -> str:
    """A group of bars per (model, subset), one bar per error type: its share of the group's
    tagged cases (a case may have several types); n beside each group's name."""
    left, top, bar, width = 200, 28, 10, 720
    group = bar * len(CATEGORIES) + 12
    span = width - left - 260
    height = top + group * max(len(rows), 1) + 10
    parts = [svg.heading(title)]
    for g, (label, n, counts) in enumerate(rows):
        y = top + g * group
        parts.append(
            svg.text(left - 6, y + group / 2, f"{label} (n={n})", font_size=11, text_anchor="end")
        )
        for i, category in enumerate(CATEGORIES):
            count = counts.get(category.code, 0)
            share = count / n if n else 0
            length = round(span * share, 1)
            parts.append(
                svg.rect(
                    left,
                    y + i * bar,
                    length,
                    bar - 2,
                    PALETTE[i % len(PALETTE)],
                    hint=f"{label}, {category.title}: {count} of {n}",
                )
                + svg.text(
                    left + length + 3, y + i * bar + bar - 2, f"{100 * share:.0f} %", font_size=9
                )
            )
    legend_x = left + span + 40
    parts += [
        svg.swatch(legend_x, top + 8 + 16 * i, PALETTE[i % len(PALETTE)], c.title)
        for i, c in enumerate(CATEGORIES)
    ]
    return svg.svg(width, height, title, parts)
