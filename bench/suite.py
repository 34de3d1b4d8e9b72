"""Benchmark: the test suite's own time, from the JUnit XML files of whole-suite runs.

Run by hand, after whole-suite runs that wrote `--junitxml=FILE` (pytest's per-test time there
is setup + call + teardown, what `--durations=0` lists phase by phase):

    python bench/suite.py LABEL=run.xml [LABEL=run.xml ...] [--slowest N] [--over S]

For each run: tests collected and run, their summed time, the median, the slowest test, how
many took over S seconds (default 60), and the wall time pytest reported. Give runs of two
commits that alternated on one machine (A, B, A, B): the machines are shared and noisy, so
compare runs made side by side, never a figure from another day. Figures go in
docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from pathlib import Path


@dataclass
class Run:
    label: str
    times: dict[str, float]  # test id -> seconds (setup + call + teardown)
    failed: int
    skipped: int
    wall: float

    @property
    def total(self) -> float:
        return sum(self.times.values())


def read_run(label: str, path: Path) -> Run:
    root = ET.parse(path).getroot()
    suites = [root] if root.tag == "testsuite" else list(root.iter("testsuite"))
    times: dict[str, float] = {}
    failed = skipped = 0
    wall = 0.0
    for suite in suites:
        wall += float(suite.get("time") or 0)
        for case in suite.iter("testcase"):
            name = f"{case.get('classname')}::{case.get('name')}"
            times[name] = times.get(name, 0.0) + float(case.get("time") or 0)
            failed += sum(1 for c in case if c.tag in ("failure", "error"))
            skipped += sum(1 for c in case if c.tag == "skipped")
    return Run(label, times, failed, skipped, wall)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("runs", nargs="+", help="LABEL=path/to/junit.xml")
    parser.add_argument("--slowest", type=int, default=5, help="list the N slowest tests")
    parser.add_argument("--over", type=float, default=60.0, help="count tests over S seconds")
    args = parser.parse_args(argv)
    runs = []
    for spec in args.runs:
        label, _, path = spec.rpartition("=")
        runs.append(read_run(label or Path(path).stem, Path(path)))
    print(
        f"{'run':<16} {'tests':>6} {'failed':>6} {'skipped':>7} {'summed s':>9} "
        f"{'median s':>8} {'slowest s':>9} {f'> {args.over:g} s':>7} {'wall s':>7}"
    )
    for run in runs:
        values = list(run.times.values()) or [0.0]
        print(
            f"{run.label:<16} {len(run.times):>6} {run.failed:>6} {run.skipped:>7} "
            f"{run.total:>9.1f} {statistics.median(values):>8.3f} {max(values):>9.1f} "
            f"{sum(1 for v in values if v > args.over):>7} {run.wall:>7.0f}"
        )
    for run in runs:
        print(f"\n{run.label}: the {args.slowest} slowest")
        for name, seconds in sorted(run.times.items(), key=lambda kv: -kv[1])[: args.slowest]:
            print(f"  {seconds:7.1f} s  {name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
