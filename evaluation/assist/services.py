"""The model in the loop: its setting (admins), the text-only check of a claim (criterion 2)
and perturbation ideas, asked through the evaluation's safe client.

Unreleased claims leave this machine only as an admin confirmed: the setting records who
confirmed a remote endpoint, and a client for an unconfirmed one refuses, as each request is
sent, anything but this machine. Who may ask, and see, is the views' `access` (never a blind
second annotator or an adjudicator)."""

from __future__ import annotations

import datetime as dt
import hashlib
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from django.contrib.auth.base_user import AbstractBaseUser
from django.db import IntegrityError, transaction
from django.utils import timezone

from annotation import access
from annotation.models import CuratedContext, CuratedElement
from evaluation.assist import rules
from evaluation.client import ChatClient, EndpointError, ModelSettings, RequestFailed, is_local
from evaluation.models import AssistantSetting, TextCheck
from evaluation.prompting import Template
from evaluation.reading import read_response
from evaluation.rules import EvaluationRefused, check_run_request
from evaluation.services import endpoint_choices
from papers.models import Element

PROMPTS = Path(__file__).resolve().parent.parent / "prompts"
TEXT_ONLY = PROMPTS / "text_only.txt"
IDEAS = PROMPTS / "perturb_ideas.txt"
RUNNING_FOR_AT_MOST = dt.timedelta(minutes=5)  # a check still "running" after this was lost
TIMEOUT_SECONDS = 60.0


def current() -> AssistantSetting | None:
    """The model that helps now, or None (none set, or switched off)."""
    setting = AssistantSetting.objects.select_related("confirmed_by").first()
    return setting if setting is not None and setting.enabled else None


def configure(
    *, by: AbstractBaseUser, endpoint_name: str, model: str, confirm_remote: bool
) -> AssistantSetting:
    """Set the helping model (admins). A remote endpoint needs the confirmation that
    unreleased claims and their paragraphs may go there; it is recorded."""
    access.require_staff(by, EvaluationRefused, "Only admins can set the model in the loop.")
    endpoints = endpoint_choices()
    model = check_run_request(endpoint=endpoint_name, endpoints=endpoints, model=model)
    url = endpoints[endpoint_name]["url"]
    remote = not is_local(url)
    if remote and not confirm_remote:
        raise EvaluationRefused(
            f"{endpoint_name} ({url}) is not this machine: the checks and ideas send unreleased "
            "claims and their paper's paragraphs there. Tick the confirmation to allow it."
        )
    now = timezone.now()
    return AssistantSetting.objects.create(
        endpoint_name=endpoint_name,
        endpoint_url=url,
        model=model,
        confirmed_by_id=by.pk if remote else None,
        confirmed_at=now if remote else None,
        set_by_id=by.pk,
    )


def switch_off(*, by: AbstractBaseUser) -> None:
    access.require_staff(by, EvaluationRefused, "Only admins can set the model in the loop.")
    setting = current()
    if setting is not None:
        AssistantSetting.objects.create(
            endpoint_name=setting.endpoint_name,
            endpoint_url=setting.endpoint_url,
            model=setting.model,
            enabled=False,
            set_by_id=by.pk,
        )


def _endpoint(setting: AssistantSetting) -> dict[str, str]:
    """The setting's endpoint as configured now; refused when it changed since it was set, or
    when it is remote and nobody confirmed sending unreleased claims there."""
    endpoint = endpoint_choices().get(setting.endpoint_name)
    if endpoint is None or endpoint["url"] != setting.endpoint_url:
        raise EvaluationRefused(
            f"The model in the loop's endpoint {setting.endpoint_name!r} is no longer configured "
            "as it was set: an admin must set it again."
        )
    if setting.confirmed_at is None and not is_local(setting.endpoint_url):
        raise EvaluationRefused(
            f"{setting.endpoint_name} ({setting.endpoint_url}) is not this machine and no admin "
            "confirmed sending unreleased claims there: nothing was sent."
        )
    return endpoint


def _client(setting: AssistantSetting, temperature: float, max_tokens: int) -> ChatClient:
    """A client for the setting (`_endpoint`'s refusals first)."""
    endpoint = _endpoint(setting)
    confirmed = setting.confirmed_at is not None
    key_variable = endpoint.get("key_variable") or ""
    return ChatClient(
        setting.endpoint_url,
        setting.model,
        api_key=os.environ.get(key_variable, "") if key_variable else "",
        settings=ModelSettings(temperature=temperature, max_tokens=max_tokens),
        timeout=TIMEOUT_SECONDS,
        max_tries=2,
        local_only=not confirmed,
    )


def paragraphs(context: CuratedContext) -> list[tuple[str, str]]:
    """The context's kept paragraphs in reading order, with their section's heading: no
    table, chart or caption."""
    rows = (
        CuratedElement.objects.filter(
            context=context, in_context=True, element__kind=Element.Kind.PARAGRAPH
        )
        .order_by("element__order")
        .values_list("element__section__number", "element__section__title", "element__text")
    )
    return [(f"{number} {title}".strip(), text) for number, title, text in rows]


