"""python manage.py import_arxiv_html PATH... : import saved arXiv HTML pages."""

from __future__ import annotations

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError, CommandParser

from papers.assets import FolderAssets
from papers.importing import PaperImportError, import_paper
from papers.local_pages import LocalPageError, locate_page


class Command(BaseCommand):
    help = (
        "Import saved arXiv HTML pages (a page file, or a folder holding the page and its "
        "images) into the database. Re-importing the same arXiv id and version replaces it."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("paths", nargs="+", type=Path)
        parser.add_argument(
            "--arxiv-id", help="arXiv id (with version) when the file name does not tell"
        )
        parser.add_argument(
            "--images",
            choices=["auto", "now", "job", "none"],
            default="auto",
            help="Table screenshots: now, by a background job (auto: a job when REDIS_URL "
            "is set), or not at all",
        )

    def handle(self, *args, **options) -> None:
        paths: list[Path] = options["paths"]
        if options["arxiv_id"] and len(paths) > 1:
            raise CommandError("--arxiv-id can only be used with a single PATH")
        failures = 0
        for path in paths:
            try:
                page = locate_page(path, arxiv_id=options["arxiv_id"])
                result = import_paper(
                    html=page.html_path.read_bytes(),
                    page_url=page.html_path.resolve().as_uri(),
                    assets=FolderAssets(page.folder),
                    arxiv_id=page.arxiv_id,
                    version=page.version,
                    metadata=page.metadata,
                    images=options["images"],
                )
            except (LocalPageError, OSError) as exc:
                failures += 1
                self.stderr.write(self.style.ERROR(f"{path}: {exc}"))
                continue
            except PaperImportError as exc:
                failures += 1
                self.stderr.write(self.style.ERROR(f"{path}: not imported: {exc.reason}"))
                continue
            self.stdout.write(self.style.SUCCESS(result.summary()))
            for line in page.notes:  # how the version was read, or a given one the page denies
                self.stdout.write(self.style.WARNING(f"  {line}"))
            # Every numbered float not kept, every number printed twice, every unreadable image.
            for line in [*result.warnings, *result.problems]:
                self.stdout.write(self.style.WARNING(f"  {line}"))
            for line in result.notes:  # algorithms, listings: said, quieter
                self.stdout.write(f"  {line}")
        if failures:
            raise CommandError(f"{failures} of {len(paths)} page(s) not imported")
