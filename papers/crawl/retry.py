"""The crawler's one retry policy (tenacity's `Retrying`): how many tries, the back-off with
jitter between them, a Retry-After honoured, and which statuses and network errors are tried
again; an answer asked for again says what was wrong with it (`Problem`)."""

from __future__ import annotations

import email.utils
import random
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import requests
import tenacity

RETRY_STATUSES = frozenset({429, 500, 502, 503, 504})
RETRY_EXCEPTIONS = (
    requests.exceptions.ConnectionError,
    requests.exceptions.Timeout,
    requests.exceptions.ChunkedEncodingError,
    requests.exceptions.ContentDecodingError,
)


@dataclass(frozen=True)
class Problem:
    """What is wrong with an answer that is asked for again (an empty or cut page, a malformed
    feed): the reason, said when the tries run out."""

    reason: str

    def __str__(self) -> str:
        return self.reason


def last_answer(state: tenacity.RetryCallState) -> Any:
    """When the tries run out on answers asked for again: the last one (a `Problem`, said by
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
