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
from django.db.models import ProtectedError, Q
from django.utils import timezone

from jobs.dispatch import queues_enabled, start_job
from papers import images as image_tools
from papers.licences import licence_from_banner
from papers.models import Element, ElementPanel, Paper, Section, work_citing
from papers.parsing import PARSER_VERSION, Panel, ParsedPaper, ParseError, parse_paper
from papers.parsing import Element as ParsedElement
from papers.parsing.svg import Piece, SvgRefused, composed_svg, inert_svg
from papers.render import RenderUnavailable, open_table_renderer
from papers.storable import Unstorable, fit_parsed, fit_row, fit_values, storable_text

log = logging.getLogger(__name__)


class PaperImportError(Exception):
    """The page could not be imported; the paper was recorded as failed with this reason.

    `code`: "parse_error" (the page is no paper's context), "unstorable" (a value no column
    can hold), "expert_work" (a re-import would discard work on the stored context).
    """

    def __init__(self, reason: str, *, code: str = "parse_error"):
        super().__init__(reason)
        self.reason = reason
        self.code = code


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
    problems: list[str] = field(default_factory=list)  # images that could not be read
    warnings: list[str] = field(default_factory=list)  # the parse's: lost floats, duplicates
    notes: list[str] = field(default_factory=list)  # floats skipped on purpose (algorithms)
    lost: int = 0  # numbered tables/figures not kept
    skipped: int = 0  # numbered floats deliberately not elements (algorithms, listings)
    duplicates: int = 0  # numbers printed by more than one table or figure

    def summary(self) -> str:
        text = (
            f"{self.paper.versioned_id}: {self.status}; {self.sections} sections, "
            f"{self.paragraphs} paragraphs, {self.tables} tables, {self.charts} charts, "
            f"{self.degraded} degraded, {self.lost} numbered floats not kept, "
            f"{self.skipped} skipped (algorithms, listings)"
        )
        if self.duplicates:
            text += f", {self.duplicates} numbers printed twice"
        text += f"; images {self.images}"
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


# Metadata columns whose value may be cut: what people read, never a key.
_CUT_METADATA = frozenset({"primary_category", "venue", "license_name"})


def storable_metadata(metadata: PaperMetadata) -> dict[str, object]:
    """The metadata's field values as the paper's columns hold them; Unstorable for an id,
    a version or a licence address that does not fit."""
    return fit_values(Paper, metadata.field_values(), truncate=_CUT_METADATA)


def check_paper_key(arxiv_id: str, version: int) -> None:
    """Unstorable when no paper row can be keyed by this id and version."""
    fit_values(Paper, {"arxiv_id": arxiv_id, "version": version})
    if storable_text(arxiv_id) != arxiv_id:
        raise Unstorable("Paper.arxiv_id", f"{arxiv_id!r} holds control characters")


def upsert_paper_metadata(*, metadata: PaperMetadata) -> Paper:
    """Create the paper (status "found") or refresh its metadata; never touches its content.
    Raises Unstorable, writing nothing, when the metadata cannot be stored."""
    check_paper_key(metadata.arxiv_id, metadata.version)
    values = storable_metadata(metadata)
    paper, created = Paper.objects.get_or_create(
        arxiv_id=metadata.arxiv_id, version=metadata.version, defaults=values
    )
    if not created:
        for key, value in values.items():
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
        paper.status_reason = storable_text(reason)[:5000]
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
    licence_from_page: bool = True,
    prepared: PreparedPage | None = None,
) -> ImportResult:
    """Parse a page and store its context in one transaction, replacing an earlier import.

    Chart images are read (and checked) before the transaction. Table screenshots and SVG
    rasters are made after it: now, or by a job (images="auto" queues one when Redis is set).
    `licence_from_page`: take the page banner's licence when the paper has none (saved pages;
    a crawl reads the abstract page instead). `prepared`: this page (`html`, `page_url`)
    already parsed and its images read by `prepare_page`, for storing many copies of one page
    (demo and benchmark data); everything after the parse is the same.
    """
    try:
        check_paper_key(arxiv_id, version)
    except Unstorable as exc:
        raise PaperImportError(
            f"no paper can be stored as {arxiv_id!r}v{version}: {exc}", code="unstorable"
        ) from None
    if prepared is not None and (prepared.html, prepared.page_url) != (html, page_url):
        raise ValueError("`prepared` was made from another page")
    try:
        parsed = prepared.parsed if prepared is not None else _parse(html, page_url)
    except ParseError as exc:
        _record_import_failure(arxiv_id, version, f"parse error: {exc.reason}", metadata)
        raise PaperImportError(exc.reason) from None
    except Unstorable as exc:
        _record_import_failure(arxiv_id, version, f"unstorable: {exc}", metadata)
        raise PaperImportError(str(exc), code="unstorable") from None

    # The parsed counts bound what can be kept: below the minimum, no image is fetched at all.
    tables, charts = len(parsed.tables()), len(parsed.charts())
    rejection = _rejection(tables, charts, min_tables, min_charts)
    problems: list[str] = []
    if rejection:
        panel_files = {}
    elif prepared is not None:
        panel_files, problems = dict(prepared.panel_files), list(prepared.problems)
    else:
        panel_files = _load_panels(parsed, assets, problems)
    if not rejection:
        # Only what was kept with an image counts towards MIN_TABLES / MIN_CHARTS.
        tables, charts = _usable_counts(parsed, panel_files, problems)
        rejection = _rejection(tables, charts, min_tables, min_charts, with_images=True)

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
                counts=(tables, charts),
                licence_from_page=licence_from_page,
            )
    except Unstorable as exc:
        _remove_tree(media_dir)  # the database rolled back: so do the files
        _record_import_failure(arxiv_id, version, f"unstorable: {exc}", metadata)
        raise PaperImportError(str(exc), code="unstorable") from None
    except BaseException:
        _remove_tree(media_dir)
        raise
    skipped = {loss.message() for loss in parsed.skipped()}
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
        warnings=[w for w in parsed.warnings if w not in skipped],
        notes=[w for w in parsed.warnings if w in skipped],
        lost=len(parsed.lost()),
        skipped=len(parsed.skipped()),
        duplicates=len(parsed.duplicates),
    )
    if rejection or images == "none":
        return result
    # The context is committed; its screenshots follow. A process killed while drawing them
    # leaves images_status "none" on a parsed paper: a resumed crawl (or `render_images`)
    # draws what is missing (make_paper_images(only_missing=True)).
    result.images, problems = make_paper_images(paper_id=paper.pk, images=images)
    result.problems.extend(problems)
    paper.refresh_from_db()
    return result


