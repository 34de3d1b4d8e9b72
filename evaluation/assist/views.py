"""Pages of the model in the loop: its setting (admins), the text-only check shown to the writer
(on request) and the validator, the model's perturbation ideas for the writer, and the share of
claims a text-only model gets right (the statistics page's part).

Who may ask and see is decided here, on the server: the holder of the writing (or new
perturbation) item, the validator of the claim, or an admin; never anyone with a blind second
annotation or an adjudication on the pair, whatever else they hold."""

from __future__ import annotations

from collections import defaultdict
from typing import cast

from django.contrib import messages
from django.contrib.auth.base_user import AbstractBaseUser
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_http_methods, require_POST

from annotation import inputs as parse
from annotation.models import (
    Claim,
    PairRole,
    PairState,
    WorkItem,
    WorkKind,
)
from annotation.queue import blindness
from annotation.writing import selectors as writing_selectors
from annotation.writing.warnings import visual_text
from evaluation.assist import services
from evaluation.models import AssistantSetting, TextCheck
from evaluation.release import EvaluationError
from evaluation.services import MAX_MODEL, endpoint_choices
from papers.access import staff_required
from papers.models import Element

BLIND_ROLES = (blindness.EVIDENCE, blindness.ADJUDICATOR)
WRITING_KINDS = (WorkKind.WRITE, WorkKind.REPERTURB)


class SettingForm(parse.Form):
    endpoint = parse.TextField(64)
    model = parse.TextField(MAX_MODEL)
    confirm_remote = parse.FlagField()


class DraftTexts(parse.Form):
    entailed = parse.TextField(parse.MAX_TEXT)
    refuted = parse.TextField(parse.MAX_TEXT)
    evidence = parse.IdsField()


@staff_required
@require_http_methods(["GET", "POST"])
def setting(request: HttpRequest) -> HttpResponse:
    """Set (or switch off) the model that checks claims and offers ideas."""
    if request.method == "POST":
        try:
            if request.POST.get("off"):
                services.switch_off(by=cast(AbstractBaseUser, request.user))
                messages.success(request, "The model in the loop is off.")
            else:
                data = SettingForm.read(request.POST)
                made = services.configure(
                    by=cast(AbstractBaseUser, request.user),
                    endpoint_name=data["endpoint"],
                    model=data["model"],
                    confirm_remote=data["confirm_remote"],
                )
                messages.success(request, f"The model in the loop is now {made}.")
        except (EvaluationError, parse.BadInput) as exc:
            messages.error(request, getattr(exc, "message", str(exc)))
            return render(request, "evaluation/assist/setting.html", _setting_page(), status=400)
        return redirect("evaluation:assistant")
    return render(request, "evaluation/assist/setting.html", _setting_page())


def _setting_page() -> dict:
    return {
        "current": services.current(),
        "history": AssistantSetting.objects.select_related("set_by", "confirmed_by")[:10],
        "endpoints": endpoint_choices(),
    }


def _blind_on(user, pair_id: int | None) -> bool:
    return (
        bool(pair_id)
        and PairRole.objects.filter(pair_id=pair_id, expert=user, role__in=BLIND_ROLES).exists()
    )


def _item(request: HttpRequest, item_key: str) -> WorkItem:
    """The item, when the requester may see a check on it (else 404: nothing is told)."""
    item = (
        WorkItem.objects.select_related("task__context", "pair__context", "claim__review")
        .filter(key=item_key)
        .first()
    )
    if item is None:
        raise Http404("No such item.")
    user = request.user
    if _blind_on(user, item.pair_id):
        raise Http404("No such item.")
    if user.is_staff:
        return item
    if item.kind in WRITING_KINDS and item.holder_id == user.pk:
        return item
    if item.kind == WorkKind.VALIDATE and user.pk in (item.holder_id, item.done_by_id):
        return item
    raise Http404("No such item.")


def _gold(claim: Claim) -> str:
    review = getattr(claim, "review", None)
    return (review.final_label if review is not None else "") or claim.label


def _fragment(
    request: HttpRequest, checks: list, *, refused: str = "", asked: bool
) -> HttpResponse:
    return render(
        request,
        "evaluation/assist/_text_check.html",
        {"checks": checks, "refused": refused, "asked": asked, "setting": services.current()},
    )


