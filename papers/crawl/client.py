"""Talking to arXiv politely: search through the arxiv package, pages, assets, licences."""

from __future__ import annotations

import email.utils
import logging
import random
import re
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, date, datetime
from typing import Any
from urllib.parse import urljoin, urlsplit

import arxiv
import lxml.etree
import lxml.html
import requests
import tenacity
from django.conf import settings

from papers.crawl.gate import Gate, gate_from_settings
from papers.licences import licence_name_at
from papers.parsing.latexml import truncation

log = logging.getLogger(__name__)
# The arxiv package logs every page at INFO; our own log and the run's figures cover it.
logging.getLogger("arxiv").setLevel(logging.WARNING)

RETRY_STATUSES = frozenset({429, 500, 502, 503, 504})
RETRY_EXCEPTIONS = (
    requests.exceptions.ConnectionError,
    requests.exceptions.Timeout,
    requests.exceptions.ChunkedEncodingError,
    requests.exceptions.ContentDecodingError,
)


class FetchError(Exception):
    """A request to arXiv gave no usable answer; `reason` says why, for people."""

    retryable = False

    def __init__(self, reason: str, *, url: str = "", status: int | None = None):
        super().__init__(reason)
        self.reason = reason
        self.url = url
        self.status = status


class NotFound(FetchError):
    """404/410: for an HTML page, the paper has no HTML version."""


class TooLarge(FetchError):
    """The response is over the size limit."""


class WrongContentType(FetchError):
    """The response is not of the expected type (an HTML error page instead of an image)."""


class ConversionFailed(FetchError):
    """arXiv answered 200 but its LaTeXML conversion failed: no usable HTML."""


class TransientError(FetchError):
    """Retries, back-off and Retry-After were exhausted (5xx, 429, timeouts, truncation)."""

    retryable = True


class SearchError(FetchError):
    """An API page could not be read after its tries (malformed, empty, HTTP error)."""

    retryable = True


class RetriesExhausted(requests.exceptions.ConnectionError):
    """Raised by PoliteSession when every try failed on a network error."""

    def __init__(self, reason: str, *, tries: int):
        super().__init__(reason)
        self.reason = reason
        self.tries = tries


@dataclass
class ClientStats:
    """What the client did; `wait_seconds` is time spent being polite (gate, back-off)."""

    requests: int = 0
    retries: int = 0
    bytes: int = 0
    wait_seconds: float = 0.0
    request_seconds: float = 0.0
    by_kind: dict[str, int] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False, compare=False)

    def add(self, **values: float) -> None:
        with self._lock:
            for key, value in values.items():
                setattr(self, key, getattr(self, key) + value)

    def as_dict(self) -> dict[str, Any]:
        return {
            "requests": self.requests,
            "retries": self.retries,
            "bytes": self.bytes,
            "wait_seconds": round(self.wait_seconds, 3),
            "request_seconds": round(self.request_seconds, 3),
        }


@dataclass(frozen=True)
class _Problem:
    """What is wrong with an answer that is asked for again (an empty or cut page, a malformed
    feed): the reason, said when the tries run out."""

    reason: str

    def __str__(self) -> str:
        return self.reason


def _last_answer(state: tenacity.RetryCallState) -> Any:
    """When the tries run out on answers asked for again: the last one (a `_Problem`, said by
    the caller with how many tries there were)."""
    return state.outcome.result() if state.outcome else None


