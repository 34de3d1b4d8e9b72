"""A stand-in arXiv on 127.0.0.1: Atom API, HTML papers with assets, abstract pages, faults.

Run by hand to point a development server or `crawl_arxiv` at it:

    python -m tests.standin --port 8765            # serves papers/corpus
    export ARXIV_API_URL=http://127.0.0.1:8765/api/query \\
           ARXIV_HTML_URL=http://127.0.0.1:8765/html/ ARXIV_ABS_URL=http://127.0.0.1:8765/abs/

Tests build one with `StandInArxiv(papers).start()`, inject faults per URL with `add_fault`,
and read the request log to measure politeness.
"""

from __future__ import annotations

import argparse
import html
import io
import json
import mimetypes
import re
import select
import socket
import threading
import time
import uuid
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs, unquote, urlsplit

CORPUS = Path(__file__).resolve().parent.parent / "papers" / "corpus"
CC_BY = "http://creativecommons.org/licenses/by/4.0/"


@dataclass
class StandInPaper:
    """One paper as arXiv knows it: metadata, and its HTML (None: no HTML, 404)."""

    arxiv_id: str
    version: int = 1
    title: str = "A Paper"
    authors: list[str] = field(default_factory=lambda: ["Ada Author"])
    abstract: str = "An abstract."
    primary_category: str = "cs.CL"
    categories: list[str] = field(default_factory=lambda: ["cs.CL"])
    published: datetime = datetime(2024, 10, 1, 12, 0, tzinfo=UTC)
    updated: datetime | None = None
    comment: str = ""
    journal_ref: str = ""
    license_url: str = CC_BY
    license_name: str = "CC BY 4.0"
    html: bytes | None = None
    assets: dict[str, bytes] = field(default_factory=dict)  # path under the page -> bytes
    asset_ids: tuple[str, ...] = ()  # other versioned ids the page's <base> may name
    # Answer /html/<id>vN with a redirect to /html/<id>vN/ (None: when the page has no <base>
    # and its images are relative to the page's own folder, as plain LaTeXML output is).
    trailing_slash: bool | None = None

    @property
    def redirects_to_slash(self) -> bool:
        if self.trailing_slash is not None:
            return self.trailing_slash
        if self.html is None or b"<base " in self.html[:20000]:
            return False
        return re.search(rb'src="\d{4}\.\d{4,5}v\d+/', self.html) is None

    @property
    def versioned_id(self) -> str:
        return f"{self.arxiv_id}v{self.version}"

    @classmethod
    def from_corpus(cls, folder: Path, **overrides: object) -> StandInPaper:
        """A fixture paper of papers/corpus: paper.html, its images and meta.json."""
        meta = json.loads((folder / "meta.json").read_text())
        assets = {
            str(p.relative_to(folder)): p.read_bytes()
            for p in folder.rglob("*")
            if p.is_file() and p.suffix.lower() in (".png", ".jpg", ".jpeg", ".gif", ".svg")
        }
        paper = cls(
            arxiv_id=meta["arxiv_id"],
            version=int(meta.get("version", 1)),
            title=meta.get("title", ""),
            authors=list(meta.get("authors", [])),
            abstract=meta.get("abstract", ""),
            primary_category=meta.get("primary_category", "cs.CL"),
            categories=list(meta.get("categories", [meta.get("primary_category", "cs.CL")])),
            published=_datetime(meta.get("published")) or datetime(2024, 10, 1, tzinfo=UTC),
            updated=_datetime(meta.get("updated")),
            comment=meta.get("comment") or "",
            journal_ref=meta.get("journal_ref") or "",
            license_url=meta.get("license_url") or CC_BY,
            license_name=meta.get("license_name") or "",
            html=(folder / "paper.html").read_bytes(),
            assets=assets,
        )
        original = paper.versioned_id
        paper = replace(paper, **overrides)  # type: ignore[arg-type]
        if paper.versioned_id != original:
            paper.asset_ids = (*paper.asset_ids, original)
        return paper


def corpus_papers(corpus: Path = CORPUS) -> list[StandInPaper]:
    return [
        StandInPaper.from_corpus(meta.parent)
        for meta in sorted(corpus.glob("*/meta.json"))
        if (meta.parent / "paper.html").exists()
    ]


def _datetime(value: object) -> datetime | None:
    if not value:
        return None
    parsed = datetime.fromisoformat(str(value).replace("Z", "+00:00"))
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)


