"""Every request the crawler makes to arXiv, through one polite session: the search and id
look-ups (read by `feed`), a paper's HTML page (checked and asked for again when cut short),
its chart images, and its abstract page's licence."""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass
from datetime import UTC, date, datetime
from urllib.parse import urljoin, urlsplit

import arxiv
import lxml.etree
import lxml.html
import requests
import tenacity
from django.conf import settings

from papers.crawl.errors import (
    ConversionFailed,
    FetchError,
    NotFound,
    RetriesExhausted,
    TooLarge,
    TransientError,
    WrongContentType,
)
from papers.crawl.feed import IdLookup, SearchClient, SearchOutcome, version_of
from papers.crawl.gate import Gate, gate_from_settings
from papers.crawl.polite import ClientStats, PoliteSession
from papers.crawl.retry import RETRY_STATUSES, Problem, RetryPolicy, last_answer
from papers.licences import licence_name_at
from papers.parsing.latexml import truncation

log = logging.getLogger(__name__)


@dataclass
class HtmlPage:
    url: str  # after redirects: the page's address, against which assets resolve
    html: bytes
    fetched_at: datetime


@dataclass
class License:
    url: str
    name: str


_ARTICLE = re.compile(rb"<article\b[^>]*\bltx_document\b", re.IGNORECASE)


def is_conversion_failure(body: bytes) -> bool:
    """arXiv's page for a paper whose LaTeXML conversion failed ("Conversion to HTML had a
    Fatal error and exited abruptly")."""
    lowered = body[:200_000].lower()
    return b"fatal error" in lowered or (
        b"conversion" in lowered and (b"failed" in lowered or b"error" in lowered)
    )


def license_name(url: str, link_text: str = "") -> str:
    """The licence's name from the one table (`papers.licences`), else the link's own text
    (arXiv's says only "view license": no name)."""
    if name := licence_name_at(url):
        return name
    text = " ".join(link_text.split())
    return "" if text.lower() in ("", "view license") else text[:200]


def parse_license(html: bytes, page_url: str) -> License | None:
    """The licence link of an abstract page (`div.abs-license a`), or None; FetchError for
    a page that cannot be read (no document, an unusable link)."""
    try:
        root = lxml.html.document_fromstring(html if html and html.strip() else b"<html></html>")
        for div in root.iter("div"):
            if "abs-license" not in (div.get("class") or "").split():
                continue
            for link in div.iter("a"):
                href = (link.get("href") or "").strip()
                if href:
                    url = urljoin(page_url, href)
                    return License(url=url, name=license_name(url, link.text_content()))
    except (ValueError, lxml.etree.LxmlError) as exc:
        raise FetchError(f"abstract page unreadable: {exc}", url=page_url) from None
    return None


_OLD_STYLE_PAGE = re.compile(r"[a-z\-]+(?:\.[A-Z]{2})?/\d{7}v\d+")


