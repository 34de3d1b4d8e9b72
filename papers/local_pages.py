"""Find saved arXiv pages on disk: the HTML file, its arXiv id and version, and its metadata."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from papers.services import PaperMetadata

_ID = re.compile(r"(\d{4}\.\d{4,5})(?:v(\d+))?")
_BASE_ID = re.compile(rb"<base[^>]*href=\"[^\"]*?/html/(\d{4}\.\d{4,5})v(\d+)", re.I)
# arXiv's 2026 pages have no <base>: their images are `src="2508.08468v6/x1.png"`.
_SRC_ID = re.compile(rb"<img[^>]*\ssrc=\"(?:[^\"]*?/html/)?(\d{4}\.\d{4,5})v(\d+)/", re.I)


class LocalPageError(Exception):
    pass


@dataclass
class LocalPage:
    html_path: Path
    folder: Path
    arxiv_id: str
    version: int
    metadata: PaperMetadata | None


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
    version = None
    if arxiv_id:
        match = _ID.fullmatch(arxiv_id.strip())
        if not match:
            raise LocalPageError(f"--arxiv-id {arxiv_id!r} is not an arXiv id like 2410.01234v2")
        arxiv_id, version = match.group(1), int(match.group(2) or 1)
    elif meta.get("arxiv_id"):
        arxiv_id, version = str(meta["arxiv_id"]), int(meta.get("version") or 1)
    else:
        for name in (html_path.stem, folder.name):
            match = _ID.search(name)
            if match:
                arxiv_id, version = match.group(1), int(match.group(2) or 1)
                break
        else:
            with html_path.open("rb") as handle:
                head = handle.read(4 * 1024 * 1024)
            match = _BASE_ID.search(head[:8192]) or _SRC_ID.search(head)
            if not match:
                raise LocalPageError(
                    f"{html_path}: cannot tell the arXiv id from the file name, a meta.json, "
                    "the page's <base> or its images' paths; pass --arxiv-id"
                )
            arxiv_id, version = match.group(1).decode(), int(match.group(2))
    metadata = _metadata(meta, arxiv_id, version) if meta else None
    return LocalPage(html_path, folder, arxiv_id, version, metadata)


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
    from papers.crawl.acceptance import classify_acceptance

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