# --- synthetic papers: LaTeXML-shaped pages as arXiv serves them ------------------------------
def png_bytes(width: int = 60, height: int = 40, shade: int = 90) -> bytes:
    from PIL import Image, ImageDraw

    image = Image.new("RGB", (width, height), "white")
    draw = ImageDraw.Draw(image)
    draw.rectangle((5, height // 3, width - 5, height - 5), fill=(shade, 120, 200))
    out = io.BytesIO()
    image.save(out, format="PNG")
    return out.getvalue()


def synthetic_paper(
    arxiv_id: str, *, version: int = 1, tables: int = 2, charts: int = 2, **fields: object
) -> StandInPaper:
    """A small paper with `tables` tables and `charts` figures, in arXiv's served markup."""
    vid = f"{arxiv_id}v{version}"
    parts = [
        '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"/>',
        f"<title>{html.escape(str(fields.get('title', 'A Paper')))}</title>",
        f'<base href="/html/{vid}/"/></head><body><div class="ltx_page_main">',
        '<div class="ltx_page_content"><article class="ltx_document ltx_authors_1line">',
        f'<h1 class="ltx_title ltx_title_document">{html.escape(str(fields.get("title", "A Paper")))}</h1>',
        '<div class="ltx_abstract"><h6 class="ltx_title ltx_title_abstract">Abstract</h6>',
        '<p class="ltx_p" id="id1.id1">We study things.</p></div>',
        '<section class="ltx_section" id="S1"><h2 class="ltx_title ltx_title_section">',
        '<span class="ltx_tag ltx_tag_section">1 </span>Results</h2>',
    ]
    assets: dict[str, bytes] = {}
    for t in range(1, tables + 1):
        parts.append(
            f'<div class="ltx_para" id="S1.p{t}"><p class="ltx_p">Table '
            f'<a class="ltx_ref" href="https://arxiv.org/html/{vid}#S1.T{t}">{t}</a> '
            f"shows scores {t}.</p></div>"
            f'<figure class="ltx_table" id="S1.T{t}"><figcaption class="ltx_caption">'
            f'<span class="ltx_tag ltx_tag_table">Table {t}: </span>Scores {t}.</figcaption>'
            '<table class="ltx_tabular ltx_align_middle"><tbody class="ltx_tbody">'
            '<tr class="ltx_tr"><th class="ltx_td ltx_th">Model</th>'
            '<th class="ltx_td ltx_th">F1</th></tr>'
            f'<tr class="ltx_tr"><td class="ltx_td">A</td><td class="ltx_td">7{t}.5</td></tr>'
            "</tbody></table></figure>"
        )
    for c in range(1, charts + 1):
        name = f"x{c}.png"
        assets[name] = png_bytes(shade=40 * c % 255)
        parts.append(
            f'<div class="ltx_para" id="S1.p{tables + c}"><p class="ltx_p">Figure '
            f'<a class="ltx_ref" href="https://arxiv.org/html/{vid}#S1.F{c}">{c}</a> '
            f"plots accuracy.</p></div>"
            f'<figure class="ltx_figure" id="S1.F{c}"><img alt="Refer to caption" '
            f'class="ltx_graphics ltx_centering ltx_img_landscape" height="40" '
            f'id="S1.F{c}.g1" src="{name}" width="60"/><figcaption class="ltx_caption">'
            f'<span class="ltx_tag ltx_tag_figure">Figure {c}: </span>Accuracy {c}.'
            "</figcaption></figure>"
        )
    parts.append("</section></article></div></div></body></html>\n")
    values: dict[str, object] = {
        "title": "A Paper",
        "html": "".join(parts).encode("utf-8"),  # html=None: a paper without HTML (404)
        "assets": assets,
    }
    values.update(fields)
    return StandInPaper(arxiv_id=arxiv_id, version=version, **values)  # type: ignore[arg-type]


# --- faults ------------------------------------------------------------------------------------
@dataclass
class Fault:
    """What to do instead of the normal answer, for the next `times` matching requests.

    kinds: "status" (answer `status`, e.g. 503), "retry_after" (429 with Retry-After:
    `seconds`), "hang" (never answer; wait up to `seconds` for the client to give up),
    "truncate" (Content-Length of the full body, send half, close), "truncate_unframed"
    (no Content-Length, half the body, close), "not_found" (404), "malformed" (an Atom
    page that is not one), "empty" (a valid feed with no entries; totalResults `total`),
    "hold" (answer normally after `seconds`; nothing if the client closes first, so that a
    client killed while held is not waited for), "body" (answer `body` as `content_type`).
    """

    kind: str
    times: int = 1
    status: int = 503
    seconds: float = 0.0
    total: int = 0
    body: bytes = b""
    content_type: str = "text/html; charset=utf-8"


@dataclass
class LoggedRequest:
    method: str
    path: str  # with the query string
    started: float  # time.monotonic() when the request line was read
    ended: float  # when the answer was written (or the client went away)
    status: int
    fault: str = ""
    client_port: int = 0
    user_agent: str = ""
    sender: str = ""  # the From header


class _FaultRule:
    def __init__(self, pattern: str, fault: Fault):
        self.pattern = re.compile(pattern)
        self.fault = fault
        self.remaining = fault.times


class StandInArxiv:
    """The server. `papers` is everything arXiv holds; the API filters them per query."""

    def __init__(
        self,
        papers: Iterable[StandInPaper] = (),
        *,
        host: str = "127.0.0.1",
        port: int = 0,
        per_category_duplicates: bool = False,
        stale_versions: dict[str, int] | None = None,
    ):
        if host != "127.0.0.1":
            raise ValueError("the stand-in only listens on 127.0.0.1")
        self.papers: dict[str, StandInPaper] = {}
        self.host = host
        self.port = port
        # Quirks of a search backend, to exercise the crawler's de-duplication: a
        # cross-listed paper answered once per matching category, an older version again.
        self.per_category_duplicates = per_category_duplicates
        self.stale_versions = stale_versions or {}
        self._log: list[LoggedRequest] = []
        self._in_flight = 0
        self.on_request: list[Callable[[str], None]] = []
        self._faults: list[_FaultRule] = []
        self._lock = threading.Lock()
        self._settled = threading.Condition(self._lock)
        self._stopping = threading.Event()
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None
        for paper in papers:
            self.add_paper(paper)

    # -- set-up ---------------------------------------------------------------------------
    def add_paper(self, paper: StandInPaper) -> None:
        self.papers[paper.arxiv_id] = paper

    def add_fault(self, pattern: str, fault: Fault) -> None:
        """Apply `fault` to requests whose path+query matches the regex `pattern`."""
        with self._lock:
            self._faults.append(_FaultRule(pattern, fault))

    def clear_faults(self) -> None:
        with self._lock:
            self._faults.clear()

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}"

    @property
    def api_url(self) -> str:
        return f"{self.url}/api/query"

    @property
    def html_url(self) -> str:
        return f"{self.url}/html/"

    @property
    def abs_url(self) -> str:
        return f"{self.url}/abs/"

    def settings(self) -> dict[str, str]:
        return {
            "ARXIV_API_URL": self.api_url,
            "ARXIV_HTML_URL": self.html_url,
            "ARXIV_ABS_URL": self.abs_url,
        }

    def point_crawler(self, settings, tmp_path) -> None:
        """Point the crawler (pytest-django's `settings`) at this stand-in: its addresses, no
        politeness delay, a gate of the test's own, short timeouts and few tries, and the
        default filter of 2 tables and 2 charts."""
        for key, value in self.settings().items():
            setattr(settings, key, value)
        settings.ARXIV_DELAY_SECONDS = 0.0
        settings.ARXIV_GATE_FILE = str(tmp_path / "arxiv-gate")
        settings.ARXIV_GATE_KEY = f"sciver-test:{uuid.uuid4().hex}"
        settings.ARXIV_BACKOFF_SECONDS = 0.02
        settings.ARXIV_CONNECT_TIMEOUT = 2.0
        settings.ARXIV_READ_TIMEOUT = 0.5
        settings.ARXIV_REQUEST_DEADLINE = 5.0
        settings.ARXIV_MAX_TRIES = 3
        settings.MIN_TABLES = 2
        settings.MIN_CHARTS = 2

    def start(self) -> StandInArxiv:
        handler = type("Handler", (_Handler,), {"standin": self})
        self._server = ThreadingHTTPServer((self.host, self.port), handler)
        self._server.daemon_threads = True
        self.port = self._server.server_address[1]
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stopping.set()
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def __enter__(self) -> StandInArxiv:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # -- the request log --------------------------------------------------------------------
    @property
    def log(self) -> list[LoggedRequest]:
        """The request log, once every request in progress has been logged.

        A client holds its whole answer before the handler thread appends the entry, so a
        test reading the log straight after a request would race the server without this wait.
        """
        with self._settled:
            self._settled.wait_for(lambda: self._in_flight == 0, timeout=5)
            return self._log

    def requests(self, prefix: str = "") -> list[LoggedRequest]:
        return [r for r in self.log if r.path.startswith(prefix)]

    def html_requests(self) -> list[str]:
        """Paths of HTML page requests (not assets)."""
        return [
            r.path for r in self.requests("/html/") if "/" not in r.path[len("/html/") :].strip("/")
        ]

    # -- answers ----------------------------------------------------------------------------
    def _take_fault(self, target: str) -> Fault | None:
        with self._lock:
            for rule in self._faults:
                if rule.remaining > 0 and rule.pattern.search(target):
                    rule.remaining -= 1
                    return rule.fault
        return None

    def id_feed(self, query: dict[str, list[str]]) -> tuple[int, bytes]:
        """An `id_list` query as arXiv answers it: an entry per id it knows (an id without
        version: the latest; with one: that version, if it exists), in order of publication,
        not of the list; ids it does not know are left out, yet counted in totalResults. A
        malformed id: HTTP 400 and an error entry."""
        ids = [i.strip() for i in query.get("id_list", [""])[0].split(",") if i.strip()]
        start = int(query.get("start", ["0"])[0] or 0)
        size = int(query.get("max_results", ["10"])[0] or 10)
        entries: list[tuple[StandInPaper, int]] = []
        for requested in ids:
            match = re.fullmatch(
                r"(\d{4}\.\d{4,5}|[a-z\-]+(?:\.[A-Z]{2})?/\d{7})(?:v(\d+))?", requested
            )
            if match is None:
                return 400, error_feed(f"incorrect id format for {requested}")
            paper = self.papers.get(match.group(1))
            if paper is None:
                continue
            version = int(match.group(2)) if match.group(2) else paper.version
            if version <= paper.version:
                entries.append((paper, version))
        entries.sort(key=lambda e: (e[0].published, e[0].arxiv_id, e[1]))
        query_text = "id_list=" + ",".join(ids)
        page = entries[start : start + size]
        return 200, atom_feed(page, total=len(ids), start=start, size=size, query=query_text)

    def feed(self, query: dict[str, list[str]]) -> bytes:
        search = query.get("search_query", [""])[0]
        start = int(query.get("start", ["0"])[0] or 0)
        size = int(query.get("max_results", ["10"])[0] or 10)
        descending = query.get("sortOrder", ["descending"])[0] == "descending"
        matches = self._matches(search)
        matches.sort(key=lambda e: (e[0].published, e[0].arxiv_id), reverse=descending)
        page = matches[start : start + size]
        return atom_feed(page, total=len(matches), start=start, size=size, query=search)

    def _matches(self, search: str) -> list[tuple[StandInPaper, int]]:
        cats = set(re.findall(r"cat:([\w.\-]+)", search))
        window = re.search(r"submittedDate:\[(\d{12}) TO (\d{12})\]", search)
        low = high = None
        if window:
            low = datetime.strptime(window.group(1), "%Y%m%d%H%M").replace(tzinfo=UTC)
            high = datetime.strptime(window.group(2), "%Y%m%d%H%M").replace(tzinfo=UTC, second=59)
        found: list[tuple[StandInPaper, int]] = []
        for paper in self.papers.values():
            if low is not None and not (low <= paper.published <= high):  # type: ignore[operator]
                continue
            hits = [c for c in paper.categories if not cats or c in cats]
            if not hits:
                continue
            copies = len(hits) if self.per_category_duplicates else 1
            found.extend((paper, paper.version) for _ in range(copies))
            if paper.arxiv_id in self.stale_versions:
                found.append((paper, self.stale_versions[paper.arxiv_id]))
        return found

    def paper_for(self, versioned: str) -> StandInPaper | None:
        """The paper a versioned id names: its latest version, or an earlier one (arXiv
        serves every version's page; the stand-in serves the same page for each)."""
        for paper in self.papers.values():
            if versioned == paper.versioned_id or versioned in paper.asset_ids:
                return paper
        match = re.fullmatch(r"(.+)v(\d+)", versioned)
        if match:
            paper = self.papers.get(match.group(1))
            if paper is not None and 1 <= int(match.group(2)) < paper.version:
                return paper
        return None

    def abs_page(self, paper: StandInPaper) -> bytes:
        link = (
            f'<a class="abs-button" href="/html/{paper.versioned_id}" '
            f'id="latexml-download-link">HTML (experimental)</a>'
            if paper.html is not None
            else ""
        )
        licence = (
            f'<div class="abs-license"><a class="has_license" href="{html.escape(paper.license_url)}"'
            ' title="Rights to this article"><img alt="license icon" role="presentation" '
            'src="https://licensebuttons.net/l/by/4.0/80x15.png"/><span>view license</span>'
            "</a></div>"
            if paper.license_url
            else ""
        )
        return (
            "<!DOCTYPE html><html><head><title>"
            f"[{paper.versioned_id}] {html.escape(paper.title)}</title></head><body>"
            f'<h1 class="title mathjax">{html.escape(paper.title)}</h1>'
            f'<div class="full-text"><ul><li>{link}</li></ul></div>{licence}'
            "</body></html>"
        ).encode()


def error_feed(message: str) -> bytes:
    """arXiv's answer to a malformed query: one entry whose id is an error address."""
    text = html.escape(message)
    return (
        '<?xml version="1.0" encoding="UTF-8"?>\n<feed xmlns="http://www.w3.org/2005/Atom">\n'
        "  <title>ArXiv Query: error</title>\n  <id>http://arxiv.org/api/standin</id>\n"
        '  <opensearch:totalResults xmlns:opensearch="http://a9.com/-/spec/opensearch/1.1/">1'
        "</opensearch:totalResults>\n"
        f"  <entry>\n    <id>http://arxiv.org/api/errors#{text.replace(' ', '_')}</id>\n"
        f"    <title>Error</title>\n    <summary>{text}</summary>\n  </entry>\n</feed>\n"
    ).encode()


def atom_feed(
    entries: list[tuple[StandInPaper, int]], *, total: int, start: int, size: int, query: str
) -> bytes:
    """An arXiv API Atom page, in the format of ARXIV_HTML.md."""
    q = html.escape(query)
    out = [
        '<?xml version="1.0" encoding="UTF-8"?>\n<feed xmlns="http://www.w3.org/2005/Atom">\n',
        f'  <link href="http://arxiv.org/api/query?search_query%3D{q}%26start%3D{start}'
        f'%26max_results%3D{size}" rel="self" type="application/atom+xml"/>\n',
        f'  <title type="html">ArXiv Query: search_query={q}&amp;id_list=&amp;start={start}'
        f"&amp;max_results={size}</title>\n",
        "  <id>http://arxiv.org/api/standin</id>\n",
        "  <updated>2024-11-20T00:00:00-05:00</updated>\n",
        '  <opensearch:totalResults xmlns:opensearch="http://a9.com/-/spec/opensearch/1.1/">'
        f"{total}</opensearch:totalResults>\n",
        '  <opensearch:startIndex xmlns:opensearch="http://a9.com/-/spec/opensearch/1.1/">'
        f"{start}</opensearch:startIndex>\n",
        '  <opensearch:itemsPerPage xmlns:opensearch="http://a9.com/-/spec/opensearch/1.1/">'
        f"{size}</opensearch:itemsPerPage>\n",
    ]
    for paper, version in entries:
        vid = f"{paper.arxiv_id}v{version}"
        updated = (paper.updated or paper.published).strftime("%Y-%m-%dT%H:%M:%SZ")
        authors = "".join(
            f"    <author>\n      <name>{html.escape(a)}</name>\n    </author>\n"
            for a in paper.authors
        )
        extra = ""
        if paper.comment:
            extra += (
                '    <arxiv:comment xmlns:arxiv="http://arxiv.org/schemas/atom">'
                f"{html.escape(paper.comment)}</arxiv:comment>\n"
            )
        if paper.journal_ref:
            extra += (
                '    <arxiv:journal_ref xmlns:arxiv="http://arxiv.org/schemas/atom">'
                f"{html.escape(paper.journal_ref)}</arxiv:journal_ref>\n"
            )
        cats = "".join(
            f'    <category term="{c}" scheme="http://arxiv.org/schemas/atom"/>\n'
            for c in paper.categories
        )
        out.append(
            "  <entry>\n"
            f"    <id>http://arxiv.org/abs/{vid}</id>\n"
            f"    <updated>{updated}</updated>\n"
            f"    <published>{paper.published.strftime('%Y-%m-%dT%H:%M:%SZ')}</published>\n"
            f"    <title>{html.escape(paper.title)}</title>\n"
            f"    <summary>  {html.escape(paper.abstract)}\n</summary>\n"
            f"{authors}{extra}"
            f'    <link href="http://arxiv.org/abs/{vid}" rel="alternate" type="text/html"/>\n'
            f'    <link title="pdf" href="http://arxiv.org/pdf/{vid}" rel="related" '
            'type="application/pdf"/>\n'
            '    <arxiv:primary_category xmlns:arxiv="http://arxiv.org/schemas/atom" '
            f'term="{paper.primary_category}" scheme="http://arxiv.org/schemas/atom"/>\n'
            f"{cats}  </entry>\n"
        )
    out.append("</feed>\n")
    return "".join(out).encode("utf-8")


class _Handler(BaseHTTPRequestHandler):
    standin: StandInArxiv
    protocol_version = "HTTP/1.1"
    server_version = "StandInArxiv/1.0"

    def setup(self) -> None:
        super().setup()
        # Headers and body go out in separate writes: without this, Nagle's algorithm and
        # the client's delayed ACK add ~40 ms to every answer, which no real server does.
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def log_message(self, format: str, *args: object) -> None:  # noqa: A002
        pass  # the request log replaces stderr noise

    def do_GET(self) -> None:  # noqa: N802
        started = time.monotonic()
        target = self.path
        standin = self.standin
        with standin._lock:
            standin._in_flight += 1
        status = 0
        fault: Fault | None = None
        try:
            for hook in list(standin.on_request):
                hook(target)
            fault = standin._take_fault(target)
            status = self._answer(target, fault)
        finally:
            with standin._lock:
                standin._in_flight -= 1
                standin._settled.notify_all()
                standin._log.append(
                    LoggedRequest(
                        method="GET",
                        path=target,
                        started=started,
                        ended=time.monotonic(),
                        status=status,
                        fault=fault.kind if fault else "",
                        client_port=self.client_address[1],
                        user_agent=self.headers.get("User-Agent", ""),
                        sender=self.headers.get("From", ""),
                    )
                )

    def _answer(self, target: str, fault: Fault | None) -> int:
        if fault is not None:
            handled = self._fault(target, fault)
            if handled is not None:
                return handled
        status, body, content_type = self._route(target)
        return self._send(status, body, content_type)

    def _route(self, target: str) -> tuple[int, bytes, str]:
        standin = self.standin
        parts = urlsplit(target)
        path = unquote(parts.path)
        if path == "/api/query":
            query = parse_qs(parts.query)
            if query.get("id_list", [""])[0].strip():
                status, feed = standin.id_feed(query)
                return status, feed, "application/atom+xml; charset=utf-8"
            return 200, standin.feed(query), "application/atom+xml; charset=utf-8"
        if path.startswith("/html/"):
            rest = path[len("/html/") :]
            old_style = re.match(r"[a-z\-]+(?:\.[A-Z]{2})?/\d{7}v\d+", rest)
            if old_style:  # cs/0112017v1[/asset]
                versioned, asset = old_style.group(0), rest[old_style.end() :].lstrip("/")
            else:
                versioned, _, asset = rest.partition("/")
            paper = standin.paper_for(versioned)
            if paper is None or paper.html is None:
                return 404, b"<html><body>No HTML for this paper</body></html>", "text/html"
            if not asset:
                if paper.redirects_to_slash and not rest.endswith("/"):
                    return 301, f"/html/{versioned}/".encode(), "text/plain"
                return 200, paper.html, "text/html; charset=utf-8"
            data = paper.assets.get(asset)
            if data is None:
                return 404, b"not found", "text/plain"
            mime = mimetypes.guess_type(asset)[0] or "application/octet-stream"
            return 200, data, mime
        if path.startswith("/abs/"):
            key = path[len("/abs/") :].strip("/")
            paper = standin.paper_for(key) or standin.papers.get(key)
            if paper is None:
                return 404, b"<html><body>Article not found</body></html>", "text/html"
            return 200, standin.abs_page(paper), "text/html; charset=utf-8"
        return 404, b"not found", "text/plain"

    def _send(
        self, status: int, body: bytes, content_type: str, headers: dict[str, str] | None = None
    ) -> int:
        if status in (301, 302):
            headers = {**(headers or {}), "Location": body.decode()}
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        for key, value in (headers or {}).items():
            self.send_header(key, value)
        self.end_headers()
        try:
            self.wfile.write(body)
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True
        return status

    def _fault(self, target: str, fault: Fault) -> int | None:
        """Answer as the fault says: the status sent (0: none), or None to answer normally."""
        kind = fault.kind
        if kind == "status":
            return self._send(
                fault.status, b"<html><body>Service Unavailable</body></html>", "text/html"
            )
        if kind == "retry_after":
            return self._send(
                429, b"Too Many Requests", "text/plain", {"Retry-After": str(int(fault.seconds))}
            )
        if kind == "not_found":
            return self._send(404, b"<html><body>Not Found</body></html>", "text/html")
        if kind == "hang":
            self._wait_for_client(fault.seconds)
            self.close_connection = True
            return 0
        if kind == "hold":
            if self._wait_for_client(fault.seconds):
                self.close_connection = True
                return 0
            return None
        if kind in ("truncate", "truncate_unframed"):
            status, body, content_type = self._route(target)
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            if kind == "truncate":
                self.send_header("Content-Length", str(len(body)))
            self.send_header("Connection", "close")
            self.end_headers()
            try:
                self.wfile.write(body[: max(1, len(body) // 2)])
                self.wfile.flush()
            except (BrokenPipeError, ConnectionResetError):
                pass
            self.close_connection = True
            return status
        if kind == "malformed":
            return self._send(
                200, b'<?xml version="1.0"?><html><body>Rate exceeded.', "application/atom+xml"
            )
        if kind == "empty":
            query = parse_qs(urlsplit(target).query)
            body = atom_feed(
                [],
                total=fault.total,
                start=int(query.get("start", ["0"])[0]),
                size=int(query.get("max_results", ["10"])[0]),
                query=query.get("search_query", [""])[0],
            )
            return self._send(200, body, "application/atom+xml; charset=utf-8")
        if kind == "body":
            return self._send(
                fault.status if fault.status != 503 else 200, fault.body, fault.content_type
            )
        raise ValueError(f"unknown fault kind {kind!r}")

    def _wait_for_client(self, seconds: float) -> bool:
        """Say nothing until the client gives up (closes) or `seconds` pass: True if it closed."""
        deadline = time.monotonic() + seconds
        conn: socket.socket = self.connection
        while time.monotonic() < deadline and not self.standin._stopping.is_set():
            readable, _, _ = select.select([conn], [], [], 0.02)
            if readable:
                try:
                    if conn.recv(1, socket.MSG_PEEK) == b"":
                        return True
                except OSError:
                    return True
        return False


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="Serve a stand-in arXiv on 127.0.0.1.")
    parser.add_argument("--port", type=int, default=8765, help="0 picks a free port")
    parser.add_argument("--corpus", type=Path, default=CORPUS)
    parser.add_argument(
        "--synthetic", type=int, default=0, help="add N synthetic papers (2 tables, 2 charts)"
    )
    parser.add_argument(
        "--copies",
        type=int,
        default=0,
        help="also serve each corpus paper N times more, "
        "under new ids (2410.8xxxx), submitted across October 2024",
    )
    args = parser.parse_args(argv)
    papers = corpus_papers(args.corpus)
    folders = [m.parent for m in sorted(args.corpus.glob("*/meta.json"))]
    for copy in range(args.copies):
        for index, folder in enumerate(folders):
            n = copy * len(folders) + index
            papers.append(
                StandInPaper.from_corpus(
                    folder,
                    arxiv_id=f"2410.{80000 + n:05d}",
                    version=1,
                    published=datetime(2024, 10, 1 + n % 28, 12, 0, tzinfo=UTC),
                )
            )
    for n in range(args.synthetic):
        papers.append(
            synthetic_paper(
                f"2410.{90000 + n:05d}",
                title=f"Synthetic paper {n}",
                published=datetime(2024, 10, 1 + n % 28, 12, 0, tzinfo=UTC),
                categories=["cs.CL"],
                primary_category="cs.CL",
                comment="Accepted to EMNLP 2024" if n % 3 == 0 else "",
            )
        )
    standin = StandInArxiv(papers, port=args.port).start()
    print(f"stand-in arXiv listening on {standin.url} with {len(papers)} papers", flush=True)
    for key, value in standin.settings().items():
        print(f"export {key}={value}", flush=True)
    try:
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        standin.stop()


if __name__ == "__main__":
    main()
