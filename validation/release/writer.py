"""Writes a release folder atomically: every file into a temporary folder, then one rename.
The Hub's and Croissant's files (`hub`) are written with the rest and checked against the
SciVer files before the rename."""

from __future__ import annotations

import hashlib
import json
import logging
import os
import random
import secrets
import shutil
import subprocess
import sys
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor, as_completed
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path, PurePosixPath
from typing import Any

from validation.release.copier import copy
from validation.release.formats import (
    SPLIT_FILES,
    csv_text,
    hidden_label_record,
    json_bytes,
    jsonl_bytes,
    jsonl_record,
    pretty_json_bytes,
    public_test_claims,
    sciver_paper,
    sciver_record,
    synthetic,
)
from validation.release.hub import (
    CROISSANT_FILE,
    PARQUET_FILES,
    croissant,
    croissant_bytes,
    front_matter,
    hub_problems,
    loading_section,
    missing_pyarrow,
    write_parquet,
)
from validation.release.records import ReleaseClaim, ReleasePaper

__all__ = [
    "FORMAT_VERSION",
    "LABELS_FORMAT",
    "Generated",
    "MANIFEST_FORMAT",
    "SPLIT_FILES",
    "Release",
    "ReleaseError",
    "Staging",
    "check_out",
    "is_release_folder",
    "labels_path",
    "write_release",
]

MANIFEST_FORMAT = "sciver-studio-release/2"
# 2: records name exactly the claim's table/chart evidence and never an empty `section`;
# paper-file section ids are ones a record can name; hidden test labels go to a labels file
# outside the release folder. 3: public hidden-label test files carry nothing of the pairing;
# the manifest's `split` (papers per part, paper-disjoint); croissant.json and the card's Hub
# front matter. check_release says when a release predates it.
FORMAT_VERSION = 3
LABELS_FORMAT = "sciver-studio-hidden-labels/1"
LABELS_SUFFIX = ".labels.json"
SCORING = (
    "SciVer's acc_evaluation.py: a response is correct when the label is true (entailed) and "
    'its lower-cased text contains "yes", or the label is false (refuted) and it does not; an '
    "empty response is wrong either way. Report accuracy overall and per claim_type."
)
WRITERS = 4  # threads writing files into the staging folder
logger = logging.getLogger(__name__)
COPIER = Path(__file__).with_name("copier.py")  # the process that copies images (copy_files)
PROGRESS_STEPS = 100  # at most this many progress reports while the files are written
WRITING = "writing files"


class ReleaseError(ValueError):
    """A release that cannot be written as given; nothing was written."""


@dataclass(frozen=True)
class Release:
    """Everything a release folder holds, already decided: records, papers, image sources.

    `images` maps a release-relative path (`images/…png`) to its bytes or a file to copy.
    `readme` is the dataset card's text: the Hub's YAML front matter goes before it and a
    section on loading the release after it (`hub`), unless it starts with front matter of its
    own. `seed` orders hidden test records (so a re-export is byte-identical). `parquet` adds
    the Parquet files with the images embedded (pyarrow). `progress`, if given, hears (files
    written, files, "writing files") as the files are written.
    """

    name: str
    splits: Mapping[str, Sequence[ReleaseClaim]]
    papers: Sequence[ReleasePaper]
    images: Mapping[str, bytes | Path] = field(default_factory=dict)
    readme: str = ""
    hide_test_labels: bool = False
    seed: int = 0
    # The split's facts for the manifest's "split": paper_disjoint, shared_papers_allowed,
    # papers per part (check_release reads them).
    split: Mapping[str, Any] = field(default_factory=dict)
    parquet: bool = False
    progress: Callable[[int, int, str], None] | None = field(
        default=None, compare=False, repr=False
    )


def labels_path(out: Path) -> Path:
    """Where the hidden test labels of the release folder `out` go: beside it, never inside
    (`DIR/SciVer` → `DIR/SciVer.labels.json`), so that publishing the folder cannot leak them."""
    out = Path(out)
    return out.parent / f"{out.name}{LABELS_SUFFIX}"


def _is_labels_file(path: Path) -> bool:
    try:
        said = json.loads(path.read_text("utf-8")).get("format")
    except (OSError, ValueError, AttributeError):
        return False
    return isinstance(said, str) and said.startswith(LABELS_FORMAT.split("/")[0] + "/")


