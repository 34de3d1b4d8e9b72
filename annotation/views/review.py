"""Review pages: blind second annotation, adjudication (names hidden), their autosave, context
and images, and the admins' page (waiting items, overrides, reopening, dropping pairs)."""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field

from django.contrib import messages
from django.contrib.auth import get_user_model
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_GET, require_POST

from annotation import access
from annotation import request_parsing as parse
from annotation.errors import AnnotationError
from annotation.evidence import evidence_rule_problem, rule_text
from annotation.models import (
    AdjudicationReason,
    Claim,
    ClaimPair,
    Confidence,
    WorkItem,
    WorkKind,
    WorkStatus,
)
from annotation.queue import work
from annotation.request_parsing import MAX_TEXT
from annotation.review import selectors, services
from annotation.views import refusals
from annotation.views.common import (
    NextStage,
    after_submission,
    autosave_draft,
    item_image,
    next_view,
    not_yours,
    refused_text,
)
from annotation.writing import selectors as writing
from papers.access import staff_required

REVIEW_FIELDS: dict[str, parse.Field] = {
    "label": parse.Text(16),
    "evidence": parse.Ids(),
    "decision": parse.Text(16, default="decided"),
    "confidence": parse.Text(8),
    "reason": parse.Text(32),
    "notes": parse.Text(MAX_TEXT),
}


@dataclass
class ReviewForm:
    """What the annotator chose: from the draft, or from a refused submission."""

    label: str = ""
    evidence: set[int] = field(default_factory=set)
    decision: str = "decided"
    confidence: str = ""
    reason: str = ""
    notes: str = ""

    @classmethod
    def from_data(cls, data, *, errors: dict[str, str] | None = None) -> ReviewForm:
        """From a POST or a JSON draft: a bad value raises BadInput, or with `errors` is
        recorded there (the field left empty; a text too long kept whole, never cut)."""
        values = parse.parse_fields(data, REVIEW_FIELDS, errors=errors)
        return cls(**values | {"evidence": set(values["evidence"])})

    @classmethod
    def from_draft(cls, draft: object) -> ReviewForm:
        """From a draft kept on an item: whatever it holds, the page opens."""
        return cls.from_data(draft or {}, errors={})

    def as_draft(self) -> dict:
        return {
            "label": self.label,
            "evidence": sorted(self.evidence),
            "decision": self.decision,
            "confidence": self.confidence,
            "reason": self.reason,
            "notes": self.notes,
        }


# What a refusal sets beside what won (refusals.compare): only ever the requester's own work.
SHOWN = {
    WorkKind.BLIND: (
        refusals.Shown("label", "Label"),
        refusals.Shown("evidence", "Evidence", "ids"),
    ),
    WorkKind.ADJUDICATE: (
        refusals.Shown("decision", "Decision"),
        refusals.Shown("label", "Final label"),
        refusals.Shown("evidence", "Final evidence", "ids"),
        refusals.Shown("confidence", "Confidence"),
        refusals.Shown("reason", "Reason"),
        refusals.Shown("notes", "Notes"),
    ),
}


def _note(data, errors: dict[str, str], name: str = "note") -> str:
    """An admin's note, whole: longer than MAX_TEXT is recorded in `errors`, never cut."""
    return parse.kept_text(data, name, max_length=MAX_TEXT, errors=errors)


def _item(item_key: str, kinds=(WorkKind.BLIND, WorkKind.ADJUDICATE)) -> WorkItem:
    return get_object_or_404(
        WorkItem.objects.only(
            "id",
            "key",
            "kind",
            "status",
            "holder_id",
            "done_by_id",
            "assignee_id",
            "pair_id",
            "paper_id",
            "claim_id",
            "version",
            "draft",
            "lease_expires_at",
        ),
        key=item_key,
        kind__in=kinds,
    )


# Next at each review stage: the button's, and where a submission goes on to.
NEXT = {
    WorkKind.BLIND: NextStage(
        take=lambda user: services.take_next(user=user, kind=WorkKind.BLIND),
        page="annotation:annotate",
        nothing="No claim to annotate is waiting for you right now.",
        onward="Here is the next claim.",
    ),
    WorkKind.ADJUDICATE: NextStage(
        take=lambda user: services.take_next(user=user, kind=WorkKind.ADJUDICATE),
        page="annotation:adjudicate",
        nothing="No adjudication is waiting for you right now.",
        onward="Here is the next adjudication.",
    ),
}
# review/<page>/next/: the page names the stage.
next_item = next_view({"annotate": NEXT[WorkKind.BLIND], "adjudicate": NEXT[WorkKind.ADJUDICATE]})


