"""Benchmark: full extraction against a bare lxml parse of the same bytes, per fixture page.

Run by hand: `make bench` (or `python bench/parse.py [--screenshots]`). Figures go in the README.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import lxml.html

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.synthetic import synthetic_page  # noqa: E402
from papers.parsing import parse_paper  # noqa: E402

CORPUS = Path(__file__).resolve().parent.parent / "papers" / "corpus"


def best_of(fn, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times), statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=7)
    args = parser.parse_args()
    pages = [(p.parent.name, p.read_bytes()) for p in sorted(CORPUS.glob("*/paper.html"))]
    pages.append(("synthetic (2 MB)", synthetic_page()))
    print(
        f"{'page':<28} {'bytes':>9} {'tables':>6} {'charts':>6} {'lxml ms':>8} "
        f"{'full ms':>8} {'ratio':>6}"
    )
    for name, data in pages:
        paper = parse_paper(data, "https://arxiv.org/html/2409.99999v1")
        floor, _ = best_of(lambda d=data: lxml.html.document_fromstring(d), args.repeat)
        full, _ = best_of(
            lambda d=data: parse_paper(d, "https://arxiv.org/html/2409.99999v1"), args.repeat
        )
        print(
            f"{name:<28} {len(data):>9} {len(paper.tables()):>6} {len(paper.charts()):>6} "
            f"{floor * 1000:>8.1f} {full * 1000:>8.1f} {full / floor:>6.2f}"
        )


if __name__ == "__main__":
    main()
