"""Asking a model for a whole part: the response cache (one file per request key, so an
interrupted run resumes without asking twice), the dry-run estimate, and the bounded pool of
concurrent requests, the first one sent alone so that a bad endpoint or key stops the run at
once."""

from __future__ import annotations

import json
import os
import secrets
from collections.abc import Callable, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from pathlib import Path

from evaluation.client import ChatClient, EndpointError, RequestFailed
from evaluation.prompting import PlannedRequest, Template

__all__ = ["Estimate", "ResponseCache", "RunResult", "ask_model", "estimate"]


class ResponseCache:
    """Responses by request key under `folder` (`ab/abcdef….json`), written atomically."""

    def __init__(self, folder: Path):
        self.folder = Path(folder)

    def _path(self, key: str) -> Path:
        return self.folder / key[:2] / f"{key}.json"

    def get(self, key: str) -> str | None:
        try:
            entry = json.loads(self._path(key).read_text("utf-8"))
        except (OSError, ValueError):
            return None
        response = entry.get("response") if isinstance(entry, dict) else None
        return response if isinstance(response, str) else None

    def put(self, key: str, response: str, **about: object) -> None:
        path = self._path(key)
        path.parent.mkdir(parents=True, exist_ok=True)
        partial = path.with_name(f".{path.name}.{secrets.token_hex(4)}.partial")
        partial.write_text(json.dumps({"response": response, **about}), "utf-8")
        os.replace(partial, path)


@dataclass(frozen=True)
class Estimate:
    requests: int
    cached: int
    images: int
    input_tokens: int  # of the requests still to send
    output_tokens_max: int

    def lines(self) -> list[str]:
        return [
            f"requests: {self.requests} ({self.cached} already cached, "
            f"{self.requests - self.cached} to send)",
            f"images: {sum([self.images])}",
            f"estimated input tokens to send: ~{self.input_tokens:,} (text at 4 characters a "
            "token, images by OpenAI's tile rule)",
            f"output tokens: at most {self.output_tokens_max:,} (max_tokens per request)",
        ]


def _keys(planned: Sequence[PlannedRequest], client: ChatClient, template: Template) -> list[str]:
    return [
        p.key(
            endpoint=client.endpoint,
            model=client.model,
            settings=client.settings.as_dict(),
            prompt=template.sha256,
        )
        for p in planned
    ]


def estimate(
    planned: Sequence[PlannedRequest],
    *,
    client: ChatClient,
    template: Template,
    cache: ResponseCache,
) -> Estimate:
    """What a run would send: nothing is sent."""
    keys = _keys(planned, client, template)
    todo = [p for p, k in zip(planned, keys, strict=True) if cache.get(k) is None]
    return Estimate(
        requests=len(planned),
        cached=len(planned) - len(todo),
        images=sum(len(p.images) for p in planned),
        input_tokens=sum(p.input_tokens() for p in todo),
        output_tokens_max=len(todo) * client.settings.max_tokens,
    )


@dataclass
class RunResult:
    responses: dict[int, str] = field(default_factory=dict)
    failed: dict[int, str] = field(default_factory=dict)  # request_id → why
    asked: int = 0  # requests sent (the rest came from the cache)
    cancelled: bool = False


def ask_model(
    planned: Sequence[PlannedRequest],
    *,
    client: ChatClient,
    template: Template,
    cache: ResponseCache,
    concurrency: int = 4,
    progress: Callable[[int, int], None] | None = None,
    cancelled: Callable[[], bool] | None = None,
) -> RunResult:
    """Every planned request's response, from the cache or the model. Progress and
    cancellation are called from this thread only (they may touch the database)."""
    result = RunResult()
    keys = _keys(planned, client, template)
    todo: list[tuple[PlannedRequest, str]] = []
    for request, key in zip(planned, keys, strict=True):
        hit = cache.get(key)
        if hit is None:
            todo.append((request, key))
        else:
            result.responses[request.item.request_id] = hit
    total = len(planned)

    def report() -> None:
        if progress:
            progress(len(result.responses) + len(result.failed), total)

    def ask(request: PlannedRequest, key: str, first: bool = False) -> str:
        response = client.complete(request.content(), first=first)
        cache.put(key, response, request_id=request.item.request_id, model=client.model)
        return response

    report()
    if not todo:
        return result
    first, *rest = todo
    try:
        result.responses[first[0].item.request_id] = ask(*first, first=True)
    except RequestFailed as exc:
        raise EndpointError(f"the first request failed: {exc}") from exc
    result.asked += 1
    report()
    pending: dict[Future, PlannedRequest] = {}
    queue = iter(rest)
    with ThreadPoolExecutor(max_workers=max(1, concurrency)) as pool:
        try:
            while True:
                while len(pending) < max(1, concurrency):
                    nxt = next(queue, None)
                    if nxt is None:
                        break
                    pending[pool.submit(ask, *nxt)] = nxt[0]
                if not pending:
                    break
                done, _ = wait(pending, timeout=1.0, return_when=FIRST_COMPLETED)
                for future in done:
                    request = pending.pop(future)
                    rid = request.item.request_id
                    try:
                        result.responses[rid] = future.result()
                        result.asked += 1
                    except RequestFailed as exc:
                        result.failed[rid] = str(exc)
                if done:
                    report()
                if cancelled and cancelled():
                    result.cancelled = True
                    queue = iter(())  # send nothing more; the ones in flight finish
        except BaseException:
            for future in pending:
                future.cancel()
            raise
    return result
