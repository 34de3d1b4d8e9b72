"""The walk over an article in document order: sections (their level, number and kind, the
abstract, acknowledgements, appendix matter), paragraphs with their cross-references, and the
floats met on the way (read by `FloatWalk`); then the parse's result with its warnings."""

from __future__ import annotations

import re

import lxml.etree

from papers.parsing import numbering
from papers.parsing.document import Element, ParsedPaper, Section, SectionKind
from papers.parsing.float_walk import FloatWalk
from papers.parsing.nodes import (
    HEADING_TAGS,
    SKIP_CLASSES,
    SKIP_TAGS,
    El,
    child_floats,
    class_names,
    inside_note,
    text_of,
)
from papers.parsing.tables import table_fragment
from papers.parsing.text import collapse

_PACKAGE_ALERTS = lxml.etree.XPath("//div[contains(@class, 'package-alerts')]")
_ERRORS = lxml.etree.XPath("descendant-or-self::*[contains(@class, 'ltx_ERROR')]")

# The sectioning classes LaTeXML uses; level comes from nesting, not from these.
_SECTION_CLASSES = frozenset(
    {
        "ltx_part",
        "ltx_chapter",
        "ltx_section",
        "ltx_subsection",
        "ltx_subsubsection",
        "ltx_paragraph",
        "ltx_subparagraph",
        "ltx_appendix",
        "ltx_bibliography",
        "ltx_index",
        "ltx_glossary",
    }
)
_SECTION_LEVELS = {
    "ltx_part": 1,
    "ltx_chapter": 1,
    "ltx_section": 1,
    "ltx_appendix": 1,
    "ltx_bibliography": 1,
    "ltx_index": 1,
    "ltx_glossary": 1,
    "ltx_subsection": 2,
    "ltx_subsubsection": 3,
    "ltx_paragraph": 4,
    "ltx_subparagraph": 5,
}

_KIND_PATTERNS: list[tuple[SectionKind, re.Pattern[str]]] = [
    ("acknowledgments", re.compile(r"\backnowledge?ments?\b|^funding\b", re.I)),
    ("references", re.compile(r"^(references|bibliography|works cited|literature cited)$", re.I)),
    (
        "related_work",
        re.compile(
            r"\brelated (work|works|literature|research|studies)\b|\bprior (work|art)\b"
            r"|\bprevious work\b|\bliterature (review|survey)\b",
            re.I,
        ),
    ),
    ("appendix", re.compile(r"^(appendix|appendices|supplementary|supplemental)\b", re.I)),
]
_ERROR_CLASS = "ltx_ERROR"