@dataclass(frozen=True)
class RetryPolicy:
    """The crawler's one retry policy, for every request and every answer it asks for again
    (tenacity's `Retrying`): at most `max_tries` tries, exponential back-off with jitter
    between them, a Retry-After honoured. Each try passes the politeness gate (`Gate.slot`,
    in `PoliteSession._send_once`); the pause between tries is taken outside it, so a waiting
    retry never holds up another worker's request, and a Retry-After defers the gate itself."""

    max_tries: int = 4
    backoff_base: float = 2.0  # seconds before the 2nd try; doubles each try
    backoff_cap: float = 120.0
    max_retry_after: float = 600.0  # a longer Retry-After is capped, not ignored

    def backoff(self, attempt: int) -> float:
        """Exponential back-off with jitter ("equal jitter": half fixed, half random)."""
        ceiling = min(self.backoff_cap, self.backoff_base * (2 ** (attempt - 1)))
        return ceiling / 2 + random.uniform(0, ceiling / 2)

    def retrying(
        self,
        *,
        retry: tenacity.retry_base,
        sleep: Callable[[float], None],
        tries: int | None = None,
        wait: Callable[[tenacity.RetryCallState], float] | None = None,
        before_sleep: Callable[[tenacity.RetryCallState], None] | None = None,
        exhausted: Callable[[tenacity.RetryCallState], Any] | None = None,
    ) -> tenacity.Retrying:
        """Tries of one request or answer: `retry` says which outcome is tried again, `wait`
        how long to pause after a try (the back-off by default), `sleep` takes the pause,
        `exhausted` answers when the last try failed too (by default its error is raised)."""
        return tenacity.Retrying(
            stop=tenacity.stop_after_attempt(tries or self.max_tries),
            wait=wait or (lambda state: self.backoff(state.attempt_number)),
            retry=retry,
            sleep=sleep,
            before_sleep=before_sleep,
            retry_error_callback=exhausted,
            reraise=True,
        )


def parse_retry_after(value: str | None) -> float | None:
    """Seconds from a Retry-After header (delta-seconds or an HTTP date)."""
    if not value:
        return None
    value = value.strip()
    if value.isdigit():
        return float(value)
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return max(0.0, (when - datetime.now(UTC)).total_seconds())


