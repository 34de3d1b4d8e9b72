"""The statistics page's chart of the claim-only baseline (pure, `charts.svg`): accuracy per
subset as bars, its 95 % interval as a whisker, chance as a dashed tick."""

from __future__ import annotations

from charts import svg
from validation.audit.core import ArtifactAudit, Baseline, Score

__all__ = ["baseline_chart"]

LEFT, WIDTH, ROW = 110, 300, 26


def baseline_chart(baseline: Baseline, *, title: str = "Claim-only accuracy per subset") -> str:
    """Bars of the baseline's accuracy (all claims, then each subset), each with its interval
    and its chance level; empty when the baseline has no score."""
    if baseline.overall is None:
        return ""
    rows: list[tuple[str, Score]] = [("all", baseline.overall), *baseline.by_subset.items()]
    height = 40 + ROW * len(rows) + 44
    body = [svg.heading(title)]
    for tick in (0, 25, 50, 75, 100):
        x = LEFT + WIDTH * tick / 100
        body.append(svg.line(x, 30, x, 30 + ROW * len(rows), stroke="#ddd"))
        body.append(
            svg.text(x, 44 + ROW * len(rows), f"{tick} %", font_size=10, text_anchor="middle")
        )
    for n, (name, score) in enumerate(rows):
        y = 34 + ROW * n
        body.append(svg.text(LEFT - 6, y + 13, name, font_size=11, text_anchor="end"))
        body.append(
            svg.rect(
                LEFT,
                y,
                round(WIDTH * score.accuracy, 1),
                16,
                svg.PALETTE[0],
                hint=f"{name}: {score.text()}",
            )
        )
        low, high = LEFT + WIDTH * score.low, LEFT + WIDTH * score.high
        body.append(svg.line(round(low, 1), y + 8, round(high, 1), y + 8, stroke="#222"))
        for x in (low, high):
            body.append(svg.line(round(x, 1), y + 3, round(x, 1), y + 13, stroke="#222"))
        chance = round(LEFT + WIDTH * score.chance, 1)
        body.append(
            svg.line(chance, y - 2, chance, y + 18, stroke=svg.PALETTE[1], stroke_dasharray="4 3")
        )
        body.append(
            svg.text(LEFT + WIDTH + 6, y + 13, f"{100 * score.accuracy:.0f} %", font_size=11)
        )
    legend = 30 + ROW * len(rows) + 38
    body.append(svg.swatch(LEFT, legend, svg.PALETTE[0], "accuracy (95 % interval)"))
    body.append(svg.swatch(LEFT + 170, legend, svg.PALETTE[1], "chance"))
    return svg.svg(LEFT + WIDTH + 50, height, title, body)


def artifact_context(artifacts: ArtifactAudit | None, margin: float) -> dict:
    """What templates/validation/_artifacts.html renders: the audit, its chart, the margin and
    whether the baseline beats chance by more than it."""
    return {
        "artifacts": artifacts,
        "artifact_plot": baseline_chart(artifacts.baseline) if artifacts else "",
        "artifact_margin": margin,
        "artifact_warn": bool(artifacts and artifacts.beats_chance(margin)),
    }
