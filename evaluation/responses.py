"""Responses produced elsewhere (pure): SciVer's own main.py output (a JSON list of the
release's records, each with a `response`) or JSON Lines of {"request_id", "response"}."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path

from evaluation.release import EvaluationError, Item

__all__ = ["read_responses"]


def _rows(path: Path) -> list[tuple[str, object]]:
    """(where, row) of every response in the file, whichever of the two formats it is."""
    try:
        text = path.read_text("utf-8")
    except OSError as exc:
        raise EvaluationError(f"the responses file {path} cannot be read ({exc})") from exc
    except UnicodeDecodeError as exc:
        raise EvaluationError(f"the responses file {path} is not UTF-8 text ({exc})") from exc
    if text.lstrip().startswith("["):
        try:
            rows = json.loads(text)
        except ValueError as exc:
            raise EvaluationError(f"{path} is not valid JSON ({exc})") from exc
        return [(f"{path.name}[{i}]", row) for i, row in enumerate(rows)]
    found = []
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            found.append((f"{path.name}:{number}", json.loads(line)))
        except ValueError as exc:
            raise EvaluationError(
                f"{path.name}:{number} is not a JSON object ({exc}); the file must be SciVer's "
                'main.py output (a JSON list) or JSON Lines of {"request_id", "response"}'
            ) from exc
    return found


def read_responses(path: Path, items: list[Item]) -> dict[int, str]:
    """request_id → response for the part's `items`. A response for a record the part does not
    hold, one given twice, or a SciVer record whose claim differs from the release's (responses
    to another release) is an error; records without a response are simply absent."""
    claims: Mapping[int, str] = {item.request_id: item.claim for item in items}
    responses: dict[int, str] = {}
    for where, row in _rows(Path(path)):
        if not isinstance(row, dict):
            raise EvaluationError(f"{where}: not an object")
        rid = row.get("request_id")
        if isinstance(rid, bool) or not isinstance(rid, int):
            raise EvaluationError(f"{where}: request_id {rid!r} is not an integer")
        if rid not in claims:
            raise EvaluationError(
                f"{where}: request {rid} is not in this part of the release (the responses of "
                "another part, or of another release?)"
            )
        if rid in responses:
            raise EvaluationError(f"{where}: a second response for request {rid}")
        if "claim" in row and row["claim"] != claims[rid]:
            raise EvaluationError(
                f"{where}: request {rid}'s claim differs from the release's: these are "
                "responses to another release"
            )
        response = row.get("response")
        if response is not None and not isinstance(response, str):
            raise EvaluationError(f"{where}: response should be a string, got {response!r}")
        responses[rid] = response or ""
    return responses
