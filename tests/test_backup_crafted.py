"""Crafted backups (issue 45): `restore` takes where each part goes from the code, never from the
manifest (media into MEDIA_ROOT, releases into RELEASE_DIR, the database from the backup's own
file), and reads every archive member before it writes anything: a member that would land
outside its folder, a link out of it, a manifest naming a file outside the backup or a folder it
does not restore are refused with what was wrong and that nothing changed."""

from __future__ import annotations

import hashlib
import io
import json
import tarfile
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command
from django.db import connection

pytestmark = pytest.mark.django_db


@pytest.fixture
def backup(tmp_path) -> Path:
    """A backup folder as `manage.py backup` lays it out (a manifest of format 1, the database
    file, an archive per folder, their hashes), of nothing: every refusal below comes before the
    database file is read, so none needs a real dump."""
    out = tmp_path / "backup"
    out.mkdir()
    database = {"postgresql": "database.pgdump"}.get(connection.vendor, "database.sqlite3")
    (out / database).write_bytes(b"")
    folders = {}
    for name in ("media", "releases"):
        with tarfile.open(out / f"{name}.tar", "w"):
            pass
        folders[name] = {"file": f"{name}.tar", "files": 0, "setting": name.upper()}
    manifest = {
        "format": 1,
        "created_at": "2026-12-04T00:00:00+00:00",
        "database": {"file": database, "vendor": connection.vendor, "tables": {}},
        "folders": folders,
    }
    rewrite(out, manifest)
    return out


def manifest_of(out: Path) -> dict:
    return json.loads((out / "manifest.json").read_text())


def rewrite(out: Path, manifest: dict) -> None:
    for entry in [manifest["database"], *manifest["folders"].values()]:
        path = out / entry["file"]
        if path.is_file():
            entry["sha256"] = hashlib.sha256(path.read_bytes()).hexdigest()
            entry["bytes"] = path.stat().st_size
    (out / "manifest.json").write_text(json.dumps(manifest))


def media_archive(out: Path, members: list[tarfile.TarInfo], files: int) -> None:
    """Replace the media archive by one holding `members` (file bodies: a few bytes)."""
    manifest = manifest_of(out)
    with tarfile.open(out / manifest["folders"]["media"]["file"], "w") as archive:
        for member in members:
            body = b"crafted" if member.isfile() else None
            if body is not None:
                member.size = len(body)
            archive.addfile(member, io.BytesIO(body) if body is not None else None)
    manifest["folders"]["media"]["files"] = files
    manifest["folders"]["media"]["setting"] = "STATIC_URL"  # the manifest's word: not taken
    rewrite(out, manifest)


def refused(out: Path, words: str) -> str:
    tables_before = len(connection.introspection.table_names())
    with pytest.raises(CommandError) as caught:
        call_command("restore", str(out), stdout=io.StringIO())
    said = str(caught.value)
    assert words in said, said
    assert "Nothing was restored; nothing was changed." in said
    assert len(connection.introspection.table_names()) == tables_before
    return said


def entry(name: str, kind: bytes = tarfile.REGTYPE, link: str = "") -> tarfile.TarInfo:
    member = tarfile.TarInfo(name)
    member.type = kind
    member.linkname = link
    return member


@pytest.mark.parametrize(
    "members, files, words",
    [
        ([entry("ok.txt"), entry("../escape.txt")], 2, "'../escape.txt', which would be written"),
        ([entry("passwd", tarfile.SYMTYPE, "/etc/passwd")], 0, "'passwd', which would be"),
        ([entry("up", tarfile.SYMTYPE, "../../outside")], 0, "'up', which would be written"),
        ([entry("hard", tarfile.LNKTYPE, "../../etc/passwd")], 0, "'hard', which would be"),
        ([entry("dev", tarfile.CHRTYPE)], 0, "'dev', which would be written"),
        ([entry("a.txt"), entry("b.txt")], 5, "holds 2 files; its manifest says 5"),
    ],
    ids=["dotdot", "abs-symlink", "symlink-out", "hardlink-out", "device", "count"],
)
def test_an_unsafe_archive_member_is_refused_before_anything_is_written(
    backup, settings, tmp_path, members, files, words
):
    media_archive(backup, members, files)
    said = refused(backup, words)
    if "which would be" in said:
        assert str(settings.MEDIA_ROOT) in said  # checked against MEDIA_ROOT, whatever it says
    assert not any(Path(settings.MEDIA_ROOT).iterdir())
    assert not (tmp_path / "escape.txt").exists()


def test_a_manifest_naming_a_file_outside_the_backup_or_an_unknown_folder_is_refused(
    backup, tmp_path
):
    outside = tmp_path / "elsewhere.sqlite3"
    outside.write_bytes(b"not a database of this backup")
    manifest = manifest_of(backup)
    manifest["database"]["file"] = "../elsewhere.sqlite3"
    rewrite(backup, manifest)
    refused(backup, "'../elsewhere.sqlite3' as the database file")
    assert outside.read_bytes() == b"not a database of this backup"

    manifest = manifest_of(backup)
    manifest["database"]["file"] = {"postgresql": "database.pgdump"}.get(
        connection.vendor, "database.sqlite3"
    )
    manifest["folders"]["static"] = dict(manifest["folders"]["media"], setting="STATIC_ROOT")
    rewrite(backup, manifest)
    refused(backup, "folders this version does not restore: static")


def test_a_manifest_that_is_not_one_is_refused_with_why(backup):
    (backup / "manifest.json").write_text(json.dumps({"format": 1, "database": []}))
    refused(backup, "lacks its database or its folders")
