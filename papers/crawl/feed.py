"""Reading arXiv's API (Atom feeds, through the arxiv package over our polite session): paging
checked against the announced total, an empty or malformed page asked for again, listed ids
looked up, and what an entry says (its version, a withdrawal)."""

from __future__ import annotations

import logging
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import arxiv
import tenacity

from papers.crawl.errors import RetriesExhausted, SearchError
from papers.crawl.polite import PoliteSession
from papers.crawl.retry import Problem, last_answer

# The arxiv package logs every page at INFO; our own log and the run's figures cover it.
logging.getLogger("arxiv").setLevel(logging.WARNING)


@dataclass
class SearchOutcome:
    results: list[arxiv.Result]  # de-duplicated, newest version of each paper
    total: int  # what the API announced (opensearch:totalResults)
    pages: int
    problems: list[str] = field(default_factory=list)


def version_of(short_id: str) -> tuple[str, int]:
    """("2410.01234", 2) from "2410.01234v2"."""
    match = re.fullmatch(r"(.+?)v(\d+)", short_id)
    if not match:
        return short_id, 1
    return match.group(1), int(match.group(2))


class SearchClient(arxiv.Client):
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
                return Problem(f"malformed Atom page ({feed.error or 'no opensearch header'})")
            return feed

        found = self._session.policy.retrying(
            retry=tenacity.retry_if_result(lambda r: isinstance(r, Problem)),
            tries=self.page_tries,
            sleep=self._session._pause,
            exhausted=last_answer,
        )(attempt)
        if isinstance(found, Problem):
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
                return Problem("page unexpectedly empty")
            if feed.malformed or feed.header.items_per_page <= 0:
                return Problem(f"malformed Atom page ({feed.error or 'no opensearch header'})")
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
            return Problem(f"page has {len(feed.results)} entries, expected {expected} of {total}")

        policy = self._session.policy
        found = policy.retrying(
            retry=tenacity.retry_if_result(lambda r: isinstance(r, Problem)),
            tries=self.page_tries,
            wait=lambda state: 0.0 if confirming else policy.backoff(state.attempt_number),
            sleep=self._session._pause,
            exhausted=last_answer,
        )(attempt)
        if not isinstance(found, Problem):
            return found
        if best is not None and best.results:
            self.problems.append(f"{found.reason}; kept the fullest answer ({url})")
            return best
        raise SearchError(f"{found.reason} after {self.page_tries} tries", url=url)


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
