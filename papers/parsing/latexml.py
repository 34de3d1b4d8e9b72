"""Turn a LaTeXML/arXiv HTML page into sections, paragraphs, tables and charts."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, replace
from typing import Literal, TypeAlias
from urllib.parse import urljoin, urlsplit

import lxml.etree

from papers.parsing import numbering
from papers.parsing.document import (
    Cell,
    Element,
    FloatLoss,
    Grid,
    PageLicence,
    Panel,
    ParsedPaper,
    ParseError,
    Section,
    SectionKind,
)
from papers.parsing.sanitize import sanitize_fragment
from papers.parsing.stamp import read_stamp
from papers.parsing.text import (
    CHARACTER_REFERENCE,
    clean_line,
    collapse,
    control_bytes_to_spaces,
    strip_control,
)

DEFAULT_MAX_BYTES = 50 * 1024 * 1024

# Plain lxml.etree elements: lxml.html's element classes cost a lookup per node touched.
_El: TypeAlias = lxml.etree._Element
_PACKAGE_ALERTS = lxml.etree.XPath("//div[contains(@class, 'package-alerts')]")
_ERRORS = lxml.etree.XPath("descendant-or-self::*[contains(@class, 'ltx_ERROR')]")
_IDS_WITHIN = lxml.etree.XPath("descendant-or-self::*/@id", smart_strings=False)
# Every caption tag of a table or figure, wherever it sits: the census that proves no loss.
_FLOAT_TAGS = lxml.etree.XPath(
    "descendant::span[contains(@class, 'ltx_tag_table') or contains(@class, 'ltx_tag_figure')]"
)
_LICENCE_BANNER = lxml.etree.XPath("//*[@id='license-tr']")
# A relative path of plain segments (no scheme, query, fragment, dot segment or leading slash):
# joined to a base ending in "/", it is the base followed by it (urljoin's own answer).
_PLAIN_SRC = re.compile(r"(?:[A-Za-z0-9_\-][A-Za-z0-9_\-.]*/)*[A-Za-z0-9_\-][A-Za-z0-9_\-.]*")
# The document's own end: truncation is judged by it, never by what follows </html>.
_BODY_END = re.compile(rb"</body\s*>", re.I)
_ARTICLE_END = re.compile(rb"</article\s*>", re.I)
_ARTICLE_START = re.compile(rb"<article[\s>]", re.I)

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
# Containers inside the article that hold no context (metadata, page chrome, browser debris).
_SKIP_CLASSES = frozenset(
    {
        "ltx_authors",
        "ltx_dates",
        "ltx_keywords",
        "ltx_classification",
        "ltx_title_document",
        "ltx_TOC",
        "ltx_page_navbar",
        "ltx_page_footer",
        "package-alerts",
        "ltx_note",
        "ltx_pagination",
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
_SKIP_TAGS = frozenset({"nav", "footer", "header", "button", "script", "style", "noscript"})
_HEADING_TAGS = frozenset({"h1", "h2", "h3", "h4", "h5", "h6"})
_BLOCK_TAGS = frozenset(
    {"p", "div", "li", "ul", "ol", "table", "tr", "figure", "figcaption", "section", "dd", "dt"}
)

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
_WS = re.compile(r"\s+")
_ERROR_CLASS = "ltx_ERROR"


def parse_paper(
    data: bytes, base_url: str = "", *, max_bytes: int = DEFAULT_MAX_BYTES
) -> ParsedPaper:
    """Parse a LaTeXML page; raise ParseError with a reason when it can't be a paper's context."""
    # Control bytes as spaces before anything reads the page: lxml refuses them in names, a
    # database in text, and a NUL after </html> is no truncation. Offsets stay the page's.
    data = control_bytes_to_spaces(data)
    _check_bytes(data, max_bytes)
    try:
        # huge_tree: libxml2 otherwise stops at 256 nested elements and silently drops the rest
        # of the page; with it the limit is 2048, and reaching that is a ParseError (below).
        parser = lxml.etree.HTMLParser(
            encoding="utf-8", remove_comments=True, no_network=True, huge_tree=True
        )
        root = lxml.etree.fromstring(data, parser=parser)
    except (lxml.etree.LxmlError, ValueError) as exc:
        raise ParseError(f"not parseable as HTML: {exc}") from None
    if root is None:
        raise ParseError("not parseable as HTML: no document element")
    for error in parser.error_log:
        if error.level >= lxml.etree.ErrorLevels.FATAL:
            raise ParseError(
                f"the HTML parser stopped at line {error.line} ({error.message.strip()}): "
                "the rest of the page would be lost"
            )
    article = _find_article(root)
    if article is None:
        head_text = _WS.sub(" ", "".join(root.itertext())[:5000]).lower()
        if "fatal error" in head_text or "conversion" in head_text and "failed" in head_text:
            raise ParseError("arXiv's HTML conversion failed (conversion-failure page)")
        raise ParseError("not LaTeXML output: no article.ltx_document")
    effective = _effective_base(root, base_url)
    walker = _Walker(base_url=effective, has_base=effective != base_url)
    # Whole-document queries are skipped when their class never occurs in the bytes (most pages).
    walker.scan_errors = b"ltx_ERROR" in data
    walker.scan_alerts = b"package-alerts" in data
    try:
        walker.run(root, article)
        paper = walker.result()
    except RecursionError:
        raise ParseError("the page nests elements too deeply to be read whole") from None
    except (ValueError, lxml.etree.LxmlError) as exc:
        # Markup lxml cannot hand on (a name or text it refuses) or a URL urllib refuses.
        raise ParseError(f"the page's markup cannot be read: {exc}") from None
    if not any(e.kind == "paragraph" for e in paper.elements) and not paper.sections:
        raise ParseError("empty document: no sections or paragraphs")
    if b"license-tr" in data:
        paper.licence = _licence_banner(root)
    paper.stamp = read_stamp(data)
    if paper.stamp is not None:
        paper.generator = paper.stamp.text
    if b"&#" in data and CHARACTER_REFERENCE.search(data):
        _strip_control_characters(paper)
    return paper


def _strip_control_characters(paper: ParsedPaper) -> None:
    """The parse's text without the control characters references put in it (`&#1;`).
    Anchors are left as they are (they stay unique; the importer fits them), and so is the
    sanitized markup (the importer cleans it)."""
    paper.title = clean_line(paper.title)
    for section in paper.sections:
        section.title, section.number = clean_line(section.title), clean_line(section.number)
    for e in paper.elements:
        e.text, e.caption = clean_line(e.text), clean_line(e.caption)
        e.label, e.number = clean_line(e.label), clean_line(e.number)
        e.degraded_reasons = [clean_line(r) for r in e.degraded_reasons]
        for grid in e.grids:
            for row in grid:
                for cell in row:
                    cell.text = clean_line(cell.text)
        for panel in e.panels:
            panel.caption = clean_line(panel.caption)
    paper.warnings = [clean_line(w) for w in paper.warnings]
    paper.losses = [
        replace(loss, label=clean_line(loss.label), reason=clean_line(loss.reason))
        for loss in paper.losses
    ]
    if paper.licence is not None:
        paper.licence = replace(paper.licence, name=clean_line(paper.licence.name))


def _licence_banner(root: _El) -> PageLicence | None:
    # The banner is a link near the top: a walk over the links finds it before an XPath
    # query over every element has started; the query is for a banner of another tag.
    first = next((a for a in root.iter("a") if a.get("id") == "license-tr"), None)
    for node in [first] if first is not None else _LICENCE_BANNER(root):
        text = collapse("".join(node.itertext()))
        name = re.sub(r"^licen[cs]e\s*:\s*", "", text, flags=re.I).strip()
        if name:
            return PageLicence(name=name[:200], href=(node.get("href") or "").strip()[:500])
    return None


def _check_bytes(data: bytes, max_bytes: int) -> None:
    if not data or data.isspace():
        raise ParseError("empty page")
    if len(data) > max_bytes:
        raise ParseError(f"page too large: {len(data)} bytes (limit {max_bytes})")
    reason = truncation(data)
    if reason:
        raise ParseError(f"truncated page: {reason}")
    try:
        if not data.isascii():  # one fast pass; most of a page is ASCII, not all of it
            data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ParseError(f"not UTF-8: invalid byte at offset {exc.start}") from None


def truncation(data: bytes) -> str:
    """Why the page was cut short ("" when it was not). lxml silently repairs a truncated page,
    so the bytes must show that the document closed: the article, then the body. What follows
    (</html>, a comment, a saving tool's template tag) says nothing about truncation. (The
    parser checks this before the encoding: a cut inside a multi-byte character is a cut.)"""
    start = _ARTICLE_START.search(data)
    after = 0
    if start is not None:
        ends = [m.end() for m in _ARTICLE_END.finditer(data, start.start())]
        if not ends:
            return "article.ltx_document is never closed"
        after = ends[-1]
    if _BODY_END.search(data, after) is None:
        return "the body element is never closed"
    return ""


def _classes(el: _El) -> list[str]:
    value = el.get("class")
    return value.split() if value else []


def _find_article(root: _El) -> _El | None:
    for el in root.iter("article"):
        if "ltx_document" in _classes(el):
            return el
    return None


def _effective_base(root: _El, page_url: str) -> str:
    for base in root.iter("base"):
        href = base.get("href")
        if href:
            try:
                joined = urljoin(page_url, href.strip()) if page_url else href.strip()
                urlsplit(joined)
            except ValueError as exc:
                raise ParseError(
                    f"the page's <base href={href[:200]!r}> is not a usable URL ({exc})"
                ) from None
            return joined
    return page_url


def resolve_asset(base_url: str, src: str, *, has_base: bool) -> str:
    """An image's URL. Without <base>, arXiv writes `<id>vN/x1.png` (relative to /html/) and
    LaTeXML writes `x1.png` (relative to the paper's folder): the page URL `/html/<id>vN`
    serves both, so a src that does not start with the page's own name resolves in that folder.
    """
    if not base_url:
        return src
    if has_base or base_url.endswith("/"):
        return _join(base_url, src)
    name = base_url.rstrip("/").rsplit("/", 1)[-1]
    if src.split("/", 1)[0] == name or "://" in src or src.startswith(("/", "data:")):
        return _join(base_url, src)
    return _join(base_url + "/", src)


def _join(base_url: str, src: str) -> str:
    """urljoin's answer; for a plain relative path after a base ending in "/" (most images of
    a page), without asking urljoin (a tenth of the time)."""
    if base_url.endswith("/") and "?" not in base_url and "#" not in base_url:
        if _PLAIN_SRC.fullmatch(src):
            return base_url + src
    return urljoin(base_url, src)


def text_of(el: _El, *, skip_tags: bool = False, skip_floats: bool = False) -> str:
    """Visible text of a node: math as $alttext$, notes and buttons out, whitespace collapsed
    (and, when asked, the floats it holds out: they are elements of their own)."""
    if len(el) == 0:
        return collapse(el.text or "")
    parts: list[str] = []
    _collect_text(el, parts, skip_tags, _FLOAT_TEXTLESS_TAGS if skip_floats else _TEXTLESS_TAGS)
    return collapse("".join(parts))


_TEXTLESS_TAGS = _SKIP_TAGS | {"annotation", "annotation-xml", "img"}
_FLOAT_TEXTLESS_TAGS = _TEXTLESS_TAGS | {"figure"}
_SPACED_TAGS = _BLOCK_TAGS | {"td", "th", "br"}


def _collect_box_text(
    svg: _El, parts: list[str], skip_tags: bool, textless: frozenset[str]
) -> None:
    """A drawn picture's text: what its foreignObjects hold (a tcolorbox's paragraphs, with or
    without oxide's ltx_foreignobject_container/_content spans); its paths and shapes, none."""
    stack = [iter(svg)]
    while stack:
        node = next(stack[-1], None)
        if node is None:
            stack.pop()
        elif node.tag == "foreignobject":
            parts.append(" ")
            _collect_text(node, parts, skip_tags, textless)
            parts.append(" ")
        elif node.tag.__class__ is str:
            stack.append(iter(node))


