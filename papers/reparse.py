"""Re-parsing a stored page with the current parser and bringing its context up to date
(planned by `papers.reparse_plan`): what no work cites is added, rewritten or removed, what
work cites stays exactly as it is, and the images of what changed are read and drawn again."""

from __future__ import annotations

from typing import Literal

from django.core.files.storage import default_storage
from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from papers.assets import AssetSource, PanelImage, load_panels
from papers.drawing import render_paper_images
from papers.importing import (
    PaperImportError,
    new_section,
    parse_page,
    parsed_cells,
    record_parse_report,
    rejection_reason,
)
from papers.media import new_media_dir, store_panels
from papers.models import Element, Paper, Section
from papers.parsing import Element as ParsedElement
from papers.parsing import ParsedPaper, ParseError
from papers.reparse_plan import ReparsePlan, plan_reparse
from papers.reparse_report import ElementChange, ReparseReport
from papers.storable import Unstorable

NO_ASSETS = "image not read: re-parse without an image source (pass --assets DIR or --fetch-images)"


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
    parsed = _parse_stored(paper)
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
    plan = plan_reparse(paper, parsed, report)
    if dry_run:
        return report
    if assets is not None:
        _read_missing_images(plan, parsed, report)
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


def _read_missing_images(plan: ReparsePlan, parsed: ParsedPaper, report: ReparseReport) -> None:
    """With an image source, the images an earlier import never read (a rejected paper's) are
    read now: their elements are rewritten with them, each said in the report."""
    plan.needs_images |= plan.missing_images
    plan.apply |= plan.missing_images
    report.changed += [
        ElementChange(e.anchor, e.label, e.kind, ["images read"])
        for e in parsed.elements
        if e.anchor in plan.missing_images
    ]


def _parse_stored(paper: Paper) -> ParsedPaper:
    """The paper's stored page parsed with the current parser; PaperImportError when there is
    none, or it no longer parses, or its context cannot be stored."""
    html = paper.raw_html
    if not html:
        raise PaperImportError(f"{paper.versioned_id}: no stored page to re-parse")
    page_url = paper.html_url or f"https://arxiv.org/html/{paper.versioned_id}"
    try:
        return parse_page(html, page_url)
    except ParseError as exc:
        raise PaperImportError(
            f"{paper.versioned_id}: the stored page no longer parses: {exc.reason}"
        ) from None
    except Unstorable as exc:
        raise PaperImportError(
            f"{paper.versioned_id}: the stored page's context cannot be stored: {exc}",
            code="unstorable",
        ) from None


def _load_reparse_panels(
    elements: list[ParsedElement], assets: AssetSource | None, problems: list[str]
) -> dict[tuple[str, int], PanelImage]:
    if assets is not None:
        scope = ParsedPaper(title="", sections=[], elements=elements, base_url="")
        return load_panels(scope, assets, problems)
    loaded: dict[tuple[str, int], PanelImage] = {}
    for element in elements:
        for index, panel in enumerate(element.panels):
            if not panel.svg:
                problems.append(f"{element.label or element.anchor} panel {index + 1}: {NO_ASSETS}")
                loaded[(element.anchor, index)] = PanelImage(None, None, None, NO_ASSETS)
    return loaded


def _apply_reparse(
    paper: Paper,
    parsed: ParsedPaper,
    plan: ReparsePlan,
    panel_files: dict[tuple[str, int], PanelImage],
    written: list[str],
    report: ReparseReport,
    minimums: tuple[int | None, int | None],
) -> list[int]:
    """The writes of a re-parse, in the caller's transaction; returns the tables to draw."""
    paper = Paper.objects.select_for_update().get(pk=paper.pk)
    if not paper.media_dir:
        paper.media_dir = new_media_dir(paper.arxiv_id, paper.version)
    sections = _write_sections(paper, parsed, plan)
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
        row = _write_element(row or Element(paper=paper), element, sections)
        rows[element.anchor] = row
        if element.anchor in plan.needs_images:
            old_files += [p.image.name for p in row.panels.all() if p.image.name]
            redraw += _restore_panels(row, element, panel_files, paper.media_dir, written, report)
        if element.kind == "table" and not element.is_image_table:
            redraw.append(row.pk)
    _write_order(parsed, plan, rows, sections)
    _write_references(paper, parsed, plan, rows)
    _write_paper(paper, parsed, report, minimums)

    def delete_old_files() -> None:
        for name in old_files:
            default_storage.delete(name)

    transaction.on_commit(delete_old_files)
    return redraw


