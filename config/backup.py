"""Backup and restore of everything the tool holds: the database, MEDIA_ROOT and RELEASE_DIR.

A backup is a folder: the database (PostgreSQL: `pg_dump` custom format; SQLite: a copy made by
SQLite's online backup API), `media.tar` and `releases.tar`, and `manifest.json` with each
file's SHA-256 and the database's row count per table, read from the same snapshot as the dump.
A restore checks every hash first, goes only into a fresh (empty) database and empty folders,
and compares the restored row counts with the manifest.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import sqlite3
import subprocess
import tarfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from django.conf import settings
from django.db import connections, transaction
from django.utils import timezone

FORMAT = 1
MANIFEST = "manifest.json"
DATABASE_FILES = {"postgresql": "database.pgdump", "sqlite": "database.sqlite3"}
# The folders a backup holds, by the name of the setting that locates them.
FOLDERS = {"media": "MEDIA_ROOT", "releases": "RELEASE_DIR"}
PG_TIMEOUT_SECONDS = 6 * 3600


class BackupError(Exception):
    """A backup or restore that cannot go on; the message says why and what to do. A restore
    refuses with it before it writes anything."""


class RestoredWithProblems(BackupError):
    """A restore that wrote the database and the folders, whose result then differs from what
    the backup says (the message says where)."""


@dataclass(frozen=True)
class Summary:
    """What a backup holds (or a restore restored), for the command's report."""

    folder: Path
    vendor: str
    rows: int
    tables: int
    files: dict[str, int]  # folder name -> files
    bytes: int

    def lines(self) -> list[str]:
        parts = [
            f"database ({self.vendor}): {self.rows} rows in {self.tables} tables",
            *(f"{name}: {count} files" for name, count in self.files.items()),
            f"{self.bytes / 1e6:.1f} MB in {self.folder}",
        ]
        return parts


def sha256_of(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _vendor(using: str) -> str:
    vendor = connections[using].vendor
    if vendor not in DATABASE_FILES:
        raise BackupError(f"Backups support PostgreSQL and SQLite, not {vendor}.")
    return vendor


def _row_counts(cursor, vendor: str) -> dict[str, int]:
    """Rows per table (views and SQLite's own tables left out), through any DB-API cursor."""
    if vendor == "sqlite":
        cursor.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'"
        )
    else:
        cursor.execute(
            "SELECT tablename FROM pg_catalog.pg_tables WHERE schemaname = current_schema()"
        )
    tables = sorted(row[0] for row in cursor.fetchall())
    counts = {}
    for table in tables:
        quoted = '"' + table.replace('"', '""') + '"'
        cursor.execute(f"SELECT COUNT(*) FROM {quoted}")
        counts[table] = cursor.fetchone()[0]
    return counts


def _pg_env(settings_dict: dict) -> dict[str, str]:
    """libpq's environment for the database (the password never on a command line)."""
    env = {**os.environ}
    names = {"HOST": "PGHOST", "PORT": "PGPORT", "USER": "PGUSER", "PASSWORD": "PGPASSWORD"}
    for key, name in names.items():
        if settings_dict.get(key):
            env[name] = str(settings_dict[key])
    options = settings_dict.get("OPTIONS") or {}
    for key in ("sslmode", "sslrootcert", "sslcert", "sslkey"):
        if options.get(key):
            env[f"PG{key.upper()}"] = str(options[key])
    return env


def _pg_tool(name: str) -> str:
    found = shutil.which(name)
    if not found:
        raise BackupError(
            f"{name} is not installed: install PostgreSQL's client programs (Debian: "
            "postgresql-client), of the server's major version or newer."
        )
    return found


def _run(command: list[str], env: dict[str, str], what: str) -> None:
    done = subprocess.run(
        command, env=env, capture_output=True, text=True, timeout=PG_TIMEOUT_SECONDS
    )
    if done.returncode != 0:
        raise BackupError(f"{what} failed (exit {done.returncode}): {done.stderr.strip()}")


def _dump_postgresql(using: str, target: Path) -> dict[str, int]:
    """pg_dump from a snapshot this connection exported: the counts are those of the dump."""
    connection = connections[using]
    with transaction.atomic(using=using), connection.cursor() as cursor:
        cursor.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
        cursor.execute("SELECT pg_export_snapshot()")
        snapshot = cursor.fetchone()[0]
        counts = _row_counts(cursor, "postgresql")
        command = [
            _pg_tool("pg_dump"),
            "--format=custom",
            "--no-owner",
            "--no-privileges",
            f"--snapshot={snapshot}",
            f"--file={target}",
            connection.settings_dict["NAME"],
        ]
        _run(command, _pg_env(connection.settings_dict), "pg_dump")
    return counts


