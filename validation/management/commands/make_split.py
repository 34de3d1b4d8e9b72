"""`make_split`: draw and freeze a validation/test split over the validated claim pairs."""

from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError, CommandParser

from annotation.errors import AnnotationError
from validation import services


class Command(BaseCommand):
    help = "Freeze a random split (stratified by subset, pairs kept together) under a new name."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--validation", type=int, required=True, help="claims (a pair is 2)")
        parser.add_argument("--test", type=int, required=True, help="claims (a pair is 2)")
        parser.add_argument("--seed", type=int, default=13)
        parser.add_argument("--licenses", "--licences", default="", help="e.g. cc-by,cc0")
        parser.add_argument("--name", default="", help="the split's version name (default v<n>)")

    def handle(self, *args, **options) -> None:
        licences = [x for x in options["licenses"].split(",") if x.strip()]
        try:
            split = services.freeze_split(
                validation=options["validation"], test=options["test"], seed=options["seed"],
                licences=licences, name=options["name"] or None,
            )  # fmt: skip
        except AnnotationError as exc:
            raise CommandError(str(exc)) from exc
        self.stdout.write(f"split {split.name} frozen (seed {split.seed})")
        for part, counts in split.counts.items():
            shown = ", ".join(f"{subset} {n}" for subset, n in counts.items())
            self.stdout.write(f"  {part}: {sum(counts.values())} claims ({shown})")