def _write_sections(paper: Paper, parsed: ParsedPaper, plan: ReparsePlan) -> dict[str, Section]:
    """New sections added and rewritten ones saved (the parse lists a parent before its
    children); returns the parse's sections by anchor."""
    sections: dict[str, Section] = dict(plan.sections)
    for item in parsed.sections:
        parent = sections.get(item.parent_anchor or "")
        section_row = sections.get(item.anchor)
        if section_row is None:
            sections[item.anchor] = new_section(paper, item, parent)
        elif item.anchor in plan.section_apply:
            section_row.number, section_row.title, section_row.level = (
                item.number,
                item.title,
                item.level,
            )
            section_row.kind, section_row.parent = item.kind, parent
            section_row.save(update_fields=["number", "title", "level", "kind", "parent"])
    return sections


def _write_element(row: Element, element: ParsedElement, sections: dict[str, Section]) -> Element:
    """A stored element (or a new one) rewritten from the parse, and saved."""
    row.anchor, row.section = element.anchor, sections[element.section_anchor]
    row.kind, row.label, row.number = element.kind, element.label, element.number
    row.caption, row.text, row.table_html = element.caption, element.text, element.table_html
    row.cells, row.is_image_table = parsed_cells(element), element.is_image_table
    row.degraded, row.degraded_reasons = element.degraded, element.degraded_reasons
    row.order = element.order
    row.save()
    return row


def _restore_panels(
    row: Element,
    element: ParsedElement,
    panel_files: dict[tuple[str, int], PanelImage],
    media_dir: str,
    written: list[str],
    report: ReparseReport,
) -> list[int]:
    """An element's panels replaced by the parse's with their images; returns the element's
    pk when a vector graphic (inline, or fetched) is to be rasterised, noting fetched ones."""
    row.panels.all().delete()
    store_panels(row, element, panel_files, media_dir, written)
    if not row.panels.filter(svg__gt="").exists():
        return []
    if row.panels.filter(svg__gt="").exclude(source_url="").exists():
        report.vectors.append(row.label or row.anchor)
    return [row.pk]


def _write_order(
    parsed: ParsedPaper, plan: ReparsePlan, rows: dict[str, Element], sections: dict[str, Section]
) -> None:
    """Reading order: the parse's, with each cited row (element or section) the page lost
    after its old neighbour; then the sections no longer in the page nor kept are deleted."""
    order = merged_order(
        [e.anchor for e in parsed.elements], plan.old_order, {r.anchor for r in plan.stale_kept}
    )
    for index, anchor in enumerate(order):
        rows[anchor].order = index
    Element.objects.bulk_update(list(rows.values()), ["order"], batch_size=500)
    sections.update({row.anchor: row for row in plan.sections_stale_kept})
    section_order = merged_order(
        [s.anchor for s in parsed.sections],
        plan.old_section_order,
        {row.anchor for row in plan.sections_stale_kept},
    )
    for index, anchor in enumerate(section_order):
        sections[anchor].order = index
    Section.objects.bulk_update(list(sections.values()), ["order"], batch_size=500)
    Section.objects.filter(pk__in=[row.pk for row in plan.sections_removed]).delete()


def _write_references(
    paper: Paper, parsed: ParsedPaper, plan: ReparsePlan, rows: dict[str, Element]
) -> None:
    """Cross-references: the parse's, added; a cited paragraph's are never taken away."""
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


def _write_paper(
    paper: Paper,
    parsed: ParsedPaper,
    report: ReparseReport,
    minimums: tuple[int | None, int | None],
) -> None:
    """The paper: what the new parse says, what is kept with an image, and its status."""
    tables, charts = _stored_usable_counts(paper)
    paper.parse_warnings = parsed.warnings + report.problems
    paper.table_count, paper.chart_count = tables, charts
    paper.paragraph_count = paper.elements.filter(kind=Element.Kind.PARAGRAPH).count()
    paper.degraded_count = paper.elements.filter(degraded=True).count()
    record_parse_report(paper, parsed, licence_from_page=not paper.html_url)
    paper.reparsed_at = timezone.now()
    if reparse_revives(paper.status, tables, charts, minimums):
        paper.status, paper.status_reason = Paper.Status.PARSED, ""
    paper.save()
    report.status_after = paper.status


def reparse_revives(
    status: str, tables: int, charts: int, minimums: tuple[int | None, int | None]
) -> bool:
    """Whether a re-parse makes a rejected paper parsed: minimums were given and the tables
    and charts now kept with an image reach them. No database."""
    if status != Paper.Status.REJECTED or minimums == (None, None):
        return False
    return not rejection_reason(tables, charts, *minimums, with_images=True)


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


def merged_order(new: list[str], old: list[str], kept_stale: set[str]) -> list[str]:
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
