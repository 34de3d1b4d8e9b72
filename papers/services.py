"""Writes on papers: store metadata, import a parsed page atomically, render element images."""

from __future__ import annotations

import base64
import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Literal, Protocol
from urllib.parse import unquote, urlsplit

from django.conf import settings
from django.core.files.base import ContentFile
from django.core.files.storage import default_storage
from django.db import transaction
from django.db.models import ProtectedError
from django.utils import timezone

from papers import images as image_tools
from papers.models import Element, ElementPanel, Paper, Section
from papers.parsing import Panel, ParsedPaper, ParseError, parse_paper

log = logging.getLogger(__name__)


class PaperImportError(Exception):
    """The page could not be imported; the paper was recorded as failed with this reason."""

    def __init__(self, reason: str):
        super().__init__(reason)
        self.reason = reason


class AssetError(Exception):
    """An asset (chart image) could not be read."""

    def __init__(self, reason: str):
        super().__init__(reason)
        self.reason = reason


class AssetSource(Protocol):
    def fetch(self, panel: Panel) -> bytes:
        """The bytes of a panel's image; raise AssetError with a reason."""
        ...


@dataclass
class PaperMetadata:
    arxiv_id: str
    version: int
    title: str = ""
    authors: list[str] = field(default_factory=list)
    abstract: str = ""
    primary_category: str = ""
    categories: list[str] = field(default_factory=list)
    published: datetime | None = None
    updated: datetime | None = None
    comment: str = ""
    journal_ref: str = ""
    license_url: str = ""
    license_name: str = ""
    acceptance: str = Paper.Acceptance.UNKNOWN
    venue: str = ""
    acceptance_phrase: str = ""

    def field_values(self) -> dict[str, object]:
        values = {k: v for k, v in self.__dict__.items() if k not in ("arxiv_id", "version")}
        # An empty licence never overwrites one already found.
        for key in ("license_url", "license_name"):
            if not values[key]:
                del values[key]
        return values


@dataclass
class ImportResult:
    paper: Paper
    status: str
    sections: int
    paragraphs: int
    tables: int
    charts: int
    degraded: int
    images: str  # "rendered", "queued", "skipped"
    problems: list[str] = field(default_factory=list)

    def summary(self) -> str:
        text = (
            f"{self.paper.versioned_id}: {self.status}; {self.sections} sections, "
            f"{self.paragraphs} paragraphs, {self.tables} tables, {self.charts} charts, "
            f"{self.degraded} degraded; images {self.images}"
        )
        if self.paper.status_reason:
            text += f" ({self.paper.status_reason})"
        return text


class FolderAssets:
    """Assets of a page saved on disk: the folder holding the page and its images."""

    def __init__(self, folder: Path, *, max_bytes: int | None = None):
        self.folder = folder.resolve()
        self.max_bytes = max_bytes or settings.MAX_IMAGE_BYTES

    def fetch(self, panel: Panel) -> bytes:
        if panel.src.startswith("data:"):
            return decode_data_uri(panel.src)
        for candidate in self._candidates(panel):
            path = (self.folder / candidate).resolve()
            if not path.is_relative_to(self.folder):
                continue  # never read outside the page's folder
            if path.is_file():
                if path.stat().st_size > self.max_bytes:
                    raise AssetError(f"{panel.src}: larger than {self.max_bytes} bytes")
                return path.read_bytes()
        raise AssetError(f"{panel.src}: not found in {self.folder}")

    @staticmethod
    def _candidates(panel: Panel) -> list[str]:
        src = unquote(urlsplit(panel.src).path).lstrip("/")
        candidates = [src]
        parts = src.split("/")
        # "2501.11120v1/x1.png" (relative to /html/) or "html/2501.11120v1/x1.png"
        for i, part in enumerate(parts[:-1]):
            if part and part[0].isdigit() and "v" in part:
                candidates.append("/".join(parts[i + 1 :]))
        if panel.url:
            url_path = unquote(urlsplit(panel.url).path)
            url_parts = url_path.strip("/").split("/")
            if "html" in url_parts:
                rest = url_parts[url_parts.index("html") + 1 :]
                candidates.append("/".join(rest[1:]) if len(rest) > 1 else "/".join(rest))
        candidates.append(parts[-1])
        return list(dict.fromkeys(c for c in candidates if c))