def _render(
    request: HttpRequest,
    item: WorkItem,
    form: ReviewForm | None = None,
    *,
    status: int = 200,
    errors: dict[str, str] | None = None,
    error: str = "",
    token: str = "",
    refusal: refusals.Refusal | None = None,
) -> HttpResponse:
    adjudicating = item.kind == WorkKind.ADJUDICATE
    page = (selectors.adjudication_page if adjudicating else selectors.annotation_page)(item)
    editable = page.item.held_by(request.user)
    if form is None:
        form = ReviewForm.from_draft(page.item.draft)
        if page.item.status == WorkStatus.DONE and not adjudicating:
            annotation = page.item.evidence_annotation
            form = ReviewForm(
                label=annotation.label,
                evidence=set(annotation.evidence.values_list("pk", flat=True)),
            )
    extra = _evidence_rule(page) if adjudicating else {}
    return render(
        request,
        "annotation/review/adjudicate.html" if adjudicating else "annotation/review/annotate.html",
        {
            **extra,
            "page": page,
            "item": page.item,
            "form": form,
            "errors": errors or {},
            "error": error,
            "token": token or uuid.uuid4(),
            "editable": editable,
            "confidences": Confidence.choices,
            "reasons": AdjudicationReason.choices,
            "refusal": refusal,
        },
        status=status,
    )


def _evidence_rule(page: selectors.AdjudicationPage) -> dict:
    """The evidence rule the adjudicator's final evidence is held to, and what breaks it on
    each side (the second annotator is not held to it: a count that breaks it is one reason a
    claim comes to adjudication)."""
    pair = page.item.pair
    kinds, _ = writing.evidence_kinds_and_texts(pair.context)
    labels = {e.pk: e.label for e in [*page.visuals, *page.paragraphs, *page.extra]}
    for side in page.sides:
        side.rule_problem = evidence_rule_problem(
            pair.subset, side.evidence, kinds, pair.task.sampled_ids, labels=labels
        )
    return {"evidence_rule": rule_text(pair.subset, whole=True), "subset": pair.subset}


def _review_page(request: HttpRequest, item_key: str, kind: str) -> HttpResponse:
    if request.method != "POST":  # the page: its item read once, with what the page shows
        item = get_object_or_404(selectors.page_items(kind), key=item_key)
        if not access.may_see_item(request.user, item):
            return not_yours(request, item)
        return _render(request, item)

    def known() -> WorkItem:
        """The item, read for any answer but a recorded blind submission (which locks it by
        its key in the service's one read): 404 for a key that names no item of this kind and
        for one the requester never held, as for a page."""
        item = _item(item_key, (kind,))
        if not access.may_see_item(request.user, item) and work.lost(item, request.user) is None:
            raise Http404  # the answer to a key that names no item
        return item

    item = None if kind == WorkKind.BLIND else known()
    problems: dict[str, str] = {}
    form = ReviewForm.from_data(request.POST, errors=problems)
    version = parse.parse_fields(request.POST, parse.VERSION, errors=problems)["version"]
    token_text = request.POST.get("token", "")

    def refused(refusal: refusals.Refusal, **kept) -> HttpResponse:
        return refusals.answer(
            request,
            refusal,
            lambda: _render(
                request,
                item,
                form,
                status=refusal.http_status,
                errors=refusal.errors,
                error=refusal.message,
                refusal=refusal,
                **kept,
            ),
        )

    try:
        token = parse.parse_token(token_text)
    except parse.BadInput as exc:
        item = known()
        return refused(refusals.invalid(exc.message))
    if problems:
        item = known()
        return refused(
            refusals.invalid("Nothing was recorded: " + " ".join(problems.values()), problems),
            token=token_text,
        )
    common = {
        "user": request.user,
        "version": version,
        "token": token,
        "label": form.label,
        "evidence_ids": form.evidence,
    }
    try:
        if kind == WorkKind.BLIND:
            services.submit_second_annotation(key=item_key, **common)
        else:
            services.submit_adjudication(
                item=item,
                **common,
                decision=form.decision,
                confidence=form.confidence,
                reason=form.reason,
                notes=form.notes,
            )
    except services.InvalidAnnotation as exc:
        item = item or known()
        return refused(refusals.invalid(exc.message, exc.errors), token=token_text)
    except AnnotationError as exc:  # stale, submitted elsewhere, no longer theirs, none such
        item = item or known()
        refusal = refusals.for_work(request, item, exc, kept=form.as_draft(), spec=SHOWN[kind])
        return refused(refusal)
    # Neutral on purpose: saying whether it agreed would reveal the first annotation.
    recorded = "Recorded. Thank you." if kind == WorkKind.BLIND else "Adjudication recorded."
    return after_submission(request, NEXT[kind], recorded)


@login_required
def annotate(request: HttpRequest, item_key: str) -> HttpResponse:
    return _review_page(request, item_key, WorkKind.BLIND)


