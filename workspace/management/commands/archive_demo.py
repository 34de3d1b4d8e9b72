"""python manage.py archive_demo [--undo] : put the demo data away once a real project starts."""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError, CommandParser

from annotation.errors import AnnotationError
from workspace.demo import archive


class Command(BaseCommand):
    help = (
        "Archive the demo data: every synthetic paper (simulate_annotation's copies, with their "
        "claims and work) and the synthetic experts. Nothing is deleted; --undo brings it back."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--undo", action="store_true", help="un-archive the demo data")
        parser.add_argument("--by", default="", help="username recorded as having done it")

    def handle(self, *args, **options) -> None:
        by = None
        if options["by"]:
            by = get_user_model().objects.filter(username=options["by"]).first()
            if by is None:
                raise CommandError(f"There is no user {options['by']!r}.")
        if not options["undo"]:
            self._say_strands(archive.demo_strands())
        try:
            if options["undo"]:
                result = archive.unarchive_demo(by=by)
            else:
                result = archive.archive_demo(by=by)
        except AnnotationError as exc:  # a refusal, said as one (not a traceback)
            raise CommandError(exc.message) from None
        if options["undo"]:
            self.stdout.write(
                f"Un-archived {result.papers} synthetic paper(s) and "
                f"{len(result.accounts)} synthetic expert(s) (they stay inactive)."
            )
            return
        self.stdout.write(
            f"Archived {result.papers} synthetic paper(s) and {len(result.accounts)} synthetic "
            "expert(s): hidden from lists, statistics, agreement, splits and exports; nothing "
            "deleted (python manage.py archive_demo --undo brings them back)."
        )
        for name, why in result.kept:
            self.stdout.write(self.style.WARNING(f"  not archived: {name}: {why}"))

    def _say_strands(self, strands: archive.DemoStrands) -> None:
        """What the archive leaves stranded (the Papers page asks before it; a script is told)."""
        if not strands:
            return
        self.stdout.write(
            self.style.WARNING(
                "Stranded by this archive (leaves every queue and workspace until --undo):"
            )
        )
        for line in strands.lines():
            self.stdout.write(self.style.WARNING(f"  {line}"))
