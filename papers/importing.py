"""Importing a page: parse it, read its chart images, and store its context (sections,
elements, panels, cross-references) in one transaction that replaces an earlier import; a
page that cannot be stored is recorded as failed with its reason."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from django.conf import settings
from django.db import transaction
from django.db.models import ProtectedError
from django.utils import timezone

from papers.assets import AssetSource, PanelImage, load_panels
from papers.drawing import ImagesMode, make_paper_images
from papers.licences import licence_from_banner
from papers.media import new_media_dir, remove_other_media, remove_tree, store_panels
from papers.metadata import (
    CUT_METADATA,
    PaperMetadata,
    check_paper_key,
    mark_paper_status,
    upsert_paper_metadata,
)
from papers.models import Element, Paper, Section
from papers.parsing import PARSER_VERSION, ParsedPaper, ParseError, parse_paper
from papers.parsing import Element as ParsedElement
from papers.parsing import Section as ParsedSection
from papers.storable import Unstorable, fit_parsed, fit_row, storable_text


class PaperImportError(Exception):
    """The page could not be imported; the paper was recorded as failed with this reason.

    `code`: "parse_error" (the page is no paper's context), "unstorable" (a value no column
    can hold), "expert_work" (a re-import would discard work on the stored context).
    """

    def __init__(self, reason: str, *, code: str = "parse_error"):
        super().__init__(reason)
        self.reason = reason
        self.code = code


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
    _check_key(arxiv_id, version)
    if prepared is not None and (prepared.html, prepared.page_url) != (html, page_url):
        raise ValueError("`prepared` was made from another page")
    parsed = _parse_or_record(html, page_url, prepared, arxiv_id, version, metadata)
    kept = _read_images(parsed, assets, prepared, (min_tables, min_charts))
    media_dir = new_media_dir(arxiv_id, version)
    try:
        with transaction.atomic():
            paper = _store(
                parsed=parsed,
                page=StoredPage(html, page_url, fetched_at or timezone.now(), licence_from_page),
                arxiv_id=arxiv_id,
                version=version,
                metadata=metadata,
                kept=kept,
                media_dir=media_dir,
            )
    except Unstorable as exc:
        remove_tree(media_dir)  # the database rolled back: so do the files
        _record_import_failure(arxiv_id, version, f"unstorable: {exc}", metadata)
        raise PaperImportError(str(exc), code="unstorable") from None
    except BaseException:
        remove_tree(media_dir)
        raise
    result = import_result(paper, parsed, kept)
    if kept.rejection or images == "none":
        return result
    # The context is committed; its screenshots follow. A process killed while drawing them
    # leaves images_status "none" on a parsed paper: a resumed crawl (or `render_images`)
    # draws what is missing (make_paper_images(only_missing=True)).
    result.images, problems = make_paper_images(paper_id=paper.pk, images=images)
    result.problems.extend(problems)
    paper.refresh_from_db()
    return result


@dataclass(frozen=True)
class StoredPage:
    """The page as the paper keeps it: its bytes, address, when it was fetched, and whether
    its banner's licence is taken when the paper has none."""

    html: bytes
    page_url: str
    fetched_at: datetime
    licence_from_page: bool


@dataclass
class KeptImages:
    """What an import keeps of a parse: the chart images read (and the problems reading them),
    the tables and charts counted towards the minimums, and why the paper is rejected ("" when
    it is not)."""

    panel_files: dict[tuple[str, int], PanelImage]
    problems: list[str]
    tables: int
    charts: int
    rejection: str


def _check_key(arxiv_id: str, version: int) -> None:
    """PaperImportError ("unstorable"), writing nothing, when no paper can be stored under
    this identifier and version."""
    try:
        check_paper_key(arxiv_id, version)
    except Unstorable as exc:
        raise PaperImportError(
            f"no paper can be stored as {arxiv_id!r}v{version}: {exc}", code="unstorable"
        ) from None