def decode_data_uri(uri: str) -> bytes:
    header, _, payload = uri.partition(",")
    if ";base64" not in header:
        raise AssetError("data URI is not base64")
    try:
        return base64.b64decode(payload, validate=False)
    except ValueError as exc:
        raise AssetError(f"bad data URI: {exc}") from None


def upsert_paper_metadata(*, metadata: PaperMetadata) -> Paper:
    """Create the paper (status "found") or refresh its metadata; never touches its content."""
    paper, created = Paper.objects.get_or_create(
        arxiv_id=metadata.arxiv_id,
        version=metadata.version,
        defaults=metadata.field_values(),
    )
    if not created:
        for key, value in metadata.field_values().items():
            setattr(paper, key, value)
        paper.save()
    return paper


def mark_paper_status(
    *,
    arxiv_id: str,
    version: int,
    status: str,
    reason: str,
    metadata: PaperMetadata | None = None,
) -> Paper:
    """Record an outcome without content (no HTML, fetch failed, parse failed)."""
    if status not in Paper.Status.values:
        raise ValueError(f"unknown paper status {status!r}")
    with transaction.atomic():
        if metadata is not None:
            paper = upsert_paper_metadata(metadata=metadata)
        else:
            paper, _ = Paper.objects.get_or_create(arxiv_id=arxiv_id, version=version)
        paper.status = status
        paper.status_reason = reason[:5000]
        paper.save(update_fields=["status", "status_reason", "updated_at"])
    return paper


ImagesMode = Literal["auto", "now", "job", "none"]


def import_paper(
    *,
    html: bytes,
    page_url: str,
    assets: AssetSource,
    arxiv_id: str,
    version: int,
    metadata: PaperMetadata | None = None,
    fetched_at: datetime | None = None,
    min_tables: int | None = None,
    min_charts: int | None = None,
    images: ImagesMode = "auto",
) -> ImportResult:
    """Parse a page and store its context in one transaction, replacing an earlier import.

    Chart images are read (and checked) before the transaction. Table screenshots and SVG
    rasters are made after it: now, or by a job (images="auto" queues one when Redis is set).
    """
    try:
        parsed = parse_paper(html, page_url, max_bytes=settings.MAX_HTML_BYTES)
    except ParseError as exc:
        _record_parse_failure(arxiv_id, version, exc.reason, metadata)
        raise PaperImportError(exc.reason) from None

    tables, charts = len(parsed.tables()), len(parsed.charts())
    rejection = _rejection(tables, charts, min_tables, min_charts)
    problems: list[str] = []
    panel_files = {} if rejection else _load_panels(parsed, assets, problems)

    media_dir = _new_media_dir(arxiv_id, version)
    try:
        with transaction.atomic():
            paper = _store(
                parsed=parsed,
                html=html,
                page_url=page_url,
                arxiv_id=arxiv_id,
                version=version,
                metadata=metadata,
                fetched_at=fetched_at or timezone.now(),
                rejection=rejection,
                panel_files=panel_files,
                problems=problems,
                media_dir=media_dir,
            )
    except BaseException:
        _remove_tree(media_dir)  # the database rolled back: so do the files
        raise
    result = ImportResult(
        paper=paper,
        status=paper.status,
        sections=len(parsed.sections),
        paragraphs=len(parsed.paragraphs()),
        tables=tables,
        charts=charts,
        degraded=paper.degraded_count,
        images="skipped",
        problems=problems,
    )
    if rejection or images == "none":
        return result
    from jobs.dispatch import queues_enabled, start_job

    if images == "job" or (images == "auto" and queues_enabled()):
        Paper.objects.filter(pk=paper.pk).update(images_status=Paper.ImagesStatus.PENDING)
        start_job(
            kind="render_images",
            function="papers.jobs.render_images",
            params={"paper_id": paper.pk},
            queue="render",
            timeout=3600,
        )
        result.images = "queued"
    else:
        render = render_paper_images(paper_id=paper.pk)
        result.images = "rendered"
        result.problems.extend(render["problems"])
    paper.refresh_from_db()
    return result


