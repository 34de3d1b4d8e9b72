"""The evaluation's model client: OpenAI's own package (`openai`) against any OpenAI-compatible
chat-completions server (`base_url`), made safe for claims that are not released yet.

- **No redirects.** A listed endpoint that answers 3xx would have the whole prompt re-sent to
  a host nobody listed; the client refuses: "the endpoint redirects to …: list that URL instead".
- **No key in any message.** The API key and any `Bearer …` are redacted from every message
  this module makes (pages, stored errors and logs show those messages only).
- **Local means local.** `is_local`: a literal loopback address, or a name that resolves only
  to loopback addresses. A client made with `local_only` checks it again as each request is
  sent, and refuses to send otherwise (the hidden test part goes nowhere else unconfirmed).
- **Bounded answers.** An answer is read up to `max_bytes` and within `deadline` seconds of the
  request (a slow drip ends); either, when hit, fails that request and says so.

Retries are the package's own (`max_retries`: connection errors, timeouts, 408, 409, 429 and
5xx, honouring `Retry-After`); there is no second loop around it.
"""

from __future__ import annotations

import ipaddress
import json
import re
import socket
import time
from collections.abc import Iterator
from dataclasses import asdict, dataclass
from typing import Any
from urllib.parse import urlsplit

import httpx2
import openai

from evaluation.release import EvaluationError
from serving.gate import stepped_out

__all__ = [
    "ChatClient",
    "EndpointError",
    "ModelSettings",
    "RequestFailed",
    "chat_url",
    "is_local",
    "redact",
]

USER_AGENT = "SciVerStudio-evaluation/0.2"
MAX_ANSWER_BYTES = 8 * 1024 * 1024
# A response the guard made instead of the server's: its header says why (see _Guard).
_REFUSAL = "x-sciver-refused"
_REFUSAL_STATUS = 499


class EndpointError(EvaluationError):
    """The endpoint cannot serve this run (bad URL, refused key, a redirect, not this machine
    when it must be): stop."""


class RequestFailed(Exception):
    """One request kept failing after every retry; other requests may still succeed."""


@dataclass(frozen=True)
class ModelSettings:
    """What the model is asked with; part of the cache key."""

    temperature: float = 0.0
    max_tokens: int = 2048

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def base_url(endpoint: str) -> str:
    """The API's base URL (`http://host/v1`) of an endpoint given as that or as its full
    chat-completions URL."""
    parts = urlsplit(endpoint)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise EndpointError(
            f"the endpoint {endpoint!r} is not an http(s) URL (e.g. http://127.0.0.1:8000/v1)"
        )
    return endpoint.rstrip("/").removesuffix("/chat/completions")


def chat_url(endpoint: str) -> str:
    """`http://host/v1` → `http://host/v1/chat/completions` (a full URL stays as it is)."""
    return f"{base_url(endpoint)}/chat/completions"


def is_loopback_address(host: str) -> bool:
    """A literal loopback address (127.0.0.0/8, ::1); no name is one."""
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def resolves_only_to_loopback(host: str) -> bool:
    """Whether the name resolves, now, to loopback addresses and nothing else."""
    try:
        found = socket.getaddrinfo(host, None, proto=socket.IPPROTO_TCP)
    except (OSError, UnicodeError):
        return False
    addresses = {info[4][0] for info in found}
    return bool(addresses) and all(is_loopback_address(a.split("%")[0]) for a in addresses)


def is_local(endpoint: str) -> bool:
    """Whether requests to the endpoint stay on this machine: its host is a literal loopback
    address, or a name that resolves only to loopback now (`localhost` usually does; a
    `*.localhost` name counts only if it does)."""
    host = (urlsplit(endpoint).hostname or "").lower()
    return bool(host) and (is_loopback_address(host) or resolves_only_to_loopback(host))


REDACTED = "[redacted]"
_BEARER = re.compile(r"(?i)\b(bearer|basic)(\s+)(?!\[redacted\])[^\s\"',;}\]]+")
_KEY_FIELD = re.compile(
    r"(?i)((?:api[-_]?key|authorization|x-api-key|access[-_]?token)[\"']?\s*[:=]\s*[\"']?)"
    r"(?!bearer\b|basic\b|\[redacted\])[^\s\"',;}\]]+"
)