def _collect_text(el: _El, parts: list[str], skip_tags: bool, textless: frozenset[str]) -> None:
    text = el.text
    if text:
        parts.append(text)
    for child in el:
        tag = child.tag
        if tag == "math":
            alt = child.get("alttext")
            if alt is None:
                alt = collapse("".join(child.itertext()))
            parts.append(f"${alt.strip()}$")
        elif tag == "svg":
            _collect_box_text(child, parts, skip_tags, textless)
        elif tag.__class__ is not str or tag in textless:
            pass  # comments, images, page chrome
        else:
            classes = child.get("class")
            if classes and (
                ("ltx_note" in classes and ("ltx_role_" in classes or "ltx_note_outer" in classes))
                or (skip_tags and "ltx_tag" in classes.split())
            ):
                pass  # footnotes out; caption tags ("Table 1:") out when asked
            elif tag in _SPACED_TAGS:
                parts.append(" ")
                _collect_text(child, parts, skip_tags, textless)
                parts.append(" ")
            else:
                _collect_text(child, parts, skip_tags, textless)
        tail = child.tail
        if tail:
            parts.append(tail)


def _span(raw: str) -> int:
    """A rowspan/colspan value: 1 when unreadable, at most 1000."""
    try:
        value = int(raw.strip())
    except ValueError:
        return 1
    return min(max(value, 1), 1000)