@login_required
@require_http_methods(["GET", "POST"])
def text_check(request: HttpRequest, item_key: str) -> HttpResponse:
    """The text-only check of the item's claim(s): a validator's claim as it stands (asked on
    opening, once per text); a writer's draft texts (asked when they press the button)."""
    item = _item(request, item_key)
    if item.kind == WorkKind.VALIDATE:
        assert item.claim is not None and item.pair is not None  # a validation item's
        asked = [services.Asked(item.claim.text, _gold(item.claim))]
        context = item.pair.context
    elif item.kind in WRITING_KINDS and request.method == "POST":
        try:
            typed = DraftTexts.read(request.POST)
        except parse.BadInput as exc:
            return _fragment(request, [], refused=exc.message, asked=True)
        if item.kind == WorkKind.WRITE:
            assert item.task is not None  # a writing item's
            context = item.task.context
            entailed = typed["entailed"]
        else:
            assert item.pair is not None  # a new perturbation's
            context = item.pair.context
            entailed = writing_selectors.current_claim(item.pair, "entailed").text
        asked = [services.Asked(entailed, "entailed"), services.Asked(typed["refuted"], "refuted")]
    else:
        return _fragment(request, [], asked=False)
    try:
        checks = services.check_texts(
            context=context, claims=asked, by=cast(AbstractBaseUser, request.user)
        )
    except EvaluationError as exc:
        return _fragment(request, services.checks_of(context, asked), refused=str(exc), asked=True)
    return _fragment(request, checks, asked=True)


@login_required
@require_POST
def ideas(request: HttpRequest, item_key: str) -> HttpResponse:
    """The model's perturbation ideas for the entailed claim (the writer takes one, or none)."""
    item = _item(request, item_key)
    if item.kind not in WRITING_KINDS:
        raise Http404("No such item.")
    found_true: list[str] = []
    try:
        typed = DraftTexts.read(request.POST)
    except parse.BadInput as exc:
        return render(request, "evaluation/assist/_ideas.html", {"refused": exc.message})
    if item.kind == WorkKind.WRITE:
        assert item.task is not None  # a writing item's
        task = item.task
        entailed = typed["entailed"]
        evidence = set(typed["evidence"])
    else:
        page = writing_selectors.reperturbation_page(item.pk)
        task = page.pair.task
        entailed = page.entailed.text
        evidence = {e.pk for e in page.evidence}
        found_true = [c.text for c in [page.failed.claim, *page.earlier]]
    if not entailed.strip():
        return render(
            request,
            "evaluation/assist/_ideas.html",
            {"refused": "Write the entailed claim first: the ideas are rewrites of it."},
        )
    allowed = (evidence & set(task.candidate_ids)) or set(task.sampled_ids)
    visuals = [
        visual_text(caption, cells)
        for caption, cells in Element.objects.filter(pk__in=allowed)
        .exclude(kind=Element.Kind.PARAGRAPH)
        .order_by("order")
        .values_list("caption", "cells")
    ]
    known = [s.text for s in writing_selectors.suggestions(task, entailed, evidence)]
    try:
        found = services.ideas(
            entailed=entailed, evidence=visuals, found_true=found_true, known=known
        )
    except EvaluationError as exc:
        return render(request, "evaluation/assist/_ideas.html", {"refused": str(exc)})
    return render(request, "evaluation/assist/_ideas.html", {"ideas": found, "asked": True})


@staff_required
def text_only_share(request: HttpRequest) -> HttpResponse:
    """Per subset, of the claims whose text as it stands was checked: how many a text-only
    model got right in every sample (the statistics page shows it)."""
    live = Claim.objects.filter(superseded_at__isnull=True, pair__state=PairState.ACTIVE)
    texts: dict[tuple[int, str], tuple[str, str]] = {}
    for context_id, text, label, final, subset in live.values_list(
        "pair__context_id", "text", "label", "review__final_label", "pair__subset"
    ):
        texts[(context_id, services.text_sha(text))] = (final or label, subset)
    newest: dict[tuple[int, str], bool] = {}  # per text, its newest check's verdict
    contexts = {c for c, _ in texts}
    for check in TextCheck.objects.filter(
        context_id__in=contexts, status=TextCheck.Status.DONE
    ).order_by("created_at", "id"):
        key = (check.context_id, check.text_sha256)
        if key in texts and texts[key][0] == check.gold:
            newest[key] = check.verifiable
    table: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for key, verifiable in newest.items():
        cell = table[texts[key][1]]
        cell[0] += 1
        cell[1] += int(verifiable)
    rows = [
        {"subset": subset, "checked": n, "right": right, "share": right / n if n else 0.0}
        for subset, (n, right) in sorted(table.items())
    ]
    return render(request, "evaluation/assist/_text_share.html", {"rows": rows})
