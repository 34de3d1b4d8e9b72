"""Benchmark: table rendering with Chromium (launch, then per table) against the Pillow fallback,
and rasterising a vector chart (an SVG panel made inert, as the crawler stores it) in the same run.

Run by hand: `python bench/render.py [--tables 30] [--out DIR]` (DIR keeps the PNGs to look at).
"""

from __future__ import annotations

import argparse
import html
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from papers.parsing.document import Cell, Grid  # noqa: E402
from papers.parsing.svg import inert_svg  # noqa: E402
from papers.render.chromium import ChromiumRenderer, find_chromium  # noqa: E402
from papers.render.pillow import render_table_pillow  # noqa: E402

VECTOR = Path(__file__).resolve().parent.parent / "tests/papers/pages/oxide-boxes/latex/fig4.svg"

MODELS = ["BERT-base", "RoBERTa-large", "T5-3B", "Llama-2-7B", "GPT-4o", "Ours"]
METRICS = ["Acc", "F1", "EM", "BLEU", "ROUGE-L", "Recall@5"]


def realistic_table(n: int, rng: random.Random) -> tuple[str, Grid, str]:
    """A 6-row x 8-column results table: multirow/multicolumn header, math cells, a bold best."""
    groups = ["In-domain", "Out-of-domain", "Average"]
    th = "ltx_td ltx_th ltx_th_column"
    head1 = [
        f'<th class="{th} ltx_align_left ltx_border_tt" rowspan="2">Model</th>',
        f'<th class="{th} ltx_align_center ltx_border_tt" rowspan="2">Params</th>',
    ] + [f'<th class="{th} ltx_align_center ltx_border_tt" colspan="2">{g}</th>' for g in groups]
    metric_pair = rng.sample(METRICS, 2)
    head2 = [
        f'<th class="{th} ltx_align_center ltx_border_t">{m}</th>'
        for _ in groups
        for m in metric_pair
    ]
    grid: Grid = [
        [Cell("Model", rowspan=2, header=True), Cell("Params", rowspan=2, header=True)]
        + [Cell(g, colspan=2, header=True) for g in groups],
        [Cell(m, header=True) for _ in groups for m in metric_pair],
    ]
    rows = [head1, head2]
    for r, model in enumerate(rng.sample(MODELS, 4)):
        last = r == 3
        border = " ltx_border_bb" if last else (" ltx_border_t" if r == 0 else "")
        params = f"{rng.choice([110, 340, 770, 7000])}M"
        cells = [
            f'<td class="ltx_td ltx_align_left{border}">{html.escape(model)}</td>',
            f'<td class="ltx_td ltx_align_center{border}">{params}</td>',
        ]
        grid_row = [Cell(model), Cell(params)]
        for c in range(6):
            mean, sd = rng.uniform(40, 95), rng.uniform(0.1, 2.5)
            if c % 3 == 2:
                # Math, as LaTeXML writes it: MathML with the TeX source in alttext.
                tex = f"{mean:.1f}\\pm {sd:.1f}"
                body = (
                    f'<math class="ltx_Math" alttext="{tex}" display="inline"><mrow>'
                    f"<mn>{mean:.1f}</mn><mo>±</mo><mn>{sd:.1f}</mn></mrow></math>"
                )
                text = f"${tex}$"
            elif last and c == 0:
                body = f'<span class="ltx_text ltx_font_bold">{mean:.1f}</span>'
                text = f"{mean:.1f}"
            else:
                body, text = f"{mean:.1f}", f"{mean:.1f}"
            cells.append(f'<td class="ltx_td ltx_align_center{border}">{body}</td>')
            grid_row.append(Cell(text))
        rows.append(cells)
        grid.append(grid_row)
    table_html = (
        '<table class="ltx_tabular ltx_centering ltx_guessed_headers ltx_align_middle">'
        '<tbody class="ltx_tbody">'
        + "".join(f'<tr class="ltx_tr">{"".join(row)}</tr>' for row in rows)
        + "</tbody></table>"
    )
    caption = (
        f"Results of each model on benchmark {n}: mean $\\pm$ standard deviation over five "
        "seeds; best in bold. Higher is better for every metric."
    )
    return table_html, grid, caption