def _dump_sqlite(using: str, target: Path) -> dict[str, int]:
    """SQLite's online backup (a consistent copy, even of a database in use or in memory)."""
    connection = connections[using]
    connection.ensure_connection()
    copy = sqlite3.connect(target)
    try:
        connection.connection.backup(copy)
        counts = _row_counts(copy.cursor(), "sqlite")
    finally:
        copy.close()
    return counts


def _tar_folder(folder: Path, target: Path) -> int:
    """Every file under `folder` (names relative to it); an absent folder gives an empty tar."""
    files = 0
    with tarfile.open(target, "w") as archive:
        if folder.is_dir():
            for path in sorted(folder.rglob("*")):
                if path.is_file() and not path.is_symlink():
                    archive.add(path, arcname=str(path.relative_to(folder)), recursive=False)
                    files += 1
    return files


def _folder_empty(folder: Path) -> bool:
    return not folder.exists() or (folder.is_dir() and not any(folder.iterdir()))


def backup(out: Path, *, using: str = "default") -> Summary:
    """Write a backup of the database, MEDIA_ROOT and RELEASE_DIR into `out` (new or empty)."""
    out = Path(out)
    if not _folder_empty(out):
        raise BackupError(f"{out} is not empty: give a new folder for the backup.")
    if connections[using].in_atomic_block:
        # pg_dump would not see this transaction's writes, and SQLite's backup waits for it.
        raise BackupError("A backup reads committed data: run it outside any transaction.")
    vendor = _vendor(using)
    out.mkdir(parents=True, exist_ok=True)
    database_file = out / DATABASE_FILES[vendor]
    dump = _dump_postgresql if vendor == "postgresql" else _dump_sqlite
    counts = dump(using, database_file)
    manifest: dict = {
        "format": FORMAT,
        "created_at": timezone.now().isoformat(),
        "database": {
            "vendor": vendor,
            "file": database_file.name,
            "sha256": sha256_of(database_file),
            "bytes": database_file.stat().st_size,
            "tables": counts,
        },
        "folders": {},
    }
    for name, setting in FOLDERS.items():
        source = Path(getattr(settings, setting))
        archive = out / f"{name}.tar"
        files = _tar_folder(source, archive)
        manifest["folders"][name] = {
            "setting": setting,
            "file": archive.name,
            "sha256": sha256_of(archive),
            "bytes": archive.stat().st_size,
            "files": files,
        }
    (out / MANIFEST).write_text(json.dumps(manifest, indent=2, sort_keys=True) + "\n")
    return _summary(out, manifest)


def _summary(folder: Path, manifest: dict) -> Summary:
    database = manifest["database"]
    sizes = database["bytes"] + sum(f["bytes"] for f in manifest["folders"].values())
    return Summary(
        folder=folder,
        vendor=database["vendor"],
        rows=sum(database["tables"].values()),
        tables=len(database["tables"]),
        files={name: f["files"] for name, f in manifest["folders"].items()},
        bytes=sizes,
    )


def _own_file(entry: object, what: str) -> str:
    """The name of a file of the backup folder itself, as the manifest gives it: a bare name
    (no folder, no `..`), so that nothing is read from outside the backup."""
    name = entry.get("file") if isinstance(entry, dict) else None
    if not isinstance(name, str) or name in ("", ".", "..") or Path(name).name != name:
        raise BackupError(
            f"The manifest names {name!r} as the {what}: a backup's files are bare names in its "
            "own folder."
        )
    if "\\" in name or name.startswith("."):
        raise BackupError(f"The manifest names {name!r} as the {what}: not a file name it writes.")
    return name


def read_manifest(source: Path) -> dict:
    """The backup's manifest, once it is one this version wrote (a database, and only the
    folders it knows, each a file of the backup folder itself) and every file it names has the
    hash it records."""
    source = Path(source)
    try:
        manifest = json.loads((source / MANIFEST).read_text())
    except FileNotFoundError as exc:
        raise BackupError(f"{source} holds no {MANIFEST}: is it a backup folder?") from exc
    except ValueError as exc:
        raise BackupError(f"{source / MANIFEST} is not readable JSON: {exc}") from exc
    if not isinstance(manifest, dict) or manifest.get("format") != FORMAT:
        found = manifest.get("format") if isinstance(manifest, dict) else None
        raise BackupError(f"{source} is a backup of format {found}, not {FORMAT}.")
    folders = manifest.get("folders")
    if not isinstance(manifest.get("database"), dict) or not isinstance(folders, dict):
        raise BackupError(f"{source / MANIFEST} lacks its database or its folders.")
    unknown = sorted(set(folders) - set(FOLDERS))
    if unknown:
        raise BackupError(
            f"The manifest names folders this version does not restore: {', '.join(unknown)} "
            f"(it restores {', '.join(f'{n} into {s}' for n, s in FOLDERS.items())})."
        )
    _own_file(manifest["database"], "database file")
    for name, entry in folders.items():
        _own_file(entry, f"archive of {name}")
        if not isinstance(entry.get("files"), int):
            raise BackupError(f"The manifest does not say how many files {name} holds.")
    entries = [manifest["database"], *folders.values()]
    for entry in entries:
        path = source / entry["file"]
        if not path.is_file():
            raise BackupError(f"{path} is missing from the backup.")
        if sha256_of(path) != entry["sha256"]:
            raise BackupError(f"{path} does not match its SHA-256 in the manifest: damaged.")
    return manifest