@dataclass(frozen=True)
class Asked:
    text: str
    gold: str  # "entailed" or "refuted": the label the claim should have


def text_sha(text: str) -> str:
    """A claim text's key among the checks."""
    return hashlib.sha256(text.encode()).hexdigest()


def _row(
    setting: AssistantSetting, context: CuratedContext, claim: Asked, by: AbstractBaseUser
) -> tuple[TextCheck, bool]:
    """The check's row, and whether this request should ask the model (a new row, a failed
    one, or one left running too long)."""
    template = Template.load(TEXT_ONLY)
    key = {
        "context": context,
        "text_sha256": text_sha(claim.text),
        "gold": claim.gold,
        "model": setting.model,
        "endpoint_name": setting.endpoint_name,
        "prompt_version": template.version,
    }
    try:
        with transaction.atomic():
            row, made = TextCheck.objects.get_or_create(
                **key,
                defaults={
                    "paper_id": context.paper_id,
                    "text": claim.text,
                    "requested_by_id": by.pk,
                },
            )
    except IntegrityError:  # asked at once by another request: theirs answers
        return TextCheck.objects.get(**key), False
    if made:
        return row, True
    stale = timezone.now() - row.created_at > RUNNING_FOR_AT_MOST
    again = row.status == TextCheck.Status.FAILED or (
        row.status == TextCheck.Status.RUNNING and stale
    )
    if again:
        claimed = TextCheck.objects.filter(pk=row.pk, status=row.status).update(
            status=TextCheck.Status.RUNNING, created_at=timezone.now(), error=""
        )
        return row, bool(claimed)
    return row, False


def _ask(setting: AssistantSetting, row: TextCheck, context_text: str) -> None:
    template = Template.load(TEXT_ONLY)
    prompt = template.render(context=context_text, claim=row.text)
    answers = []
    try:
        for temperature in rules.SAMPLES:
            client = _client(setting, temperature, max_tokens=1024)
            try:
                response = client.complete([{"type": "text", "text": prompt}], first=True)
            finally:
                client.close()
            answers.append(
                {
                    "temperature": temperature,
                    "response": response[:4000],
                    "parsed": read_response(response),
                }
            )
    except (EndpointError, RequestFailed, EvaluationRefused) as exc:
        TextCheck.objects.filter(pk=row.pk).update(
            status=TextCheck.Status.FAILED, error=str(exc)[:2000], finished_at=timezone.now()
        )
        return
    TextCheck.objects.filter(pk=row.pk).update(
        status=TextCheck.Status.DONE,
        answers=answers,
        right=rules.right_answers(answers, row.gold),
        finished_at=timezone.now(),
    )


def check_texts(
    *, context: CuratedContext, claims: Sequence[Asked], by: AbstractBaseUser
) -> list[TextCheck]:
    """Each claim judged from the context's paragraphs alone (cached; asked now when not
    asked yet). Refused (EvaluationRefused) when no model is set or its endpoint may not
    receive unreleased claims."""
    setting = current()
    if setting is None:
        raise EvaluationRefused("No model in the loop is set (an admin sets one).")
    _endpoint(setting)  # refuses an endpoint that may not receive claims, before any row
    context_text = ""
    rows = []
    for claim in claims:
        if not claim.text.strip():
            continue
        row, ask = _row(setting, context, claim, by)
        if ask:
            context_text = context_text or rules.text_context(paragraphs(context))
            _ask(setting, row, context_text)
            row.refresh_from_db()
        rows.append(row)
    return rows


def checks_of(context: CuratedContext, claims: Sequence[Asked]) -> list[TextCheck]:
    """The checks already made of these texts (any model), newest first per text: what a
    page shows without asking anything."""
    found = []
    for claim in claims:
        row = (
            TextCheck.objects.filter(
                context=context, text_sha256=text_sha(claim.text), gold=claim.gold
            )
            .order_by("-created_at", "-id")
            .first()
        )
        if row is not None:
            found.append(row)
    return found


def ideas(
    *,
    entailed: str,
    evidence: Sequence[str],
    found_true: Sequence[str] = (),
    known: Sequence[str] = (),
) -> list[rules.Idea]:
    """The model's false rewrites of `entailed`, through the suggester's validity filter.
    `evidence`: the texts of the evidence tables/charts (captions and cells)."""
    setting = current()
    if setting is None:
        raise EvaluationRefused("No model in the loop is set (an admin sets one).")
    template = Template.load(IDEAS)
    prompt = template.render(context="\n\n".join(evidence), claim=entailed)
    client = _client(setting, 0.7, max_tokens=1024)
    try:
        answer = client.complete([{"type": "text", "text": prompt}], first=True)
    except (EndpointError, RequestFailed) as exc:
        raise EvaluationRefused(f"The model gave no ideas: {exc}") from None
    finally:
        client.close()
    return rules.usable_ideas(
        entailed, rules.idea_lines(answer), found_true=found_true, known=known
    )
