"""`simulate_annotation`: synthetic experts take synthetic papers through the real workflow."""

from __future__ import annotations

import logging
import time

from django.core.management.base import BaseCommand, CommandError, CommandParser

from annotation.errors import AnnotationError
from papers.synthetic import SyntheticError
from workspace.demo.simulate import leftover_counts, simulate


class Command(BaseCommand):
    help = (
        "Populate the project with demo data: import synthetic copies of the fixture papers "
        "and drive them through curation, claim writing, second annotation, adjudication and "
        "validation with synthetic experts (the same services the pages call). Running it "
        "again with the same arguments adds nothing."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--papers", type=int, default=24, help="synthetic papers (default 24)")
        parser.add_argument("--seed", type=int, default=13)
        parser.add_argument(
            "--pairs-per-paper",
            type=float,
            default=1.4,
            help="mean claim pairs written per paper (SciVer: about 1.35)",
        )
        parser.add_argument(
            "--no-leftovers",
            action="store_true",
            help="take every paper to the end (by default the last few wait for people)",
        )

    def handle(self, *args, **options) -> None:
        if options["papers"] < 0:
            raise CommandError("--papers cannot be negative.")
        if not 0.25 <= options["pairs_per_paper"] <= 10:
            raise CommandError("--pairs-per-paper must be between 0.25 and 10.")
        if options["verbosity"] < 2:  # one line per synthetic account is noise here
            logging.getLogger("annotation.experts.services").setLevel(logging.WARNING)
        started = time.monotonic()

        def progress(done: int, total: int, message: str) -> None:
            # Every paper (a line each), or every fiftieth of a long run: counts that advance
            # evenly, not by how fast the machine was between two lines.
            if done % max(1, total // 50) == 0 or done == total:
                self.stdout.write(f"  [{done}/{total}] {message}")

        try:
            report = simulate(
                papers=options["papers"],
                seed=options["seed"],
                pairs_per_paper=options["pairs_per_paper"],
                leave=not options["no_leftovers"],
                progress=progress,
            )
        except (AnnotationError, SyntheticError) as exc:
            raise CommandError(str(exc)) from None
        if not report.papers_simulated:
            self.stdout.write(
                f"Nothing to add: the {options['papers']} synthetic papers were simulated before."
            )
            return
        for line in report.lines():
            self.stdout.write(line)
        open_items = ", ".join(f"{k} {v}" for k, v in leftover_counts().items() if v)
        self.stdout.write(f"open work items: {open_items or 'none'}")
        self.stdout.write(self.style.SUCCESS(f"done in {time.monotonic() - started:.1f} s"))