def _record_parse_failure(
    arxiv_id: str, version: int, reason: str, metadata: PaperMetadata | None
) -> None:
    existing = Paper.objects.filter(arxiv_id=arxiv_id, version=version).first()
    if existing is not None and existing.sections.exists():
        # A failed re-import leaves the earlier, good import in place; it only leaves a note.
        note = f"re-import at {timezone.now():%Y-%m-%d %H:%M} failed: {reason}"
        Paper.objects.filter(pk=existing.pk).update(parse_warnings=existing.parse_warnings + [note])
        return
    mark_paper_status(
        arxiv_id=arxiv_id,
        version=version,
        status=Paper.Status.FAILED,
        reason=f"parse error: {reason}",
        metadata=metadata,
    )


def _rejection(tables: int, charts: int, min_tables: int | None, min_charts: int | None) -> str:
    reasons = []
    if min_tables is not None and tables < min_tables:
        reasons.append(f"{tables} tables (fewer than {min_tables})")
    if min_charts is not None and charts < min_charts:
        reasons.append(f"{charts} charts (fewer than {min_charts})")
    return "; ".join(reasons)


@dataclass
class _PanelImage:
    png: bytes | None
    width: int | None
    height: int | None
    error: str = ""


def _load_panels(
    parsed: ParsedPaper, assets: AssetSource, problems: list[str]
) -> dict[tuple[str, int], _PanelImage]:
    loaded: dict[tuple[str, int], _PanelImage] = {}
    for element in parsed.elements:
        for index, panel in enumerate(element.panels):
            if panel.svg:
                continue
            try:
                data = assets.fetch(panel)
                image = image_tools.normalise_image(
                    data,
                    max_bytes=settings.MAX_IMAGE_BYTES,
                    max_pixels=settings.MAX_IMAGE_PIXELS,
                )
            except (AssetError, image_tools.ImageError) as exc:
                reason = getattr(exc, "reason", str(exc))
                problems.append(f"{element.label or element.anchor} panel {index + 1}: {reason}")
                loaded[(element.anchor, index)] = _PanelImage(None, None, None, reason)
            else:
                loaded[(element.anchor, index)] = _PanelImage(image.png, image.width, image.height)
    return loaded


def _paper_dir(arxiv_id: str, version: int) -> str:
    return f"papers/{arxiv_id}v{version}"


def _new_media_dir(arxiv_id: str, version: int) -> str:
    # Each import writes into a folder of its own, so a failed re-import never touches the
    # files that the previous (still current) import points at.
    return f"{_paper_dir(arxiv_id, version)}/{timezone.now():%Y%m%dT%H%M%S%f}"


def _remove_tree(relative: str) -> None:
    root = Path(settings.MEDIA_ROOT) / relative
    if not root.is_dir():
        return
    for path in sorted(root.rglob("*"), reverse=True):
        if path.is_dir():
            path.rmdir()
        else:
            path.unlink()
    root.rmdir()


def remove_paper_media(arxiv_id: str, version: int) -> None:
    """Remove every file stored for this paper version (all its imports)."""
    _remove_tree(_paper_dir(arxiv_id, version))


def _remove_other_media(arxiv_id: str, version: int, keep: str) -> None:
    root = Path(settings.MEDIA_ROOT) / _paper_dir(arxiv_id, version)
    if not root.is_dir():
        return
    for child in root.iterdir():
        relative = f"{_paper_dir(arxiv_id, version)}/{child.name}"
        if child.is_dir() and relative != keep:
            _remove_tree(relative)


def _file_name(anchor: str, suffix: str = "") -> str:
    safe = "".join(c if c.isalnum() or c in "._-" else "_" for c in anchor)
    return f"{safe}{suffix}.png"


def _save_file(field_file, media_dir: str, name: str, data: bytes) -> None:
    """Store `data` at media_dir/name (replacing a file there) and point the field at it."""
    path = f"{media_dir}/{name}"
    if field_file and field_file.name and field_file.name != path:
        default_storage.delete(field_file.name)
    if default_storage.exists(path):
        default_storage.delete(path)
    field_file.name = default_storage.save(path, ContentFile(data))


