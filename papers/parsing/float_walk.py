"""The walk's state, and its half that reads floats: each numbered table or figure becomes an
element (cells, or panels) or a loss with its reason, and a census at the end proves that no
numbered caption in the article went unaccounted for."""

from __future__ import annotations

from typing import Literal

import lxml.etree

from papers.parsing import numbering
from papers.parsing.document import Element, FloatLoss, Section
from papers.parsing.figures import float_panels, panel_caption
from papers.parsing.floats import (
    caption_text,
    float_anchor,
    float_class,
    found_instead,
    in_chrome,
    own_caption,
    unreached,
)
from papers.parsing.nodes import El, child_floats, class_names, owning_float, text_of
from papers.parsing.tables import is_image_grid, outer_tabulars, table_grid

_IDS_WITHIN = lxml.etree.XPath("descendant-or-self::*/@id", smart_strings=False)
# Every caption tag of a table or figure, wherever it sits: the census that proves no loss.
_FLOAT_TAGS = lxml.etree.XPath(
    "descendant::span[contains(@class, 'ltx_tag_table') or contains(@class, 'ltx_tag_figure')]"
)


class WalkState:
    """What one walk over an article builds and remembers: sections, elements, warnings, lost
    floats, and the bookkeeping that ties them together."""

    def __init__(self, *, base_url: str, has_base: bool):
        self.base_url = base_url
        self.has_base = has_base
        self.title = ""
        self.sections: list[Section] = []
        self.elements: list[Element] = []
        self.warnings: list[str] = []
        self._section_anchors: set[str] = set()
        self._element_anchors: set[str] = set()
        # id of any node inside a table/chart float (panels, sub-tables) -> the element's anchor
        self._float_ids: dict[str, str] = {}
        # Tables whose markup is sanitized once the walk is over: (element, [(tabular, caption)]).
        self._fragments: list[tuple[Element, list[tuple[El, str]]]] = []
        self._raw_refs: dict[int, list[str]] = {}
        self._front: Section | None = None
        self.scan_errors = True
        self.scan_alerts = True
        # ltx_ERROR nodes, found in one query, keyed by each of their ancestors
        self._errors: dict[El, list[str]] = {}
        self.losses: list[FloatLoss] = []
        # float node -> the element it became (the census checks every caption tag against it)
        self._kept: dict[El, Element] = {}
        # The caption tags of floats kept or said lost (most tags of a page): the census's.
        self._known_tags: set[El | None] = set()
        self._reported: set[El] = set()  # float nodes already in `losses`
        # (parent section's anchor, level) after which every section is appendix matter: a
        # revtex supplement puts an empty appendix heading after the references and its own
        # sections beside the heading, not inside it.
        self._appendix_matter: set[tuple[str | None, int]] = set()

    @staticmethod
    def _unique(anchor: str, taken: set[str]) -> str:
        candidate, n = anchor, 1
        while candidate in taken:
            n += 1
            candidate = f"{anchor}~{n}"
        taken.add(candidate)
        return candidate

    def _add_element(self, element: Element) -> Element:
        element.anchor = self._unique(
            element.anchor or f"{element.section_anchor}.e{len(self.elements)}",
            self._element_anchors,
        )
        element.order = len(self.elements)
        self.elements.append(element)
        return element

    def _lose(
        self, node: El, label: str, reason: str, *, skipped: bool = False, locate: bool = True
    ) -> None:
        if node in self._reported:
            return
        self._reported.add(node)
        anchor = float_anchor(node)
        if not anchor and locate:  # say where it is: the nearest element with an id
            near = next((el.get("id") for el in node.iterancestors() if el.get("id")), "")
            reason += f" (in {near})" if near else ""
        kind: Literal["lost", "skipped"] = "skipped" if skipped else "lost"
        self.losses.append(FloatLoss(label=label, anchor=anchor, reason=reason, kind=kind))


