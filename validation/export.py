"""Where exports go, and the release pipeline's entry points (`validation.release.build`
builds the records, `validation.release.card` the dataset card, `validation.release.writer`
writes the folder)."""

from __future__ import annotations

import re
from datetime import datetime
from pathlib import Path

from validation.release.build import BUILDING, build_release
from validation.release.card import dataset_card
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