def _check_labels_out(out: Path, *, overwrite: bool) -> None:
    """A labels file beside `out` is replaced only with `overwrite` (it belongs to the release
    being replaced), and never when it is not one of ours."""
    path = labels_path(out)
    if not path.exists() and not path.is_symlink():
        return
    if path.is_symlink() or not path.is_file() or not _is_labels_file(path):
        raise ReleaseError(
            f"{path} exists and is not a hidden-labels file written by export_release: the "
            "release's hidden test labels go there; move it away or choose another destination"
        )
    if not overwrite:
        raise ReleaseError(
            f"{path} already exists (the hidden test labels of an earlier release there?): "
            "move it away, or pass --overwrite to replace it"
        )


def is_release_folder(path: Path) -> bool:
    """A folder holding a manifest.json written by this writer (a previous release)."""
    manifest = Path(path) / "manifest.json"
    if not Path(path).is_dir() or not manifest.is_file():
        return False
    try:
        said = json.loads(manifest.read_text("utf-8")).get("format")
    except (OSError, ValueError, AttributeError):
        return False
    return isinstance(said, str) and said.startswith(MANIFEST_FORMAT.split("/")[0] + "/")


def check_out(out: Path, *, overwrite: bool, flag: str = "overwrite=True") -> None:
    """Refuse a destination that exists (unless `overwrite`), and with `overwrite` anything
    but a previous release: a plain file, or a folder without a release's manifest.json, is
    never deleted. `flag` is how the caller's user asks for overwriting (`--overwrite`)."""
    out = Path(out)
    if not out.exists() and not out.is_symlink():
        return
    if not overwrite:
        raise ReleaseError(
            f"{out} already exists; choose another folder, or pass {flag} to replace the "
            "release in it"
        )
    if out.is_symlink() or not out.is_dir():
        raise ReleaseError(
            f"{out} is not a folder (a file or a link): {flag} only replaces a previous "
            "release folder; choose another destination"
        )
    if not is_release_folder(out):
        raise ReleaseError(
            f"{out} is not a previous release (no manifest.json written by export_release): "
            f"{flag} only replaces a release folder, so nothing was deleted; choose another "
            "destination, or remove that folder yourself"
        )


def _check(release: Release) -> dict[str, ReleasePaper]:
    unknown = set(release.splits) - set(SPLIT_FILES)
    if unknown:
        raise ReleaseError(f"unknown split(s): {', '.join(sorted(unknown))}; use validation, test")
    if release.parquet and (missing := missing_pyarrow()):
        raise ReleaseError(missing)
    papers: dict[str, ReleasePaper] = {}
    folded: dict[str, str] = {}
    for paper in release.papers:
        # Compared without case: on macOS and Windows `papers/A.json` and `papers/a.json` are
        # one file, and an unzipped release would silently lose one of them.
        other = folded.get(paper.paperid.casefold())
        if other is not None:
            raise ReleaseError(
                f"paper {paper.paperid} appears twice"
                + (f" (as {other} too)" if other != paper.paperid else "")
                + ": two papers would share papers/<paperid>.json; give each its own paperid "
                "(two versions of one arXiv id are told apart by `<id>v<version>`)"
            )
        folded[paper.paperid.casefold()] = paper.paperid
        papers[paper.paperid] = paper
    seen: dict[str, str] = {}
    for path in release.images:
        pure = PurePosixPath(path)
        if pure.parts[:1] != ("images",) or ".." in pure.parts or len(pure.parts) != 2:
            raise ReleaseError(f"image path {path!r} must be images/<file>")
        if path.casefold() in seen:
            raise ReleaseError(
                f"image paths {seen[path.casefold()]} and {path} differ only in case: they "
                "are one file on macOS and Windows; renumber one of the elements"
            )
        seen[path.casefold()] = path
    request_ids: set[int] = set()
    for claims in release.splits.values():
        for claim in claims:
            if claim.request_id in request_ids:
                raise ReleaseError(f"request_id {claim.request_id} is used twice")
            request_ids.add(claim.request_id)
            if claim.paperid not in papers:
                raise ReleaseError(f"request {claim.request_id}: paper {claim.paperid} is missing")
            for element in claim.elements:
                if element.image_path not in release.images:
                    raise ReleaseError(
                        f"request {claim.request_id}: image {element.image_path} is missing"
                    )
    return papers


