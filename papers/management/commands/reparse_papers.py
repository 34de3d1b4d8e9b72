"""python manage.py reparse_papers [ID...|--all] [--dry-run]: parse stored pages again."""

from __future__ import annotations

from pathlib import Path

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser

from papers.assets import AssetSource, FolderAssets
from papers.crawl.client import ArxivClient
from papers.crawl.fetch_phase import GatedAssets
from papers.importing import PaperImportError
from papers.models import Paper
from papers.reparse import reparse_paper


class Command(BaseCommand):
    help = (
        "Parse papers' stored HTML again with the current parser: report per paper what "
        "changed (elements added, changed, removed), add what the earlier parse lost, and "
        "never remove, renumber or rewrite an element or section that a curated context, a "
        "claim or an evidence mark cites (those differences are listed for an admin instead)."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("ids", nargs="*", type=int, help="Paper ids (the admin's #)")
        parser.add_argument(
            "--all", action="store_true", help="Every paper with a stored page, oldest first"
        )
        parser.add_argument(
            "--dry-run", action="store_true", help="Report what would change; write nothing"
        )
        parser.add_argument(
            "--assets",
            type=Path,
            help="Folder of a saved page's images (one paper): where added charts' images are",
        )
        parser.add_argument(
            "--fetch-images",
            action="store_true",
            help="Fetch added charts' images from arXiv (through the crawler's politeness gate)",
        )
        parser.add_argument(
            "--images",
            choices=["now", "none"],
            default="now",
            help="Draw added or changed tables now (default) or leave them without an image",
        )

    def handle(self, *args, **options) -> None:
        ids: list[int] = options["ids"]
        if bool(ids) == bool(options["all"]):
            raise CommandError("name paper ids, or pass --all (not both)")
        if options["assets"] and (options["all"] or len(ids) != 1):
            raise CommandError("--assets is one saved page's folder: name exactly one paper")
        if options["assets"] and not options["assets"].is_dir():
            raise CommandError(f"--assets {options['assets']}: no such folder")
        papers = Paper.objects.exclude(raw_html_compressed=None).order_by("pk")
        if ids:
            found = set(Paper.objects.filter(pk__in=ids).values_list("pk", flat=True))
            missing = sorted(set(ids) - found)
            if missing:
                raise CommandError(f"no paper with id {', '.join(map(str, missing))}")
            papers = Paper.objects.filter(pk__in=ids).order_by("pk")
        assets = self._assets(options)
        failures = protected = 0
        total = 0
        for paper_id in papers.values_list("pk", flat=True):
            total += 1
            try:
                report = reparse_paper(
                    paper_id=paper_id,
                    assets=assets,
                    dry_run=options["dry_run"],
                    images=options["images"],
                    min_tables=settings.MIN_TABLES,
                    min_charts=settings.MIN_CHARTS,
                )
            except PaperImportError as exc:
                failures += 1
                self.stderr.write(self.style.ERROR(f"paper #{paper_id}: {exc.reason}"))
                continue
            protected += len(report.protected)
            head, *rest = report.lines()
            self.stdout.write(self.style.SUCCESS(head))
            for line in rest:
                style = self.style.WARNING if line.lstrip()[:1] in ("!", "w", "p") else str
                self.stdout.write(style(line))
        if protected:
            self.stdout.write(
                self.style.WARNING(
                    f"{protected} difference(s) left as stored because work cites them (lines "
                    "with !): an admin decides about each in the admin"
                )
            )
        if failures:
            raise CommandError(f"{failures} of {total} paper(s) not re-parsed")

    def _assets(self, options) -> AssetSource | None:
        if options["assets"]:
            return FolderAssets(options["assets"])
        if options["fetch_images"]:
            return GatedAssets(ArxivClient.from_settings())
        return None