class _Walker:
    """One pass over the article in document order, building sections and elements."""

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
        self._fragments: list[tuple[Element, list[tuple[_El, str]]]] = []
        self._raw_refs: dict[int, list[str]] = {}
        self._front: Section | None = None
        self.scan_errors = True
        self.scan_alerts = True
        # ltx_ERROR nodes, found in one query, keyed by each of their ancestors
        self._errors: dict[_El, list[str]] = {}
        self.losses: list[FloatLoss] = []
        # float node -> the element it became (the census checks every caption tag against it)
        self._kept: dict[_El, Element] = {}
        # The caption tags of floats kept or said lost (most tags of a page): the census's.
        self._known_tags: set[_El | None] = set()
        self._reported: set[_El] = set()  # float nodes already in `losses`
        # (parent section's anchor, level) after which every section is appendix matter: a
        # revtex supplement puts an empty appendix heading after the references and its own
        # sections beside the heading, not inside it.
        self._appendix_matter: set[tuple[str | None, int]] = set()

    # -- top level ------------------------------------------------------------------------------
    def run(self, root: _El, article: _El) -> None:
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
            element.table_html = "".join(_table_fragment(t, caption) for t, caption in tabulars)
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

    def _title(self, root: _El, article: _El) -> str:
        for el in article.iter("h1"):
            if "ltx_title_document" in _classes(el):
                return text_of(el)
        for el in root.iter("title"):
            return collapse("".join(el.itertext()))
        return ""

    # -- walking --------------------------------------------------------------------------------
    def _walk_children(self, node: _El, section: Section | None) -> None:
        # Containers are entered with a stack, not by recursion: a page may nest hundreds of
        # divs before its first section, and every one of them must be walked.
        stack = [iter(node)]
        while stack:
            child = next(stack[-1], None)
            if child is None:
                stack.pop()
                continue
            tag = child.tag
            if not isinstance(tag, str) or tag in _SKIP_TAGS or tag in _HEADING_TAGS:
                continue
            classes = _classes(child)
            if not classes and tag == "div":
                stack.append(iter(child))  # a bare wrapper: what the last branch does, sooner
                continue
            if any(c in _SKIP_CLASSES for c in classes):
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

    @staticmethod
    def _unique(anchor: str, taken: set[str]) -> str:
        candidate, n = anchor, 1
        while candidate in taken:
            n += 1
            candidate = f"{anchor}~{n}"
        taken.add(candidate)
        return candidate

    def _section(self, node: _El, classes: list[str], parent: Section | None) -> None:
        heading = next((c for c in node if isinstance(c.tag, str) and c.tag in _HEADING_TAGS), None)
        number, title = "", ""
        if heading is not None:
            title = text_of(heading, skip_tags=True)
            for tag_el in heading.iter("span"):
                if "ltx_tag" in _classes(tag_el):
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

    def _abstract(self, node: _El) -> None:
        section = self._add_section(
            anchor="abstract", number="", title="Abstract", level=1, parent=None, kind="abstract"
        )
        paras = [p for p in node.iter("p") if "ltx_p" in _classes(p)]
        if not paras:
            paras = [node]
        for i, p in enumerate(paras, start=1):
            self._paragraph(p, section, anchor=f"abstract.p{i}")

    def _acknowledgements(self, node: _El, parent: Section | None) -> None:
        # A section of its own at the top level, whatever section the div sits in, so that
        # curation removes it by kind without touching its host section.
        heading = next((c for c in node if isinstance(c.tag, str) and c.tag in _HEADING_TAGS), None)
        title = text_of(heading, skip_tags=True).rstrip(".:").strip() if heading is not None else ""
        section = self._add_section(
            anchor=node.get("id") or "ack",
            number="",
            title=title or "Acknowledgements",
            level=1,
            parent=None,
            kind="acknowledgments",
        )
        paras = [c for c in node.iter() if isinstance(c.tag, str) and "ltx_para" in _classes(c)]
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
    def _add_element(self, element: Element) -> Element:
        element.anchor = self._unique(
            element.anchor or f"{element.section_anchor}.e{len(self.elements)}",
            self._element_anchors,
        )
        element.order = len(self.elements)
        self.elements.append(element)
        return element

    def _paragraph(
        self,
        node: _El,
        section: Section,
        *,
        anchor: str | None = None,
        skip_tags: bool = False,
    ) -> None:
        # A float inside a paragraph (a \captionof in a minipage) is an element of its own.
        # (Not one in a footnote: notes hold no elements, and the census says so.)
        floats = []
        if next(node.iter("figure"), None) is not None:  # (cheaper than find(".//figure"))
            floats = [f for f in _child_floats(node) if not _inside_note(f, node)]
        text = text_of(node, skip_tags=skip_tags, skip_floats=bool(floats))
        if text:
            self._paragraph_element(node, section, text, anchor)
        for sub in floats:
            self._float(sub, section)

    def _paragraph_element(
        self, node: _El, section: Section, text: str, anchor: str | None
    ) -> None:
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
            if "ltx_ref" not in _classes(a) or _inside_note(a, node):
                continue
            href = a.get("href") or ""
            if "#" in href:
                refs.append(href.rsplit("#", 1)[1])
        if refs:
            self._raw_refs[id(element)] = refs

    def _lose(
        self, node: _El, label: str, reason: str, *, skipped: bool = False, locate: bool = True
    ) -> None:
        if node in self._reported:
            return
        self._reported.add(node)
        anchor = _float_anchor(node)
        if not anchor and locate:  # say where it is: the nearest element with an id
            near = next((el.get("id") for el in node.iterancestors() if el.get("id")), "")
            reason += f" (in {near})" if near else ""
        kind: Literal["lost", "skipped"] = "skipped" if skipped else "lost"
        self.losses.append(FloatLoss(label=label, anchor=anchor, reason=reason, kind=kind))

    def _float(self, node: _El, section: Section) -> None:
        caption = _own_caption(node)
        if caption.kind is None or caption.number is None:
            tag = caption.tag.strip()
            if tag and not numbering.is_panel_tag(tag):
                if caption.kind is None:
                    # Algorithm, Listing, ...: deliberately neither a table nor a chart.
                    what = f"{_float_class(node)}, neither a table nor a chart"
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
            for sub in _child_floats(node):
                self._float(sub, section)
            return
        anchor = _float_anchor(node)
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
        node: _El,
        section: Section,
        anchor: str,
        label: str,
        number: str,
        caption_el: _El | None,
    ) -> Element | None:
        tabulars = list(_outer_tabulars(node))
        element = Element(
            kind="table",
            anchor=anchor,
            section_anchor=section.anchor,
            order=0,
            label=label,
            number=number,
            caption=_caption_text(caption_el),
        )
        if tabulars and not all(_is_image_grid(t) for t in tabulars):
            element.grids = [_grid(t) for t in tabulars]
            # Sanitizing rewrites the markup in place, so it waits for the end of the walk.
            self._fragments.append((element, [(t, _panel_caption(t, node)) for t in tabulars]))
        else:
            element.panels = list(self._panels(node))
            if not element.panels:
                self._lose(node, label, _found_instead(node, "table"))
                return None
        return self._add_element(element)

    def _chart(
        self,
        node: _El,
        section: Section,
        anchor: str,
        label: str,
        number: str,
        caption_el: _El | None,
    ) -> Element | None:
        panels = list(self._panels(node))
        if not panels:
            # A "figure" made of text (a prompt, an example in a tabular) is not a chart.
            self._lose(node, label, _found_instead(node, "chart"))
            return None
        return self._add_element(
            Element(
                kind="chart",
                anchor=anchor,
                section_anchor=section.anchor,
                order=0,
                label=label,
                number=number,
                caption=_caption_text(caption_el),
                panels=panels,
            )
        )

    def _census(self, article: _El) -> None:
        """Every numbered caption tag of a table or figure in the article is an element, part
        of one, or a loss with its reason: nothing numbered disappears without a word."""
        merged: set[tuple[str, str]] = set()  # (element, label): a caption repeated is one loss
        for span in _FLOAT_TAGS(article):
            if span in self._known_tags:
                continue  # its float was kept, or said lost, by the walk
            classes = _classes(span)
            if "ltx_tag_table" in classes:
                kind = "table"
            elif "ltx_tag_figure" in classes:
                kind = "chart"
            else:
                continue  # contains() also matches longer class names
            text = text_of(span)
            if not text or numbering.is_panel_tag(text) or _in_chrome(span, article):
                continue
            read = numbering.read_tag(text, kind)
            label = read.label if read else text.rstrip(":. ")
            owner = _owning_float(span, article)
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
                self._lose(owner if owner is not None else span, label, _unreached(span, article))

    def _holder(self, el: _El, stop: _El) -> tuple[_El | None, Element | None]:
        """The kept float that holds `el`, and the element it became."""
        parent = el.getparent()
        while parent is not None and parent is not stop:
            element = self._kept.get(parent)
            if element is not None:
                return parent, element
            parent = parent.getparent()
        return None, None

    def _panels(self, node: _El) -> Iterator[Panel]:
        row = 0
        grid_rows: dict[_El, int] = {}  # keeps each row proxy alive: the key is stable
        for el in node.iter():
            tag = el.tag
            if not isinstance(tag, str):
                continue
            classes = el.get("class") or ""
            if "ltx_flex_break" in classes:
                row += 1
                continue
            if tag not in ("img", "svg", "object", "embed"):
                continue
            if _inside(el, node, "figcaption"):
                continue
            if tag in ("object", "embed") and _inside(el, node, "object"):
                continue  # an <object>'s fallback content: the object is the panel
            tr = _ancestor(el, node, "tr")
            panel_row = row
            if tr is not None:
                panel_row = grid_rows.setdefault(tr, len(grid_rows))
            if tag in ("img", "object", "embed"):
                # A vector graphic (arXiv's 2026 pages: <object type="image/svg+xml"
                # data="x1.svg">) is a panel like an image: its file is fetched, made inert
                # (papers.parsing.svg) and rasterised.
                src = (el.get("data") if tag == "object" else el.get("src")) or ""
                src = src.strip()
                if not src:
                    continue
                try:
                    # urljoin parses the src (and refuses it) unless there is no base to join.
                    url = resolve_asset(self.base_url, src, has_base=self.has_base)
                    if not self.base_url:
                        urlsplit(src)
                except ValueError as exc:
                    where = _float_anchor(node) or "a float without an id"
                    raise ParseError(
                        f"an image of {where} has a src that is not a usable URL "
                        f"({src[:200]!r}: {exc})"
                    ) from None
                yield Panel(src=src, url=url, caption=_panel_caption(el, node), row=panel_row)
            elif not _inside(el, node, "svg") and not _is_text_box(el):
                yield Panel(
                    src="",
                    url="",
                    caption=_panel_caption(el, node),
                    row=panel_row,
                    svg=lxml.etree.tostring(el, method="html", encoding="unicode", with_tail=False),
                )


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