class PoliteSession(requests.Session):
    """A requests session whose every request (redirect hops included) passes the gate.

    Each try waits for the gate, holds it while the whole body is read (one connection at a
    time), retries connection errors, timeouts, truncated bodies, 429 and 5xx with
    exponential back-off and jitter, honours Retry-After for every worker through the gate,
    and refuses hosts that are not arXiv's (`allowed_hosts`).
    """

    def __init__(
        self,
        *,
        gate: Gate,
        user_agent: str,
        contact: str = "",
        policy: RetryPolicy | None = None,
        connect_timeout: float = 10.0,
        read_timeout: float = 30.0,
        deadline: float = 120.0,
        max_body_bytes: int = 50 * 1024 * 1024,
        allowed_hosts: set[str] | None = None,
        stats: ClientStats | None = None,
    ):
        super().__init__()
        self.gate = gate
        self.policy = policy or RetryPolicy()
        self.timeout = (connect_timeout, read_timeout)
        self.deadline = deadline
        self.max_body_bytes = max_body_bytes
        self.allowed_hosts = allowed_hosts
        self.stats = stats or ClientStats()
        self.max_redirects = 5
        self.trust_env = False  # no proxies or netrc from the environment
        self.user_agent = user_agent
        self.headers["User-Agent"] = user_agent
        self.classify: Callable[[str], str] = lambda url: "other"  # for the statistics
        if contact:
            self.headers["From"] = contact

    def send(self, request: requests.PreparedRequest, **kwargs: Any) -> requests.Response:
        self._check_host(request.url or "")
        # The arxiv package sets its own User-Agent per request; arXiv must see ours.
        request.headers["User-Agent"] = self.user_agent
        allow_redirects = kwargs.pop("allow_redirects", True)
        kwargs.pop("stream", None)
        if kwargs.get("timeout") is None:
            kwargs["timeout"] = self.timeout
        kind = self.classify(request.url or "")
        tried = 0

        def attempt() -> requests.Response:
            nonlocal tried
            tried += 1
            if tried > 1:
                self.stats.add(retries=1)
            response = self._send_once(request, kind=kind, **kwargs)
            response.tries = tried  # type: ignore[attr-defined]
            return response

        def wait(state: tenacity.RetryCallState) -> float:
            pause = self.policy.backoff(state.attempt_number)
            outcome = state.outcome
            if outcome is None or outcome.failed:
                return pause
            response = outcome.result()
            retry_after = parse_retry_after(response.headers.get("Retry-After"))
            if retry_after is not None:
                retry_after = min(retry_after, self.policy.max_retry_after)
                self.gate.defer(retry_after)  # every worker waits, not only this one
                pause = max(pause, retry_after)
            log.info(
                "HTTP %s from %s; try %s again in %.1f s",
                response.status_code,
                request.url,
                state.attempt_number + 1,
                pause,
            )
            return pause

        def exhausted(state: tenacity.RetryCallState) -> requests.Response:
            outcome = state.outcome
            assert outcome is not None
            if outcome.failed:  # the last try raised too: said with how many there were
                exc = outcome.exception()
                raise RetriesExhausted(
                    f"{exc.__class__.__name__}: {exc} (after {state.attempt_number} tries)",
                    tries=state.attempt_number,
                ) from exc
            return outcome.result()  # the last answer (a 429 or 5xx): the caller says it

        response = self.policy.retrying(
            retry=tenacity.retry_if_exception_type(RETRY_EXCEPTIONS)
            | tenacity.retry_if_result(lambda r: r.status_code in RETRY_STATUSES),
            wait=wait,
            sleep=self._pause,
            exhausted=exhausted,
        )(attempt)
        if allow_redirects and response.is_redirect:
            # Each hop is a request of its own and passes the gate (through self.send).
            history = [response]
            history.extend(self.resolve_redirects(response, request, **kwargs))
            response = history.pop()
            response.history = history
        return response

    def _send_once(
        self, request: requests.PreparedRequest, *, kind: str, **kwargs: Any
    ) -> requests.Response:
        with self.gate.slot() as waited:
            self.stats.add(wait_seconds=waited)
            started = time.monotonic()
            try:
                response = super().send(request, stream=True, allow_redirects=False, **kwargs)
                self._read_body(response, started)
            finally:
                elapsed = time.monotonic() - started
                self.stats.add(requests=1, request_seconds=elapsed)
                with self.stats._lock:
                    self.stats.by_kind[kind] = self.stats.by_kind.get(kind, 0) + 1
        return response

    def _read_body(self, response: requests.Response, started: float) -> None:
        response.too_large = False  # type: ignore[attr-defined]
        length = response.headers.get("Content-Length", "")
        if length.isdigit() and int(length) > self.max_body_bytes:
            response.too_large = True  # type: ignore[attr-defined]
            response.close()
            response._content = b""
            return
        chunks: list[bytes] = []
        size = 0
        try:
            for chunk in response.iter_content(64 * 1024):
                size += len(chunk)
                if size > self.max_body_bytes:
                    response.too_large = True  # type: ignore[attr-defined]
                    chunks = []
                    break
                if time.monotonic() - started > self.deadline:
                    raise requests.exceptions.Timeout(
                        f"body not received within {self.deadline:.0f} s"
                    )
                chunks.append(chunk)
        finally:
            response.close()
        response._content = b"".join(chunks)
        response._content_consumed = True
        self.stats.add(bytes=size)

    def _pause(self, seconds: float) -> None:
        self.stats.add(wait_seconds=seconds)
        time.sleep(seconds)

    def _check_host(self, url: str) -> None:
        if self.allowed_hosts is None:
            return
        parts = urlsplit(url)
        if parts.scheme not in ("http", "https") or parts.netloc not in self.allowed_hosts:
            raise FetchError(f"refusing to fetch {url}: not an arXiv address", url=url)


@dataclass
class HtmlPage:
    url: str  # after redirects: the page's address, against which assets resolve
    html: bytes
    fetched_at: datetime


@dataclass
class License:
    url: str
    name: str


