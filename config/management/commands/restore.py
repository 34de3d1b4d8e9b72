"""`manage.py restore DIR`: a backup into a fresh database and empty media and release folders."""

from __future__ import annotations

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError

from config.backup import BackupError, RestoredWithProblems, read_manifest, restore


class Command(BaseCommand):
    help = (
        "Restore a backup made by `manage.py backup` into the (fresh, empty) database of "
        "DATABASE_URL and empty MEDIA_ROOT and RELEASE_DIR; --verify-only checks its hashes."
    )
    # The database is empty until the restore: checks that read it would fail.
    requires_system_checks = []

    def add_arguments(self, parser) -> None:
        parser.add_argument("source", type=Path, help="the backup folder")
        parser.add_argument("--database", default="default", help="database alias")
        parser.add_argument(
            "--verify-only", action="store_true", help="check the hashes, change nothing"
        )

    def handle(self, *args, source: Path, database: str, verify_only: bool, **options) -> None:
        try:
            if verify_only:
                manifest = read_manifest(source)
                self.stdout.write(
                    f"{source}: every file matches its hash ({manifest['created_at']})"
                )
                return
            summary = restore(source, using=database)
        except RestoredWithProblems as exc:
            raise CommandError(
                f"{exc} The restore wrote the database and folders: check them."
            ) from exc
        except BackupError as exc:
            said = "" if verify_only else " Nothing was restored; nothing was changed."
            raise CommandError(f"{exc}{said}") from exc
        self.stdout.write(f"restored: {'; '.join(summary.lines())}")
        self.stdout.write("If this code is newer than the backup, run `manage.py migrate` now.")