@dataclass(frozen=True, slots=True)
class _Caption:
    element: _El | None  # the figcaption
    kind: str | None  # "table", "chart"; None without a tag or for an Algorithm/Listing tag
    tag: str  # the tag's text as printed ("TABLE II: "); "" without a tag
    number: numbering.FloatNumber | None  # None: unnumbered, a panel's tag, or unreadable
    span: _El | None = None  # the tag's span, when the tag is a table's or a figure's


def _own_caption(node: _El) -> _Caption:
    """The float's own caption (not a sub-figure's), with its tag read."""
    for caption in _own_figcaptions(node):
        for span in caption.iter("span"):
            classes = _classes(span)
            if "ltx_tag_table" in classes:
                kind = "table"
            elif "ltx_tag_figure" in classes:
                kind = "chart"
            elif "ltx_tag" in classes:
                return _Caption(caption, None, text_of(span), None)  # Algorithm, Listing, ...
            else:
                continue
            tag = text_of(span)
            return _Caption(caption, kind, tag, numbering.read_tag(tag, kind), span)
        return _Caption(caption, None, "", None)
    return _Caption(None, None, "", None)


def _own_figcaptions(node: _El) -> Iterator[_El]:
    """The figcaptions of `node` itself: its children, else wrapped ones no inner float owns."""
    direct = [c for c in node if c.tag == "figcaption"]
    if direct:
        yield from direct
        return
    for caption in node.iter("figcaption"):
        if _owning_float(caption, node) is None:
            yield caption


