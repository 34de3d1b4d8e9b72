"""A frozen split → a release folder: `build` reads the database and builds the records (a
pipeline of small steps; `rows` is what it reads, `refusals` what a refused export says, `card`
the dataset card), then `validation.release` (pure: records, formats, the atomic writer)
writes them. Here: the entry points, and where exports started from the pages go."""

from __future__ import annotations

import re
from datetime import datetime
from pathlib import Path

from validation.export.build import BUILDING, build_release
from validation.export.card import dataset_card
from validation.release.formats import SCIVER_FOLDER
from validation.release.writer import ReleaseError

FOLDER_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


def release_folder_name(split_name: str, stamp: str, *, hidden: bool = False) -> str:
    """`<name>-<stamp>[-hidden]` as ONE path component, whatever the split is called (names
    made before they were checked may hold `/`, `..` or spaces)."""
    safe = FOLDER_UNSAFE.sub("-", split_name).strip(".-") or "split"
    return f"{safe[:64]}-{stamp}{'-hidden' if hidden else ''}"


def release_out(release_dir: Path | str, split_name: str, when: datetime, *, hidden: bool) -> Path:
    """RELEASE_DIR/<name>-<stamp>[-hidden]/SciVer, always inside RELEASE_DIR."""
    stamp = when.strftime("%Y%m%d-%H%M%S")
    return Path(release_dir) / release_folder_name(split_name, stamp, hidden=hidden) / SCIVER_FOLDER


__all__ = [
    "BUILDING",
    "ReleaseError",
    "build_release",
    "dataset_card",
    "release_folder_name",
    "release_out",
]