class FloatWalk(WalkState):
    """Tables and charts: a float read into an element, or said lost; the census at the end."""

    def _float(self, node: El, section: Section) -> None:
        caption = own_caption(node)
        if caption.kind is None or caption.number is None:
            tag = caption.tag.strip()
            if tag and not numbering.is_panel_tag(tag):
                if caption.kind is None:
                    # Algorithm, Listing, ...: deliberately neither a table nor a chart.
                    what = f"{float_class(node)}, neither a table nor a chart"
                    self._lose(node, tag.rstrip(":. "), what, skipped=True)
                else:
                    shown = tag if len(tag) <= 80 else tag[:80] + "…"
                    what = f"its caption tag {shown!r} holds no number the parser reads"
                    if len(tag) > numbering.MAX_NUMBER_LENGTH:
                        what += f" (a number has at most {numbering.MAX_NUMBER_LENGTH} characters)"
                    self._lose(node, tag.rstrip(":. "), what)
                    self._known_tags.add(caption.span)
            # Unnumbered float: its numbered sub-floats (two captioned figures side by side)
            # are elements of their own; anything else is neither table nor chart.
            for sub in child_floats(node):
                self._float(sub, section)
            return
        anchor = float_anchor(node)
        label, number = caption.number.label, caption.number.number
        if caption.kind == "table":
            element = self._table(node, section, anchor, label, number, caption.element)
        else:
            element = self._chart(node, section, anchor, label, number, caption.element)
        # Kept, or lost with its reason said: the census need not read this tag again.
        self._known_tags.add(caption.span)
        if element is None:
            return
        self._kept[node] = element
        self._float_ids[element.anchor] = element.anchor
        for sub_id in _IDS_WITHIN(node):
            if sub_id and sub_id not in self._float_ids:
                self._float_ids[sub_id] = element.anchor
        errors = self._errors.get(node)
        if errors:
            element.degraded = True
            element.degraded_reasons = errors[:20]

    def _table(
        self,
        node: El,
        section: Section,
        anchor: str,
        label: str,
        number: str,
        caption_el: El | None,
    ) -> Element | None:
        tabulars = list(outer_tabulars(node))
        element = Element(
            kind="table",
            anchor=anchor,
            section_anchor=section.anchor,
            order=0,
            label=label,
            number=number,
            caption=caption_text(caption_el),
        )
        if tabulars and not all(is_image_grid(t) for t in tabulars):
            element.grids = [table_grid(t) for t in tabulars]
            # Sanitizing rewrites the markup in place, so it waits for the end of the walk.
            self._fragments.append((element, [(t, panel_caption(t, node)) for t in tabulars]))
        else:
            element.panels = list(float_panels(node, self.base_url, self.has_base))
            if not element.panels:
                self._lose(node, label, found_instead(node, "table"))
                return None
        return self._add_element(element)

    def _chart(
        self,
        node: El,
        section: Section,
        anchor: str,
        label: str,
        number: str,
        caption_el: El | None,
    ) -> Element | None:
        panels = list(float_panels(node, self.base_url, self.has_base))
        if not panels:
            # A "figure" made of text (a prompt, an example in a tabular) is not a chart.
            self._lose(node, label, found_instead(node, "chart"))
            return None
        return self._add_element(
            Element(
                kind="chart",
                anchor=anchor,
                section_anchor=section.anchor,
                order=0,
                label=label,
                number=number,
                caption=caption_text(caption_el),
                panels=panels,
            )
        )

    def _census(self, article: El) -> None:
        """Every numbered caption tag of a table or figure in the article is an element, part
        of one, or a loss with its reason: nothing numbered disappears without a word."""
        merged: set[tuple[str, str]] = set()  # (element, label): a caption repeated is one loss
        for span in _FLOAT_TAGS(article):
            if span in self._known_tags:
                continue  # its float was kept, or said lost, by the walk
            classes = class_names(span)
            if "ltx_tag_table" in classes:
                kind = "table"
            elif "ltx_tag_figure" in classes:
                kind = "chart"
            else:
                continue  # contains() also matches longer class names
            text = text_of(span)
            if not text or numbering.is_panel_tag(text) or in_chrome(span, article):
                continue
            read = numbering.read_tag(text, kind)
            label = read.label if read else text.rstrip(":. ")
            owner = owning_float(span, article)
            holder, element = self._holder(span, article)
            if element is not None:
                if read is not None and read.number == element.number:
                    continue  # the element's own caption
                # A second numbered caption in a kept float (two minipages, a nested float).
                if (element.anchor, label) in merged:
                    continue
                merged.add((element.anchor, label))
                where = (
                    f"its caption sits in {element.label} ({element.anchor}), kept as part of it"
                )
                node = owner if owner is not None and owner is not holder else span
                self._lose(node, label, where, locate=False)
            elif owner is None or owner not in self._reported:
                self._lose(owner if owner is not None else span, label, unreached(span, article))

    def _holder(self, el: El, stop: El) -> tuple[El | None, Element | None]:
        """The kept float that holds `el`, and the element it became."""
        parent = el.getparent()
        while parent is not None and parent is not stop:
            element = self._kept.get(parent)
            if element is not None:
                return parent, element
            parent = parent.getparent()
        return None, None