def _owning_float(el: _El, stop: _El) -> _El | None:
    """The nearest figure (or div.ltx_float) above `el`, below `stop`."""
    parent = el.getparent()
    while parent is not None and parent is not stop:
        if parent.tag == "figure" or (parent.tag == "div" and "ltx_float" in _classes(parent)):
            return parent
        parent = parent.getparent()
    return None


_FLOAT_WRAPPERS = frozenset({"ltx_table", "ltx_figure", "ltx_float", "ltx_transformed_outer"})


def _float_anchor(node: _El) -> str:
    """A float's id; a rotated float (sidewaystable) has its id on the wrapper around it:
    div.ltx_table.ltx_transformed_outer > div.ltx_transformed_inner > figure."""
    anchor = node.get("id")
    if anchor:
        return anchor
    parent = node.getparent()
    while parent is not None and parent.tag == "div":
        classes = _classes(parent)
        if parent.get("id") and any(c in _FLOAT_WRAPPERS for c in classes):
            return parent.get("id") or ""
        if not any(c.startswith("ltx_transformed") for c in classes):
            return ""
        parent = parent.getparent()
    return ""


def _float_class(node: _El) -> str:
    classes = " ".join(_classes(node))
    if "algorithm" in classes:
        return "an algorithm"
    if "listing" in classes:
        return "a listing"
    return "a float of another kind"


