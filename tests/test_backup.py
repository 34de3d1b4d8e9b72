"""Backup and restore (config/backup.py): a populated database with its media and releases,
backed up by `manage.py backup`, restored by `manage.py restore` into a fresh database (SQLite
file, or a new PostgreSQL database when DATABASE_URL points at PostgreSQL) and empty folders,
holds the same papers, claims, history and files."""

from __future__ import annotations

import hashlib
import io
import json
import os
import subprocess
import sys
import tarfile
import uuid
from pathlib import Path

import pytest
from django.conf import settings
from django.core.files.base import ContentFile
from django.core.files.storage import default_storage
from django.core.management import CommandError, call_command
from django.db import connection
from PIL import Image

from config.backup import BackupError, read_manifest, restore

ROOT = Path(__file__).resolve().parent.parent


def snapshot() -> dict:
    """What the tool holds, as plain data: the same in the original and in the restored world.
    (Also run in a subprocess against the restored database: see `restored_snapshot`.)"""
    from django.contrib.auth import get_user_model

    from annotation.models import AssignmentEvent, Claim, ClaimPair, WorkEvent
    from papers.models import Element, Paper

    def files(root: Path) -> dict[str, str]:
        return {
            str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(root.rglob("*"))
            if p.is_file()
        }

    found = {
        "users": sorted(get_user_model().objects.values_list("username", "password")),
        "papers": sorted(Paper.objects.values_list("arxiv_id", "version", "title", "status")),
        "elements": Element.objects.count(),
        "images": sorted(Element.objects.exclude(image="").values_list("image", flat=True)),
        "pairs": sorted(ClaimPair.objects.values_list("key", "subset")),
        "claims": sorted(
            [c.key, c.label, c.text, sorted(c.evidence.values_list("pk", flat=True))]
            for c in Claim.objects.prefetch_related("evidence")
        ),
        "assignment_history": sorted(
            AssignmentEvent.objects.values_list("assignment_id", "from_status", "to_status")
        ),
        "work_history": sorted(
            WorkEvent.objects.values_list(
                "machine", "action", "from_status", "to_status", "item_id"
            )
        ),
        "media": files(Path(settings.MEDIA_ROOT)),
        "releases": files(Path(settings.RELEASE_DIR)),
    }
    return json.loads(json.dumps(found))  # tuples as lists, as the subprocess prints them


def _png(colour: str) -> bytes:
    buffer = io.BytesIO()
    Image.new("RGB", (8, 8), colour).save(buffer, "PNG")
    return buffer.getvalue()


def populate(release_dir: Path) -> None:
    """A written claim pair on a curated, assigned paper (its history with it), chart images in
    MEDIA_ROOT and a release folder in RELEASE_DIR."""
    from annotation.assignment import services as assignment_services
    from annotation.models import WorkKind
    from annotation.queue import work
    from annotation.writing import services as writing
    from papers.models import Element
    from tests.annotation.claim_factories import curated_paper, submit
    from tests.annotation.factories import make_expert
    from tests.factories import AdminFactory

    alice, admin = make_expert("alice"), AdminFactory(username="boss")
    paper, _ = curated_paper(admin)
    assignment_services.assign_papers(papers=[paper], experts=[alice], assigned_by=admin)
    writing.create_claim_tasks(paper=paper, by=alice, count=2, seed=7)
    submit(work.next_item(user=alice, kind=WorkKind.WRITE), alice)
    for n, chart in enumerate(Element.objects.filter(paper=paper, kind="chart")):
        chart.image.name = default_storage.save(
            f"papers/{paper.versioned_id}/20241101T000000000000/x{n}.png",
            ContentFile(_png(["red", "blue", "green"][n % 3])),
        )
        chart.save(update_fields=["image"])
    release = release_dir / "sciver-2025-01"
    release.mkdir(parents=True)
    (release / "test.jsonl").write_text('{"id": 1}\n')
    (release / "images").mkdir()
    (release / "images" / "x0.png").write_bytes(_png("red"))


def _database_url(name: str) -> str:
    db = connection.settings_dict
    return (
        f"postgres://{db['USER']}:{db.get('PASSWORD') or ''}@{db['HOST'] or '127.0.0.1'}:"
        f"{db['PORT'] or 5432}/{name}"
    )


def _run(args: list[str], env: dict[str, str]) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, *args], env=env, cwd=ROOT, capture_output=True, text=True, timeout=120
    )


def restored_snapshot(env: dict[str, str]) -> dict:
    code = (
        "import json, django; django.setup(); from tests.test_backup import snapshot; "
        "print(json.dumps(snapshot()))"
    )
    done = _run(["-c", code], env)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.fixture