@dataclass
class SearchOutcome:
    results: list[arxiv.Result]  # de-duplicated, newest version of each paper
    total: int  # what the API announced (opensearch:totalResults)
    pages: int
    problems: list[str] = field(default_factory=list)


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


def version_of(short_id: str) -> tuple[str, int]:
    """("2410.01234", 2) from "2410.01234v2"."""
    match = re.fullmatch(r"(.+?)v(\d+)", short_id)
    if not match:
        return short_id, 1
    return match.group(1), int(match.group(2))


class _SearchClient(arxiv.Client):
    """arxiv.Client whose requests go through our PoliteSession (gate, retries, UA).

    Paging is ours: an empty or short page that the announced total contradicts is asked
    for again, and a malformed page is retried rather than taken for the end of results.
    """

    def __init__(self, *, session: PoliteSession, api_url: str, page_size: int, page_tries: int):
        super().__init__(page_size=page_size, delay_seconds=0.0, num_retries=0)
        self._session = session
        self.query_url_format = api_url + ("&" if "?" in api_url else "?") + "{}"
        self.page_tries = page_tries
        self.total: int | None = None
        self.pages = 0
        self.problems: list[str] = []

    def _results(self, search: arxiv.Search, offset: int = 0) -> Iterator[arxiv.Result]:
        first = True
        while True:
            url = self._format_url(search, offset, self.page_size)
            feed = self._page(url, first=first, offset=offset)
            if first:
                self.total = feed.header.total_results
                first = False
            if not feed.results:
                return
            yield from feed.results
            offset += len(feed.results)
            if offset >= (self.total or 0):
                return

    def _read(self, url: str, *, first: bool) -> Any:
        """One API page, counted; SearchError for an HTTP error or a request out of tries."""
        try:
            return self._parse_feed(url, first_page=first)
        except arxiv.HTTPError as exc:
            raise SearchError(
                f"API answered HTTP {exc.status}", url=url, status=exc.status
            ) from None
        except RetriesExhausted as exc:
            raise SearchError(exc.reason, url=url) from None
        finally:
            self.pages += 1

    def one_page(self, url: str) -> Any:
        """One page that is all the answer (an `id_list` query): no paging, since arXiv counts
        the ids it does not know in its total; a malformed page is asked for again."""

        def attempt() -> Any:  # the feed, or what is wrong with it (asked for again)
            feed = self._read(url, first=True)
            if feed.malformed or (feed.header.items_per_page <= 0 and not feed.results):
                return _Problem(f"malformed Atom page ({feed.error or 'no opensearch header'})")
            return feed

        found = self._session.policy.retrying(
            retry=tenacity.retry_if_result(lambda r: isinstance(r, _Problem)),
            tries=self.page_tries,
            sleep=self._session._pause,
            exhausted=_last_answer,
        )(attempt)
        if isinstance(found, _Problem):
            raise SearchError(f"{found.reason} after {self.page_tries} tries", url=url)
        return found

    def _page(self, url: str, *, first: bool, offset: int) -> Any:
        best = None
        confirming = False  # asking again about an empty first page needs no back-off
        tried = 0

        def attempt() -> Any:  # the feed, or what is wrong with it (asked for again)
            nonlocal best, confirming, tried
            tried += 1
            try:
                feed = self._read(url, first=first)
            except arxiv.UnexpectedEmptyPageError:
                return _Problem("page unexpectedly empty")
            if feed.malformed or feed.header.items_per_page <= 0:
                return _Problem(f"malformed Atom page ({feed.error or 'no opensearch header'})")
            total = feed.header.total_results if first else (self.total or 0)
            expected = min(self.page_size, max(0, total - offset))
            if len(feed.results) >= expected and (feed.results or not first or tried > 1):
                return feed
            # Empty first page: arXiv sometimes answers so by mistake; ask once more even when
            # it says "0 results", and keep asking while the total says there are results.
            if not feed.results and first and total == 0 and tried > 1:
                return feed
            confirming = not feed.results and first and total == 0
            best = feed if best is None or len(feed.results) > len(best.results) else best
            return _Problem(f"page has {len(feed.results)} entries, expected {expected} of {total}")

        policy = self._session.policy
        found = policy.retrying(
            retry=tenacity.retry_if_result(lambda r: isinstance(r, _Problem)),
            tries=self.page_tries,
            wait=lambda state: 0.0 if confirming else policy.backoff(state.attempt_number),
            sleep=self._session._pause,
            exhausted=_last_answer,
        )(attempt)
        if not isinstance(found, _Problem):
            return found
        if best is not None and best.results:
            self.problems.append(f"{found.reason}; kept the fullest answer ({url})")
            return best
        raise SearchError(f"{found.reason} after {self.page_tries} tries", url=url)