_CHROME_CLASSES = frozenset({"ltx_TOC", "ltx_page_navbar", "ltx_page_footer", "ltx_toclist"})


def _in_chrome(el: _El, stop: _El) -> bool:
    """Inside a table of contents, a list of tables or figures, page chrome, or a link."""
    parent = el.getparent()
    while parent is not None and parent is not stop:
        if parent.tag in ("nav", "footer", "a") or any(
            c in _CHROME_CLASSES for c in _classes(parent)
        ):
            return True
        parent = parent.getparent()
    return False


def _unreached(el: _El, stop: _El) -> str:
    """Why the walk never reached a caption tag: the container that hid it."""
    parent = el.getparent()
    while parent is not None and parent is not stop:
        classes = _classes(parent)
        if "ltx_bibliography" in classes:
            return "inside the bibliography, which holds no elements"
        if "ltx_note" in classes:
            return "inside a footnote or note, which holds no elements"
        if parent.tag in _HEADING_TAGS:
            return "inside a heading"
        if parent.tag == "table" and any("ltx_equation" in c for c in classes):
            return "inside an equation"
        skipped = next((c for c in classes if c in _SKIP_CLASSES), None)
        if skipped:
            return f"inside {skipped}, which holds no elements"
        parent = parent.getparent()
    return "its caption tag sits outside any table or figure float"


