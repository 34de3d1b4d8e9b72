"""Planning a re-parse before any write: match the parse's elements and sections to the stored
rows, say what differs, and decide what is rewritten, added, removed, or left alone because
work (a curated context, a claim, an evidence mark) cites it. A dry run stops here."""

from __future__ import annotations

from dataclasses import dataclass

from papers.importing import parsed_cells
from papers.models import Element, ElementPanel, Paper, Section, work_citing
from papers.parsing import Element as ParsedElement
from papers.parsing import Panel, ParsedPaper
from papers.reparse_report import ElementChange, ReparseReport


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
        "cells": (row.cells or [], parsed_cells(element)),
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


@dataclass
class ReparsePlan:
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


def plan_reparse(paper: Paper, parsed: ParsedPaper, report: ReparseReport) -> ReparsePlan:
    """What a re-parse of `paper` to `parsed` writes, each difference said in `report`: the
    elements and sections matched, rewritten, added, removed, or kept because work cites them."""
    stored_sections = {s.anchor: s for s in paper.sections.select_related("parent")}
    stored = {
        e.anchor: e for e in paper.elements.select_related("section").prefetch_related("panels")
    }
    cited = work_citing(Element, [row.pk for row in stored.values()])
    cited_sections = work_citing(Section, [row.pk for row in stored_sections.values()])
    report.work_exists = bool(cited or cited_sections)

    matched = _match(stored, parsed.elements)
    apply, needs_images, missing_images = _plan_elements(parsed, matched, cited, report)
    removed, stale_kept = _plan_removals(stored, matched, cited, report)

    sections = {
        s.anchor: stored_sections[s.anchor] for s in parsed.sections if s.anchor in stored_sections
    }
    section_apply, final_parent = _plan_sections(parsed, sections, cited_sections, report)
    # A stale section stays while it is cited, holds an element that stays, or is the parent
    # of a section that stays (deleting a section deletes what it holds).
    parsed_anchors = {s.anchor for s in parsed.sections}
    stale = {row.pk: row for row in stored_sections.values() if row.anchor not in parsed_anchors}
    holding = {pk for pk in stale if cited_sections.get(pk)}
    holding |= {row.section_id for row in stale_kept}
    holding |= {row.section_id for a, row in matched.items() if a not in apply}
    parents = {pk: row.parent_id for pk, row in stale.items()}
    staying = staying_sections(parents, final_parent, holding)
    sections_removed = [row for pk, row in stale.items() if pk not in staying]
    report.sections_removed = [row.anchor for row in sections_removed]
    return ReparsePlan(
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


def _plan_elements(
    parsed: ParsedPaper,
    matched: dict[str, Element],
    cited: dict[int, list[str]],
    report: ReparseReport,
) -> tuple[set[str], set[str], set[str]]:
    """Each parsed element against its stored row: added, rewritten (uncited and different),
    or protected (cited and different). Returns the anchors rewritten, those whose panels are
    stored again with their images, and those whose images were never read."""
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
    return apply, needs_images, missing_images


def _plan_removals(
    stored: dict[str, Element],
    matched: dict[str, Element],
    cited: dict[int, list[str]],
    report: ReparseReport,
) -> tuple[list[Element], list[Element]]:
    """The stored elements the parse no longer has: removed, or kept (and protected) while
    work cites them. Returns both lists."""
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
    return removed, stale_kept


def _plan_sections(
    parsed: ParsedPaper,
    sections: dict[str, Section],
    cited_sections: dict[int, list[str]],
    report: ReparseReport,
) -> tuple[set[str], dict[int, int | None]]:
    """Each parsed section against its stored row: added, rewritten, or protected. Returns the
    anchors rewritten, and each stored section left as it is -> its parent's pk."""
    section_apply: set[str] = set()
    final_parent: dict[int, int | None] = {}
    for section in parsed.sections:
        stored_row = sections.get(section.anchor)
        if stored_row is None:
            report.sections_added.append(section.anchor)
            continue
        parent = stored_row.parent.anchor if stored_row.parent is not None else None
        values = {
            "number": (stored_row.number, section.number),
            "title": (stored_row.title, section.title),
            "level": (stored_row.level, section.level),
            "kind": (stored_row.kind, section.kind),
            "parent": (parent, section.parent_anchor),
        }
        diff = [name for name, (old, new) in values.items() if old != new]
        by = cited_sections.get(stored_row.pk, [])
        if diff and by:
            report.protected.append(ElementChange(f"section {stored_row.anchor}", "", "", diff, by))
        elif diff:
            section_apply.add(section.anchor)
            report.sections_changed.append(section.anchor)
            report.section_diffs[section.anchor] = "; ".join(
                f"{name} {values[name][0] or '—'} -> {values[name][1] or '—'}"
                for name in diff
                if name in ("kind", "level", "number")
            ) or ", ".join(diff)
        if section.anchor not in section_apply:
            final_parent[stored_row.pk] = stored_row.parent_id
    return section_apply, final_parent


def staying_sections(
    stale_parents: dict[int, int | None],
    final_parent: dict[int, int | None],
    holding: set[int],
) -> set[int]:
    """The stale sections (those no longer in the page: pk -> parent pk) that stay: those in
    `holding` (cited, or holding an element that stays), and every stale ancestor of a section
    that stays, stale or kept (`final_parent`: a kept section -> its parent pk afterwards), as
    deleting a section deletes what it holds. No database."""
    staying = holding & set(stale_parents)
    parents = {**stale_parents, **final_parent}
    frontier = list(staying | set(final_parent))
    while frontier:
        parent_pk = parents.get(frontier.pop())
        if parent_pk in stale_parents and parent_pk not in staying:
            staying.add(parent_pk)
            frontier.append(parent_pk)
    return staying