class Walker(FloatWalk):
    """One pass over the article in document order, building sections and elements."""

    def run(self, root: El, article: El) -> None:
        for node in _PACKAGE_ALERTS(root) if self.scan_alerts else ():
            self.warnings.append("package alerts: " + text_of(node)[:500])
            break
        self.title = self._title(root, article)
        for node in _ERRORS(article) if self.scan_errors else ():
            text = collapse("".join(node.itertext())) or _ERROR_CLASS
            for ancestor in node.iterancestors():
                self._errors.setdefault(ancestor, []).append(text)
                if ancestor is article:
                    break
        self._walk_children(article, None)
        self._census(article)
        for element, tabulars in self._fragments:
            element.table_html = "".join(table_fragment(t, caption) for t, caption in tabulars)
        self._fragments.clear()

    def result(self) -> ParsedPaper:
        visual = {e.anchor for e in self.elements if e.kind != "paragraph"}
        for element in self.elements:
            raw = self._raw_refs.get(id(element))
            if not raw:
                continue
            refs = []
            for target in raw:
                anchor = self._float_ids.get(target)
                if anchor in visual and anchor not in refs:
                    refs.append(anchor)
            element.refs = sorted(refs)
        duplicates = numbering.duplicate_numbers(
            (e.kind, e.number, e.anchor) for e in self.elements if e.kind != "paragraph"
        )
        # Lost floats and deliberate skips alike are said where a person sees them; only the
        # lost ones count against the paper (Paper.lost_count flags it for an admin).
        warnings = [*self.warnings, *(loss.message() for loss in self.losses)]
        warnings += [numbering.duplicate_message(k, n, a) for (k, n), a in duplicates.items()]
        return ParsedPaper(
            title=self.title,
            sections=self.sections,
            elements=self.elements,
            base_url=self.base_url,
            warnings=warnings,
            losses=self.losses,
            duplicates=duplicates,
        )

    def _title(self, root: El, article: El) -> str:
        for el in article.iter("h1"):
            if "ltx_title_document" in class_names(el):
                return text_of(el)
        for el in root.iter("title"):
            return collapse("".join(el.itertext()))
        return ""

    # -- walking --------------------------------------------------------------------------------
    def _walk_children(self, node: El, section: Section | None) -> None:
        # Containers are entered with a stack, not by recursion: a page may nest hundreds of
        # divs before its first section, and every one of them must be walked.
        stack = [iter(node)]
        while stack:
            child = next(stack[-1], None)
            if child is None:
                stack.pop()
                continue
            tag = child.tag
            if not isinstance(tag, str) or tag in SKIP_TAGS or tag in HEADING_TAGS:
                continue
            classes = class_names(child)
            if not classes and tag == "div":
                stack.append(iter(child))  # a bare wrapper: what the last branch does, sooner
                continue
            if any(c in SKIP_CLASSES for c in classes):
                continue
            if tag == "section" or (tag == "div" and any(c in _SECTION_CLASSES for c in classes)):
                self._section(child, classes, section)
            elif "ltx_abstract" in classes:
                self._abstract(child)
            elif "ltx_acknowledgements" in classes or "ltx_acknowledgments" in classes:
                self._acknowledgements(child, section)
            elif "ltx_para" in classes:
                self._paragraph(child, self._ensure_section(section))
            elif tag == "figure" or (tag == "div" and "ltx_float" in classes):
                self._float(child, self._ensure_section(section))
            elif tag == "p" and "ltx_p" in classes:
                self._paragraph(child, self._ensure_section(section))
            elif (
                "ltx_biblist" in classes
                or tag in ("ul", "ol")
                and section is not None
                and (section.kind == "references")
            ):
                continue
            elif tag == "table" and "ltx_equation" in " ".join(classes):
                continue
            else:
                stack.append(iter(child))

    def _ensure_section(self, section: Section | None) -> Section:
        if section is not None:
            return section
        if self._front is None:
            self._front = self._add_section(
                anchor="front", number="", title="", level=1, parent=None, kind="body"
            )
        return self._front

    def _add_section(
        self,
        *,
        anchor: str,
        number: str,
        title: str,
        level: int,
        parent: Section | None,
        kind: SectionKind,
    ) -> Section:
        anchor = self._unique(anchor or f"sec{len(self.sections)}", self._section_anchors)
        section = Section(
            anchor=anchor,
            number=number,
            title=title,
            level=level,
            parent_anchor=parent.anchor if parent else None,
            order=len(self.sections),
            kind=kind,
        )
        self.sections.append(section)
        return section

    def _section(self, node: El, classes: list[str], parent: Section | None) -> None:
        heading = next((c for c in node if isinstance(c.tag, str) and c.tag in HEADING_TAGS), None)
        number, title = "", ""
        if heading is not None:
            title = text_of(heading, skip_tags=True)
            for tag_el in heading.iter("span"):
                if "ltx_tag" in class_names(tag_el):
                    number = _section_number(text_of(tag_el))
                    break
        kind = self._section_kind(classes, title, number, parent)
        parent = parent if parent and parent.kind != "abstract" else None
        level = _section_level(classes, parent)
        place = (parent.anchor if parent else None, level)
        if kind in ("body", "related_work") and place in self._appendix_matter:
            kind = "appendix"
        section = self._add_section(
            anchor=node.get("id") or "",
            number=number,
            title=title,
            level=level,
            parent=parent,
            kind=kind,
        )
        if kind == "references" and "ltx_bibliography" in classes:
            return  # a bibliography holds list items, not paragraphs
        counts = (len(self.sections), len(self.elements))
        self._walk_children(node, section)
        if "ltx_appendix" in classes and counts == (len(self.sections), len(self.elements)):
            self._appendix_matter.add(place)

    @staticmethod
    def _section_kind(
        classes: list[str], title: str, number: str, parent: Section | None
    ) -> SectionKind:
        if "ltx_bibliography" in classes:
            return "references"
        if parent is not None and parent.kind not in ("body", "abstract"):
            return parent.kind
        if "ltx_appendix" in classes:
            # IEEEtran's \section*{Acknowledgment} after \appendices is an ltx_appendix.
            is_ack = _KIND_PATTERNS[0][1].search(title)
            return "acknowledgments" if is_ack else "appendix"
        for kind, pattern in _KIND_PATTERNS:
            if pattern.search(title):
                return kind
        return "body"

    def _abstract(self, node: El) -> None:
        section = self._add_section(
            anchor="abstract", number="", title="Abstract", level=1, parent=None, kind="abstract"
        )
        paras = [p for p in node.iter("p") if "ltx_p" in class_names(p)]
        if not paras:
            paras = [node]
        for i, p in enumerate(paras, start=1):
            self._paragraph(p, section, anchor=f"abstract.p{i}")

    def _acknowledgements(self, node: El, parent: Section | None) -> None:
        # A section of its own at the top level, whatever section the div sits in, so that
        # curation removes it by kind without touching its host section.
        heading = next((c for c in node if isinstance(c.tag, str) and c.tag in HEADING_TAGS), None)
        title = text_of(heading, skip_tags=True).rstrip(".:").strip() if heading is not None else ""
        section = self._add_section(
            anchor=node.get("id") or "ack",
            number="",
            title=title or "Acknowledgements",
            level=1,
            parent=None,
            kind="acknowledgments",
        )
        paras = [c for c in node.iter() if isinstance(c.tag, str) and "ltx_para" in class_names(c)]
        if paras:
            for p in paras:
                self._paragraph(p, section)
            return
        # Bare text (LaTeXML's acknowledgements environment holds no ltx_para): one paragraph.
        parts = [node.text or ""]
        for child in node:
            if child is not heading and isinstance(child.tag, str):
                parts.append(text_of(child))
            parts.append(child.tail or "")
        text = collapse(" ".join(parts))
        if text:
            self._add_element(
                Element(
                    kind="paragraph",
                    anchor=f"{section.anchor}.p1",
                    section_anchor=section.anchor,
                    order=0,
                    text=text,
                )
            )

    # -- elements -------------------------------------------------------------------------------
    def _paragraph(
        self,
        node: El,
        section: Section,
        *,
        anchor: str | None = None,
        skip_tags: bool = False,
    ) -> None:
        # A float inside a paragraph (a \captionof in a minipage) is an element of its own.
        # (Not one in a footnote: notes hold no elements, and the census says so.)
        floats = []
        if next(node.iter("figure"), None) is not None:  # (cheaper than find(".//figure"))
            floats = [f for f in child_floats(node) if not inside_note(f, node)]
        text = text_of(node, skip_tags=skip_tags, skip_floats=bool(floats))
        if text:
            self._paragraph_element(node, section, text, anchor)
        for sub in floats:
            self._float(sub, section)

    def _paragraph_element(self, node: El, section: Section, text: str, anchor: str | None) -> None:
        element = self._add_element(
            Element(
                kind="paragraph",
                anchor=anchor or node.get("id") or "",
                section_anchor=section.anchor,
                order=0,
                text=text,
            )
        )
        errors = self._errors.get(node)
        if errors:
            element.degraded = True
            element.degraded_reasons = errors[:20]
        refs = []
        for a in node.iter("a"):
            if "ltx_ref" not in class_names(a) or inside_note(a, node):
                continue
            href = a.get("href") or ""
            if "#" in href:
                refs.append(href.rsplit("#", 1)[1])
        if refs:
            self._raw_refs[id(element)] = refs


def _section_level(classes: list[str], parent: Section | None) -> int:
    """LaTeX's level from the class (a \\paragraph is 4 even right under a section)."""
    for name in classes:
        level = _SECTION_LEVELS.get(name)
        if level is not None:
            return level
    return parent.level + 1 if parent is not None and parent.kind != "abstract" else 1


def _section_number(tag_text: str) -> str:
    text = tag_text.strip().rstrip(".:")
    for prefix in ("Appendix", "Section", "Chapter", "Part"):
        if text.startswith(prefix):
            text = text[len(prefix) :].strip()
    return text