def fresh_database(tmp_path):
    """DATABASE_URL of a fresh, empty database of the same kind as the test database."""
    if connection.vendor != "postgresql":
        yield f"sqlite:///{tmp_path / 'restored.sqlite3'}"
        return
    import psycopg

    name = f"{connection.settings_dict['NAME']}_restored_{uuid.uuid4().hex[:8]}"
    admin_url = _database_url("postgres")
    with psycopg.connect(admin_url, autocommit=True) as server:
        server.execute(f'CREATE DATABASE "{name}"')
    try:
        yield _database_url(name)
    finally:
        with psycopg.connect(admin_url, autocommit=True) as server:
            server.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


# Committed data: pg_dump reads the database from its own connection.
@pytest.mark.django_db(transaction=True)
def test_backup_then_restore_into_a_fresh_database_finds_everything(
    settings, tmp_path, fresh_database
):
    settings.RELEASE_DIR = tmp_path / "releases"
    populate(settings.RELEASE_DIR)
    before = snapshot()
    assert before["claims"] and before["work_history"] and before["assignment_history"]
    assert len(before["media"]) >= 2 and len(before["releases"]) == 2

    out = tmp_path / "backup"
    report = io.StringIO()
    call_command("backup", "--out", str(out), stdout=report)
    assert "backup written" in report.getvalue()
    manifest = read_manifest(out)
    assert manifest["database"]["vendor"] == connection.vendor
    assert manifest["folders"]["media"]["files"] == len(before["media"])

    env = {
        key: value
        for key, value in os.environ.items()
        if key not in {"REDIS_URL", "DATABASE_URL", "SCIVER_DEV", "DEBUG"}
    }
    env.update(
        SCIVER_TESTING="1",
        DJANGO_SETTINGS_MODULE="config.settings",
        PYTHONPATH=str(ROOT),
        DATABASE_URL=fresh_database,
        MEDIA_ROOT=str(tmp_path / "restored-media"),
        RELEASE_DIR=str(tmp_path / "restored-releases"),
    )
    done = _run(["manage.py", "restore", str(out)], env)
    assert done.returncode == 0, done.stderr
    assert "restored: database" in done.stdout

    assert restored_snapshot(env) == before

    # A second restore into the same (no longer fresh) database changes nothing.
    again = _run(["manage.py", "restore", str(out)], env)
    assert again.returncode != 0
    assert "restore needs a fresh, empty database" in again.stderr


@pytest.mark.django_db(transaction=True)
def test_a_damaged_backup_is_refused_before_anything_changes(settings, tmp_path):
    settings.RELEASE_DIR = tmp_path / "releases"
    out = tmp_path / "backup"
    call_command("backup", "--out", str(out), stdout=io.StringIO())
    media = out / "media.tar"
    media.write_bytes(media.read_bytes() + b"\0")
    with pytest.raises(BackupError, match="does not match its SHA-256"):
        read_manifest(out)
    with pytest.raises(BackupError, match="does not match its SHA-256"):
        restore(out)


@pytest.mark.django_db
def test_restore_refuses_a_database_in_use(tmp_path):
    """The test database has tables: restoring into it would mix two worlds."""
    out = tmp_path / "backup"
    out.mkdir()
    with tarfile.open(out / "media.tar", "w"):
        pass  # an archive of an empty folder
    tar = (out / "media.tar").read_bytes()
    empty = {"file": "media.tar", "sha256": hashlib.sha256(tar).hexdigest(), "bytes": len(tar)}
    (out / "database.sqlite3").write_bytes(b"")
    nothing = {"sha256": hashlib.sha256(b"").hexdigest(), "bytes": 0}
    manifest = {
        "format": 1,
        "created_at": "2025-01-01T00:00:00+00:00",
        "database": {
            **nothing,
            "file": "database.sqlite3",
            "vendor": connection.vendor,
            "tables": {},
        },
        "folders": {"media": {**empty, "setting": "MEDIA_ROOT", "files": 0}},
    }
    if connection.vendor == "postgresql":
        (out / "database.pgdump").write_bytes(b"")
        manifest["database"]["file"] = "database.pgdump"
    (out / "manifest.json").write_text(json.dumps(manifest))
    with pytest.raises(BackupError, match="restore needs a fresh, empty database"):
        restore(out)


@pytest.mark.django_db
def test_backup_refuses_a_transaction_and_a_folder_that_is_not_empty(tmp_path):
    with pytest.raises(CommandError, match="outside any transaction"):
        call_command("backup", "--out", str(tmp_path / "new"))  # the test's own transaction
    (tmp_path / "old.txt").write_text("x")
    with pytest.raises(CommandError, match="is not empty"):
        call_command("backup", "--out", str(tmp_path))
