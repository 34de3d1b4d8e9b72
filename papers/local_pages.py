"""Find saved arXiv pages on disk: the HTML file, its arXiv id and version, and its metadata."""

from __future__ import annotations

import json
import re
from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

from papers.crawl.acceptance import classify_acceptance
from papers.metadata import PaperMetadata

_ID = re.compile(r"(\d{4}\.\d{4,5})(?:v(\d+))?")
_BASE_ID = re.compile(rb"<base[^>]*href=\"[^\"]*?/html/(\d{4}\.\d{4,5})v(\d+)", re.I)
# arXiv's 2026 pages have no <base>: their images are `src="2508.08468v6/x1.png"`, oxide's
# vector graphics `data="2508.08468v6/latex/fig1.svg"`, their links `…/html/2508.08468v6#S3`.
_ASSET_ID = re.compile(
    rb"\s(?:src|data|href)=\"(?:[^\"<>]*?/html/)?(\d{4}\.\d{4,5})v(\d+)[/#\"]", re.I
)


class LocalPageError(Exception):
    pass


@dataclass
class LocalPage:
    html_path: Path
    folder: Path
    arxiv_id: str
    version: int
    metadata: PaperMetadata | None
    # What a person should know about how the id and version were read (printed on import).
    notes: list[str] = field(default_factory=list)


def find_html(path: Path) -> Path:
    if path.is_file():
        return path
    if not path.is_dir():
        raise LocalPageError(f"{path}: no such file or folder")
    preferred = path / "paper.html"
    if preferred.is_file():
        return preferred
    pages = sorted(p for p in path.glob("*.htm*") if p.is_file())
    if len(pages) != 1:
        raise LocalPageError(f"{path}: expected one .html page in the folder, found {len(pages)}")
    return pages[0]


def locate_page(path: Path, *, arxiv_id: str | None = None) -> LocalPage:
    """Resolve PATH (a page, or a folder with the page and its assets) to what import needs."""
    html_path = find_html(path)
    folder = html_path.parent
    meta_path = folder / "meta.json"
    meta = _read_meta(meta_path) if meta_path.is_file() else {}
    version: int | None = None
    notes: list[str] = []
    if arxiv_id:
        match = _ID.fullmatch(arxiv_id.strip())
        if not match:
            raise LocalPageError(f"--arxiv-id {arxiv_id!r} is not an arXiv id like 2410.01234v2")
        arxiv_id, version = match.group(1), _version(match.group(2))
        given = f"--arxiv-id {match.group(0)}"
    elif meta.get("arxiv_id"):
        arxiv_id, version = str(meta["arxiv_id"]), _version(meta.get("version"))
        given = f"{meta_path.name}'s version"
    else:
        for name in (html_path.stem, folder.name):
            match = _ID.search(name)
            if match:
                arxiv_id, version = match.group(1), _version(match.group(2))
                given = f"the name {name!r}"
                break
    named = _page_id(html_path)
    if not arxiv_id:
        if named is None:
            raise LocalPageError(
                f"{html_path}: cannot tell the arXiv id from the file name, a meta.json, "
                "the page's <base> or its images' paths; pass --arxiv-id"
            )
        arxiv_id, version = named
    elif version is None:
        # No version given: the page names its own (its images and links), else v1, said so.
        if named is not None and named[0] == arxiv_id:
            version = named[1]
            notes.append(f"version v{version} read from the page's own image paths and links")
        else:
            version = 1
            notes.append("no version given and the page names none: stored as v1")
    elif named is not None and named[0] == arxiv_id and named[1] != version:
        notes.append(
            f"the page's own image paths and links name v{named[1]}, but {given} says "
            f"v{version}: stored as v{version}, as given (check that it is right)"
        )
    metadata = _metadata(meta, arxiv_id, version) if meta else None
    return LocalPage(html_path, folder, arxiv_id, version, metadata, notes)


def _version(value: object) -> int | None:
    try:
        return int(str(value)) if value not in (None, "") else None
    except ValueError:
        return None


def _page_id(html_path: Path) -> tuple[str, int] | None:
    """The id and version the page names: its <base>, else the most of its assets and links."""
    with html_path.open("rb") as handle:
        head = handle.read(4 * 1024 * 1024)
    match = _BASE_ID.search(head[:8192])
    if match:
        return match.group(1).decode(), int(match.group(2))
    named = Counter((m.group(1).decode(), int(m.group(2))) for m in _ASSET_ID.finditer(head))
    if not named:
        return None
    return named.most_common(1)[0][0]


def _read_meta(path: Path) -> dict:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise LocalPageError(f"{path}: not valid JSON: {exc}") from None
    if not isinstance(data, dict):
        raise LocalPageError(f"{path}: expected a JSON object")
    return data


def _date(value: object) -> datetime | None:
    if not value:
        return None
    try:
        return datetime.fromisoformat(str(value).replace("Z", "+00:00"))
    except ValueError:
        return None


def _metadata(meta: dict, arxiv_id: str, version: int) -> PaperMetadata:

    comment = str(meta.get("comment") or "")
    journal_ref = str(meta.get("journal_ref") or "")
    acceptance = classify_acceptance(comment, journal_ref)
    return PaperMetadata(
        arxiv_id=arxiv_id,
        version=version,
        title=str(meta.get("title") or ""),
        authors=[str(a) for a in meta.get("authors") or []],
        abstract=str(meta.get("abstract") or ""),
        primary_category=str(meta.get("primary_category") or ""),
        categories=[str(c) for c in meta.get("categories") or []],
        published=_date(meta.get("published")),
        updated=_date(meta.get("updated")),
        comment=comment,
        journal_ref=journal_ref,
        license_url=str(meta.get("license_url") or ""),
        license_name=str(meta.get("license_name") or ""),
        acceptance=str(acceptance.acceptance),
        venue=acceptance.venue,
        acceptance_phrase=acceptance.phrase,
    )