def _parse_or_record(
    html: bytes,
    page_url: str,
    prepared: PreparedPage | None,
    arxiv_id: str,
    version: int,
    metadata: PaperMetadata | None,
) -> ParsedPaper:
    """The page parsed (or `prepared`'s parse); a page that is no paper's context, or holds a
    value no column can hold, is recorded as the paper's failure and raises PaperImportError."""
    try:
        return prepared.parsed if prepared is not None else parse_page(html, page_url)
    except ParseError as exc:
        _record_import_failure(arxiv_id, version, f"parse error: {exc.reason}", metadata)
        raise PaperImportError(exc.reason) from None
    except Unstorable as exc:
        _record_import_failure(arxiv_id, version, f"unstorable: {exc}", metadata)
        raise PaperImportError(str(exc), code="unstorable") from None


def _read_images(
    parsed: ParsedPaper,
    assets: AssetSource,
    prepared: PreparedPage | None,
    minimums: tuple[int | None, int | None],
) -> KeptImages:
    """The parse's chart images read (or `prepared`'s), unless its counts are already below
    the minimums: then no image is fetched at all (`kept_images` says what counts)."""
    if rejection_reason(len(parsed.tables()), len(parsed.charts()), *minimums):
        return kept_images(parsed, None, [], minimums)
    if prepared is not None:
        return kept_images(parsed, dict(prepared.panel_files), list(prepared.problems), minimums)
    problems: list[str] = []
    panel_files = load_panels(parsed, assets, problems)
    return kept_images(parsed, panel_files, problems, minimums)


def kept_images(
    parsed: ParsedPaper,
    panel_files: dict[tuple[str, int], PanelImage] | None,
    problems: list[str],
    minimums: tuple[int | None, int | None],
) -> KeptImages:
    """The rule of what an import keeps: with no images read (`panel_files` None, the parse
    already below the minimums) the parse's counts and their rejection; otherwise only what
    is kept with an image counts towards MIN_TABLES / MIN_CHARTS (each table or chart without
    one is a problem). No database."""
    if panel_files is None:
        tables, charts = len(parsed.tables()), len(parsed.charts())
        return KeptImages({}, problems, tables, charts, rejection_reason(tables, charts, *minimums))
    tables, charts = _usable_counts(parsed, panel_files, problems)
    rejection = rejection_reason(tables, charts, *minimums, with_images=True)
    return KeptImages(panel_files, problems, tables, charts, rejection)


def import_result(paper: Paper, parsed: ParsedPaper, kept: KeptImages) -> ImportResult:
    """What an import reports of a stored paper, before its images are drawn: the parse's
    counts, the warnings apart from the floats skipped on purpose (those are notes)."""
    skipped = {loss.message() for loss in parsed.skipped()}
    return ImportResult(
        paper=paper,
        status=paper.status,
        sections=len(parsed.sections),
        paragraphs=len(parsed.paragraphs()),
        tables=kept.tables,
        charts=kept.charts,
        degraded=paper.degraded_count,
        images="skipped",
        problems=kept.problems,
        warnings=[w for w in parsed.warnings if w not in skipped],
        notes=[w for w in parsed.warnings if w in skipped],
        lost=len(parsed.lost()),
        skipped=len(parsed.skipped()),
        duplicates=len(parsed.duplicates),
    )


def parse_page(html: bytes, page_url: str) -> ParsedPaper:
    # Every value the database will hold, fitted to its column (or refused) up front.
    return fit_parsed(parse_paper(html, page_url, max_bytes=settings.MAX_HTML_BYTES))


@dataclass(frozen=True)
class PreparedPage:
    """A page parsed and its chart images read and checked, once, for `import_paper`."""

    html: bytes
    page_url: str
    parsed: ParsedPaper
    panel_files: dict[tuple[str, int], PanelImage]
    problems: tuple[str, ...]


