"""An OpenAI-compatible chat-completions client (requests): one request per call, a timeout on
every request, retries with back-off on 429 (honouring Retry-After) and 5xx, timeouts and
unreadable answers; a refused key or a wrong URL is an `EndpointError` at once."""

from __future__ import annotations

import ipaddress
import random
import threading
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from email.utils import parsedate_to_datetime
from typing import Any
from urllib.parse import urlsplit

import requests

from evaluation.release import EvaluationError

__all__ = [
    "ChatClient",
    "EndpointError",
    "ModelSettings",
    "RequestFailed",
    "chat_url",
    "is_loopback",
]

USER_AGENT = "SciVerStudio-evaluation/0.1"


class EndpointError(EvaluationError):
    """The endpoint cannot serve this run (bad URL, refused key, unknown model): stop."""


class RequestFailed(Exception):
    """One request kept failing after every retry; other requests may still succeed."""


@dataclass(frozen=True)
class ModelSettings:
    """What the model is asked with; part of the cache key."""

    temperature: float = 0.0
    max_tokens: int = 2048

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def chat_url(endpoint: str) -> str:
    """`http://host/v1` → `http://host/v1/chat/completions` (a full URL stays as it is)."""
    parts = urlsplit(endpoint)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise EndpointError(
            f"the endpoint {endpoint!r} is not an http(s) URL (e.g. http://127.0.0.1:8000/v1)"
        )
    url = endpoint.rstrip("/")
    return url if url.endswith("/chat/completions") else f"{url}/chat/completions"


def is_loopback(endpoint: str) -> bool:
    """Whether the endpoint is this machine (localhost, 127.0.0.0/8, ::1), without resolving
    any name: anything else counts as remote."""
    host = (urlsplit(endpoint).hostname or "").lower()
    if host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _retry_after(value: str | None, cap: float) -> float | None:
    if not value:
        return None
    try:
        seconds = float(value)
    except ValueError:
        try:
            seconds = parsedate_to_datetime(value).timestamp() - time.time()
        except (TypeError, ValueError):
            return None
    return max(0.0, min(seconds, cap))


def _text(data: Any) -> str:
    """The first choice's message text; raises ValueError when the answer is not that shape."""
    message = data["choices"][0]["message"]
    content = message.get("content")
    if content is None:
        return str(message.get("refusal") or "")
    if isinstance(content, list):  # some servers answer in content parts
        return "".join(str(p.get("text", "")) for p in content if isinstance(p, dict))
    if not isinstance(content, str):
        raise ValueError(f"content is {type(content).__name__}")
    return content


class ChatClient:
    """Sends chat-completions requests for one endpoint and model; safe to share across
    threads (each thread has its own connection pool)."""

    def __init__(
        self,
        endpoint: str,
        model: str,
        *,
        api_key: str = "",
        settings: ModelSettings | None = None,
        timeout: float = 120.0,
        connect_timeout: float = 10.0,
        max_tries: int = 4,
        backoff: float = 2.0,
        backoff_cap: float = 60.0,
        max_retry_after: float = 300.0,
        sleep: Callable[[float], None] = time.sleep,
    ):
        self.endpoint = endpoint
        self.url = chat_url(endpoint)
        self.model = model
        self.api_key = api_key
        self.settings = settings or ModelSettings()
        self.timeout = (connect_timeout, timeout)
        self.max_tries = max(1, max_tries)
        self.backoff, self.backoff_cap, self.max_retry_after = backoff, backoff_cap, max_retry_after
        self.sleep = sleep
        self._local = threading.local()

    def _session(self) -> requests.Session:
        session = getattr(self._local, "session", None)
        if session is None:
            session = self._local.session = requests.Session()
            session.headers["User-Agent"] = USER_AGENT
            if self.api_key:
                session.headers["Authorization"] = f"Bearer {self.api_key}"
        return session

    def _wait(self, attempt: int) -> float:
        return min(self.backoff_cap, self.backoff * 2**attempt) * random.uniform(0.5, 1.0)

    def complete(self, content: list[dict[str, Any]], *, first: bool = False) -> str:
        """The model's answer to one user message. `first`: the run's first request, where an
        endpoint that cannot be reached at all is an EndpointError rather than a retry."""
        body = {
            "model": self.model,
            "messages": [{"role": "user", "content": content}],
            **self.settings.as_dict(),
        }
        last = ""
        for attempt in range(self.max_tries):
            wait: float | None = None
            try:
                response = self._session().post(self.url, json=body, timeout=self.timeout)
            except requests.ConnectionError as exc:
                if first and not isinstance(exc, requests.ConnectTimeout):
                    raise EndpointError(
                        f"cannot reach the endpoint {self.url} ({exc.__class__.__name__}): is "
                        "the server running and the URL right?"
                    ) from exc
                last = f"connection failed ({exc.__class__.__name__})"
            except requests.Timeout:
                last = f"no answer within {self.timeout[1]:g} s"
            else:
                status = response.status_code
                if status in (401, 403):
                    raise EndpointError(
                        f"the endpoint {self.url} refused the request (HTTP {status}): the API "
                        "key is missing or wrong"
                    )
                if status == 404:
                    raise EndpointError(
                        f"no chat-completions API at {self.url} (HTTP 404): the endpoint should "
                        "be the API's base URL, e.g. http://127.0.0.1:8000/v1"
                    )
                if status == 429:
                    last = "rate limited (HTTP 429)"
                    wait = _retry_after(response.headers.get("Retry-After"), self.max_retry_after)
                elif status >= 500:
                    last = f"server error (HTTP {status})"
                elif status >= 400:
                    raise EndpointError(
                        f"the endpoint {self.url} refused the request (HTTP {status}): "
                        f"{response.text[:300]}"
                    )
                else:
                    try:
                        return _text(response.json())
                    except (ValueError, KeyError, IndexError, TypeError, AttributeError) as exc:
                        last = f"an answer that is not a chat completion ({exc})"
            if attempt + 1 < self.max_tries:
                self.sleep(self._wait(attempt) if wait is None else wait)
        raise RequestFailed(f"{self.url}: {last} after {self.max_tries} tries")
