"""The HTTP session every request to arXiv goes through: each try passes the politeness gate
and is retried by the one policy, a body is read whole within its size and time limits, only
arXiv's hosts are reached, and what was done is counted (`ClientStats`)."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

import requests
import tenacity

from papers.crawl.errors import FetchError, RetriesExhausted
from papers.crawl.gate import Gate
from papers.crawl.retry import RETRY_EXCEPTIONS, RETRY_STATUSES, RetryPolicy, parse_retry_after

log = logging.getLogger(__name__)


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
        response = self._send_with_retries(request, **kwargs)
        if allow_redirects and response.is_redirect:
            # Each hop is a request of its own and passes the gate (through self.send).
            history = [response]
            history.extend(self.resolve_redirects(response, request, **kwargs))
            response = history.pop()
            response.history = history
        return response

    def _send_with_retries(
        self, request: requests.PreparedRequest, **kwargs: Any
    ) -> requests.Response:
        """One request, tried again (by the policy) on a connection error, a timeout, a
        truncated body, a 429 or a 5xx; the answer says how many tries it took (`tries`)."""
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

        return self.policy.retrying(
            retry=tenacity.retry_if_exception_type(RETRY_EXCEPTIONS)
            | tenacity.retry_if_result(lambda r: r.status_code in RETRY_STATUSES),
            wait=lambda state: self._retry_pause(state, request.url),
            sleep=self._pause,
            exhausted=_exhausted,
        )(attempt)

    def _retry_pause(self, state: tenacity.RetryCallState, url: str | None) -> float:
        """How long to wait before the next try: the policy's back-off, or an answer's
        Retry-After (capped) when longer, which defers every worker through the gate."""
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
            url,
            state.attempt_number + 1,
            pause,
        )
        return pause

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
        response._content_consumed = True  # type: ignore[attr-defined]
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


def _exhausted(state: tenacity.RetryCallState) -> requests.Response:
    """When no try is left: the last answer (a 429 or 5xx, which the caller says), or the last
    try's exception, said with how many tries there were."""
    outcome = state.outcome
    assert outcome is not None
    if outcome.failed:
        exc = outcome.exception()
        raise RetriesExhausted(
            f"{exc.__class__.__name__}: {exc} (after {state.attempt_number} tries)",
            tries=state.attempt_number,
        ) from exc
    return outcome.result()