def _parse(html: bytes, page_url: str) -> ParsedPaper:
    # Every value the database will hold, fitted to its column (or refused) up front.
    return fit_parsed(parse_paper(html, page_url, max_bytes=settings.MAX_HTML_BYTES))


@dataclass(frozen=True)
class PreparedPage:
    """A page parsed and its chart images read and checked, once, for `import_paper`."""

    html: bytes
    page_url: str
    parsed: ParsedPaper
    panel_files: dict[tuple[str, int], _PanelImage]
    problems: tuple[str, ...]


def prepare_page(*, html: bytes, page_url: str, assets: AssetSource) -> PreparedPage:
    """Parse a page and read its images as `import_paper` would (raises PaperImportError)."""
    try:
        parsed = _parse(html, page_url)
    except ParseError as exc:
        raise PaperImportError(exc.reason) from None
    except Unstorable as exc:
        raise PaperImportError(str(exc), code="unstorable") from None
    problems: list[str] = []
    panel_files = _load_panels(parsed, assets, problems)
    return PreparedPage(html, page_url, parsed, panel_files, tuple(problems))


def make_paper_images(
    *, paper_id: int, images: ImagesMode, only_missing: bool = False
) -> tuple[str, list[str]]:
    """A paper's table screenshots and SVG rasters, the way `images` says: drawn now, or by a
    job ("job", or "auto" when Redis is set). `only_missing`: only what has no image yet (a
    render killed half-way). Returns ("rendered" | "queued" | "skipped", problems)."""
    if images == "none":
        return "skipped", []

    if images == "job" or (images == "auto" and queues_enabled()):
        Paper.objects.filter(pk=paper_id).update(images_status=Paper.ImagesStatus.PENDING)
        start_job(
            kind="render_images",
            function="papers.jobs.render_images",
            params={"paper_id": paper_id, **({"only_missing": True} if only_missing else {})},
            queue="render",
            timeout=3600,
        )
        return "queued", []
    if only_missing:
        render = render_missing_images(paper_id=paper_id)
    else:
        render = render_paper_images(paper_id=paper_id)
    return "rendered", list(render["problems"])  # type: ignore[call-overload]


def missing_image_ids(paper: Paper) -> list[int]:
    """The tables and SVG charts of a paper that a render has not finished: tables without a
    screenshot, SVG charts never rasterised (nor marked SVG-only)."""
    tables = paper.elements.filter(kind=Element.Kind.TABLE, is_image_table=False, image="")
    charts = paper.elements.filter(
        kind=Element.Kind.CHART, panels__svg__gt="", image_renderer=Element.Renderer.NONE
    )
    return sorted({*tables.values_list("pk", flat=True), *charts.values_list("pk", flat=True)})


def render_missing_images(
    *, paper_id: int, progress: ProgressCallback | None = None
) -> dict[str, object]:
    """render_paper_images for what has no image yet; the screenshots already drawn stay."""
    paper = Paper.objects.get(pk=paper_id)
    return render_paper_images(
        paper_id=paper_id, progress=progress, element_ids=missing_image_ids(paper)
    )


def _record_import_failure(
    arxiv_id: str, version: int, reason: str, metadata: PaperMetadata | None
) -> None:
    existing = Paper.objects.filter(arxiv_id=arxiv_id, version=version).first()
    if existing is not None and existing.sections.exists():
        # A failed re-import leaves the earlier, good import in place; it only leaves a note.
        note = storable_text(f"re-import at {timezone.now():%Y-%m-%d %H:%M} failed: {reason}")
        Paper.objects.filter(pk=existing.pk).update(parse_warnings=existing.parse_warnings + [note])
        return
    try:
        mark_paper_status(
            arxiv_id=arxiv_id,
            version=version,
            status=Paper.Status.FAILED,
            reason=reason,
            metadata=metadata,
        )
    except Unstorable as exc:  # the metadata itself: the failure is recorded without it
        mark_paper_status(
            arxiv_id=arxiv_id,
            version=version,
            status=Paper.Status.FAILED,
            reason=f"{reason}; metadata not stored: {exc}",
        )


def _rejection(
    tables: int,
    charts: int,
    min_tables: int | None,
    min_charts: int | None,
    *,
    with_images: bool = False,
) -> str:
    reasons = []
    what = " with an image" if with_images else ""
    if min_tables is not None and tables < min_tables:
        reasons.append(f"{tables} tables{what} (fewer than {min_tables})")
    if min_charts is not None and charts < min_charts:
        reasons.append(f"{charts} charts{what} (fewer than {min_charts})")
    return "; ".join(reasons)