def prepare_page(*, html: bytes, page_url: str, assets: AssetSource) -> PreparedPage:
    """Parse a page and read its images as `import_paper` would (raises PaperImportError)."""
    try:
        parsed = parse_page(html, page_url)
    except ParseError as exc:
        raise PaperImportError(exc.reason) from None
    except Unstorable as exc:
        raise PaperImportError(str(exc), code="unstorable") from None
    problems: list[str] = []
    panel_files = load_panels(parsed, assets, problems)
    return PreparedPage(html, page_url, parsed, panel_files, tuple(problems))


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


def rejection_reason(
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


def has_image(element: ParsedElement, panel_files: dict[tuple[str, int], PanelImage]) -> bool:
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
    parsed: ParsedPaper, panel_files: dict[tuple[str, int], PanelImage], problems: list[str]
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


def _store(
    *,
    parsed: ParsedPaper,
    page: StoredPage,
    arxiv_id: str,
    version: int,
    metadata: PaperMetadata | None,
    kept: KeptImages,
    media_dir: str,
) -> Paper:
    """The writes of an import, in the caller's transaction: the paper's row, cleared of its
    earlier context, describes the new parse; then its sections, elements, cross-references
    and panels are stored."""
    paper = _clear_paper(arxiv_id, version, metadata)
    paper.media_dir = media_dir
    transaction.on_commit(lambda: remove_other_media(arxiv_id, version, keep=media_dir))
    describe_import(paper, parsed, page, kept)
    fit_row(paper, truncate=CUT_METADATA | {"generator"}, where=paper.versioned_id)
    paper.save()
    sections: dict[str, Section] = {}
    for parsed_section in parsed.sections:
        parent = sections.get(parsed_section.parent_anchor or "")
        sections[parsed_section.anchor] = new_section(paper, parsed_section, parent)
    by_anchor = _store_elements(paper, parsed, sections)
    for e in parsed.elements:
        if e.panels:
            store_panels(by_anchor[e.anchor], e, kept.panel_files, media_dir, written=[])
    return paper


def _clear_paper(arxiv_id: str, version: int, metadata: PaperMetadata | None) -> Paper:
    """The paper's row (made, or its metadata brought up to date), locked, with its earlier
    context deleted; refused (PaperImportError "expert_work") when work cites that context."""
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
    return paper


def describe_import(paper: Paper, parsed: ParsedPaper, page: StoredPage, kept: KeptImages) -> None:
    """The paper's row as the import leaves it (not saved here; no database): its page, its
    status (rejected, with why, or parsed), its counts and the parse's report."""
    if not paper.title:
        paper.title = parsed.title
    paper.html_url = page.page_url if page.page_url.startswith("http") else paper.html_url
    paper.raw_html = page.html
    paper.html_fetched_at = page.fetched_at
    paper.status = Paper.Status.REJECTED if kept.rejection else Paper.Status.PARSED
    paper.status_reason = kept.rejection
    paper.parse_warnings = parsed.warnings + kept.problems
    paper.table_count, paper.chart_count = kept.tables, kept.charts
    paper.paragraph_count = len(parsed.paragraphs())
    paper.degraded_count = sum(1 for e in parsed.elements if e.degraded)
    paper.images_status = Paper.ImagesStatus.NONE
    record_parse_report(paper, parsed, licence_from_page=page.licence_from_page)


def _store_elements(
    paper: Paper, parsed: ParsedPaper, sections: dict[str, Section]
) -> dict[str, Element]:
    """The parse's elements stored under their sections, with their cross-references; returns
    the stored rows by anchor."""
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
            cells=parsed_cells(e),
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
    return by_anchor


def new_section(paper: Paper, item: ParsedSection, parent: Section | None) -> Section:
    """A parsed section stored as a row of `paper`, under `parent`."""
    return Section.objects.create(
        paper=paper,
        anchor=item.anchor,
        number=item.number,
        title=item.title,
        level=item.level,
        parent=parent,
        order=item.order,
        kind=item.kind,
    )


def parsed_cells(element: ParsedElement) -> list:
    """A parsed table's cell grids as `Element.cells` holds them."""
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
