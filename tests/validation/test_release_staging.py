"""The release folder staged while the records are built: images copied by a process of their
own, the rest written at commit, nothing left behind on any failure; the JSON layout."""

from __future__ import annotations

import hashlib
import json
import os
import sys

import pytest

from tests.evaluation.builders import small_release
from validation.release import ReleaseError, Staging
from validation.release.formats import json_bytes, sciver_record
from validation.release_check import inspect_release


def _image_files(tmp_path, release):
    """The release's images as files on disk (what the export copies from MEDIA_ROOT)."""
    media = tmp_path / "media"
    media.mkdir()
    files = {}
    for n, (path, content) in enumerate(sorted(release.images.items())):
        source = media / f"{n}.png"
        source.write_bytes(content + os.urandom(64 * 1024))  # big enough to take a while
        files[path] = source
    return files


def _sha(path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_images_staged_early_are_copied_by_another_process_and_match_the_manifest(tmp_path):
    files = _image_files(tmp_path, small_release())
    release = small_release(images=files)
    out = tmp_path / "releases" / "SciVer"
    with Staging(out) as staging:
        staging.copy_files(files)
        copier = staging._copier
        assert copier is not None and copier.pid != os.getpid()
        manifest = staging.commit(release)
    assert copier.returncode == 0
    for path, source in files.items():
        assert (out / path).read_bytes() == source.read_bytes()
        assert manifest["files"][path] == {"sha256": _sha(source), "bytes": source.stat().st_size}
    on_disk = {p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file()}
    assert on_disk == set(manifest["files"]) | {"manifest.json"}
    assert inspect_release(out).problems == []
    assert sorted(p.name for p in out.parent.iterdir()) == ["SciVer"]  # no staging folder left


def test_progress_counts_every_file_once_up_to_the_total(tmp_path):
    files = _image_files(tmp_path, small_release())
    heard = []
    release = small_release(images=files, progress=lambda *args: heard.append(args))
    with Staging(tmp_path / "SciVer") as staging:
        staging.copy_files(files)
        manifest = staging.commit(release)
    total = len(manifest["files"])
    assert heard[0] == (0, total, "writing files") and heard[-1] == (total, total, "writing files")
    done = [d for d, _, _ in heard]
    assert done == sorted(done)  # never backwards


def test_an_image_the_copier_cannot_read_refuses_the_release_and_leaves_nothing(tmp_path):
    files = _image_files(tmp_path, small_release())
    gone = sorted(files)[1]
    files[gone].unlink()
    out = tmp_path / "releases" / "SciVer"
    with pytest.raises(ReleaseError, match=rf"could not be copied.*{gone}.*Nothing was written"):
        with Staging(out) as staging:
            staging.copy_files(files)
            staging.commit(small_release(images=files))
    assert list((tmp_path / "releases").iterdir()) == []


def test_leaving_without_a_commit_stops_the_copier_and_removes_the_folder(tmp_path):
    files = _image_files(tmp_path, small_release())
    out = tmp_path / "releases" / "SciVer"
    with pytest.raises(RuntimeError, match="the build failed"):
        with Staging(out) as staging:
            staging.copy_files(files)
            copier = staging._copier
            raise RuntimeError("the build failed")
    assert copier.poll() is not None  # no copier left running
    assert list((tmp_path / "releases").iterdir()) == []


def test_an_image_staged_that_the_release_does_not_hold_is_removed(tmp_path):
    files = _image_files(tmp_path, small_release())
    extra = dict(files)
    extra["images/2409.00001_table_9.png"] = next(iter(files.values()))
    out = tmp_path / "SciVer"
    with Staging(out) as staging:
        staging.copy_files(extra)
        manifest = staging.commit(small_release(images=files))
    assert "images/2409.00001_table_9.png" not in manifest["files"]
    assert not (out / "images" / "2409.00001_table_9.png").exists()
    assert inspect_release(out).problems == []


def test_json_files_have_a_record_or_a_section_per_line_and_read_back_whole():
    release = small_release()
    records = [sciver_record(c) for c in release.splits["validation"]]
    text = json_bytes(records).decode("utf-8")
    lines = text.splitlines()
    assert lines[0] == "[" and lines[-1] == "]" and len(lines) == len(records) + 2
    assert [json.loads(line.rstrip(",")) for line in lines[1:-1]] == records
    assert json.loads(text) == records
    paper = {
        "sections": [{"section_id": "1", "text": "a"}, {"section_id": "2", "text": "b"}],
        "tables": {"2": {"capture": "Table 2"}},
    }
    text = json_bytes(paper).decode("utf-8")
    assert json.loads(text) == paper
    assert '    {"section_id": "2", "text": "b"}' in text.splitlines()
    assert json_bytes(paper) == json_bytes(json.loads(text))  # stable bytes


def test_a_copier_that_cannot_run_leaves_the_copying_to_threads(tmp_path, monkeypatch, caplog):
    # A server whose sys.executable is not a Python (an embedding web server, say).
    files = _image_files(tmp_path, small_release())
    monkeypatch.setattr(sys, "executable", "/bin/false")
    out = tmp_path / "SciVer"
    with Staging(out) as staging:
        staging.copy_files(files)
        manifest = staging.commit(small_release(images=files))
    assert "copier process (/bin/false) failed" in caplog.text
    for path, source in files.items():
        assert manifest["files"][path]["sha256"] == _sha(source)
    assert inspect_release(out).problems == []