def _is_text_box(svg: _El) -> bool:
    """A box drawn around text (tcolorbox, a framed prompt), not a drawing: its words sit in
    one to three foreignObjects, in paragraphs or in runs of eight words or more (a plot's or a
    diagram's labels are short, and usually many)."""
    objects = [fo for fo in svg.iter("foreignobject") if not _inside(fo, svg, "foreignobject")]
    if not objects or len(objects) > 3:
        return False
    for fo in objects:
        if len(text_of(fo).split()) >= 8:
            return True
        for el in fo.iter("p", "div"):
            if any(c in ("ltx_p", "ltx_para") for c in _classes(el)):
                return True
    return False


def _found_instead(node: _El, kind: str) -> str:
    """Why a numbered float with no panel (and, for a table, no cells) was not kept: what it
    holds instead, as a person reading the warning needs it."""
    what = "a chart" if kind == "chart" else "a table"
    boxes = listing = False
    for el in _outside_captions(node):
        tag = el.tag
        if tag in ("object", "embed"):
            mime = (el.get("type") or "").strip()[:60] or "no type given"
            source = (el.get("data") or el.get("src") or "").strip()
            name = source.rsplit("/", 1)[-1][:80] or "no file named"
            return f"its graphic is an <{tag}> ({mime}, {name}), which the parser does not keep"
        if tag == "svg" and _is_text_box(el):
            boxes = True
        elif any(c in ("ltx_listing", "ltx_lstlisting") for c in _classes(el)):
            listing = True
    if boxes:
        return f"a text box, not {what}"
    if listing:
        return f"a listing, not {what}"
    if collapse(" ".join(text_of(c) for c in node if c.tag != "figcaption")):
        if kind == "table":
            return "a table with neither cells nor an image (text or markup)"
        return "a figure without images (text or markup) is not a chart"
    if kind == "table":
        return "a table with neither cells nor an image"
    return "a figure with nothing in it (no image, drawing, box or text)"