def redact(text: str, *secrets: str) -> str:
    """`text` with the secrets, `Bearer …` and `api_key: …` values replaced by [redacted]."""
    for secret in secrets:
        if secret and len(secret) >= 4:
            text = text.replace(secret, REDACTED)
    text = _BEARER.sub(rf"\1\2{REDACTED}", text)
    return _KEY_FIELD.sub(rf"\1{REDACTED}", text)


def _text(completion: Any) -> str:
    """The first choice's message text; ValueError when the answer is not that shape."""
    choices = getattr(completion, "choices", None)
    if not choices:
        raise ValueError("no choices")
    message = choices[0].message
    content = message.content
    if content is None:
        return str(getattr(message, "refusal", None) or "")
    if isinstance(content, list):  # some servers answer in content parts
        return "".join(str(p.get("text", "")) for p in content if isinstance(p, dict))
    if not isinstance(content, str):
        raise ValueError(f"content is {type(content).__name__}")
    return content


class _Breach(Exception):
    def __init__(self, kind: str, message: str):
        super().__init__(message)
        self.kind, self.message = kind, message


class _Guard(httpx2.BaseTransport):
    """The transport under the OpenAI client: what it sends, and how much it reads.

    A refusal is answered as a response of the guard's own (`_REFUSAL_STATUS`, its kind in
    the `_REFUSAL` header), which the OpenAI client does not retry and ChatClient reads."""

    def __init__(self, *, max_bytes: int, deadline: float, local_only: bool, **transport: Any):
        self.inner = httpx2.HTTPTransport(**transport)
        self.max_bytes, self.deadline, self.local_only = max_bytes, deadline, local_only

    def handle_request(self, request: httpx2.Request) -> httpx2.Response:
        host = request.url.host
        if self.local_only and not (is_loopback_address(host) or resolves_only_to_loopback(host)):
            return self._refusal(
                request,
                "not_local",
                f"{host} does not resolve only to this machine now: the hidden test claims "
                "were not sent (an admin must confirm sending them elsewhere)",
            )
        request.headers["Accept-Encoding"] = "identity"  # the cap counts what is read
        started = time.monotonic()
        response = self.inner.handle_request(request)
        try:
            body = b"".join(self._read(response.stream, started))
        except _Breach as breach:
            return self._refusal(request, breach.kind, breach.message)
        finally:
            response.close()
        return httpx2.Response(
            response.status_code,
            headers=response.headers,
            content=body,
            request=request,
            extensions=response.extensions,
        )

    def _read(self, stream: Any, started: float) -> Iterator[bytes]:
        total = 0
        for chunk in stream:
            total += len(chunk)
            if total > self.max_bytes:
                raise _Breach(
                    "too_large",
                    f"the answer is over {self.max_bytes / 1024 / 1024:g} MB: not read further",
                )
            if time.monotonic() - started > self.deadline:
                raise _Breach(
                    "deadline",
                    f"the answer took over {self.deadline:g} s to arrive (a slow drip): not "
                    "waited for further",
                )
            yield chunk

    @staticmethod
    def _refusal(request: httpx2.Request, kind: str, message: str) -> httpx2.Response:
        body = json.dumps({"error": {"message": message, "type": kind}}).encode()
        return httpx2.Response(
            _REFUSAL_STATUS,
            headers={_REFUSAL: kind, "Content-Type": "application/json"},
            content=body,
            request=request,
        )

    def close(self) -> None:
        self.inner.close()