def _hidden_order(claims: Sequence[ReleaseClaim], seed: int) -> list[ReleaseClaim]:
    """A seeded shuffle in which no two claims of one pair are neighbours.

    Next to each other, the two claims of a pair differ in a few words and give the
    perturbation away. Random restarts are cheap: with many pairs a shuffle rarely needs more
    than a couple, and the attempt limit only guards against pools where it is impossible.
    """
    rng = random.Random(seed)
    order = sorted(claims, key=lambda c: c.request_id)
    for _ in range(1000):
        rng.shuffle(order)
        if all(
            a.pair_id is None or a.pair_id != b.pair_id
            for a, b in zip(order, order[1:], strict=False)
        ):
            return order
    raise ReleaseError("cannot order the test claims so that no pair's claims are adjacent")


def _counts(claims: Sequence[ReleaseClaim], papers: Mapping[str, ReleasePaper]) -> dict[str, Any]:
    by_subset: dict[str, Counter[str]] = {}
    for claim in claims:
        key = "entailed" if claim.label else "refuted"
        by_subset.setdefault(claim.claim_type, Counter())[key] += 1
    return {
        "claims": len(claims),
        "entailed": sum(c.label for c in claims),
        "refuted": sum(not c.label for c in claims),
        "papers": len({c.paperid for c in claims}),
        "synthetic": sum(synthetic(c, papers[c.paperid]) for c in claims),
        "by_subset": {
            s: {"entailed": n["entailed"], "refuted": n["refuted"]}
            for s, n in sorted(by_subset.items())
        },
    }


def _labels(release: Release, papers: Mapping[str, ReleasePaper], testset: bytes) -> dict[str, Any]:
    """The organisers' file for hidden test labels: request_id → label, and each record's
    hidden content, tied to the public testset.json by its checksum."""
    claims = sorted(release.splits.get("test", ()), key=lambda c: c.request_id)
    return {
        "format": LABELS_FORMAT,
        "format_version": FORMAT_VERSION,
        "name": release.name,
        "testset_sha256": hashlib.sha256(testset).hexdigest(),
        "scoring": SCORING,
        "labels": {str(c.request_id): c.label for c in claims},
        "records": [hidden_label_record(c, papers[c.paperid]) for c in claims],
    }


def _encoded(
    release: Release, papers: Mapping[str, ReleasePaper], records: dict[str, list[dict]]
) -> Iterable[tuple[str, bytes]]:
    """Every file of the release but the images and the Parquet files, encoded, one at a time
    (so that each can be written while the next is encoded); `records` gets each part's SciVer
    records in file order (for the Parquet files)."""
    sciver_files: dict[str, tuple[bytes, int]] = {}
    for name in ("validation", "test"):
        if name not in release.splits:
            continue
        sciver_file, jsonl_file, csv_file = SPLIT_FILES[name]
        hide = name == "test" and release.hide_test_labels
        claims = (
            public_test_claims(_hidden_order(release.splits[name], release.seed))
            if hide
            else sorted(release.splits[name], key=lambda c: c.request_id)
        )
        records[name] = [sciver_record(c, hide_label=hide) for c in claims]
        sciver_files[name] = (json_bytes(records[name]), len(claims))
        yield sciver_file, sciver_files[name][0]
        yield (
            jsonl_file,
            jsonl_bytes(jsonl_record(c, papers[c.paperid], hide_label=hide) for c in claims),
        )
        yield csv_file, csv_text(claims, papers, hide_label=hide).encode("utf-8")
    for paperid, paper in sorted(papers.items()):
        yield f"papers/{paperid}.json", json_bytes(sciver_paper(paper))
    licences = [paper.licence for _, paper in sorted(papers.items())]
    counts = {name: count for name, (_, count) in sciver_files.items()}
    if release.readme:
        readme = release.readme
        if not readme.startswith("---\n"):
            readme = (
                front_matter(
                    name=release.name, counts=counts, licences=licences, parquet=release.parquet
                )
                + readme.rstrip("\n")
                + "\n\n"
                + loading_section(
                    counts=counts, parquet=release.parquet, hidden=release.hide_test_labels
                )
            )
        yield "README.md", readme.encode("utf-8")
    fake = any(p.synthetic for p in papers.values()) or any(
        c.synthetic for claims in release.splits.values() for c in claims
    )
    description = (
        f"Expert-annotated multimodal scientific claim verification in SciVer's format (split "
        f"{release.name}), built with SciVer Studio following the SciVer protocol (ACL 2025)."
        + (" Synthetic demo data: not for publishing nor evaluation." if fake else "")
    )
    yield (
        CROISSANT_FILE,
        croissant_bytes(
            croissant(
                name=f"SciVer-style dataset, split {release.name}",
                description=description,
                parts=sciver_files,
                licences=licences,
                hidden=release.hide_test_labels,
            )
        ),
    )