def _outside_captions(node: _El) -> Iterator[_El]:
    """The elements below `node`, in document order, but for its figcaptions and what they
    hold (comments and processing instructions left out)."""
    stack = [c for c in reversed(node) if isinstance(c.tag, str)]
    while stack:
        el = stack.pop()
        if el.tag == "figcaption":
            continue
        yield el
        stack.extend(c for c in reversed(el) if isinstance(c.tag, str))


def _caption_text(caption: _El | None) -> str:
    return text_of(caption, skip_tags=True) if caption is not None else ""


def _child_floats(node: _El) -> Iterator[_El]:
    """Figures nested in `node`, not counting those nested inside another of them."""
    for child in node:
        if not isinstance(child.tag, str):
            continue
        if child.tag == "figure":
            yield child
        else:
            yield from _child_floats(child)


def _inside(el: _El, stop: _El, tag: str) -> bool:
    parent = el.getparent()
    while parent is not None and parent is not stop:
        if parent.tag == tag:
            return True
        parent = parent.getparent()
    return False


def _ancestor(el: _El, stop: _El, tag: str) -> _El | None:
    parent = el.getparent()
    while parent is not None and parent is not stop:
        if parent.tag == tag:
            return parent
        parent = parent.getparent()
    return None


def _inside_note(el: _El, stop: _El) -> bool:
    parent = el.getparent()
    while parent is not None and parent is not stop:
        if "ltx_note" in (parent.get("class") or ""):
            return True
        parent = parent.getparent()
    return False


def _panel_caption(el: _El, float_node: _El) -> str:
    """Caption of the sub-figure (panel) holding `el`, e.g. "(a) Accuracy"."""
    parent = el.getparent()
    while parent is not None and parent is not float_node:
        if parent.tag == "figure":
            for child in parent:
                if child.tag == "figcaption":
                    return text_of(child)
            return ""
        parent = parent.getparent()
    return ""


def _outer_tabulars(node: _El) -> Iterator[_El]:
    for child in node:
        if not isinstance(child.tag, str) or child.tag == "figcaption":
            continue
        if child.tag == "table" and "ltx_tabular" in _classes(child):
            yield child
        else:
            yield from _outer_tabulars(child)


def _rows(tabular: _El) -> Iterator[_El]:
    for child in tabular:
        if child.tag == "tr":
            yield child
        elif child.tag in ("thead", "tbody", "tfoot"):
            for row in child:
                if row.tag == "tr":
                    yield row


def _grid(tabular: _El) -> Grid:
    grid: Grid = []
    for tr in _rows(tabular):
        row = []
        for cell in tr:
            tag = cell.tag
            if tag != "td" and tag != "th":
                continue
            rowspan = colspan = 1
            header = tag == "th"
            # One walk over the attributes is cheaper than three lookups by name.
            for name, value in cell.items():
                if name == "class":
                    header = header or "ltx_th" in value
                elif name == "rowspan":
                    rowspan = _span(value)
                elif name == "colspan":
                    colspan = _span(value)
            row.append(Cell(_cell_text(cell), rowspan, colspan, header))
        grid.append(row)
    return grid


def _cell_text(cell: _El) -> str:
    """text_of(cell), with the two shapes most cells have (bare text; one formula) inlined."""
    count = len(cell)
    text = cell.text
    if count == 0:
        return collapse(text) if text else ""
    if count == 1 and (not text or text.isspace()):
        child = cell[0]
        tail = child.tail
        if child.tag == "math" and (not tail or tail.isspace()):
            alt = child.get("alttext")
            if alt is not None:
                return collapse(f"${alt.strip()}$")
    return text_of(cell)


def _is_image_grid(tabular: _El) -> bool:
    """A tabular whose cells hold images and no text: a figure grid, not a data table."""
    has_image = False
    for cell in tabular.iter("td", "th"):
        if any(True for _ in cell.iter("img")):
            has_image = True
        elif text_of(cell):
            return False
    return has_image


def _table_fragment(tabular: _El, panel_caption: str) -> str:
    html = sanitize_fragment(tabular, in_place=True)
    if panel_caption:
        caption = lxml.etree.Element("div", {"class": "ltx_panel_caption"})
        caption.text = strip_control(panel_caption)  # lxml refuses to set a control character
        html = lxml.etree.tostring(caption, method="html", encoding="unicode") + html
    return f'<div class="ltx_tabular_block">{html}</div>'
