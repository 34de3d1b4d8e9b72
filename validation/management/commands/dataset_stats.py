"""`dataset_stats`: SciVer Table 2 figures per split (or the validated pool), and progress."""

from __future__ import annotations

import json

from django.core.management.base import BaseCommand, CommandError, CommandParser

from validation import selectors
from validation.models import SplitVersion


class Command(BaseCommand):
    help = "Print the dataset statistics (Table 2, evidence counts, subsets, subfields, stages)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--split", default="", help="a frozen split (default: the pool)")
        parser.add_argument("--json", action="store_true")

    def handle(self, *args, **options) -> None:
        name = options["split"] or None
        if name and not SplitVersion.objects.filter(name=name).exists():
            names = ", ".join(SplitVersion.objects.values_list("name", flat=True)) or "none yet"
            raise CommandError(
                f"There is no split {name!r} (splits: {names}); leave out --split for the pool."
            )
        result = selectors.dataset_statistics(name)
        synthetic = selectors.synthetic_summary(name)
        result["synthetic"] = synthetic
        if options["json"]:
            self.stdout.write(json.dumps(result, indent=2, default=str))
            return
        write = self.stdout.write
        write("Progress: " + " → ".join(f"{label} {n}" for label, n in result["progress"]))
        write(
            f"Validated {result['validated']}, revised {result['revised']}; "
            f"{result['splittable_pairs']} pairs may enter a split, "
            f"{result['back_to_writer']} wait for a new perturbation"
        )
        if synthetic["any"]:
            write(
                self.style.WARNING(
                    f"warning: {synthetic['papers']} of {synthetic['all_papers']} papers are "
                    "synthetic (simulate_annotation's copies of fixture papers, not real arXiv papers)"
                )
            )
        write(f"({result['words_note']})")
        for part, figures in result["parts"].items():
            write(f"\n== {part} ==")
            for key, value in figures["table2"].items():
                write(f"  {key:<28} {value}")
            fake = synthetic["parts"].get(part)
            if fake:
                write(f"  {'synthetic claims':<28} {fake['claims']} (on {fake['papers']} papers)")
            write(
                "  evidence pieces: "
                + ", ".join(f"{k} {v}" for k, v in figures["evidence"].items())
            )
            for title in ("subsets", "subfields"):
                write(
                    f"  {title}: "
                    + ", ".join(
                        f"{k} {v['total']} ({v['entailed']}/{v['refuted']})"
                        for k, v in figures[title].items()
                    )
                )
