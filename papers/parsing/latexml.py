"""Turn a LaTeXML/arXiv HTML page into sections, paragraphs, tables and charts: the page's
bytes checked (size, truncation, encoding), its tree read, the article walked (`walk`), and
what the page says beside its text (licence banner, generator stamp)."""

from __future__ import annotations

import re
from dataclasses import replace
from urllib.parse import urljoin, urlsplit

import lxml.etree

from papers.parsing.document import PageLicence, ParsedPaper, ParseError
from papers.parsing.nodes import El, class_names
from papers.parsing.stamp import read_stamp
from papers.parsing.text import (
    CHARACTER_REFERENCE,
    clean_line,
    collapse,
    control_bytes_to_spaces,
)
from papers.parsing.walk import Walker

DEFAULT_MAX_BYTES = 50 * 1024 * 1024

_LICENCE_BANNER = lxml.etree.XPath("//*[@id='license-tr']")
# The document's own end: truncation is judged by it, never by what follows </html>.
_BODY_END = re.compile(rb"</body\s*>", re.I)
_ARTICLE_END = re.compile(rb"</article\s*>", re.I)
_ARTICLE_START = re.compile(rb"<article[\s>]", re.I)

_WS = re.compile(r"\s+")


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
    walker = Walker(base_url=effective, has_base=effective != base_url)
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


def _licence_banner(root: El) -> PageLicence | None:
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


def _find_article(root: El) -> El | None:
    for el in root.iter("article"):
        if "ltx_document" in class_names(el):
            return el
    return None


def _effective_base(root: El, page_url: str) -> str:
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