@contextmanager
def _restoring(using: str) -> Iterator[None]:
    """Close the connection after a restore: the next query sees the restored database."""
    try:
        yield
    finally:
        connections[using].close()


def _check_archive(archive_path: Path, target: Path, expected_files: int, name: str) -> None:
    """Every member of a folder's archive, read before anything is written: each must pass
    tarfile's `data` filter into `target` (no absolute path, no `..`, no link out of the
    folder, no device), and the regular files must be as many as the manifest says."""
    files = 0
    try:
        with tarfile.open(archive_path) as archive:
            for member in archive:
                try:
                    tarfile.data_filter(member, str(target))
                except tarfile.FilterError as exc:
                    raise BackupError(
                        f"The {name} archive holds {member.name!r}, which would be written "
                        f"outside {target} or is not a plain file or folder ({exc})."
                    ) from None
                files += member.isfile()
    except tarfile.TarError as exc:
        raise BackupError(f"The {name} archive cannot be read: {exc}") from None
    if files != expected_files:
        raise BackupError(
            f"The {name} archive holds {files} files; its manifest says {expected_files}."
        )


def restore(source: Path, *, using: str = "default") -> Summary:
    """Restore a backup into a fresh database and empty MEDIA_ROOT and RELEASE_DIR; refuse,
    changing nothing, when the manifest names anything but this version's own files and
    folders, an archive holds a member that would land outside its folder, the hashes, the
    database vendor or the emptiness do not hold. Where each part goes is fixed here (media
    into MEDIA_ROOT, releases into RELEASE_DIR, the database from the backup's own file), never
    taken from the manifest."""
    source = Path(source)
    manifest = read_manifest(source)
    targets = {name: Path(getattr(settings, FOLDERS[name])) for name in manifest["folders"]}
    for name, folder in targets.items():
        entry = manifest["folders"][name]
        _check_archive(source / entry["file"], folder, entry["files"], name)
    vendor = _vendor(using)
    database = manifest["database"]
    if database["vendor"] != vendor:
        raise BackupError(
            f"This backup is of a {database['vendor']} database; DATABASE_URL points at {vendor}."
        )
    connection = connections[using]
    with connection.cursor() as cursor:
        tables = _row_counts(cursor, vendor)
    if tables:
        raise BackupError(
            f"The database {connection.settings_dict['NAME']} already holds {len(tables)} "
            "tables: restore needs a fresh, empty database (create one and point DATABASE_URL "
            "at it; do not run migrate first)."
        )
    for name, folder in targets.items():
        if not _folder_empty(folder):
            raise BackupError(f"{folder} ({FOLDERS[name]}) is not empty: restore needs it empty.")

    with _restoring(using):
        if vendor == "postgresql":
            command = [
                _pg_tool("pg_restore"),
                "--exit-on-error",
                "--single-transaction",
                "--no-owner",
                "--no-privileges",
                f"--dbname={connection.settings_dict['NAME']}",
                str(source / database["file"]),
            ]
            _run(command, _pg_env(connection.settings_dict), "pg_restore")
        else:
            connection.ensure_connection()
            copy = sqlite3.connect(source / database["file"])
            try:
                copy.backup(connection.connection)
            finally:
                copy.close()

    for name, folder in targets.items():
        folder.mkdir(parents=True, exist_ok=True)
        with tarfile.open(source / manifest["folders"][name]["file"]) as archive:
            archive.extractall(folder, filter="data")  # no absolute paths, links or devices

    with connection.cursor() as cursor:
        restored = _row_counts(cursor, vendor)
    if restored != database["tables"]:
        differ = sorted(
            t
            for t in {*restored, *database["tables"]}
            if restored.get(t) != database["tables"].get(t)
        )
        raise RestoredWithProblems(
            f"The restored database differs from the backup in: {', '.join(differ)}."
        )
    for name, folder in targets.items():
        files = sum(1 for p in folder.rglob("*") if p.is_file())
        if files != manifest["folders"][name]["files"]:
            raise RestoredWithProblems(
                f"{folder} holds {files} files after the restore, the backup "
                f"{manifest['folders'][name]['files']}."
            )
    return _summary(source, manifest)
