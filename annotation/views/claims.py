"""Claim writing pages: next task, the writing page (submit, autosave, suggestions, warnings,
context), a new perturbation when the last one turned out true, a pair with its history, task
creation, and the admins' overview."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from django.conf import settings
from django.contrib import messages
from django.contrib.auth import get_user_model
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_GET, require_POST

from annotation import access, events, fragments, lists
from annotation import inputs as parse
from annotation.errors import AnnotationError
from annotation.evidence import rule_text, visuals_needed
from annotation.inputs import (
    MAX_TEXT,
    ChoiceField,
    DraftForm,
    FlagField,
    IdsField,
    TextField,
    Values,
)
from annotation.models import (
    ClaimPair,
    PerturbationKind,
    Subset,
    WorkItem,
    WorkKind,
    WorkStatus,
)
from annotation.queue import work
from annotation.views import refusals
from annotation.views.common import (
    NextStage,
    forbidden,
    item_image,
    next_view,
    not_yours,
    refused_text,
)
from annotation.views.work_page import WorkItemPage
from annotation.writing import selectors as writing
from annotation.writing import services
from annotation.writing.rules import SUBSET_GUIDE, word_count
from papers.access import staff_required
from papers.models import Paper

# A claim is read whole, up to this bound, so the word rule counts what was typed, as the page's
# counter does (a claim cut at MAX_TEXT was refused with the words of the cut); past it the
# claim is refused as unreadable, with its length.
MAX_CLAIM_TEXT = 50_000


class ClaimTextField(TextField):
    """A claim as typed, never cut: one longer than the bound is refused with its true length
    (the word rule's message, counted as the rule and the page's counter count), and a refused
    form keeps it."""

    def read(self, value: object) -> str:
        if isinstance(value, str) and len(value) > self.limit:
            low, high = settings.CLAIM_MIN_WORDS, settings.CLAIM_MAX_WORDS
            raise parse.BadInput(
                f"A claim has {low}–{high} words; this one has {word_count(value):,} "
                f"({len(value):,} characters).",
                field=self.name,
                kept=value if parse.storable(value) else None,
            )
        return super().read(value)


# What a refusal sets beside what won (refusals.compare), in the drafts' shapes.
REFUTED_SHOWN = (
    refusals.Shown("refuted", "Refuted claim"),
    refusals.Shown("explanation", "Why it is false"),
)
PAIR_SHOWN = (
    refusals.Shown("entailed", "Entailed claim"),
    refusals.Shown("evidence", "Its evidence", "ids"),
    *REFUTED_SHOWN,
)


def _recorded_pair(new: dict) -> dict:
    """A pair's submission (its history row) in the draft's shape."""
    entailed, refuted = new.get("entailed") or {}, new.get("refuted") or {}
    return {
        "entailed": entailed.get("text", ""),
        "evidence": entailed.get("evidence", []),
        "refuted": refuted.get("text", ""),
        "explanation": refuted.get("explanation", ""),
    }


def _recorded_perturbation(new: dict) -> dict:
    return {"refuted": new.get("text", ""), "explanation": new.get("explanation", "")}


class RefutedClaimForm(DraftForm):
    """The refuted claim the writer typed and marked (all a new perturbation has): from a POST,
    the draft, or a refused submission. Off, `split_evidence` ("the refuted claim uses
    different evidence") has it cite the entailed claim's."""

    refuted = ClaimTextField(MAX_CLAIM_TEXT)
    explanation = TextField(MAX_TEXT)
    perturbation_kind = ChoiceField(PerturbationKind.values)
    suggestion = TextField(MAX_TEXT)
    split_evidence = FlagField()
    refuted_evidence = IdsField()


class PairForm(RefutedClaimForm):
    """What the writer of a pair typed and marked: the entailed claim too."""

    entailed = ClaimTextField(MAX_CLAIM_TEXT)
    evidence = IdsField()
    # Why a claim names a table or figure not among its evidence (the writer's answer to that
    # warning; shown to the validators).
    reference_note = TextField(MAX_TEXT)

    field_order = ["entailed", "evidence"]


def _refuted_evidence(form: Values) -> set[int] | None:
    """What the refuted claim cites: None when it shares the entailed claim's evidence."""
    return set(form.refuted_evidence) if form.split_evidence else None


def _pair_warnings(task, form: Values) -> dict:
    """The automatic warnings on a pair as the writer typed and marked it."""
    return writing.warnings_for(
        task,
        entailed=form.entailed,
        refuted=form.refuted,
        evidence=set(form.evidence),
        refuted_evidence=_refuted_evidence(form),
    )


def _claim_words() -> tuple[int, int]:
    """The length rule of a claim, in words (shown under each claim and with the warnings)."""
    return settings.CLAIM_MIN_WORDS, settings.CLAIM_MAX_WORDS


def _note(data, errors: dict[str, str]) -> str:
    """An admin's note, whole: longer than MAX_TEXT is recorded in `errors`, never cut."""
    return parse.kept_text(data, "note", max_length=MAX_TEXT, errors=errors)


next_task = next_view(
    NextStage(
        take=lambda user: work.next_item(user=user, kind=WorkKind.WRITE),
        page="annotation:write",
        nothing="No claim task is waiting for you right now.",
    )
)


@login_required
@require_POST
def create_tasks(request: HttpRequest, arxiv_id: str, version: int) -> HttpResponse:
    paper = get_object_or_404(
        Paper.objects.only("id", "arxiv_id", "version"), arxiv_id=arxiv_id, version=version
    )
    if not access.can_curate(request.user, paper.pk):
        return forbidden(request, f"{paper.versioned_id} is not assigned to you.")
    try:
        tasks = services.create_claim_tasks(
            paper=paper,
            by=request.user,
            count=parse.parse_int(request.POST.get("count"), field="count", min=1, max=100),
        )
    except AnnotationError as exc:
        messages.error(request, exc.message)
    else:
        subsets = ", ".join(t.subset for t in tasks)
        messages.success(
            request, f"{len(tasks)} claim tasks created for {paper.versioned_id}: {subsets}."
        )
    return redirect("annotation:home")


def _form_context(request: HttpRequest, page, form: Values, *, warnings: dict, **extra) -> dict:
    """What a writing page (a pair, or a new perturbation) shows beside its form."""
    return {
        "page": page,
        "warnings": warnings,
        "editable": page.item.held_by(request.user),
        "kinds": PerturbationKind.choices,
        "draft_saved_at": page.item.draft_saved_at,
        "claim_words": _claim_words(),
        **extra,
    }


class _WritingPage(WorkItemPage):
    """What the writing and new-perturbation pages share: a done item shows its pair (to the
    one who did it, and to admins); the holder and admins see the page."""

    invalid = (services.InvalidClaim,)

    def may_open(self, item: WorkItem) -> bool:
        return access.may_act_on(self.request.user, item)

    def opened(self, item: WorkItem) -> HttpResponse | None:
        request = self.request
        if item.status == WorkStatus.DONE and access.may_see_item(request.user, item):
            found = ClaimPair.objects.filter(pk=item.pair_id).only("key", "writer_id").first()
            if found is not None and access.may_open_pair(request.user, found.writer_id):
                return redirect("annotation:pair", pair_key=found.key)
            messages.info(request, "You submitted this item; it is in the hands of the next stage.")
            return redirect("annotation:home")
        return None


class WritePage(_WritingPage):
    """Write an entailed claim over the sampled tables/charts, mark its evidence, and perturb
    it into a refuted claim."""

    kinds = (WorkKind.WRITE,)
    form_class = PairForm
    template = "annotation/claims/write.html"
    shown = PAIR_SHOWN
    recorded = staticmethod(_recorded_pair)

    def page_context(self, item: WorkItem, form: Values) -> dict:
        page = writing.writing_page(item.pk, self.request.user)
        found = _pair_warnings(page.task, form)
        return _form_context(
            self.request,
            page,
            form,
            warnings=found,
            needs_reason=writing.needs_reason(found),
            visuals_needed=visuals_needed(page.task.subset),
            evidence_rule=rule_text(page.task.subset, whole=True),
        )

    def submit(self, item: WorkItem, form: Values) -> HttpResponse:
        pair = services.submit_claim_pair(
            item=item,
            user=self.request.user,
            version=form.version,
            token=form.token,
            entailed=form.entailed,
            evidence_ids=set(form.evidence),
            refuted=form.refuted,
            explanation=form.explanation,
            perturbation_kind=form.perturbation_kind,
            suggestion=form.suggestion,
            refuted_evidence_ids=_refuted_evidence(form),
            reference_note=form.reference_note,
        )
        messages.success(self.request, f"Claim pair recorded ({pair.subset}).")
        _warn(self.request, _pair_warnings(pair.task, form))
        return redirect("annotation:pair", pair_key=pair.key)


write = WritePage.as_view()
save_draft = WritePage.autosave_view()


def _warn(request: HttpRequest, found: dict) -> None:
    """The automatic warnings on what was just recorded: shown, never blocking."""
    for name, warnings in found.items():
        for warning in warnings:
            messages.warning(request, f"Warning on the {name} claim: {warning.message}")


@login_required
@require_POST
def release(request: HttpRequest, item_key: str) -> HttpResponse:
    """Hand the task back: open again for the next expert who presses Next (the draft stays)."""
    item = WritePage.get_item(item_key)
    if not access.may_act_on(request.user, item):
        return not_yours(request, item)
    version = parse.parse_int(request.POST.get("version"), field="version")
    try:
        work.release_item(item=item, user=request.user, version=version)
    except work.StaleWork as exc:
        messages.error(request, exc.message)
        return redirect("annotation:write", item_key=item.key)
    except work.NotHolder as exc:
        return forbidden(request, exc.message)
    messages.success(request, f"Task {item.task_id} handed back; its draft is kept with it.")
    return redirect("annotation:home")


@login_required
@require_POST
def suggest(request: HttpRequest, item_key: str) -> HttpResponse:
    item = WritePage.get_item(item_key)
    if not access.may_act_on(request.user, item):
        return not_yours(request, item)
    form = PairForm.read(request.POST)
    task = item.task
    return render(
        request,
        "annotation/claims/_suggestions.html",
        {
            "suggestions": writing.suggestions(task, form.entailed, set(form.evidence)),
            "claim": form.entailed.strip(),
        },
    )


@login_required
@require_POST
def warnings(request: HttpRequest, item_key: str) -> HttpResponse:
    """The automatic warnings on what the writer is typing (htmx, as they type)."""
    item = WritePage.get_item(item_key)
    if not access.may_act_on(request.user, item):
        return not_yours(request, item)
    found = _pair_warnings(item.task, PairForm.read(request.POST))
    return render(
        request,
        "annotation/claims/_warnings.html",
        {
            "warnings": found,
            "needs_reason": writing.needs_reason(found),
            "claim_words": _claim_words(),
        },
    )


@login_required
@require_GET
def context(request: HttpRequest, item_key: str) -> HttpResponse:
    item = WritePage.get_item(item_key)
    if not access.may_act_on(request.user, item):
        return not_yours(request, item)
    task = item.task
    draft = PairForm.from_draft(item.draft)
    # The page shows the draft's other evidence above ("Other evidence you marked"): its box
    # is there, and a second one here would count it twice and keep it marked once unticked.
    shown = set(task.sampled_ids) | set(task.paragraph_ids) | set(draft.evidence)
    return _render_context(
        request, item, task=task, form=draft, shown=shown | set(draft.refuted_evidence)
    )


def _render_context(
    request: HttpRequest, item: WorkItem, *, task, shown: set[int], form: Values, **extra
) -> HttpResponse:
    """The whole curated context of a writing page (it loads on demand), marked as the draft
    marks it; what the page already shows stands as a line pointing at its box."""
    return render(
        request,
        "annotation/claims/_context.html",
        {
            "sections": writing.full_context(task, fragments.WRITER),
            "shown": shown,
            "editable": item.held_by(request.user),
            "item": item,
            "ctx_form": form,
            **extra,
        },
    )


@login_required
def pair(request: HttpRequest, pair_key: str) -> HttpResponse:
    found = get_object_or_404(ClaimPair.objects.only("id", "writer_id"), key=pair_key)
    if not access.may_open_pair(request.user, found.writer_id):
        raise Http404  # the answer to a key that names no pair: nothing to tell apart
    detail = writing.pair_detail(found.pk)
    claims = sorted(detail.claims.all(), key=lambda c: (c.superseded, c.label, c.pk))
    current = {c.label: c for c in claims if not c.superseded}
    return render(
        request,
        "annotation/claims/pair.html",
        {
            "pair": detail,
            "claims": claims,
            "entailed": current.get("entailed"),
            "refuted": current.get("refuted"),
            "history": writing.pair_history_words(detail, viewer=request.user),
            # Every event as recorded, for admins alone (the writer reads the words above).
            "events": [
                (event, _as_json(events.old_of(event)), _as_json(events.new_of(event)))
                for event in writing.pair_history(detail)
            ]
            if request.user.is_staff
            else [],
            "definition": SUBSET_GUIDE[detail.subset][0],
        },
    )


def _as_json(values: Mapping[str, Any]) -> str:
    return json.dumps(values, indent=1, ensure_ascii=False) if values else ""


@staff_required
def overview(request: HttpRequest) -> HttpResponse:
    filters = lists.PairListForm(request.GET or None, subset_choices=list(Subset.choices))
    pairs = ClaimPair.objects.select_related("paper", "writer").only(
        "id",
        "key",
        "subset",
        "created_at",
        "paper__arxiv_id",
        "paper__version",
        "paper__archived_at",
        "writer__username",
    )
    show = filters.value("show")
    pairs = lists.archived_filter(pairs, show, "paper__archived_at")
    if query := filters.value("q"):
        pairs = lists.pair_search(pairs, query)
    if subset := filters.value("subset"):
        pairs = pairs.filter(subset=subset)
    listing = lists.page_of(request, pairs.order_by("-created_at", "-id"), 100)
    archived = (
        ClaimPair.objects.filter(paper__archived_at__isnull=False).count()
        if show == lists.SHOW_LIVE
        else 0
    )
    return render(
        request,
        "annotation/claims/overview.html",
        {
            "ov": writing.writing_overview(),
            "filters": filters,
            "pairs": listing["page"],
            **listing,
            "archived_pairs": archived,
        },
        status=400 if filters.is_bound and not filters.is_valid() else 200,
    )


# --- A new perturbation (the last one turned out true) -----------------------------------------


next_reperturbation = next_view(
    NextStage(
        take=lambda user: work.next_item(user=user, kind=WorkKind.REPERTURB),
        page="annotation:reperturb",
        nothing="No new perturbation is asked of you right now.",
    )
)


class ReperturbPage(_WritingPage):
    """Write a new perturbation of the pair's entailed claim: only the expert holding the item
    (its pair's writer, unless an admin handed it to someone else) may submit; admins look."""

    kinds = (WorkKind.REPERTURB,)
    form_class = RefutedClaimForm
    template = "annotation/claims/reperturb.html"
    shown = REFUTED_SHOWN
    recorded = staticmethod(_recorded_perturbation)

    def page_context(self, item: WorkItem, form: Values) -> dict:
        page = writing.reperturbation_page(item.pk)
        return _form_context(
            self.request,
            page,
            form,
            warnings=writing.warnings_for(
                page.pair.task,
                entailed=page.entailed.text,
                refuted=form.refuted,
                evidence=page.evidence_ids,
                refuted_evidence=_refuted_evidence(form) or page.evidence_ids,
            ),
            visuals_needed=visuals_needed(page.pair.subset),
            evidence_rule=rule_text(page.pair.subset, whole=True),
        )

    def submit(self, item: WorkItem, form: Values) -> HttpResponse:
        request = self.request
        claim = services.submit_reperturbation(
            item=item,
            user=request.user,
            version=form.version,
            token=form.token,
            refuted=form.refuted,
            explanation=form.explanation,
            perturbation_kind=form.perturbation_kind,
            suggestion=form.suggestion,
            refuted_evidence_ids=_refuted_evidence(form),
        )
        messages.success(
            request, "New perturbation recorded: it goes to a blind second annotation."
        )
        entailed = writing.current_claim(claim.pair, "entailed")
        _warn(
            request,
            writing.warnings_for(
                claim.pair.task,
                entailed=entailed.text,
                refuted=claim.text,
                evidence=writing.final_or_written_evidence(entailed),
                refuted_evidence=set(claim.evidence.values_list("pk", flat=True)),
            ),
        )
        # An expert an admin handed the item to did not write the pair: its page refuses them.
        if access.may_open_pair(request.user, claim.pair.writer_id):
            return redirect("annotation:pair", pair_key=claim.pair.key)
        return redirect("annotation:home")


reperturb = ReperturbPage.as_view()
reperturb_draft = ReperturbPage.autosave_view()


@login_required
@require_POST
def reperturb_suggest(request: HttpRequest, item_key: str) -> HttpResponse:
    """Perturbation suggestions computed from the entailed claim and its final evidence."""
    item = ReperturbPage.get_item(item_key)
    if not access.may_act_on(request.user, item):
        return not_yours(request, item)
    page = writing.reperturbation_page(item.pk)
    return render(
        request,
        "annotation/claims/_suggestions.html",
        {"suggestions": writing.reperturbation_suggestions(page), "claim": page.entailed.text},
    )


@login_required
@require_POST
def reperturb_warnings(request: HttpRequest, item_key: str) -> HttpResponse:
    item = ReperturbPage.get_item(item_key)
    if not access.may_act_on(request.user, item):
        return not_yours(request, item)
    pair = ClaimPair.objects.select_related("task__context").get(pk=item.pair_id)
    entailed = writing.current_claim(pair, "entailed")
    evidence = writing.final_or_written_evidence(entailed)
    form = RefutedClaimForm.read(request.POST)
    found = writing.warnings_for(
        pair.task,
        entailed=entailed.text,
        refuted=form.refuted,
        evidence=evidence,
        refuted_evidence=_refuted_evidence(form) or evidence,
    )
    return render(
        request,
        "annotation/claims/_warnings.html",
        {"warnings": found, "claim_words": _claim_words()},
    )


@login_required
@require_GET
def reperturb_context(request: HttpRequest, item_key: str) -> HttpResponse:
    """The whole curated context, to cite other evidence for the new claim (loads on demand)."""
    item = ReperturbPage.get_item(item_key)
    if not access.may_act_on(request.user, item):
        return not_yours(request, item)
    page = writing.reperturbation_page(item.pk)
    return _render_context(
        request,
        item,
        task=page.pair.task,
        shown=page.shown_ids,
        form=RefutedClaimForm.from_draft(item.draft),
        refuted_only=True,
        entailed_ids=page.evidence_ids,
    )


@login_required
def reperturb_image(request: HttpRequest, item_key: str, element_id: int) -> HttpResponse:
    """An image of the entailed claim's evidence, for whoever may see the item (an expert an
    admin handed it to holds no assignment of the paper, so /media/ would refuse them)."""
    item = ReperturbPage.get_item(item_key)
    may_see = access.may_see_item(request.user, item)
    return item_image(request, item, element_id, may_see=may_see)


@staff_required
@require_POST
def reassign_reperturbation(request: HttpRequest, item_key: str) -> HttpResponse:
    """An admin hands a waiting new perturbation to another expert (e.g. the writer left)."""
    item = ReperturbPage.get_item(item_key)
    expert_id = parse.parse_id(request.POST.get("expert"), field="expert")
    expert = get_user_model().objects.filter(pk=expert_id).first() if expert_id else None
    if expert is None:
        messages.error(request, "Choose the expert who writes the new perturbation.")
        return redirect("validation:overview")
    errors: dict[str, str] = {}
    note = _note(request.POST, errors)
    if errors:
        return refused_text(
            request,
            errors,
            title=f"hand item {item.key} over to {expert.get_username()}",
            fields=[("note", "Note (why)", note)],
            button="Hand over",
            back="validation:overview",
            keep=("expert",),
        )
    try:
        services.reassign_reperturbation(item=item, expert=expert, by=request.user, note=note)
    except AnnotationError as exc:
        messages.error(request, exc.message)
    else:
        messages.success(request, f"The new perturbation goes to {expert.get_username()}.")
    return redirect("validation:overview")
