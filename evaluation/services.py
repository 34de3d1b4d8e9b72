"""Evaluation services: score responses, ask a model for a part, record a run and its
outcomes, and start a run from the pages as a background job (staff only, endpoints and key
variables from settings only)."""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from django.db.models import QuerySet
from django.utils import timezone

from annotation import access
from annotation.inputs import BadInput
from evaluation.client import ChatClient, ModelSettings
from evaluation.models import PARTS, EvaluationRun, RecordOutcome, RunContext, RunSource
from evaluation.prompting import FULL_CONTEXT, ContextSetting, Template, plan_requests
from evaluation.release import ReleasePart, load_part
from evaluation.rules import (
    MAX_MODEL,
    EvaluationRefused,
    check_export_ready,
    check_hidden_labels,
    check_model,
    check_run_request,
    contaminates,
)
from evaluation.running import ResponseCache, RunResult, ask_model
from evaluation.scoring import RESAMPLES, Cell, Outcome, breakdowns, score
from jobs.dispatch import start_job
from validation.models import ReleaseExport

__all__ = [
    "Evaluation",
    "MAX_MODEL",
    "EvaluationRefused",
    "contaminates",
    "context_fields",
    "evaluate",
    "record_run",
    "run_endpoint",
    "start_run",
]


MAX_SUBFIELD = RecordOutcome._meta.get_field("subfield").max_length  # 32


@dataclass(frozen=True)
class Evaluation:
    part: ReleasePart
    outcomes: list[Outcome]
    breakdowns: dict[str, list[Cell]]

    def summary(self) -> dict:
        return {
            "breakdowns": {g: [c.as_dict() for c in cells] for g, cells in self.breakdowns.items()},
            "records": len(self.outcomes),
            "responses": sum(o.response is not None for o in self.outcomes),
        }


def evaluate(
    part: ReleasePart,
    responses: Mapping[int, str | None],
    *,
    seed: int = 0,
    resamples: int = RESAMPLES,
) -> Evaluation:
    outcomes = score(part.items, responses)
    return Evaluation(part, outcomes, breakdowns(outcomes, seed=seed, resamples=resamples))


def context_fields(setting: ContextSetting) -> dict[str, object]:
    """The run's fields that store a context setting."""
    if setting.full:
        return {"context": RunContext.FULL, "retriever": "", "top_k": None}
    return {"context": RunContext.RETRIEVED, "retriever": setting.retriever, "top_k": setting.k}


@transaction.atomic
def record_run(
    *,
    evaluation: Evaluation,
    model: str,
    source: str,
    by: AbstractBaseUser | None = None,
    run: EvaluationRun | None = None,
    **fields: object,
) -> EvaluationRun:
    """Store a scored run and its per-record outcomes (replacing any the run had). A record
    whose subfield is longer than the column refuses the whole run (never cut)."""
    part = evaluation.part
    odd = [o for o in evaluation.outcomes if len(o.subfield) > MAX_SUBFIELD]
    if odd:
        raise EvaluationRefused(
            f"Nothing was recorded: {len(odd)} record(s) of {part.name} name a subfield longer than {MAX_SUBFIELD} "
            f"characters (first: record {odd[0].request_id}, {len(odd[0].subfield)} "
            "characters): not a subfield code."
        )
    if run is None:
        check_model(model)
        run = EvaluationRun.objects.create(
            release_dir=str(part.root),
            release_name=part.name,
            part=part.part,
            source=source,
            model=model,
            created_by=by,
            **fields,
        )
    RecordOutcome.objects.filter(run=run).delete()
    RecordOutcome.objects.bulk_create(
        RecordOutcome(
            run=run,
            request_id=o.request_id,
            response=o.response,
            parsed=o.parsed,
            correct=o.correct,
            official_correct=o.official_correct,
            claim_type=o.claim_type,
            subfield=o.subfield,
            gold=o.gold,
            evidence=o.evidence,
        )
        for o in evaluation.outcomes
    )
    run.summary = evaluation.summary()
    run.records = len(evaluation.outcomes)
    run.release_name = part.name
    run.save(update_fields=["summary", "records", "release_name"])
    return run


def ask(
    part: ReleasePart,
    *,
    client: ChatClient,
    template: Template,
    cache: ResponseCache,
    concurrency: int,
    progress: Callable[[int, int], None] | None = None,
    cancelled: Callable[[], bool] | None = None,
    context: ContextSetting = FULL_CONTEXT,
) -> RunResult:
    """Every record's response from the model (cached ones are not asked again)."""
    planned = plan_requests(part, template, context)
    return ask_model(
        planned,
        client=client,
        template=template,
        cache=cache,
        concurrency=concurrency,
        progress=progress,
        cancelled=cancelled,
    )


def _staff(user: AbstractBaseUser) -> None:
    access.require_staff(user, EvaluationRefused, "Only admins can evaluate models on a release.")


def endpoint_choices() -> dict[str, dict[str, str]]:
    """The endpoints settings allow (EVALUATION_ENDPOINTS), by name."""
    return dict(settings.EVALUATION_ENDPOINTS)