def _store(
    *,
    parsed: ParsedPaper,
    html: bytes,
    page_url: str,
    arxiv_id: str,
    version: int,
    metadata: PaperMetadata | None,
    fetched_at: datetime,
    rejection: str,
    panel_files: dict[tuple[str, int], _PanelImage],
    problems: list[str],
    media_dir: str,
) -> Paper:
    paper = (
        upsert_paper_metadata(metadata=metadata)
        if metadata is not None
        else Paper.objects.get_or_create(arxiv_id=arxiv_id, version=version)[0]
    )
    paper = Paper.objects.select_for_update().get(pk=paper.pk)
    try:
        with transaction.atomic():
            paper.sections.all().delete()  # cascades to elements, panels and references
    except ProtectedError:
        # Experts' work (curated contexts, claims) points at this import's elements: replacing
        # them would lose it. The stored import stays; the new page is refused.
        raise PaperImportError(
            f"{paper.versioned_id} already has expert work on its context (curation or claims); "
            "re-importing would discard it, so the stored import was kept"
        ) from None
    paper.media_dir = media_dir
    transaction.on_commit(lambda: _remove_other_media(arxiv_id, version, keep=media_dir))

    if not paper.title:
        paper.title = parsed.title
    paper.html_url = page_url if page_url.startswith("http") else paper.html_url
    paper.raw_html = html
    paper.html_fetched_at = fetched_at
    paper.status = Paper.Status.REJECTED if rejection else Paper.Status.PARSED
    paper.status_reason = rejection
    paper.parse_warnings = parsed.warnings + problems
    paper.table_count = len(parsed.tables())
    paper.chart_count = len(parsed.charts())
    paper.paragraph_count = len(parsed.paragraphs())
    paper.degraded_count = sum(1 for e in parsed.elements if e.degraded)
    paper.images_status = Paper.ImagesStatus.NONE
    paper.save()

    sections: dict[str, Section] = {}
    for parsed_section in parsed.sections:
        sections[parsed_section.anchor] = Section.objects.create(
            paper=paper,
            anchor=parsed_section.anchor,
            number=parsed_section.number,
            title=parsed_section.title,
            level=parsed_section.level,
            parent=sections.get(parsed_section.parent_anchor or ""),
            order=parsed_section.order,
            kind=parsed_section.kind,
        )

    rows = [
        Element(
            paper=paper,
            section=sections[e.section_anchor],
            kind=e.kind,
            anchor=e.anchor,
            order=e.order,
            label=e.label,
            number=e.number,
            caption=e.caption,
            text=e.text,
            table_html=e.table_html,
            cells=[
                [
                    [
                        {
                            "text": c.text,
                            "rowspan": c.rowspan,
                            "colspan": c.colspan,
                            "header": c.header,
                        }
                        for c in row
                    ]
                    for row in grid
                ]
                for grid in e.grids
            ],
            is_image_table=e.is_image_table,
            degraded=e.degraded,
            degraded_reasons=e.degraded_reasons,
        )
        for e in parsed.elements
    ]
    Element.objects.bulk_create(rows, batch_size=500)
    by_anchor = {row.anchor: row for row in Element.objects.filter(paper=paper)}

    through = Element.references.through
    links = [
        through(from_element_id=by_anchor[e.anchor].pk, to_element_id=by_anchor[target].pk)
        for e in parsed.elements
        for target in e.refs
        if target in by_anchor
    ]
    through.objects.bulk_create(links, batch_size=1000)

    for e in parsed.elements:
        if not e.panels:
            continue
        element = by_anchor[e.anchor]
        panels: list[tuple[bytes, int]] = []
        for index, panel in enumerate(e.panels):
            image = panel_files.get((e.anchor, index))
            row = ElementPanel(
                element=element,
                order=index,
                row=panel.row,
                caption=panel.caption,
                source_url=panel.url or panel.src,
                svg=panel.svg,
            )
            if image is not None:
                row.error = image.error
                row.width, row.height = image.width, image.height
                if image.png:
                    _save_file(
                        row.image, media_dir, _file_name(e.anchor, f"-{index + 1}"), image.png
                    )
                    panels.append((image.png, panel.row))
            row.save()
        if panels and not any(p.svg for p in e.panels):
            _save_composed(element, panels, media_dir)
            element.image_renderer = Element.Renderer.SOURCE_IMAGE
            element.save(update_fields=["image", "image_renderer"])
    return paper


