"""Benchmark: make_split, dataset_stats and export_release at SciVer's scale (3,000 items over
about 1,100 papers), the export beside a plain copy of the same bytes (the floor) in the same run.

Run by hand (PostgreSQL on 127.0.0.1; the database is created when missing and filled once by
`simulate_annotation --papers 1100`, under 10 minutes on these machines; later runs reuse it):

    python bench/release.py [--database-url postgres://postgres@127.0.0.1:5432/sciver_bench_release]
                            [--papers 1100] [--repeat 5]

Each round makes a default split (1,000 + 2,000, default licences), states it, exports it, copies
the exported folder (the floor: the same files and bytes, no database and no encoding) and
checks the export with `check_release`, which must find zero problems. The export and the copy
each start after `os.sync()`, so that neither pays for the other's writes still in flight. It
prints the median and the spread of each step and the median of the per-round ratios export /
copy.

Targets: make_split and dataset_stats each in seconds; export ≤ 3 × the plain copy.
"""

from __future__ import annotations

import argparse
import io
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.postgres import ensure_database  # noqa: E402

DEFAULT_URL = "postgres://postgres@127.0.0.1:5432/sciver_bench_release"


def timed(fn, *args, **kwargs) -> float:
    started = time.perf_counter()
    fn(*args, **kwargs)
    return time.perf_counter() - started


def tree_bytes(root: Path) -> tuple[int, int]:
    files = [p for p in root.rglob("*") if p.is_file()]
    return len(files), sum(p.stat().st_size for p in files)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--database-url", default=os.environ.get("BENCH_DATABASE_URL", DEFAULT_URL))
    parser.add_argument("--papers", type=int, default=1100)
    parser.add_argument("--pairs-per-paper", type=float, default=1.45)
    parser.add_argument("--validation", type=int, default=1000)
    parser.add_argument("--test", type=int, default=2000)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    media = ROOT / "var" / "bench-release-media"  # kept with the database it belongs to
    media.mkdir(parents=True, exist_ok=True)
    os.environ.update(
        {
            "DATABASE_URL": args.database_url,
            "MEDIA_ROOT": str(media),
            "DEBUG": "0",
            "SCIVER_DEV": "0",
            "SECRET_KEY": "bench-only-" + "x" * 40,
            "LOG_LEVEL": "WARNING",
            "REDIS_URL": "",
            "DJANGO_SETTINGS_MODULE": "config.settings",
        }
    )
    if args.database_url.startswith("postgres"):
        ensure_database(args.database_url)

    import django
    from django.core.management import call_command

    django.setup()
    from validation import selectors

    call_command("migrate", verbosity=0)
    started = time.perf_counter()
    call_command(
        "simulate_annotation",
        "--papers",
        str(args.papers),
        "--seed",
        "13",
        "--pairs-per-paper",
        str(args.pairs_per_paper),
        "--no-leftovers",
    )
    print(f"data ready in {time.perf_counter() - started:.1f} s")
    stats = selectors.dataset_statistics(None)
    print(
        f"pool: {stats['validated']} validated claims, {stats['splittable_pairs']} pairs may "
        f"enter a split; papers {stats['parts']['validated pool']['table2']['papers']}"
    )

    from validation.release_check import inspect_release

    steps = (
        "make_split",
        "dataset_stats (pool)",
        "dataset_stats (split)",
        "export_release",
        "plain copy",
        "check_release",
    )
    results: dict[str, list[float]] = {step: [] for step in steps}
    ratios: list[float] = []
    problems: list[int] = []
    files = size = 0
    quiet = io.StringIO()
    from validation.models import SplitVersion

    for n in range(args.repeat):
        name = f"bench-{int(time.time())}-{n}"
        split = ["--validation", str(args.validation), "--test", str(args.test)]
        results["make_split"].append(
            timed(
                call_command,
                "make_split",
                *split,
                "--seed",
                str(13 + n),
                "--name",
                name,
                stdout=quiet,
            )
        )
        made = SplitVersion.objects.get(name=name)
        print(
            f"split {name}: papers validation {made.papers.get('validation', 0)} + test "
            f"{made.papers.get('test', 0)} (SciVer 327 + 786); shared papers allowed: "
            f"{made.shared_papers_allowed}; claims by subset {made.counts}"
        )
        results["dataset_stats (pool)"].append(
            timed(call_command, "dataset_stats", "--json", stdout=quiet)
        )
        results["dataset_stats (split)"].append(
            timed(call_command, "dataset_stats", "--split", name, "--json", stdout=quiet)
        )
        with tempfile.TemporaryDirectory(prefix="sciver-bench-release-") as tmp:
            out, copy = Path(tmp) / "export" / "SciVer", Path(tmp) / "copy" / "SciVer"
            # Each timed write starts with nothing left to flush: otherwise the copy would pay
            # for the export's pages still going to disk, and the next round's export for both.
            os.sync()
            export = timed(
                call_command,
                "export_release",
                "--split",
                name,
                "--out",
                str(out),
                stdout=quiet,
                stderr=quiet,
            )
            os.sync()
            floor = timed(shutil.copytree, out, copy)
            results["export_release"].append(export)
            results["plain copy"].append(floor)
            ratios.append(export / floor)
            started = time.perf_counter()
            report = inspect_release(out)
            results["check_release"].append(time.perf_counter() - started)
            problems.append(len(report.problems))
            for problem in report.problems[:20]:
                print(f"  check_release: {problem}")
            if n == 0:  # the duplicate count and the other warnings, once
                for warning in report.warnings:
                    print(f"  check_release warning: {warning[:400]}")
            files, size = tree_bytes(out)
    print(f"\nrelease: {files} files, {size / 1e6:.1f} MB ({args.validation} + {args.test} claims)")
    print(f"{'step (' + str(args.repeat) + ' rounds)':<26}{'median s':>10}{'min s':>8}{'max s':>8}")
    for step, values in results.items():
        print(f"{step:<26}{statistics.median(values):>10.2f}{min(values):>8.2f}{max(values):>8.2f}")
    print(
        f"\nexport / plain copy, median of the rounds' ratios: {statistics.median(ratios):.2f} "
        f"(rounds: {', '.join(f'{r:.2f}' for r in ratios)}; target ≤ 3)"
    )
    print(f"check_release problems per round: {', '.join(map(str, problems))} (target 0)")
    if any(problems):
        sys.exit(1)


if __name__ == "__main__":
    main()
