"""The agreement statistics page (server-drawn SVG plots) and its CSV download, for admins."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.safestring import mark_safe

from annotation.downloads import csv_download
from annotation.review import plots, stats
from papers.access import staff_required

# The annotator-pair plot shows the pairs with the most items; the table and CSV hold all.
MAX_PLOTTED_PAIRS = 12
GROUP_NAMES = {"annotator_pair": "annotator pair"}


def _plots(summary: stats.AgreementSummary) -> dict[str, str]:
    def reports(group: str, limit: int | None = None) -> list:
        found = list(summary.reports[group].items())
        if limit is not None and len(found) > limit:
            found = sorted(found, key=lambda kv: (-kv[1].items, kv[0]))[:limit]
        return found

    def rows(found: list) -> list[tuple[str, list[float | None]]]:
        return [
            (value, [r.label.percent, r.label.kappa, r.evidence.mean_jaccard]) for value, r in found
        ]

    def counts(found: list) -> list[int]:
        # n per bar: the complete items (annotated by both) its statistics are computed over.
        return [r.label.complete for _, r in found]

    subsets, top_pairs = reports("subset"), reports("annotator_pair", MAX_PLOTTED_PAIRS)
    scale = "agreement (0 to 1); n = items annotated by both"

    pairs = len(summary.reports["annotator_pair"])
    pair_title = "Agreement per annotator pair" + (
        f" (the {MAX_PLOTTED_PAIRS} with most items of {pairs}; all in the table below)"
        if pairs > MAX_PLOTTED_PAIRS
        else ""
    )

    series = ["label agreement", "Cohen's κ", "mean evidence Jaccard"]
    days = [d for d, *_ in summary.progress]
    return {
        name: mark_safe(svg)  # noqa: S308 - built by annotation.review.plots, every text escaped
        for name, svg in {
            "subset": plots.bar_chart(
                "Agreement per subset",
                rows(subsets),
                series=series,
                maximum=1.0,
                percent=False,
                counts=counts(subsets),
                axis=scale,
            ),
            "pair": plots.bar_chart(
                pair_title,
                rows(top_pairs),
                series=series,
                maximum=1.0,
                percent=False,
                counts=counts(top_pairs),
                axis=scale,
            ),
            "reasons": plots.bar_chart(
                "Adjudication reasons",
                [(label, [n]) for _, label, n in summary.reasons],
                series=["adjudications"],
                percent=False,
                axis="adjudications",
            ),
            "progress": plots.line_chart(
                "Progress over time",
                days,
                {
                    "pairs written": [w for _, w, _, _ in summary.progress],
                    "claims annotated blind": [a for _, _, a, _ in summary.progress],
                    "adjudications": [j for _, _, _, j in summary.progress],
                },
            ),
        }.items()
    }


@staff_required
def agreement(request: HttpRequest) -> HttpResponse:
    summary = stats.agreement_summary()
    return render(
        request,
        "annotation/stats/agreement.html",
        {
            "s": summary,
            "plots": _plots(summary),
            "groups": [(g, GROUP_NAMES.get(g, g), summary.reports[g]) for g in stats.GROUPS],
        },
    )


@staff_required
def agreement_csv(request: HttpRequest) -> HttpResponse:
    fields, rows = stats.csv_rows(stats.agreement_summary())
    return csv_download("agreement.csv", fields, rows)