def _save_composed(element: Element, panels: list[tuple[bytes, int]], media_dir: str) -> None:
    png = panels[0][0] if len(panels) == 1 else image_tools.compose_panels(panels)
    _save_file(element.image, media_dir, _file_name(element.anchor), png)


ProgressCallback = Callable[[int, int, str], None]


def render_paper_images(
    *, paper_id: int, progress: ProgressCallback | None = None
) -> dict[str, object]:
    """Screenshot every table and rasterise SVG charts; one browser for the whole paper."""
    from papers.render import RenderUnavailable, open_table_renderer

    paper = Paper.objects.get(pk=paper_id)
    tables = list(
        paper.elements.filter(kind=Element.Kind.TABLE, is_image_table=False).order_by("order")
    )
    svg_charts = list(
        paper.elements.filter(kind=Element.Kind.CHART, panels__svg__gt="")
        .distinct()
        .order_by("order")
        .prefetch_related("panels")
    )
    total = len(tables) + len(svg_charts)
    problems: list[str] = []
    done = 0
    renderer_name = ""
    with open_table_renderer(
        chromium_path=settings.CHROMIUM_PATH, use_chromium=settings.USE_CHROMIUM
    ) as renderer:
        renderer_name = renderer.name
        for element in tables:
            try:
                png = renderer.render_table(
                    table_html=element.table_html,
                    grids=element.cell_grids(),
                    label=element.label,
                    caption=element.caption,
                )
            except Exception as exc:  # noqa: BLE001 - one bad table must not stop the paper
                log.warning("table %s of %s: %s", element.anchor, paper.versioned_id, exc)
                problems.append(f"{element.label}: screenshot failed: {exc}")
                element.image_error = str(exc)[:2000]
                element.save(update_fields=["image_error"])
            else:
                _save_file(element.image, paper.media_dir, _file_name(element.anchor), png)
                element.image_renderer = renderer.name
                element.image_error = ""
                element.save(update_fields=["image", "image_renderer", "image_error"])
            done += 1
            if progress:
                progress(done, total, f"{element.label} rendered with {renderer.name}")
        for element in svg_charts:
            _render_svg_chart(element, renderer, problems, RenderUnavailable, paper.media_dir)
            done += 1
            if progress:
                progress(done, total, f"{element.label} rasterised")
    status = Paper.ImagesStatus.PARTIAL if problems else Paper.ImagesStatus.DONE
    Paper.objects.filter(pk=paper.pk).update(images_status=status)
    return {
        "renderer": renderer_name,
        "tables": len(tables),
        "svg_charts": len(svg_charts),
        "problems": problems,
    }


def _render_svg_chart(
    element: Element, renderer, problems: list[str], unavailable: type[Exception], media_dir: str
) -> None:
    composed: list[tuple[bytes, int]] = []
    missing = False
    for panel in element.panels.all():
        if panel.svg:
            try:
                png = renderer.rasterize_svg(svg=panel.svg)
            except unavailable:
                missing = True
                panel.error = "no raster: Chromium is not available to rasterise the SVG"
                panel.save(update_fields=["error"])
                continue
            except Exception as exc:  # noqa: BLE001
                missing = True
                panel.error = f"rasterising failed: {exc}"[:2000]
                panel.save(update_fields=["error"])
                problems.append(f"{element.label}: {panel.error}")
                continue
            _save_file(
                panel.image, media_dir, _file_name(element.anchor, f"-{panel.order + 1}"), png
            )
            panel.error = ""
            panel.save()
            composed.append((png, panel.row))
        elif panel.image:
            with panel.image.open("rb") as handle:
                composed.append((handle.read(), panel.row))
    if composed and not missing:
        _save_composed(element, composed, media_dir)
        element.image_renderer = Element.Renderer.SOURCE_IMAGE
        element.image_error = ""
    else:
        element.image_renderer = Element.Renderer.SVG_ONLY
        element.image_error = "SVG kept; no raster image (Chromium unavailable or failed)"
    element.save(update_fields=["image", "image_renderer", "image_error"])


def delete_paper_media(paper: Paper) -> None:
    """Remove every file of a paper (used when the paper itself is deleted)."""
    _remove_tree(_paper_dir(paper.arxiv_id, paper.version))
