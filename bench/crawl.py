"""Benchmark: the crawler's own cost per paper against the stand-in arXiv, beside arXiv's 3 s.

Search, fetch, parse and store with the politeness delay set to 0 (table screenshots off:
they run as their own jobs), so the wall time is all ours (and the loopback stand-in's).
Run by hand: `python bench/crawl.py [--copies 8] [--with-delay]`. Figures go in docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ARXIV_INTERVAL = 3.0


def start_standin(copies: int) -> tuple[subprocess.Popen[str], str]:
    """The stand-in in a process of its own, so that its CPU is not counted as ours."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "tests.standin", "--port", "0", "--copies", str(copies)],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None
    line = proc.stdout.readline()
    match = re.search(r"listening on (http://127\.0\.0\.1:\d+) with (\d+) papers", line)
    if not match:
        proc.kill()
        raise SystemExit(f"stand-in did not start: {line!r}")
    return proc, match.group(1)


def setup_django(workdir: Path, url: str, delay: float) -> None:
    os.environ.update(
        {
            "DJANGO_SETTINGS_MODULE": "config.settings",
            "SCIVER_TESTING": "1",
            "DATABASE_URL": f"sqlite:///{workdir / 'bench.sqlite3'}",
            "REDIS_URL": "",
            "MEDIA_ROOT": str(workdir / "media"),
            "ARXIV_API_URL": f"{url}/api/query",
            "ARXIV_HTML_URL": f"{url}/html/",
            "ARXIV_ABS_URL": f"{url}/abs/",
            "ARXIV_DELAY_SECONDS": str(delay),
            "LOG_LEVEL": "WARNING",
        }
    )
    sys.path.insert(0, str(ROOT))
    import django

    django.setup()
    from django.conf import settings
    from django.core.management import call_command

    settings.ARXIV_GATE_FILE = str(workdir / "gate")
    call_command("migrate", verbosity=0)


def crawl(max_papers: int | None) -> dict[str, object]:
    from datetime import date

    from papers.crawl.runner import execute_crawl
    from papers.crawl.services import DEFAULT_CATEGORIES, create_crawl_run

    run = create_crawl_run(
        date_from=date(2024, 9, 1),
        date_to=date(2024, 11, 15),
        categories=DEFAULT_CATEGORIES,
        max_papers=max_papers,
        images="none",
        chunk_days=7,
    )
    started = time.perf_counter()
    run = execute_crawl(run_id=run.pk)
    wall = time.perf_counter() - started
    counts = run.counts()
    papers = int(counts["fetched"])  # type: ignore[call-overload]
    stats = run.stats
    return {
        "status": run.status,
        "papers": papers,
        "kept": counts["kept"],
        "wall": wall,
        "requests": stats["requests"],
        "by_kind": stats["by_kind"],
        "wait": stats["wait_seconds"],
        "request_seconds": stats["request_seconds"],
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--copies", type=int, default=8, help="corpus copies to serve")
    parser.add_argument(
        "--with-delay",
        action="store_true",
        help="also crawl 2 papers at the real 3 s interval (takes about a minute)",
    )
    args = parser.parse_args()
    proc, url = start_standin(args.copies)
    try:
        with tempfile.TemporaryDirectory() as tmp:
            setup_django(Path(tmp), url, delay=0.0)
            result = crawl(max_papers=None)
            report(result, delay=0.0)
            if args.with_delay:
                from django.conf import settings

                settings.ARXIV_DELAY_SECONDS = ARXIV_INTERVAL
                from papers.models import Paper

                Paper.objects.all().delete()
                report(crawl(max_papers=2), delay=ARXIV_INTERVAL)
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def report(r: dict[str, object], *, delay: float) -> None:
    papers = max(1, int(r["papers"]))  # type: ignore[call-overload]
    wall = float(r["wall"])  # type: ignore[arg-type]
    wait = float(r["wait"])  # type: ignore[arg-type]
    requests = int(r["requests"])  # type: ignore[call-overload]
    own = wall - wait
    per_paper = own / papers
    per_request = own / max(1, requests)
    print(
        f"\n== delay {delay:g} s: {r['status']}, {papers} papers fetched ({r['kept']} kept), "
        f"{requests} requests {r['by_kind']}"
    )
    print(f"wall {wall:.2f} s, waiting for the gate {wait:.2f} s, our own cost {own:.2f} s")
    print(
        f"own cost per paper   {per_paper * 1000:8.1f} ms  = "
        f"{100 * per_paper / ARXIV_INTERVAL:5.1f}% of one 3 s interval"
    )
    print(
        f"own cost per request {per_request * 1000:8.1f} ms  = "
        f"{100 * per_request / ARXIV_INTERVAL:5.1f}% of the 3 s each request must wait"
    )
    print(
        f"requests per paper   {requests / papers:8.1f}     -> arXiv's limit alone: "
        f"{requests / papers * ARXIV_INTERVAL:.0f} s per paper"
    )


if __name__ == "__main__":
    main()