def has_image(element: ParsedElement, panel_files: dict[tuple[str, int], _PanelImage]) -> bool:
    """Whether a parsed table or chart is kept with an image: a table's cells can always be
    drawn; an image table or a chart needs one panel that was read (or an inline SVG)."""
    if element.kind == "table" and element.grids:
        return True
    return any(
        panel.svg
        or getattr(panel_files.get((element.anchor, i)), "png", None)
        or getattr(panel_files.get((element.anchor, i)), "svg", "")
        for i, panel in enumerate(element.panels)
    )


def _usable_counts(
    parsed: ParsedPaper, panel_files: dict[tuple[str, int], _PanelImage], problems: list[str]
) -> tuple[int, int]:
    counts = {"table": 0, "chart": 0}
    for element in parsed.elements:
        if element.kind == "paragraph":
            continue
        if has_image(element, panel_files):
            counts[element.kind] += 1
        else:
            minimum = "MIN_TABLES" if element.kind == "table" else "MIN_CHARTS"
            problems.append(
                f"{element.label or element.anchor}: kept, but no image of it could be read, "
                f"so it does not count towards {minimum}"
            )
    return counts["table"], counts["chart"]


@dataclass
class _PanelImage:
    png: bytes | None
    width: int | None
    height: int | None
    error: str = ""
    svg: str = ""  # a fetched vector graphic, made inert: rasterised with the tables


def _load_panels(
    parsed: ParsedPaper, assets: AssetSource, problems: list[str]
) -> dict[tuple[str, int], _PanelImage]:
    loaded: dict[tuple[str, int], _PanelImage] = {}
    for element in parsed.elements:
        for index, panel in enumerate(element.panels):
            if panel.svg:
                continue
            name = f"{element.label or element.anchor} panel {index + 1}"
            try:
                data = assets.fetch(panel)
                if image_tools.looks_like_svg(data):
                    loaded[(element.anchor, index)] = _vector_panel(data, name, problems)
                    continue
                image = image_tools.normalise_image(
                    data,
                    max_bytes=settings.MAX_IMAGE_BYTES,
                    max_pixels=settings.MAX_IMAGE_PIXELS,
                )
            except (AssetError, image_tools.ImageError) as exc:
                reason = storable_text(getattr(exc, "reason", str(exc)))
                problems.append(f"{name}: {reason}")
                loaded[(element.anchor, index)] = _PanelImage(None, None, None, reason)
            else:
                loaded[(element.anchor, index)] = _PanelImage(image.png, image.width, image.height)
    return loaded


def _vector_panel(data: bytes, name: str, problems: list[str]) -> _PanelImage:
    """A panel whose file is SVG: made inert (what was removed is said), or refused."""
    if len(data) > settings.MAX_IMAGE_BYTES:
        reason = (
            f"the SVG is {len(data):,} bytes, more than the {settings.MAX_IMAGE_BYTES:,} allowed"
        )
        problems.append(f"{name}: {reason}")
        return _PanelImage(None, None, None, reason)
    try:
        inert = inert_svg(data, max_pixels=settings.MAX_IMAGE_PIXELS)
    except SvgRefused as exc:
        reason = storable_text(f"SVG not drawn: {exc}")
        problems.append(f"{name}: {reason}")
        return _PanelImage(None, None, None, reason)
    if said := inert.report():
        problems.append(f"{name}: SVG made inert before drawing: {said}")
    width = round(inert.width) if inert.width else None
    height = round(inert.height) if inert.height else None
    return _PanelImage(None, width, height, svg=inert.text)


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


def _file_name(anchor: str, suffix: str = "", ext: str = "png") -> str:
    safe = "".join(c if c.isalnum() or c in "._-" else "_" for c in anchor)
    return f"{safe}{suffix}.{ext}"


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
    counts: tuple[int, int],
    licence_from_page: bool,
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
            "re-importing would discard it, so the stored import was kept",
            code="expert_work",
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
    paper.table_count, paper.chart_count = counts
    paper.paragraph_count = len(parsed.paragraphs())
    paper.degraded_count = sum(1 for e in parsed.elements if e.degraded)
    paper.images_status = Paper.ImagesStatus.NONE
    record_parse_report(paper, parsed, licence_from_page=licence_from_page)
    fit_row(paper, truncate=_CUT_METADATA | {"generator"}, where=paper.versioned_id)
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
        if e.panels:
            _store_panels(by_anchor[e.anchor], e, panel_files, media_dir, written=[])
    return paper


def record_parse_report(paper: Paper, parsed: ParsedPaper, *, licence_from_page: bool) -> None:
    """What the parse says about the page, on the paper (not saved here): the floats it did not
    keep, the generator line, the parser's version, and (when asked) the banner's licence if
    the paper has none."""
    paper.lost_floats = [loss.as_dict() for loss in parsed.lost()]
    paper.lost_count = len(paper.lost_floats)
    paper.skipped_floats = [loss.as_dict() for loss in parsed.skipped()]
    paper.skipped_count = len(paper.skipped_floats)
    paper.generator = parsed.generator
    stamp = parsed.stamp
    paper.generator_name = stamp.name if stamp else ""
    paper.generator_version = stamp.version if stamp else ""
    paper.generator_date = stamp.date if stamp else None
    paper.parser_version = PARSER_VERSION
    if licence_from_page and parsed.licence and not (paper.license_url or paper.license_name):
        paper.license_url, paper.license_name = licence_from_banner(
            parsed.licence.name, parsed.licence.href
        )


def _save_composed(element: Element, panels: list[tuple[bytes, int]], media_dir: str) -> None:
    png = panels[0][0] if len(panels) == 1 else image_tools.compose_panels(panels)
    _save_file(element.image, media_dir, _file_name(element.anchor), png)