def summarise(times: list[float]) -> tuple[float, float, float]:
    ordered = sorted(times)
    p95 = ordered[min(len(ordered) - 1, int(round(0.95 * (len(ordered) - 1))))]
    return statistics.mean(times), statistics.median(times), p95


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--tables", type=int, default=30)
    parser.add_argument("--chromium", default="", help="Chromium executable (default: found)")
    parser.add_argument("--out", type=Path, help="write the PNGs here")
    args = parser.parse_args()

    rng = random.Random(2024)
    tables = [realistic_table(n + 1, rng) for n in range(args.tables)]
    if args.out:
        args.out.mkdir(parents=True, exist_ok=True)
    rows: list[tuple[str, str, str, str, str]] = []

    path = find_chromium(args.chromium)
    if path is None:
        print("no Chromium found: only Pillow is measured", file=sys.stderr)
    else:
        with ChromiumRenderer(executable_path=path) as renderer:
            rows.append(("chromium launch", f"{renderer.launch_seconds:.2f}", "", "", ""))
            times, sizes, vector_times, vector_sizes = [], [], [], []
            svg = inert_svg(VECTOR.read_bytes()).text
            for n, (table_html, _grid, caption) in enumerate(tables, start=1):
                started = time.perf_counter()
                png = renderer.render_table(
                    table_html=table_html, label=f"Table {n}", caption=caption
                )
                times.append(time.perf_counter() - started)
                sizes.append(len(png))
                if args.out:
                    (args.out / f"chromium-{n:02d}.png").write_bytes(png)
                # Interleaved with the tables, so that a busy machine slows both alike.
                started = time.perf_counter()
                png = renderer.rasterize_svg(svg=svg)
                vector_times.append(time.perf_counter() - started)
                vector_sizes.append(len(png))
            first, rest = times[0], times[1:] or times
            rows.append(("chromium first table", f"{first:.3f}", "", "", ""))
            mean, median, p95 = summarise(rest)
            rows.append(
                (
                    "chromium per table",
                    f"{mean:.3f}",
                    f"{median:.3f}",
                    f"{p95:.3f}",
                    f"{statistics.mean(sizes) / 1024:.0f}",
                )
            )
            mean, median, p95 = summarise(vector_times[1:] or vector_times)
            rows.append(
                (
                    "chromium per vector chart",
                    f"{mean:.3f}",
                    f"{median:.3f}",
                    f"{p95:.3f}",
                    f"{statistics.mean(vector_sizes) / 1024:.0f}",
                )
            )

    times, sizes = [], []
    for n, (_html, grid, caption) in enumerate(tables, start=1):
        started = time.perf_counter()
        png = render_table_pillow(grids=[grid], label=f"Table {n}", caption=caption)
        times.append(time.perf_counter() - started)
        sizes.append(len(png))
        if args.out:
            (args.out / f"pillow-{n:02d}.png").write_bytes(png)
    mean, median, p95 = summarise(times)
    rows.append(
        (
            "pillow per table",
            f"{mean:.3f}",
            f"{median:.3f}",
            f"{p95:.3f}",
            f"{statistics.mean(sizes) / 1024:.0f}",
        )
    )

    print(f"{args.tables} tables of 6 rows x 8 columns (spans, math, bold), seconds:")
    header = ("", "mean", "median", "p95", "PNG KiB")
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(5)]
    for row in [header, *rows]:
        print(
            "  ".join(
                cell.ljust(w) if i == 0 else cell.rjust(w)
                for i, (cell, w) in enumerate(zip(row, widths, strict=True))
            )
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