@login_required
def adjudicate(request: HttpRequest, item_key: str) -> HttpResponse:
    return _review_page(request, item_key, WorkKind.ADJUDICATE)


@login_required
@require_POST
def save_draft(request: HttpRequest, item_key: str) -> HttpResponse:
    item = _item(item_key)
    return autosave_draft(request, item, ReviewForm, SHOWN[item.kind])


@login_required
@require_GET
def context(request: HttpRequest, item_key: str) -> HttpResponse:
    """The whole curated context, marked as the draft marks it. What the page already shows
    (the task's elements and, under "Other evidence", what the draft or the annotations marked)
    stands as a line pointing at its box: a second box would count it twice."""
    item = _item(item_key)
    if not access.may_see_item(request.user, item):
        return not_yours(request, item)
    adjudicating = item.kind == WorkKind.ADJUDICATE
    page = (selectors.adjudication_page if adjudicating else selectors.annotation_page)(item)
    shown = {e.pk for e in [*page.visuals, *page.paragraphs, *page.extra]}
    return render(
        request,
        "annotation/review/_context.html",
        {
            "sections": writing.full_context(page.item.pair.task),
            "shown": shown,
            "item": item,
            "editable": item.held_by(request.user),
            "form": ReviewForm.from_draft(item.draft),
        },
    )


@login_required
@require_GET
def image(request: HttpRequest, item_key: str, element_id: int) -> HttpResponse:
    """An element's image for those who may see the item (second annotators and adjudicators
    hold no assignment of the paper, so /media/ would refuse them)."""
    item = _item(item_key)
    return item_image(request, item, element_id, may_see=access.may_see_item(request.user, item))


# --- Admins -------------------------------------------------------------------------------


@staff_required
def overview(request: HttpRequest) -> HttpResponse:
    User = get_user_model()
    return render(
        request,
        "annotation/review/overview.html",
        {
            "ov": selectors.review_overview(),
            "experts": User.objects.filter(is_active=True, expert__active=True).order_by(
                "username"
            ),
        },
    )


def _done(request: HttpRequest, call, success: str, back: str = "annotation:review_overview"):
    try:
        call()
    except AnnotationError as exc:
        messages.error(request, exc.message)
    else:
        messages.success(request, success)
    return redirect(back)


@staff_required
@require_POST
def allow_expert(request: HttpRequest, item_key: str) -> HttpResponse:
    """The one override for an item nobody eligible may take, at any stage (second annotation,
    adjudication, validation); back to the page the admin came from."""
    item = _item(item_key, (WorkKind.BLIND, WorkKind.ADJUDICATE, WorkKind.VALIDATE))
    expert = get_object_or_404(
        get_user_model(), pk=parse.parse_id(request.POST.get("expert"), field="expert") or 0
    )
    back = "validation:overview" if item.kind == WorkKind.VALIDATE else "annotation:review_overview"
    errors: dict[str, str] = {}
    note = _note(request.POST, errors)
    if errors:
        return refused_text(
            request,
            errors,
            title=f"allow {expert.get_username()} to take item {item.key}",
            fields=[("note", "Note (why)", note)],
            button="Allow",
            back=back,
            keep=("expert",),
        )
    return _done(
        request,
        lambda: services.allow_expert(item=item, expert=expert, by=request.user, note=note),
        f"{expert.get_username()} may now take the {item.get_kind_display()} item.",
        back,
    )


@staff_required
@require_POST
def reopen(request: HttpRequest, claim_key: str) -> HttpResponse:
    claim = get_object_or_404(Claim.objects.only("id", "key"), key=claim_key)
    errors: dict[str, str] = {}
    note = _note(request.POST, errors)
    if errors:
        return refused_text(
            request,
            errors,
            title=f"reopen claim {claim.key} for another adjudicator",
            fields=[("note", "Note", note)],
            button="Reopen for another adjudicator",
            back="annotation:review_overview",
        )
    return _done(
        request,
        lambda: services.reopen_unresolved(claim=claim, by=request.user, note=note),
        f"Claim {claim.pk} reopened for another adjudicator.",
    )


@staff_required
@require_POST
def drop(request: HttpRequest, pair_key: str) -> HttpResponse:
    pair = get_object_or_404(ClaimPair.objects.only("id", "key"), key=pair_key)
    errors: dict[str, str] = {}
    reason = _note(request.POST, errors, "reason")
    if errors:
        return refused_text(
            request,
            errors,
            title=f"drop pair {pair.key}",
            fields=[("reason", "Reason", reason)],
            button="Drop the pair",
            back="annotation:review_overview",
        )
    return _done(
        request,
        lambda: services.drop_pair(pair=pair, by=request.user, reason=reason),
        f"Pair {pair.pk} dropped.",
    )
