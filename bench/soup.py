"""Benchmark: why the LaTeXML walk reads lxml's tree directly rather than BeautifulSoup's.

Run by hand: `python bench/soup.py [--repeat N]` (needs `pip install beautifulsoup4`, which is not
a dependency of the project). For each corpus page, interleaved rounds time a bare `lxml.html`
parse (with `huge_tree`, as the parser has it), building a BeautifulSoup tree on the same lxml
parser and finding its figures (the least a walk over it would do), and the project's whole
extraction (`parse_paper`). Medians per page, and the medians of the ratios. Figures in the README.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import lxml.html

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from papers.parsing import parse_paper  # noqa: E402

CORPUS = Path(__file__).resolve().parent.parent / "papers" / "corpus"
LXML = lxml.html.HTMLParser(huge_tree=True)


def main() -> None:
    try:
        from bs4 import BeautifulSoup
    except ImportError:
        sys.exit("bench/soup.py needs BeautifulSoup: pip install beautifulsoup4 (not a dependency)")
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeat", type=int, default=15)
    args = parser.parse_args()
    soup_over_lxml, soup_over_ours = [], []
    print(f"{'page':28s} {'lxml ms':>8s} {'soup ms':>8s} {'ours ms':>8s} {'soup/lxml':>9s}")
    for page in sorted(CORPUS.glob("*/paper.html")):
        data = page.read_bytes()
        bare, soup, ours = [], [], []
        for _ in range(args.repeat):
            start = time.perf_counter()
            lxml.html.fromstring(data, parser=LXML)
            bare.append(time.perf_counter() - start)
            start = time.perf_counter()
            BeautifulSoup(data, "lxml").find_all("figure")
            soup.append(time.perf_counter() - start)
            start = time.perf_counter()
            parse_paper(data, "https://arxiv.org/html/2409.99999v1")
            ours.append(time.perf_counter() - start)
        b, s, o = (statistics.median(x) * 1000 for x in (bare, soup, ours))
        soup_over_lxml.append(s / b)
        soup_over_ours.append(s / o)
        print(f"{page.parent.name:28s} {b:8.2f} {s:8.2f} {o:8.2f} {s / b:9.1f}")
    print(
        f"BeautifulSoup's tree alone: {statistics.median(soup_over_lxml):.1f}× a bare lxml parse "
        f"(range {min(soup_over_lxml):.1f}–{max(soup_over_lxml):.1f}), "
        f"{statistics.median(soup_over_ours):.1f}× the whole extraction"
    )


if __name__ == "__main__":
    main()
