"""`check_release DIR`: verify a release folder; exits non-zero with the problems found."""

from __future__ import annotations

from pathlib import Path

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser

from validation.release_check import inspect_release

SHOWN = 200


class Command(BaseCommand):
    help = (
        "Verify a release: record schema, paths, checksums, sizes, unique paperids and image "
        "names, pairs, hidden labels, format version; every record read as SciVer's code reads "
        "it gives the model its claim's evidence; no paper in both parts (unless the split "
        "allowed it), no claim repeated across parts exactly or nearly, no raw HTML in any text; "
        "warns about synthetic (demo) content and counts the LaTeX a model reads."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("dir")

    def handle(self, *args, **options) -> None:
        root = Path(options["dir"])
        if not root.is_dir():
            raise CommandError(f"{root} is not a folder.")
        report = inspect_release(root, artifact_margin=settings.ARTIFACT_MARGIN)
        for warning in report.warnings:
            self.stdout.write(self.style.WARNING(f"warning: {warning}"))
        problems = report.problems
        if problems:
            for problem in problems[:SHOWN]:
                self.stderr.write(problem)
            if len(problems) > SHOWN:
                self.stderr.write(f"… and {len(problems) - SHOWN} more")
            raise CommandError(
                f"{len(problems)} problem(s) in {root}. Export the split again "
                "(python manage.py export_release --split NAME --out DIR --overwrite) rather than "
                "editing the files by hand."
            )
        self.stdout.write(f"{root}: release OK" + (" (with warnings)" if report.warnings else ""))
