"""Pure rules of starting an evaluation run: which requests are refused, and why (plain values
in, no database, no network)."""

from __future__ import annotations

from collections.abc import Collection
from typing import cast

from annotation.errors import too_long
from evaluation.client import is_local
from evaluation.models import EvaluationRun
from evaluation.release import EvaluationError, ReleasePart

MAX_MODEL = cast(int, EvaluationRun._meta.get_field("model").max_length)  # 200


class EvaluationRefused(EvaluationError):
    """A run the asker may not start as asked; nothing was recorded."""


def check_model(model: str) -> None:
    """A model name longer than a run holds is refused (nothing recorded), never cut."""
    if problem := too_long("model", model, MAX_MODEL):
        raise EvaluationRefused(f"Nothing was recorded: {problem}")


def check_run_request(*, endpoint: str, endpoints: Collection[str], model: str) -> str:
    """Refuse an endpoint settings do not name, and a model name empty or too long; returns
    the model name stripped."""
    if endpoint not in endpoints:
        named = ", ".join(sorted(endpoints)) or "none (set EVALUATION_ENDPOINTS)"
        raise EvaluationRefused(f"No endpoint {endpoint!r} is configured; endpoints: {named}.")
    model = model.strip()
    if not model:
        raise EvaluationRefused("Name the model to ask (e.g. gpt-4o).")
    check_model(model)
    return model


def check_export_ready(*, status: str | None, folder_exists: bool) -> None:
    """Refuse an export whose job has not finished (`status` None: it has none) or whose
    folder is gone."""
    if status != "finished" or not folder_exists:
        raise EvaluationRefused("That export is not finished (or its folder is gone).")


def contaminates(part: ReleasePart, endpoint: str) -> bool:
    """Sending this part there would put hidden test claims in someone else's hands: its
    labels are hidden and the endpoint is not this machine (client.is_local)."""
    return part.hidden and not is_local(endpoint)


def check_hidden_labels(part: ReleasePart, *, endpoint: str, confirmed: bool) -> bool:
    """Refuse sending a part whose labels are hidden to another machine unless the asker
    `confirmed` it; returns whether the part leaves (the run records who confirmed it)."""
    leaves = contaminates(part, endpoint)
    if leaves and not confirmed:
        raise EvaluationRefused(
            f"The {part.part} labels of this release are hidden: sending its claims to "
            f"{endpoint} (not this machine) would leak the hidden test set and contaminate "
            "the benchmark. Tick the confirmation to send them anyway."
        )
    return leaves
