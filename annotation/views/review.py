"""Review pages: blind second annotation, adjudication (names hidden), their autosave, context
and images, and the admins' page (waiting items, overrides, reopening, dropping pairs)."""

from __future__ import annotations

from django.conf import settings
from django.contrib import messages
from django.contrib.auth import get_user_model
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_GET, require_POST

from annotation import access, fragments
from annotation import inputs as parse
from annotation.errors import AnnotationError
from annotation.evidence import evidence_rule_problem, rule_text
from annotation.inputs import MAX_TEXT, ChoiceField, DraftForm, IdsField, TextField, Values
from annotation.models import (
    AdjudicationDecision,
    AdjudicationReason,
    Claim,
    ClaimLabel,
    ClaimPair,
    Confidence,
    WorkItem,
    WorkKind,
    WorkStatus,
)
from annotation.queue.takers import takers
from annotation.review import selectors, services
from annotation.views import refusals
from annotation.views.common import (
    NextStage,
    after_submission,
    item_image,
    next_view,
    not_yours,
    refused_text,
)
from annotation.views.work_page import WorkItemPage
from annotation.writing import selectors as writing
from annotation.writing import warnings as claim_warnings
from papers.access import staff_required


class ReviewForm(DraftForm):
    """What the annotator chose (blind annotation, adjudication): from a POST, a draft, or a
    refused submission."""

    label = ChoiceField(ClaimLabel.values)
    evidence = IdsField()
    decision = ChoiceField(AdjudicationDecision.values, default=AdjudicationDecision.DECIDED)
    confidence = ChoiceField(Confidence.values)
    reason = ChoiceField(AdjudicationReason.values)
    notes = TextField(MAX_TEXT)


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


class _ReviewPage(WorkItemPage):
    """Blind second annotation and adjudication (names hidden): the page is read once with
    what it shows; a submission goes through the stage's service."""

    form_class = ReviewForm
    invalid = (services.InvalidAnnotation,)

    def page_item(self, key: str) -> WorkItem:
        return get_object_or_404(selectors.page_items(self.kinds[0]), key=key)

    def context_of(self, page) -> dict:
        return {
            # Only the warnings of the claim's own text: none comparing it with its pair or
            # its evidence (they would tell the label or the writer's evidence).
            "claim_warnings": claim_warnings.text_warnings(
                page.claim_text, low=settings.CLAIM_MIN_WORDS, high=settings.CLAIM_MAX_WORDS
            ),
            "page": page,
            "item": page.item,
            "editable": page.item.held_by(self.request.user),
            "confidences": Confidence.choices,
            "reasons": AdjudicationReason.choices,
        }


class AnnotatePage(_ReviewPage):
    """The second expert's blind annotation: the label and evidence, without the writer's."""

    kinds = (WorkKind.BLIND,)
    template = "annotation/review/annotate.html"
    shown = SHOWN[WorkKind.BLIND]
    reads_item = False  # the service reads and locks it by its key

    def initial(self, item: WorkItem) -> Values:
        if item.status == WorkStatus.DONE:  # their own answer, as recorded
            annotation = item.evidence_annotation
            evidence = list(annotation.evidence.values_list("pk", flat=True))
            return ReviewForm.from_draft({"label": annotation.label, "evidence": evidence})
        return super().initial(item)

    def page_context(self, item: WorkItem, form: Values) -> dict:
        return self.context_of(selectors.annotation_page(item))

    def submit(self, item: WorkItem | None, form: Values) -> HttpResponse:
        services.submit_second_annotation(
            key=self.kwargs["item_key"],
            user=self.request.user,
            version=form.version,
            token=form.token,
            label=form.label,
            evidence_ids=set(form.evidence),
        )
        # Neutral on purpose: saying whether it agreed would reveal the first annotation.
        return after_submission(self.request, NEXT[WorkKind.BLIND], "Recorded. Thank you.")


class AdjudicatePage(_ReviewPage):
    """The third expert decides a disagreement (the two annotations, names hidden)."""

    kinds = (WorkKind.ADJUDICATE,)
    template = "annotation/review/adjudicate.html"
    shown = SHOWN[WorkKind.ADJUDICATE]

    def page_context(self, item: WorkItem, form: Values) -> dict:
        page = selectors.adjudication_page(item)
        return _evidence_rule(page) | self.context_of(page)

    def submit(self, item: WorkItem, form: Values) -> HttpResponse:
        services.submit_adjudication(
            item=item,
            user=self.request.user,
            version=form.version,
            token=form.token,
            label=form.label,
            evidence_ids=set(form.evidence),
            decision=form.decision,
            confidence=form.confidence,
            reason=form.reason,
            notes=form.notes,
        )
        return after_submission(self.request, NEXT[WorkKind.ADJUDICATE], "Adjudication recorded.")


annotate = AnnotatePage.as_view()
adjudicate = AdjudicatePage.as_view()
PAGES = {WorkKind.BLIND: AnnotatePage, WorkKind.ADJUDICATE: AdjudicatePage}


def _item(item_key: str, kinds=(WorkKind.BLIND, WorkKind.ADJUDICATE)) -> WorkItem:
    return get_object_or_404(
        WorkItem.objects.only(*WorkItemPage.item_fields), key=item_key, kind__in=kinds
    )


@login_required
@require_POST
def save_draft(request: HttpRequest, item_key: str) -> HttpResponse:
    """The autosave of both review pages (one route: the item's kind names its page)."""
    item = _item(item_key)
    return PAGES[item.kind].autosave(request, item)


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
            "sections": writing.full_context(page.item.pair.task, fragments.REVIEW),
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
    """The review's progress; each waiting item offers only the experts who may take it
    (`takers`: the queue's own blindness rule), preselecting nobody."""
    ov = selectors.review_overview()
    found = takers([w.item for w in ov.waiting])
    return render(
        request,
        "annotation/review/overview.html",
        {"ov": ov, "waiting": [(w, found[w.item.pk]) for w in ov.waiting]},
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
    back = "validation:overview" if item.kind == WorkKind.VALIDATE else "annotation:review_overview"
    expert_id = parse.parse_id(request.POST.get("expert"), field="expert")
    if expert_id is None:  # the list preselects nobody
        messages.error(request, f"Nobody was allowed to take item {item.key}: choose an expert.")
        return redirect(back)
    expert = get_object_or_404(get_user_model(), pk=expert_id)
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
