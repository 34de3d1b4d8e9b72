"""Benchmark: full extraction against a bare lxml parse of the same bytes, per fixture page.

Run by hand: `make bench` (or `python bench/parse.py [--repeat N] [--faults] [--check R]`).
Each round parses every page once with `lxml.html` and once with the parser, interleaved, so
that a busy machine slows both alike; the figures are medians over the rounds. `--faults`
adds the fault pages of tests/papers/fault_pages.py (made from the largest corpus page) and
how long the renderer takes to refuse the 6 KB table of rowspan=1000 colspan=1000 cells.
`--check R` exits 1 when the median ratio of a corpus page or of the synthetic page exceeds
R (the issue asks for 4); fault pages are timed to show what each fault costs, not held to R
(1,500 nested divs cost the walk what 1,500 elements cost, and lxml reads them for little).
Figures go in docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

import lxml.html

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.synthetic import synthetic_page  # noqa: E402
from papers.parsing import ParseError, parse_paper  # noqa: E402

CORPUS = Path(__file__).resolve().parent.parent / "papers" / "corpus"
PAGES = Path(__file__).resolve().parent.parent / "tests" / "papers" / "pages"
URL = "https://arxiv.org/html/2409.99999v1"
# huge_tree as the parser has it: without, lxml stops reading at 256 nested elements and a
# deeply nested fault page would be compared with a parse of its first part only.
LXML = lxml.html.HTMLParser(huge_tree=True)


def full_parse(data: bytes) -> str:
    """The parse, or the reason it refused the page (a refusal is a result too)."""
    try:
        paper = parse_paper(data, URL)
    except ParseError as exc:
        return f"ParseError: {exc.reason[:40]}"
    return f"{len(paper.tables())} tables, {len(paper.charts())} charts"


def timed(fn: Callable[[], object]) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def fault_pages() -> list[tuple[str, bytes]]:
    from tests.papers.fault_pages import EXAMPLES, example

    base = max(CORPUS.glob("*/paper.html"), key=lambda p: p.stat().st_size)
    data = base.read_bytes()
    return [(f"fault: {name}", example(name, data)) for name in EXAMPLES]


def render_refusal_ms() -> tuple[float, str]:
    """The Pillow renderer on the issue's table: 6 KB of rowspan=1000 colspan=1000 cells."""
    from papers.parsing.document import Cell
    from papers.render.limits import RenderError
    from papers.render.pillow import render_table_pillow

    grid = [[Cell(f"{r}.{c}", 1000, 1000) for c in range(10)] for r in range(10)]
    start = time.perf_counter()
    try:
        render_table_pillow(grids=[grid], label="Table 1", caption="spans")
    except RenderError as exc:
        return (time.perf_counter() - start) * 1000, exc.reason
    return (time.perf_counter() - start) * 1000, "drawn (no refusal)"


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=15, help="rounds (medians over them)")
    parser.add_argument("--faults", action="store_true", help="time the fault pages too")
    parser.add_argument(
        "--check", type=float, metavar="R", help="exit 1 if a median ratio exceeds R"
    )
    args = parser.parse_args()
    pages = [(p.parent.name, p.read_bytes()) for p in sorted(CORPUS.glob("*/paper.html"))]
    # Pages shaped as arXiv serves them in 2026 (LaTeXML oxide, a trailer, a REVTeX page).
    pages += [
        (f"2026: {p.parent.name}", p.read_bytes()) for p in sorted(PAGES.glob("*/paper.html"))
    ]
    pages.append(("synthetic (2 MB)", synthetic_page()))
    if args.faults:
        pages += fault_pages()
    results = {name: full_parse(data) for name, data in pages}  # and warm every cache
    floors: dict[str, list[float]] = {name: [] for name, _ in pages}
    fulls: dict[str, list[float]] = {name: [] for name, _ in pages}
    for _ in range(args.repeat):
        for name, data in pages:
            floors[name].append(timed(lambda d=data: lxml.html.document_fromstring(d, parser=LXML)))
            fulls[name].append(timed(lambda d=data: full_parse(d)))
    print(f"{'page':<36} {'bytes':>9} {'lxml ms':>8} {'full ms':>8} {'ratio':>6}  result")
    worst = 0.0
    for name, data in pages:
        floor, full = statistics.median(floors[name]), statistics.median(fulls[name])
        ratio = full / floor
        if not name.startswith("fault: "):
            worst = max(worst, ratio)
        print(
            f"{name:<36} {len(data):>9} {floor * 1000:>8.2f} {full * 1000:>8.2f} {ratio:>6.2f}"
            f"  {results[name]}"
        )
    if args.faults:
        ms, reason = render_refusal_ms()
        print(f"renderer on 6 KB of rowspan=1000 colspan=1000 cells: {ms:.2f} ms ({reason})")
    if args.check is not None and worst > args.check:
        print(f"a median ratio is {worst:.2f}, over {args.check}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
