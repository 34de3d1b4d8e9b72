"""`manage.py backup --out DIR`: the database, MEDIA_ROOT and RELEASE_DIR into a new folder."""

from __future__ import annotations

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from config.backup import BackupError, backup


class Command(BaseCommand):
    help = (
        "Back up the database (pg_dump custom format, or SQLite's online backup), MEDIA_ROOT and "
        "RELEASE_DIR into DIR, with a manifest of SHA-256 hashes and row counts."
    )

    def add_arguments(self, parser) -> None:
        parser.add_argument("--out", required=True, type=Path, help="a new or empty folder")
        parser.add_argument("--database", default="default", help="database alias")

    def handle(self, *args, out: Path, database: str, **options) -> None:
        try:
            summary = backup(out, using=database)
        except BackupError as exc:
            raise CommandError(str(exc)) from exc
        self.stdout.write(f"backup written: {'; '.join(summary.lines())}")