class ChatClient:
    """Chat-completions requests for one endpoint and model, through `openai.OpenAI`; safe to
    share across threads (the OpenAI client is)."""

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
        deadline: float | None = None,
        max_bytes: int = MAX_ANSWER_BYTES,
        local_only: bool = False,
    ):
        self.endpoint = endpoint
        self.url = chat_url(endpoint)
        self.model = model
        self.api_key = api_key
        self.settings = settings or ModelSettings()
        self.max_tries = max(1, max_tries)
        self.deadline = deadline if deadline is not None else timeout
        guard = _Guard(
            max_bytes=max_bytes, deadline=self.deadline, local_only=local_only, retries=0
        )
        self._http = httpx2.Client(
            transport=guard,
            follow_redirects=False,
            trust_env=False,  # no proxy from the environment: requests go where listed
            timeout=httpx2.Timeout(timeout, connect=connect_timeout),
            headers={"User-Agent": USER_AGENT},
        )
        self._client = openai.OpenAI(
            base_url=base_url(endpoint),
            # A server without keys still gets a header; the package requires one.
            api_key=api_key or "no-key",
            max_retries=self.max_tries - 1,
            timeout=httpx2.Timeout(timeout, connect=connect_timeout),
            http_client=self._http,
        )

    def say(self, text: str) -> str:
        """`text` fit to show: the key and any bearer token redacted."""
        return redact(text, self.api_key)

    def complete(self, content: list[dict[str, Any]], *, first: bool = False) -> str:
        """The model's answer to one user message. `first`: the run's first request, where an
        endpoint that cannot be reached at all is an EndpointError rather than a failed
        request. A page that asks waits outside `make run`'s request gate meanwhile
        (serving/gate.py: a model's seconds keep no one else waiting)."""
        try:
            with stepped_out():
                completion = self._client.chat.completions.create(
                    model=self.model,
                    messages=[{"role": "user", "content": content}],  # type: ignore[list-item,misc]
                    **self.settings.as_dict(),
                )
        except openai.APIStatusError as exc:
            raise self._status_error(exc) from None
        except openai.APITimeoutError:
            raise RequestFailed(
                f"{self.url}: no answer within the timeout after {self.max_tries} tries"
            ) from None
        except ValueError as exc:  # a 200 whose body is not JSON (the package does not retry it)
            raise RequestFailed(
                self.say(f"{self.url}: an answer that is not a chat completion ({exc})")
            ) from None
        except openai.APIConnectionError as exc:
            why = exc.__cause__.__class__.__name__ if exc.__cause__ else "connection failed"
            if first:
                raise EndpointError(
                    f"cannot reach the endpoint {self.url} ({why}): is the server running and "
                    "the URL right?"
                ) from None
            raise RequestFailed(
                f"{self.url}: connection failed ({why}) after {self.max_tries} tries"
            ) from None
        except openai.OpenAIError as exc:  # anything else the package says: that request only
            raise RequestFailed(self.say(f"{self.url}: {exc.__class__.__name__}: {exc}")) from None
        try:
            return _text(completion)
        except (ValueError, KeyError, IndexError, TypeError, AttributeError) as exc:
            raise RequestFailed(
                self.say(f"{self.url}: an answer that is not a chat completion ({exc})")
            ) from None

    def _status_error(self, exc: openai.APIStatusError) -> Exception:
        response = exc.response
        status = response.status_code
        refused = response.headers.get(_REFUSAL, "")
        said = self.say(_error_text(response))
        if refused == "not_local":
            return EndpointError(said)
        if refused:
            return RequestFailed(f"{self.url}: {said}")
        if 300 <= status < 400:
            location = response.headers.get("Location", "")
            target = str(response.request.url.join(location)) if location else "another address"
            return EndpointError(
                self.say(
                    f"the endpoint redirects to {target} (HTTP {status}): list that URL instead; "
                    "nothing was sent there"
                )
            )
        if status in (401, 403):
            return EndpointError(
                f"the endpoint {self.url} refused the request (HTTP {status}): the API key is "
                "missing or wrong"
            )
        if status == 404:
            return EndpointError(
                f"no chat-completions API at {self.url} (HTTP 404): the endpoint should be the "
                "API's base URL, e.g. http://127.0.0.1:8000/v1"
            )
        if status == 429:
            return RequestFailed(
                f"{self.url}: rate limited (HTTP 429) after {self.max_tries} tries"
            )
        if status >= 500:
            return RequestFailed(
                f"{self.url}: server error (HTTP {status}) after {self.max_tries} tries"
            )
        return EndpointError(
            f"the endpoint {self.url} refused the request (HTTP {status}): {said[:300]}"
        )

    def close(self) -> None:
        self._client.close()


def _error_text(response: httpx2.Response) -> str:
    """What an error response says: its JSON error message, else its text."""
    try:
        text = response.text
    except (httpx2.HTTPError, UnicodeDecodeError):
        return ""
    try:
        data = json.loads(text)
        message = data["error"]["message"] if isinstance(data.get("error"), dict) else None
    except (ValueError, TypeError, KeyError, AttributeError):
        message = None
    return " ".join(str(message if message is not None else text).split())[:1000]