ProgressCallback = Callable[[int, int, str], None]


def render_paper_images(
    *,
    paper_id: int,
    progress: ProgressCallback | None = None,
    element_ids: list[int] | None = None,
) -> dict[str, object]:
    """Screenshot every table and rasterise SVG charts (or only `element_ids`: what a re-parse
    added or changed); one browser for the whole paper."""

    paper = Paper.objects.get(pk=paper_id)
    elements = paper.elements.all()
    if element_ids is not None:
        elements = elements.filter(pk__in=element_ids)
    tables = list(elements.filter(kind=Element.Kind.TABLE, is_image_table=False).order_by("order"))
    # Charts, and image tables, whose panels are vector graphics (an <embed> in a table float).
    svg_charts = list(
        elements.filter(panels__svg__gt="")
        .filter(Q(kind=Element.Kind.CHART) | Q(kind=Element.Kind.TABLE, is_image_table=True))
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
                reason = storable_text(str(exc))
                problems.append(f"{element.label}: screenshot failed: {reason}")
                element.image_error = reason[:2000]
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
    """Rasterise a vector chart's SVG panels and compose its PNG; its panels are also kept as
    one inert SVG file (`Element.vector`), which pages show while there is no PNG."""
    composed: list[tuple[bytes, int]] = []
    pieces: list[Piece] = []
    missing = False
    for panel in element.panels.all():
        if panel.svg:
            pieces.append(Piece(panel.row, svg=panel.svg, width=panel.width, height=panel.height))
            try:
                png = renderer.rasterize_svg(svg=panel.svg)
            except unavailable:
                missing = True
                panel.error = "no raster: Chromium is not available to rasterise the SVG"
                panel.save(update_fields=["error"])
                continue
            except Exception as exc:  # noqa: BLE001
                missing = True
                panel.error = storable_text(f"rasterising failed: {exc}")[:2000]
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
                data = handle.read()
            composed.append((data, panel.row))
            pieces.append(Piece(panel.row, png=data, width=panel.width, height=panel.height))
    vector_error = _save_vector(element, pieces, media_dir)
    if composed and not missing:
        _save_composed(element, composed, media_dir)
        element.image_renderer = Element.Renderer.SOURCE_IMAGE
        element.image_error = ""
    else:
        element.image_renderer = Element.Renderer.SVG_ONLY
        element.image_error = "SVG kept; no raster image (Chromium unavailable or failed)"
        if vector_error:  # nothing at all to show: said on the page and in the problems
            element.image_error += f"; {vector_error}"
            problems.append(f"{element.label}: {vector_error}")
    element.save(update_fields=["image", "image_renderer", "image_error", "vector"])


def _save_vector(element: Element, pieces: list[Piece], media_dir: str) -> str:
    """Store the chart's panels as one inert SVG file; what stopped it, or ""."""
    try:
        inert = composed_svg(pieces, max_pixels=settings.MAX_IMAGE_PIXELS)
    except SvgRefused as exc:
        if element.vector:
            default_storage.delete(element.vector.name)
            element.vector.name = ""
        return f"no SVG file to show either: {exc}"
    name = _file_name(element.anchor, ext="svg")
    _save_file(element.vector, media_dir, name, inert.text.encode("utf-8"))
    return ""


def delete_paper_media(paper: Paper) -> None:
    """Remove every file of a paper (used when the paper itself is deleted)."""
    _remove_tree(_paper_dir(paper.arxiv_id, paper.version))


# --- Re-parsing stored pages ---------------------------------------------------------------

NO_ASSETS = "image not read: re-parse without an image source (pass --assets DIR or --fetch-images)"


@dataclass
class ElementChange:
    """An element a re-parse adds, changes or removes; `cited_by` is the work that cites it."""

    anchor: str
    label: str = ""
    kind: str = ""
    fields: list[str] = field(default_factory=list)  # what differs ("number", "caption", …)
    cited_by: list[str] = field(default_factory=list)

    def describe(self) -> str:
        text = f"{self.label} ({self.anchor})" if self.label else self.anchor
        if self.fields:
            text += f": {', '.join(self.fields)}"
        if self.cited_by:
            shown = ", ".join(self.cited_by[:5])
            more = f" and {len(self.cited_by) - 5} more" if len(self.cited_by) > 5 else ""
            text += f"; cited by {shown}{more}"
        return text


@dataclass
class ReparseReport:
    """What a re-parse of a stored page found and did (in a dry run: would do)."""

    paper: Paper
    dry_run: bool
    added: list[ElementChange] = field(default_factory=list)
    changed: list[ElementChange] = field(default_factory=list)
    removed: list[ElementChange] = field(default_factory=list)
    # Differences left alone because work cites the element or section: for an admin.
    protected: list[ElementChange] = field(default_factory=list)
    sections_added: list[str] = field(default_factory=list)
    sections_changed: list[str] = field(default_factory=list)
    sections_removed: list[str] = field(default_factory=list)
    lost_before: int = 0
    lost_after: int = 0
    warnings: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    vectors: list[str] = field(default_factory=list)  # charts whose SVG file was fetched
    status_before: str = ""
    status_after: str = ""
    work_exists: bool = False
    # What each changed section changed: anchor -> "kind body -> appendix"
    section_diffs: dict[str, str] = field(default_factory=dict)
    generator_before: str = ""
    generator_after: str = ""

    @property
    def unchanged(self) -> bool:
        return not (
            self.added
            or self.changed
            or self.removed
            or self.sections_added
            or self.sections_changed
            or self.sections_removed
        )

    def lines(self) -> list[str]:
        """The report as a person reads it: a summary line, then a line per table or chart
        (paragraphs counted), per difference left alone, per warning."""
        would = self.dry_run
        head = (
            f"{self.paper.versioned_id} (paper #{self.paper.pk}): "
            f"{'would add' if would else 'added'} {len(self.added)}, "
            f"{'would change' if would else 'changed'} {len(self.changed)}, "
            f"{'would remove' if would else 'removed'} {len(self.removed)} elements; "
            f"sections +{len(self.sections_added)} ~{len(self.sections_changed)} "
            f"-{len(self.sections_removed)}; {len(self.protected)} left alone (cited by work); "
            f"numbered floats not kept {self.lost_before} -> {self.lost_after}"
        )
        if self.status_after != self.status_before:
            head += f"; status {self.status_before} -> {self.status_after}"
        if self.unchanged and not self.protected:
            head += "; the stored context is already what the parser reads"
        if would:
            head += " [dry run: nothing written]"
        lines = [head]
        for sign, changes in (("+", self.added), ("~", self.changed), ("-", self.removed)):
            paragraphs = [c for c in changes if c.kind == "paragraph"]
            lines += [f"  {sign} {c.describe()}" for c in changes if c.kind != "paragraph"]
            if paragraphs:
                span = paragraphs[0].anchor
                if len(paragraphs) > 1:
                    span += f" … {paragraphs[-1].anchor}"
                lines.append(f"  {sign} {len(paragraphs)} paragraphs ({span})")
        lines += [f"  ! left as stored, for an admin: {c.describe()}" for c in self.protected]
        for sign, anchors in (
            ("+", self.sections_added),
            ("~", self.sections_changed),
            ("-", self.sections_removed),
        ):
            if anchors:
                shown = [
                    f"{a} ({self.section_diffs[a]})" if a in self.section_diffs else a
                    for a in anchors
                ]
                lines.append(f"  {sign} sections: {', '.join(shown)}")
        if self.generator_after != self.generator_before:
            before = self.generator_before or "none read"
            lines.append(f"  generator: {before} -> {self.generator_after or 'none read'}")
        if self.added and self.work_exists:
            lines.append(
                "  note: the added elements are in no existing curated context; a curator "
                "includes them by saving a new context version"
            )
        if self.vectors:
            lines.append(
                f"  vector graphics fetched and made inert, to be drawn: {', '.join(self.vectors)}"
            )
        lines += [f"  warning: {w}" for w in self.warnings]
        lines += [f"  problem: {p}" for p in self.problems]
        return lines


def _parsed_cells(element: ParsedElement) -> list:
    return [
        [
            [
                {"text": c.text, "rowspan": c.rowspan, "colspan": c.colspan, "header": c.header}
                for c in row
            ]
            for row in grid
        ]
        for grid in element.grids
    ]


def _same_panels(stored: list[ElementPanel], parsed: list[Panel]) -> bool:
    if len(stored) != len(parsed):
        return False
    for old, new in zip(stored, parsed, strict=True):
        # An inline SVG has no address; a fetched one (made inert) is a file like an image.
        inline = bool(old.svg) and not old.source_url
        if (old.caption, old.row, inline) != (new.caption, new.row, bool(new.svg)):
            return False
        # The stored address was resolved against the URL of that import (a saved page's own
        # file, or arXiv's): the src it ends with is what must agree.
        if not new.svg and not old.source_url.endswith(new.src.lstrip("./")):
            return False
    return True


def _element_diff(row: Element, element: ParsedElement) -> list[str]:
    values = {
        "kind": (row.kind, element.kind),
        "section": (row.section.anchor, element.section_anchor),
        "label": (row.label, element.label),
        "number": (row.number, element.number),
        "caption": (row.caption, element.caption),
        "text": (row.text, element.text),
        "table_html": (row.table_html, element.table_html),
        "cells": (row.cells or [], _parsed_cells(element)),
        "is_image_table": (row.is_image_table, element.is_image_table),
        "degraded": (row.degraded, element.degraded),
        "degraded_reasons": (row.degraded_reasons or [], element.degraded_reasons),
    }
    diff = [name for name, (old, new) in values.items() if old != new]
    if row.anchor != element.anchor:
        diff.insert(0, "anchor")
    if not _same_panels(sorted(row.panels.all(), key=lambda p: p.order), element.panels):
        diff.append("panels")
    return diff


def _match(stored: dict[str, Element], parsed: list[ParsedElement]) -> dict[str, Element]:
    """Parsed anchor -> stored row: by anchor, then by identical content among the rest (the
    anchors made up for id-less markup shift when more elements are found before them)."""
    matched = {e.anchor: stored[e.anchor] for e in parsed if e.anchor in stored}
    taken = {row.pk for row in matched.values()}
    rest: dict[tuple[str, str, str, str], list[Element]] = {}
    for row in stored.values():
        if row.pk not in taken:
            rest.setdefault((row.kind, row.label, row.caption, row.text), []).append(row)
    for element in parsed:
        if element.anchor not in matched:
            candidates = rest.get((element.kind, element.label, element.caption, element.text))
            if candidates:
                matched[element.anchor] = candidates.pop(0)
    return matched


def _merged_order(new: list[str], old: list[str], kept_stale: set[str]) -> list[str]:
    """Reading order after a re-parse: the parse's order, with each stale row that stays
    placed right after the row it used to follow."""
    present = set(new)
    after: dict[str | None, list[str]] = {}
    previous: str | None = None
    for key in old:
        if key in kept_stale:
            after.setdefault(previous, []).append(key)
        elif key in present:
            previous = key
    order = list(after.get(None, []))
    for key in new:
        order.append(key)
        order.extend(after.get(key, []))
    return order


@dataclass
class _Plan:
    """What a re-parse writes, computed before any write (a dry run stops here)."""

    matched: dict[str, Element]  # parsed anchor -> stored row
    apply: set[str]  # parsed anchors whose stored row is rewritten from the parse
    needs_images: set[str]  # parsed anchors whose panels are (re)stored with their images
    missing_images: set[str]  # uncited rows the parse agrees with, but stored without images
    removed: list[Element]
    stale_kept: list[Element]  # not in the page any more, but cited: they stay
    old_order: list[str]  # stored anchors in their stored reading order
    sections: dict[str, Section]  # parsed anchor -> stored row
    section_apply: set[str]
    sections_removed: list[Section]
    sections_stale_kept: list[Section]
    old_section_order: list[str]
    cited: dict[int, list[str]]


def _plan_reparse(paper: Paper, parsed: ParsedPaper, report: ReparseReport) -> _Plan:
    stored_sections = {s.anchor: s for s in paper.sections.select_related("parent")}
    stored = {
        e.anchor: e for e in paper.elements.select_related("section").prefetch_related("panels")
    }
    cited = work_citing(Element, [row.pk for row in stored.values()])
    cited_sections = work_citing(Section, [row.pk for row in stored_sections.values()])
    report.work_exists = bool(cited or cited_sections)

    matched = _match(stored, parsed.elements)
    apply: set[str] = set()
    needs_images: set[str] = set()
    missing_images: set[str] = set()
    for element in parsed.elements:
        row = matched.get(element.anchor)
        if row is None:
            report.added.append(ElementChange(element.anchor, element.label, element.kind))
            if element.panels:
                needs_images.add(element.anchor)
            continue
        diff = _element_diff(row, element)
        by = cited.get(row.pk, [])
        if diff and by:
            report.protected.append(ElementChange(row.anchor, row.label, row.kind, diff, by))
        elif diff:
            report.changed.append(ElementChange(row.anchor, row.label, row.kind, diff))
            apply.add(element.anchor)
            if "panels" in diff:
                needs_images.add(element.anchor)
        elif not by and element.panels and not row.image and not any(p.svg for p in element.panels):
            missing_images.add(element.anchor)  # e.g. a rejected import never read them
    taken = {row.pk for row in matched.values()}
    removed: list[Element] = []
    stale_kept: list[Element] = []
    for row in stored.values():
        if row.pk in taken:
            continue
        by = cited.get(row.pk, [])
        if by:
            gone = ["no longer in the page"]
            report.protected.append(ElementChange(row.anchor, row.label, row.kind, gone, by))
            stale_kept.append(row)
        else:
            report.removed.append(ElementChange(row.anchor, row.label, row.kind))
            removed.append(row)

    sections = {
        s.anchor: stored_sections[s.anchor] for s in parsed.sections if s.anchor in stored_sections
    }
    section_apply: set[str] = set()
    final_parent: dict[int, int | None] = {}  # stored section pk -> its parent's pk afterwards
    for section in parsed.sections:
        row = sections.get(section.anchor)
        if row is None:
            report.sections_added.append(section.anchor)
            continue
        parent = row.parent.anchor if row.parent_id else None
        values = {
            "number": (row.number, section.number),
            "title": (row.title, section.title),
            "level": (row.level, section.level),
            "kind": (row.kind, section.kind),
            "parent": (parent, section.parent_anchor),
        }
        diff = [name for name, (old, new) in values.items() if old != new]
        by = cited_sections.get(row.pk, [])
        if diff and by:
            report.protected.append(ElementChange(f"section {row.anchor}", "", "", diff, by))
        elif diff:
            section_apply.add(section.anchor)
            report.sections_changed.append(section.anchor)
            report.section_diffs[section.anchor] = "; ".join(
                f"{name} {values[name][0] or '—'} -> {values[name][1] or '—'}"
                for name in diff
                if name in ("kind", "level", "number")
            ) or ", ".join(diff)
        if section.anchor not in section_apply:
            final_parent[row.pk] = row.parent_id
    # A stale section stays while it is cited, holds an element that stays, or is the parent
    # of a section that stays (deleting a section deletes what it holds).
    parsed_anchors = {s.anchor for s in parsed.sections}
    stale = {row.pk: row for row in stored_sections.values() if row.anchor not in parsed_anchors}
    staying = {pk for pk in stale if cited_sections.get(pk)}
    staying |= {row.section_id for row in stale_kept}
    staying |= {row.section_id for a, row in matched.items() if a not in apply}
    staying &= set(stale)
    parents = {pk: final_parent.get(pk, row.parent_id) for pk, row in stale.items()}
    parents.update(final_parent)
    frontier = list(staying | set(final_parent))
    while frontier:
        parent = parents.get(frontier.pop())
        if parent in stale and parent not in staying:
            staying.add(parent)
            frontier.append(parent)
    sections_removed = [row for pk, row in stale.items() if pk not in staying]
    report.sections_removed = [row.anchor for row in sections_removed]
    return _Plan(
        matched=matched,
        apply=apply,
        needs_images=needs_images,
        missing_images=missing_images,
        removed=removed,
        stale_kept=stale_kept,
        old_order=[row.anchor for row in sorted(stored.values(), key=lambda r: r.order)],
        sections=sections,
        section_apply=section_apply,
        sections_removed=sections_removed,
        sections_stale_kept=[row for pk, row in stale.items() if pk in staying],
        old_section_order=[
            row.anchor for row in sorted(stored_sections.values(), key=lambda r: r.order)
        ],
        cited=cited,
    )


def reparse_paper(
    *,
    paper_id: int,
    assets: AssetSource | None = None,
    dry_run: bool = False,
    images: Literal["now", "none"] = "now",
    min_tables: int | None = None,
    min_charts: int | None = None,
) -> ReparseReport:
    """Parse a paper's stored page again with the current parser and bring its context up to
    date: add what the earlier parse lost, rewrite and remove what no work cites, and leave
    each element and section that a curated context, a claim or an evidence mark cites exactly
    as it is (never removed, renumbered or rewritten: its differences are listed instead).

    Images of added charts and image tables come from `assets` (none: each panel says so).
    A rejected paper whose kept tables and charts now reach the minimums becomes parsed.
    Raises PaperImportError, writing nothing, when there is no stored page or it no longer
    parses. A dry run computes the same report and writes nothing.
    """
    paper = Paper.objects.get(pk=paper_id)
    html = paper.raw_html
    if not html:
        raise PaperImportError(f"{paper.versioned_id}: no stored page to re-parse")
    page_url = paper.html_url or f"https://arxiv.org/html/{paper.versioned_id}"
    try:
        parsed = fit_parsed(parse_paper(html, page_url, max_bytes=settings.MAX_HTML_BYTES))
    except ParseError as exc:
        raise PaperImportError(
            f"{paper.versioned_id}: the stored page no longer parses: {exc.reason}"
        ) from None
    except Unstorable as exc:
        raise PaperImportError(
            f"{paper.versioned_id}: the stored page's context cannot be stored: {exc}",
            code="unstorable",
        ) from None
    report = ReparseReport(
        paper=paper,
        dry_run=dry_run,
        lost_before=paper.lost_count,
        lost_after=len(parsed.lost()),
        warnings=list(parsed.warnings),
        status_before=paper.status,
        status_after=paper.status,
        generator_before=paper.generator_label,
        generator_after=parsed.stamp.label() if parsed.stamp else "",
    )
    plan = _plan_reparse(paper, parsed, report)
    if dry_run:
        return report
    if assets is not None:  # images an earlier import never read (a rejected paper's)
        plan.needs_images |= plan.missing_images
        plan.apply |= plan.missing_images
        report.changed += [
            ElementChange(e.anchor, e.label, e.kind, ["images read"])
            for e in parsed.elements
            if e.anchor in plan.missing_images
        ]
    to_load = [e for e in parsed.elements if e.anchor in plan.needs_images]
    panel_files = _load_reparse_panels(to_load, assets, report.problems)
    written: list[str] = []
    try:
        with transaction.atomic():
            redraw = _apply_reparse(
                paper, parsed, plan, panel_files, written, report, (min_tables, min_charts)
            )
    except BaseException:
        for name in written:  # the database rolled back: so do the new files
            default_storage.delete(name)
        raise
    if redraw and images == "now":
        render = render_paper_images(paper_id=paper.pk, element_ids=redraw)
        report.problems.extend(render["problems"])  # type: ignore[arg-type]
    paper.refresh_from_db()
    report.paper = paper
    return report


def _load_reparse_panels(
    elements: list[ParsedElement], assets: AssetSource | None, problems: list[str]
) -> dict[tuple[str, int], _PanelImage]:
    if assets is not None:
        scope = ParsedPaper(title="", sections=[], elements=elements, base_url="")
        return _load_panels(scope, assets, problems)
    loaded: dict[tuple[str, int], _PanelImage] = {}
    for element in elements:
        for index, panel in enumerate(element.panels):
            if not panel.svg:
                problems.append(f"{element.label or element.anchor} panel {index + 1}: {NO_ASSETS}")
                loaded[(element.anchor, index)] = _PanelImage(None, None, None, NO_ASSETS)
    return loaded


def _apply_reparse(
    paper: Paper,
    parsed: ParsedPaper,
    plan: _Plan,
    panel_files: dict[tuple[str, int], _PanelImage],
    written: list[str],
    report: ReparseReport,
    minimums: tuple[int | None, int | None],
) -> list[int]:
    """The writes of a re-parse, in the caller's transaction; returns the tables to draw."""
    paper = Paper.objects.select_for_update().get(pk=paper.pk)
    if not paper.media_dir:
        paper.media_dir = _new_media_dir(paper.arxiv_id, paper.version)

    # Sections: new ones and rewritten ones (the parse lists a parent before its children).
    sections: dict[str, Section] = dict(plan.sections)
    for item in parsed.sections:
        parent = sections.get(item.parent_anchor or "")
        row = sections.get(item.anchor)
        if row is None:
            sections[item.anchor] = Section.objects.create(
                paper=paper,
                anchor=item.anchor,
                number=item.number,
                title=item.title,
                level=item.level,
                parent=parent,
                order=item.order,
                kind=item.kind,
            )
        elif item.anchor in plan.section_apply:
            row.number, row.title, row.level = item.number, item.title, item.level
            row.kind, row.parent = item.kind, parent
            row.save(update_fields=["number", "title", "level", "kind", "parent"])

    # Elements: remove what no work cites and the page no longer holds; add; rewrite.
    old_files = [
        name
        for row in plan.removed
        for name in [row.image.name, row.vector.name, *(p.image.name for p in row.panels.all())]
        if name
    ]
    Element.objects.filter(pk__in=[row.pk for row in plan.removed]).delete()
    rows: dict[str, Element] = {row.anchor: row for row in plan.stale_kept}
    redraw: list[int] = []
    for element in parsed.elements:
        row = plan.matched.get(element.anchor)
        if row is not None and element.anchor not in plan.apply:
            rows[element.anchor] = row
            continue
        row = row or Element(paper=paper)
        row.anchor, row.section = element.anchor, sections[element.section_anchor]
        row.kind, row.label, row.number = element.kind, element.label, element.number
        row.caption, row.text, row.table_html = element.caption, element.text, element.table_html
        row.cells, row.is_image_table = _parsed_cells(element), element.is_image_table
        row.degraded, row.degraded_reasons = element.degraded, element.degraded_reasons
        row.order = element.order
        row.save()
        rows[element.anchor] = row
        if element.anchor in plan.needs_images:
            old_files += [p.image.name for p in row.panels.all() if p.image]
            row.panels.all().delete()
            _store_panels(row, element, panel_files, paper.media_dir, written)
            if row.panels.filter(svg__gt="").exists():
                redraw.append(row.pk)  # a vector graphic (inline, or fetched): rasterised
                if row.panels.filter(svg__gt="").exclude(source_url="").exists():
                    report.vectors.append(row.label or row.anchor)
        if element.kind == "table" and not element.is_image_table:
            redraw.append(row.pk)

    # Reading order: the parse's, with each cited row the page lost after its old neighbour.
    order = _merged_order(
        [e.anchor for e in parsed.elements], plan.old_order, {r.anchor for r in plan.stale_kept}
    )
    for index, anchor in enumerate(order):
        rows[anchor].order = index
    Element.objects.bulk_update(list(rows.values()), ["order"], batch_size=500)
    sections.update({row.anchor: row for row in plan.sections_stale_kept})
    section_order = _merged_order(
        [s.anchor for s in parsed.sections],
        plan.old_section_order,
        {row.anchor for row in plan.sections_stale_kept},
    )
    for index, anchor in enumerate(section_order):
        sections[anchor].order = index
    Section.objects.bulk_update(list(sections.values()), ["order"], batch_size=500)
    Section.objects.filter(pk__in=[row.pk for row in plan.sections_removed]).delete()

    # Cross-references: the parse's, added; a cited paragraph's are never taken away.
    through = Element.references.through
    existing = set(
        through.objects.filter(from_element__paper=paper).values_list(
            "from_element_id", "to_element_id"
        )
    )
    wanted = {
        (rows[e.anchor].pk, rows[target].pk)
        for e in parsed.elements
        for target in e.refs
        if target in rows
    }
    through.objects.bulk_create(
        [through(from_element_id=a, to_element_id=b) for a, b in wanted - existing],
        batch_size=1000,
    )
    for a, b in existing - wanted:
        if a not in plan.cited:
            through.objects.filter(from_element_id=a, to_element_id=b).delete()

    # The paper: what the new parse says, what is kept with an image, and its status.
    tables, charts = _stored_usable_counts(paper)
    paper.parse_warnings = parsed.warnings + report.problems
    paper.table_count, paper.chart_count = tables, charts
    paper.paragraph_count = paper.elements.filter(kind=Element.Kind.PARAGRAPH).count()
    paper.degraded_count = paper.elements.filter(degraded=True).count()
    record_parse_report(paper, parsed, licence_from_page=not paper.html_url)
    paper.reparsed_at = timezone.now()
    min_tables, min_charts = minimums
    if paper.status == Paper.Status.REJECTED and (min_tables, min_charts) != (None, None):
        rejection = _rejection(tables, charts, min_tables, min_charts, with_images=True)
        if not rejection:
            paper.status, paper.status_reason = Paper.Status.PARSED, ""
    paper.save()
    report.status_after = paper.status
    transaction.on_commit(lambda: [default_storage.delete(name) for name in old_files])
    return redraw


def _store_panels(
    row: Element,
    element: ParsedElement,
    panel_files: dict[tuple[str, int], _PanelImage],
    media_dir: str,
    written: list[str],
) -> None:
    """Store a parsed table's or chart's panels (their files under `media_dir`, each file's
    name appended to `written`) and, when every panel is a raster image, the composed image.
    A panel that is SVG (inline, or a fetched file made inert) is rasterised later, with the
    table screenshots."""
    composed: list[tuple[bytes, int]] = []
    vector = False
    for index, panel in enumerate(element.panels):
        image = panel_files.get((element.anchor, index))
        svg = panel.svg or (image.svg if image is not None else "")
        vector = vector or bool(svg)
        stored = ElementPanel(
            element=row,
            order=index,
            row=panel.row,
            caption=panel.caption,
            source_url=panel.url or panel.src,
            svg=svg,
        )
        if image is not None:
            stored.error = image.error
            stored.width, stored.height = image.width, image.height
            if image.png:
                _save_file(
                    stored.image, media_dir, _file_name(row.anchor, f"-{index + 1}"), image.png
                )
                written.append(stored.image.name)
                composed.append((image.png, panel.row))
        stored.save()
    if composed and not vector:
        _save_composed(row, composed, media_dir)
        written.append(row.image.name)
        row.image_renderer = Element.Renderer.SOURCE_IMAGE
        row.save(update_fields=["image", "image_renderer"])


def _stored_usable_counts(paper: Paper) -> tuple[int, int]:
    """The stored tables and charts kept with an image (a table's cells can always be drawn)."""
    tables = (
        paper.elements.filter(kind=Element.Kind.TABLE)
        .filter(Q(is_image_table=False) | Q(panels__image__gt=""))
        .distinct()
        .count()
    )
    charts = (
        paper.elements.filter(kind=Element.Kind.CHART)
        .filter(Q(panels__image__gt="") | Q(panels__svg__gt=""))
        .distinct()
        .count()
    )
    return tables, charts