class ArxivClient:
    """Every request the crawler makes to arXiv, through one PoliteSession."""

    def __init__(
        self,
        *,
        session: PoliteSession,
        api_url: str,
        html_url: str,
        abs_url: str,
        page_size: int = 200,
        page_tries: int = 4,
        max_html_bytes: int = 50 * 1024 * 1024,
        max_image_bytes: int = 20 * 1024 * 1024,
    ):
        self.session = session
        self.api_url = api_url
        self.html_url = html_url if html_url.endswith("/") else html_url + "/"
        self.abs_url = abs_url if abs_url.endswith("/") else abs_url + "/"
        self.page_size = page_size
        self.page_tries = page_tries
        self.max_html_bytes = max_html_bytes
        self.max_image_bytes = max_image_bytes
        session.classify = self.request_kind

    def request_kind(self, url: str) -> str:
        """What a request to `url` is for: "api", "html", "asset" or "abs"."""
        if url.startswith(self.api_url):
            return "api"
        if url.startswith(self.abs_url):
            return "abs"
        if url.startswith(self.html_url):
            rest = url[len(self.html_url) :].strip("/")
            if _OLD_STYLE_PAGE.fullmatch(rest):  # cs/0112017v1: a page, not an asset
                return "html"
            return "asset" if "/" in rest else "html"
        return "other"

    @property
    def stats(self) -> ClientStats:
        return self.session.stats

    @classmethod
    def from_settings(cls, *, gate: Gate | None = None, delay: float | None = None) -> ArxivClient:
        api_url = settings.ARXIV_API_URL
        html_url = settings.ARXIV_HTML_URL
        abs_url = settings.ARXIV_ABS_URL
        max_html = int(getattr(settings, "MAX_HTML_BYTES", 50 * 1024 * 1024))
        max_image = int(getattr(settings, "MAX_IMAGE_BYTES", 20 * 1024 * 1024))
        hosts = {urlsplit(u).netloc for u in (api_url, html_url, abs_url)}
        hosts |= set(getattr(settings, "ARXIV_EXTRA_HOSTS", ()))
        session = PoliteSession(
            gate=gate or gate_from_settings(delay=delay),
            user_agent=settings.ARXIV_USER_AGENT,
            contact=getattr(settings, "ARXIV_CONTACT", ""),
            policy=RetryPolicy(
                max_tries=int(getattr(settings, "ARXIV_MAX_TRIES", 4)),
                backoff_base=float(getattr(settings, "ARXIV_BACKOFF_SECONDS", 2.0)),
                backoff_cap=float(getattr(settings, "ARXIV_BACKOFF_CAP_SECONDS", 120.0)),
                max_retry_after=float(getattr(settings, "ARXIV_MAX_RETRY_AFTER", 600.0)),
            ),
            connect_timeout=float(getattr(settings, "ARXIV_CONNECT_TIMEOUT", 10.0)),
            read_timeout=float(getattr(settings, "ARXIV_READ_TIMEOUT", 30.0)),
            deadline=float(getattr(settings, "ARXIV_REQUEST_DEADLINE", 120.0)),
            max_body_bytes=max(max_html, max_image) + 1,
            allowed_hosts=hosts,
        )
        return cls(
            session=session,
            api_url=api_url,
            html_url=html_url,
            abs_url=abs_url,
            page_size=int(getattr(settings, "ARXIV_PAGE_SIZE", 200)),
            page_tries=int(getattr(settings, "ARXIV_MAX_TRIES", 4)),
            max_html_bytes=max_html,
            max_image_bytes=max_image,
        )

    # --- search -----------------------------------------------------------------------
    def search(self, *, categories: list[str], start: date, end: date) -> SearchOutcome:
        """Papers submitted in [start, end] (GMT days) in any of `categories`."""
        cats = " OR ".join(f"cat:{c}" for c in categories)
        query = f"({cats}) AND submittedDate:[{start:%Y%m%d}0000 TO {end:%Y%m%d}2359]"
        client = SearchClient(
            session=self.session,
            api_url=self.api_url,
            page_size=self.page_size,
            page_tries=self.page_tries,
        )
        search = arxiv.Search(
            query=query,
            max_results=None,
            sort_by=arxiv.SortCriterion.SubmittedDate,
            sort_order=arxiv.SortOrder.Ascending,
        )
        newest: dict[str, arxiv.Result] = {}
        seen = 0
        for result in client.results(search):
            seen += 1
            arxiv_id, version = version_of(result.get_short_id())
            kept = newest.get(arxiv_id)
            if kept is None or version_of(kept.get_short_id())[1] < version:
                newest[arxiv_id] = result
        problems = list(client.problems)
        total = client.total or 0
        if seen < total:
            problems.append(f"the API announced {total} results but gave {seen}")
        return SearchOutcome(
            results=list(newest.values()), total=total, pages=client.pages, problems=problems
        )

    def look_up_ids(self, ids: list[tuple[str, int | None]]) -> IdLookup:
        """The API's entries for listed ids (`id_list`), in one request: each id as listed
        and, for one listed with a version, its latest version too (to say that a newer one
        exists). arXiv leaves out the ids it does not know and gives the rest in its own
        order, so entries are matched by id, never by position."""
        asked = list(
            dict.fromkeys(
                name
                for arxiv_id, version in ids
                for name in ((f"{arxiv_id}v{version}", arxiv_id) if version else (arxiv_id,))
            )
        )
        client = SearchClient(
            session=self.session,
            api_url=self.api_url,
            page_size=len(asked),
            page_tries=self.page_tries,
        )
        search = arxiv.Search(id_list=asked, max_results=len(asked))
        feed = client.one_page(client._format_url(search, 0, len(asked)))
        lookup = IdLookup(problems=list(client.problems))
        for result in feed.results:
            if "arxiv.org/abs/" not in (result.entry_id or ""):
                lookup.problems.append(f"an entry that is no paper: {result.entry_id[:200]!r}")
                continue
            lookup.entries[result.get_short_id()] = result
        return lookup

    # --- pages ------------------------------------------------------------------------
    def html_page_url(self, arxiv_id: str, version: int) -> str:
        return f"{self.html_url}{arxiv_id}v{version}"

    def abs_page_url(self, arxiv_id: str, version: int) -> str:
        return f"{self.abs_url}{arxiv_id}v{version}"

    def fetch_html(self, arxiv_id: str, version: int) -> HtmlPage:
        """The paper's HTML; NotFound (no HTML version), ConversionFailed, or FetchError.

        An empty body, a page that is not LaTeXML's and a truncated one are taken as a
        server's slip and asked for again with back-off; when every try gave one, the
        paper fails with TransientError ("retries_exhausted", which --retry-failed tries
        again), never as a permanent "no HTML". arXiv's conversion-failure page is its
        deliberate answer: no HTML, at once.
        """
        url = self.html_page_url(arxiv_id, version)
        tries = self.session.policy.max_tries

        def attempt() -> HtmlPage | Problem:  # the page, or what is wrong with it
            response = self._get(
                url, accept=("text/html", "application/xhtml+xml"), max_bytes=self.max_html_bytes
            )
            body = response.content
            if not body.strip():
                return Problem("empty page (HTTP 200 with no content)")
            if _ARTICLE.search(body) is None:
                if is_conversion_failure(body):
                    raise ConversionFailed("arXiv's HTML conversion failed (error page)", url=url)
                return Problem("not LaTeXML output (no article.ltx_document in the page)")
            # A body cut short without a Content-Length to tell: the document never closes
            # (what follows </html> does not count, as the parser judges it).
            if cut := truncation(body):
                return Problem(f"truncated page ({cut})")
            return HtmlPage(url=response.url or url, html=body, fetched_at=datetime.now(UTC))

        def again(state: tenacity.RetryCallState) -> None:
            found = state.outcome.result() if state.outcome else None
            log.info("%s: %s; try %s again", url, found, state.attempt_number + 1)
            self.session.stats.add(retries=1)

        found = self.session.policy.retrying(
            retry=tenacity.retry_if_result(lambda r: isinstance(r, Problem)),
            sleep=self.session._pause,
            before_sleep=again,
            exhausted=last_answer,
        )(attempt)
        if isinstance(found, Problem):
            raise TransientError(f"{found.reason} after {tries} tries", url=url)
        return found

    def fetch_asset(self, url: str) -> bytes:
        """An image of the page (chart panel)."""
        response = self._get(url, accept=("image/",), max_bytes=self.max_image_bytes)
        return response.content

    def fetch_license(self, arxiv_id: str, version: int) -> License | None:
        url = self.abs_page_url(arxiv_id, version)
        response = self._get(url, accept=("text/html",), max_bytes=self.max_html_bytes)
        return parse_license(response.content, response.url or url)

    def _get(self, url: str, *, accept: tuple[str, ...], max_bytes: int) -> requests.Response:
        try:
            response = self.session.get(url)
        except RetriesExhausted as exc:
            raise TransientError(exc.reason, url=url) from None
        except requests.exceptions.TooManyRedirects:
            raise FetchError("too many redirects", url=url) from None
        except requests.RequestException as exc:
            raise FetchError(f"{exc.__class__.__name__}: {exc}", url=url) from None
        status = response.status_code
        tries = getattr(response, "tries", 1)
        if status in (404, 410):
            raise NotFound(f"HTTP {status}", url=url, status=status)
        if status in RETRY_STATUSES:
            raise TransientError(f"HTTP {status} after {tries} tries", url=url, status=status)
        if status != 200:
            raise FetchError(f"HTTP {status}", url=url, status=status)
        if getattr(response, "too_large", False) or len(response.content) > max_bytes:
            raise TooLarge(f"response over the limit of {max_bytes} bytes", url=url)
        content_type = response.headers.get("Content-Type", "").split(";")[0].strip().lower()
        # An empty body says nothing of its type: the caller decides what nothing means.
        if response.content and not any(content_type.startswith(a) for a in accept):
            raise WrongContentType(f"unexpected content type {content_type or '(none)'!r}", url=url)
        return response