def start_run(
    *,
    by: AbstractBaseUser,
    export: ReleaseExport,
    part: str,
    endpoint_name: str,
    model: str,
    confirm_remote: bool = False,
    context: ContextSetting = FULL_CONTEXT,
) -> EvaluationRun:
    """Record a run of `model` at the named endpoint on a finished export, given the full
    context or only retrieved evidence, and start its job."""

    _staff(by)
    endpoints = endpoint_choices()
    model = check_run_request(endpoint=endpoint_name, endpoints=endpoints, model=model)
    check_export_ready(
        status=export.job.status if export.job else None, folder_exists=Path(export.out).is_dir()
    )
    endpoint = endpoints[endpoint_name]["url"]
    release = load_part(Path(export.out), part)  # refuses a missing part or labels file
    leaves = check_hidden_labels(release, endpoint=endpoint, confirmed=confirm_remote)
    confirmed = {"hidden_confirmed_by": by, "hidden_confirmed_at": timezone.now()} if leaves else {}
    template = Template.load()
    options = ModelSettings()
    with transaction.atomic():
        run = EvaluationRun.objects.create(
            export=export,
            release_dir=str(release.root),
            release_name=release.name,
            part=part,
            source=RunSource.ENDPOINT,
            model=model,
            endpoint_name=endpoint_name,
            endpoint_url=endpoint,
            prompt_version=template.version,
            settings=options.as_dict(),
            created_by=by,
            **confirmed,
            **context_fields(context),
        )
        job = start_job(
            kind="evaluate_release",
            function="evaluation.jobs.evaluate_release_job",
            params={"run_id": run.pk},
            queue="default",
            timeout=24 * 3600,
            mode="thread",
        )
        EvaluationRun.objects.filter(pk=run.pk).update(job=job)
        run.job = job
    return run


def finished_exports() -> QuerySet[ReleaseExport]:
    """The exports a run may use: those whose job finished (the runs page offers them)."""
    return ReleaseExport.objects.select_related("split", "job").filter(job__status="finished")


def start_run_from(values: Mapping[str, Any], *, by: AbstractBaseUser) -> EvaluationRun:
    """Start the run a RunForm's values ask for: what the runs page's POST and the API's
    `POST /api/evaluation/runs/` both do. A missing part is BadInput (the form's field); an
    export that is not finished, an endpoint not configured, or hidden test claims bound for
    another machine without `confirm_remote` is EvaluationRefused with the page's message."""
    if not values["part"]:
        raise BadInput(f"part: one of {', '.join(PARTS)}.", field="part")
    export = finished_exports().filter(pk=values["export"] or 0).first()
    if export is None:
        raise EvaluationRefused("Choose a finished export.")
    chosen = values["context"] or "full"  # one of them (the form's choices)
    context = ContextSetting() if chosen == "full" else ContextSetting(chosen, values["k"])
    return start_run(
        by=by,
        export=export,
        part=values["part"],
        endpoint_name=values["endpoint"],
        model=values["model"],
        confirm_remote=values["confirm_remote"],
        context=context,
    )


# A run's outcome per record, as its downloads (CSV, JSON) and the API list them.
OUTCOME_COLUMNS = (
    "request_id",
    "claim_type",
    "subfield",
    "gold",
    "evidence",
    "parsed",
    "correct",
    "official_correct",
    "response",
)


def run_outcomes(run: EvaluationRun) -> QuerySet[RecordOutcome]:
    """The run's outcomes by request id (the downloads take `.values(*OUTCOME_COLUMNS)`)."""
    return run.outcomes.order_by("request_id")


def run_endpoint(
    *,
    run_id: int,
    progress: Callable[[int, int], None] | None = None,
    cancelled: Callable[[], bool] | None = None,
) -> dict:
    """Ask the run's endpoint for every record, score, store (what the job runs)."""
    run = EvaluationRun.objects.get(pk=run_id)
    endpoint = endpoint_choices().get(run.endpoint_name)
    if endpoint is None or endpoint["url"] != run.endpoint_url:
        raise EvaluationRefused(f"endpoint {run.endpoint_name!r} is no longer configured")
    key_variable = endpoint.get("key_variable") or ""
    if key_variable and not os.environ.get(key_variable):
        raise EvaluationRefused(
            f"the key variable {key_variable} of endpoint {run.endpoint_name!r} is not set in "
            "the server's environment"
        )
    part = load_part(Path(run.release_dir), run.part)
    template = Template.load()
    if template.version != run.prompt_version:
        raise EvaluationRefused("the prompt template changed since the run was started")
    client = ChatClient(
        run.endpoint_url,
        run.model,
        api_key=os.environ.get(key_variable, ""),
        settings=ModelSettings(**run.settings),
        timeout=settings.EVALUATION_TIMEOUT_SECONDS,
        # Hidden claims go elsewhere only as confirmed: else every request checks, as it is
        # sent, that the endpoint is still this machine.
        local_only=part.hidden and run.hidden_confirmed_at is None,
    )
    try:
        result = ask(
            part,
            client=client,
            template=template,
            cache=ResponseCache(settings.EVALUATION_CACHE_DIR),
            concurrency=settings.EVALUATION_CONCURRENCY,
            progress=progress,
            cancelled=cancelled,
            context=run.context_setting,
        )
    finally:
        client.close()  # its connections: a worker runs many jobs
    evaluation = evaluate(part, result.responses)
    record_run(evaluation=evaluation, model=run.model, source=run.source, run=run)
    return {
        "records": len(part.items),
        "asked": result.asked,
        "failed": len(result.failed),
        "cancelled": result.cancelled,
    }


def latest_runs(ids: Sequence[int] = ()) -> list[EvaluationRun]:
    runs = EvaluationRun.objects.select_related("job", "export").order_by("-created_at", "-id")
    if ids:
        return list(runs.filter(pk__in=ids))
    return [r for r in runs[:50] if r.scored][:6]
