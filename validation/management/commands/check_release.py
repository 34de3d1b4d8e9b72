"""`check_release DIR`: verify a release folder; exits non-zero with the problems found."""

from __future__ import annotations

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError, CommandParser

from validation.release_check import check_release


class Command(BaseCommand):
    help = "Verify a release: record schema, paths, checksums, sizes, pairs, hidden labels."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("dir")

    def handle(self, *args, **options) -> None:
        root = Path(options["dir"])
        if not root.is_dir():
            raise CommandError(f"{root} is not a folder.")
        problems = check_release(root)
        if problems:
            for problem in problems[:200]:
                self.stderr.write(problem)
            raise CommandError(f"{len(problems)} problem(s) in {root}.")
        self.stdout.write(f"{root}: release OK")