@dataclass(frozen=True)
class Generated:
    """A file that `write` writes itself, given its path (a Parquet file, written row group
    by row group)."""

    write: Callable[[Path], None]


def _write(root: Path, relative: str, source: bytes | Path | Generated) -> tuple[str, int]:
    target = root / relative
    if isinstance(source, Generated):
        source.write(target)
        digest, size = hashlib.sha256(), 0
        with open(target, "rb") as handle:
            while chunk := handle.read(1 << 20):
                digest.update(chunk)
                size += len(chunk)
        return digest.hexdigest(), size
    if not isinstance(source, bytes):
        return copy(target, source)
    target.write_bytes(source)
    return hashlib.sha256(source).hexdigest(), len(source)


def _new_folder(out: Path, suffix: str) -> Path:
    """A new hidden folder beside `out` (same file system: renames are atomic), mode per umask."""
    for _ in range(100):
        folder = out.parent / f".{out.name}.{secrets.token_hex(6)}.{suffix}"
        try:
            os.mkdir(folder)
        except FileExistsError:  # pragma: no cover - 48 random bits
            continue
        return folder
    raise ReleaseError(f"cannot make a temporary folder beside {out}")  # pragma: no cover


class Staging:
    """A release folder being written: a hidden temporary folder beside `out` (same file
    system, so the final rename is atomic) that files go into as soon as they are known, while
    the caller goes on. `copy_files` hands image files to a copier process of their own
    (`copier.py`: in a thread, copying would wait on the builder for the interpreter's lock),
    so that copying overlaps building; `add` writes one file in a thread. `commit(release)`
    writes the rest, the manifest, and renames the folder into place; leaving the `with` block
    without a commit, or with an exception, stops the copier and removes everything staged: no
    partial folder is ever left.

    Use: `with Staging(out, overwrite=…) as staging: …; staging.commit(release)`.
    """

    def __init__(self, out: Path, *, overwrite: bool = False) -> None:
        self.out = Path(out)
        self.overwrite = overwrite
        check_out(self.out, overwrite=overwrite)
        self.out.parent.mkdir(parents=True, exist_ok=True)
        # Not tempfile.mkdtemp: its folder is 0700 and would stay so after the rename, while
        # the files inside follow the umask. os.mkdir applies the umask (0755 with the usual 022).
        self.replacing = self.out.exists()
        self.folder = _new_folder(self.out, "partial")
        self._folders: set[str] = {"."}
        self._sources: dict[str, bytes | Path | Generated] = {}  # staged file → what it holds
        self._futures: dict[str, Future] = {}  # files written by a thread
        self._copier: subprocess.Popen | None = None
        self._copied: set[str] = set()  # files the copier process writes
        self._pool = ThreadPoolExecutor(max_workers=WRITERS, thread_name_prefix="release-writer")
        self._labels: Path | None = None
        self._done = False

    def __enter__(self) -> Staging:
        return self

    def __exit__(self, kind, value, traceback) -> None:
        if not self._done:
            self.discard()

    def _folder_of(self, relative: str) -> None:
        folder = str(Path(relative).parent)
        if folder not in self._folders:
            (self.folder / folder).mkdir(parents=True, exist_ok=True)
            self._folders.add(folder)

    def add(self, relative: str, source: bytes | Path | Generated) -> None:
        """Start writing `source` (bytes, a file to copy, or a `Generated` file) to `relative`
        in a thread;
        staging the same path again with the same source does nothing."""
        if self._sources.get(relative) == source:
            return
        if relative in self._copied or relative in self._futures:
            raise ReleaseError(f"{relative} is staged twice with different contents")
        self._folder_of(relative)
        self._sources[relative] = source
        self._futures[relative] = self._pool.submit(_write, self.folder, relative, source)

    def copy_files(self, files: Mapping[str, Path]) -> None:
        """Start copying `files` (release path → file) in a copier process (once per staging;
        paths staged already are left out). Where no process can be started, threads copy."""
        files = {r: Path(s) for r, s in files.items() if r not in self._sources}
        if not files:
            return
        if self._copier is not None:
            raise ReleaseError("the copier process was started already")  # pragma: no cover
        for relative in files:
            self._folder_of(relative)
        order = {"root": str(self.folder), "files": [[r, str(s)] for r, s in files.items()]}
        try:
            self._copier = subprocess.Popen(
                [sys.executable, "-I", "-S", str(COPIER)],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
            )
        except OSError:
            for relative, source in files.items():
                self.add(relative, source)
            return
        self._copied = set(files)
        self._sources.update(files)
        assert self._copier is not None and self._copier.stdin is not None  # started above
        try:
            self._copier.stdin.write(json.dumps(order).encode("utf-8"))
            self._copier.stdin.close()
        except OSError:
            pass  # it died at once: `_copier_results` says why

    def _copier_results(self, report: Callable[[int], None]) -> dict[str, tuple[str, int]] | None:
        """Wait for the copier process, `report`ing each progress line's count of files
        copied; every file's (sha256, bytes), or None when the process itself failed (it
        could not run: `sys.executable` is not a Python, say). Refuses (ReleaseError) when a
        file could not be copied."""
        copier = self._copier
        assert copier is not None and copier.stdout is not None and copier.stderr is not None
        last = ""
        for raw in copier.stdout:
            line = raw.decode("utf-8", "replace").strip()
            if line.startswith("P "):
                report(int(line.split()[1]))
            elif line:
                last = line
        stderr = copier.stderr.read().decode("utf-8", "replace")
        copier.wait()
        try:
            result = json.loads(last)
        except ValueError:
            result = None
        if copier.returncode != 0 or not isinstance(result, dict):
            logger.warning(
                "release images: the copier process (%s) failed with exit status %s, so the "
                "images are copied in this process instead: %s",
                sys.executable,
                copier.returncode,
                stderr.strip()[-1000:] or "no message",
            )
            return None
        errors = result.get("errors") or {}
        if errors:
            shown = "; ".join(f"{path}: {why}" for path, why in sorted(errors.items())[:20])
            raise ReleaseError(
                f"{len(errors)} image(s) could not be copied into the release: {shown}"
                + (f"; … and {len(errors) - 20} more" if len(errors) > 20 else "")
                + ". Nothing was written."
            )
        return {path: (sha, size) for path, (sha, size) in result["files"].items()}

    def discard(self) -> None:
        """Stop, and remove everything staged (idempotent)."""
        self._done = True
        if self._copier is not None and self._copier.poll() is None:
            self._copier.kill()
        if self._copier is not None:
            self._copier.wait()
            for stream in (self._copier.stdout, self._copier.stderr):
                if stream is not None:
                    stream.close()
        self._pool.shutdown(wait=True, cancel_futures=True)
        shutil.rmtree(self.folder, ignore_errors=True)
        if self._labels is not None:
            self._labels.unlink(missing_ok=True)

    def commit(self, release: Release) -> dict[str, Any]:
        """Write the rest of `release`, its manifest, and move the folder to `out`; returns the
        manifest. Files staged but not part of `release` are removed."""
        papers = _check(release)
        out = self.out
        hidden = release.hide_test_labels and bool(release.splits.get("test"))
        if hidden:
            _check_labels_out(out, overwrite=self.overwrite)
        # Images first: the largest files, copied while the records are encoded below.
        for path, source in sorted(release.images.items()):
            self.add(path, source)
        encoded: dict[str, bytes | Generated] = {}
        records: dict[str, list[dict]] = {}
        for relative, content in _encoded(release, papers, records):
            self.add(relative, content)
            encoded[relative] = content
        if release.parquet:
            for name, part in records.items():
                parquet = Generated(partial(write_parquet, records=part, images=release.images))
                self.add(PARQUET_FILES[name], parquet)
                encoded[PARQUET_FILES[name]] = parquet
        progress = release.progress
        unused = [r for r in self._sources if r not in release.images and r not in encoded]
        total = len(self._sources) - len(unused)
        every = max(1, total // PROGRESS_STEPS)
        reported = 0

        def report(done: int) -> None:
            nonlocal reported
            if progress and (done - reported >= every or done == total):
                progress(done, total, WRITING)
                reported = done

        if progress:
            progress(0, total, WRITING)
        written: dict[str, tuple[str, int]] = {}
        if self._copier is not None:
            copied = self._copier_results(report)
            if copied is None:  # the process failed as a whole: threads copy its files
                for relative in sorted(self._copied):
                    self._futures[relative] = self._pool.submit(
                        _write, self.folder, relative, self._sources[relative]
                    )
            else:
                written |= copied
        base = len(written)
        for done, future in enumerate(as_completed(self._futures.values()), start=1):
            future.result()
            report(base + done)
        written |= {r: f.result() for r, f in self._futures.items()}
        self._pool.shutdown(wait=True)
        for relative in unused:
            (self.folder / relative).unlink(missing_ok=True)
            written.pop(relative, None)
        entries = {r: {"sha256": sha, "bytes": size} for r, (sha, size) in written.items()}
        licences = Counter(p.licence for p in papers.values())
        manifest = {
            "format": MANIFEST_FORMAT,
            "format_version": FORMAT_VERSION,
            "name": release.name,
            "hide_test_labels": release.hide_test_labels,
            "counts": {
                name: _counts(claims, papers) for name, claims in sorted(release.splits.items())
            },
            "papers": len(papers),
            # Demo data (simulate_annotation's copies of fixture papers) must never pass for
            # real: the count is here, per split in `counts`, and atop the README.
            "synthetic_papers": sum(p.synthetic for p in papers.values()),
            "licences": dict(sorted(licences.items())),
            "split": dict(release.split),
            "files": dict(sorted(entries.items())),
        }
        if hidden:
            # Its path only: a checksum here would let anyone confirm a guess of a few labels.
            manifest["hidden_labels"] = {
                "path": f"../{labels_path(out).name}",
                "records": len(release.splits["test"]),
                "kept_private": "outside the release folder; never publish it",
            }
            self._labels = out.parent / f".{labels_path(out).name}.{secrets.token_hex(6)}.partial"
            testset = encoded[SPLIT_FILES["test"][0]]
            assert isinstance(testset, bytes)  # encoded above
            self._labels.write_bytes(pretty_json_bytes(_labels(release, papers, testset)))
            self._labels.chmod(0o600)  # the organisers' answers: not for other local users
        (self.folder / "manifest.json").write_bytes(pretty_json_bytes(manifest))
        # The last word before the folder takes its place: the Hub's and Croissant's files
        # hold exactly the SciVer files' records, and hidden test files hold no pairing.
        problems = hub_problems(self.folder)
        if problems:
            raise ReleaseError(
                "the release's Hub files disagree with its SciVer files: "
                + "; ".join(problems[:20])
                + (f"; … and {len(problems) - 20} more" if len(problems) > 20 else "")
                + ". Nothing was written."
            )
        self._swap()
        self._done = True
        old_labels = labels_path(out)
        if self._labels is not None:
            os.replace(self._labels, old_labels)
        elif self.replacing and old_labels.is_file() and _is_labels_file(old_labels):
            old_labels.unlink()  # the replaced release's hidden labels; this one hides none
        return manifest

    def _swap(self) -> None:
        """The staging folder becomes `out` (the old release stays until then)."""
        out = self.out
        if out.exists():
            check_out(out, overwrite=self.overwrite)  # it may have appeared while we wrote
            retired = _new_folder(out, "old")
            os.rename(out, retired / out.name)
            try:
                os.rename(self.folder, out)
            except BaseException:
                os.rename(retired / out.name, out)  # put the old release back
                shutil.rmtree(retired, ignore_errors=True)
                raise
            shutil.rmtree(retired, ignore_errors=True)
        else:
            os.rename(self.folder, out)


def write_release(release: Release, out: Path, *, overwrite: bool = False) -> dict[str, Any]:
    """Write `release` to `out` and return its manifest (also written as manifest.json).

    The files go to a hidden temporary folder beside `out` (`Staging`) and are renamed into
    place only when all are written: a failure at any point leaves no partial folder, and with
    `overwrite` the old release stays until the swap.
    """
    _check(release)
    with Staging(Path(out), overwrite=overwrite) as staging:
        return staging.commit(release)