_OLD_STYLE_PAGE = re.compile(r"[a-z\-]+(?:\.[A-Z]{2})?/\d{7}v\d+")
_WITHDRAWN = re.compile(
    r"\b(?:this (?:paper|article|submission|manuscript|work|version) (?:has been|is|was) "
    r"withdrawn|withdrawn by (?:the )?(?:authors?|arxiv|administrators?))[^.]*",
    re.IGNORECASE,
)


def withdrawal(result: arxiv.Result) -> str:
    """arXiv's words when this version withdraws the paper ("This paper has been withdrawn by
    the authors"), from its comment or abstract; "" for an ordinary version."""
    for text in (result.comment or "", result.summary or ""):
        match = _WITHDRAWN.search(" ".join(text.split()))
        if match:
            return match.group(0).strip()
    return ""


@dataclass
class IdLookup:
    """What the API said of a batch of listed ids: every entry it gave, by versioned id."""

    entries: dict[str, arxiv.Result] = field(default_factory=dict)  # "2410.00260v2" -> entry
    problems: list[str] = field(default_factory=list)

    def latest(self, arxiv_id: str) -> arxiv.Result | None:
        versions = [
            (version_of(short)[1], result)
            for short, result in self.entries.items()
            if version_of(short)[0] == arxiv_id
        ]
        return max(versions, key=lambda pair: pair[0])[1] if versions else None

    def entry(self, arxiv_id: str, version: int | None) -> arxiv.Result | None:
        """The entry of the version asked for (None: the latest), if arXiv has it."""
        if version is None:
            return self.latest(arxiv_id)
        return self.entries.get(f"{arxiv_id}v{version}")


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
        client = _SearchClient(
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
        client = _SearchClient(
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

        def attempt() -> HtmlPage | _Problem:  # the page, or what is wrong with it
            response = self._get(
                url, accept=("text/html", "application/xhtml+xml"), max_bytes=self.max_html_bytes
            )
            body = response.content
            if not body.strip():
                return _Problem("empty page (HTTP 200 with no content)")
            if _ARTICLE.search(body) is None:
                if is_conversion_failure(body):
                    raise ConversionFailed("arXiv's HTML conversion failed (error page)", url=url)
                return _Problem("not LaTeXML output (no article.ltx_document in the page)")
            # A body cut short without a Content-Length to tell: the document never closes
            # (what follows </html> does not count, as the parser judges it).
            if cut := truncation(body):
                return _Problem(f"truncated page ({cut})")
            return HtmlPage(url=response.url or url, html=body, fetched_at=datetime.now(UTC))

        def again(state: tenacity.RetryCallState) -> None:
            found = state.outcome.result() if state.outcome else None
            log.info("%s: %s; try %s again", url, found, state.attempt_number + 1)
            self.session.stats.add(retries=1)

        found = self.session.policy.retrying(
            retry=tenacity.retry_if_result(lambda r: isinstance(r, _Problem)),
            sleep=self.session._pause,
            before_sleep=again,
            exhausted=_last_answer,
        )(attempt)
        if isinstance(found, _Problem):
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
