"""The "edit my last answer" pages of a second annotation and an adjudication: the submitted answer
in a form while the next stage has not started, and one message for every reason it has."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_http_methods

from annotation import access
from annotation import inputs as parse
from annotation.inputs import MAX_TEXT
from annotation.models import (
    Adjudication,
    AdjudicationReason,
    ClaimLabel,
    Confidence,
    CuratedElement,
    EvidenceAnnotation,
    WorkItem,
    WorkKind,
)
from annotation.review import edits
from annotation.review.services import InvalidAnnotation
from annotation.views.common import forbidden, not_yours

PAGES = {WorkKind.BLIND: "annotation:annotate", WorkKind.ADJUDICATE: "annotation:adjudicate"}
# The adjudication page's bound: notes it took are taken here too, whole (never cut).
MAX_NOTES = MAX_TEXT


def _elements(item: WorkItem):
    rows = CuratedElement.objects.filter(context_id=item.pair.context_id, in_context=True)
    return [c.element for c in rows.select_related("element").order_by("element__order")]


class SecondAnswerForm(parse.Form):
    """A second annotator's answer, as they change it."""

    label = parse.ChoiceField(ClaimLabel.values)
    evidence = parse.IdsField()


class AdjudicationAnswerForm(SecondAnswerForm):
    """An adjudicator's answer, as they change it (notes taken whole, as the page took them)."""

    confidence = parse.ChoiceField(Confidence.values)
    reason = parse.ChoiceField(AdjudicationReason.values)
    notes = parse.TextField(MAX_NOTES)


@login_required
@require_http_methods(["GET", "POST"])
def edit_answer(request: HttpRequest, item_key: str) -> HttpResponse:
    item = get_object_or_404(
        WorkItem.objects.select_related("pair", "claim"), key=item_key, kind__in=list(PAGES)
    )
    if not access.submitted_by(request.user, item):
        return not_yours(request, item)
    adjudicating = item.kind == WorkKind.ADJUDICATE
    answer = (Adjudication if adjudicating else EvidenceAnnotation).objects.get(item=item)
    form = {"label": answer.label, "evidence": set(answer.evidence.values_list("pk", flat=True))}
    if adjudicating:
        form |= {"confidence": answer.confidence, "reason": answer.reason, "notes": answer.notes}
    editable = (edits.adjudication_editable if adjudicating else edits.second_annotation_editable)(
        item, request.user
    )
    errors: dict[str, str] = {}
    status = 200
    if request.method == "POST":
        form_class = AdjudicationAnswerForm if adjudicating else SecondAnswerForm
        form = form_class.read(request.POST, errors=errors)
        form["evidence"] = set(form["evidence"])
        try:
            if errors:  # nothing is changed, nothing is cut: the page shows the text again
                raise InvalidAnnotation(dict(errors))
            if adjudicating:
                edits.edit_adjudication(
                    item=item,
                    user=request.user,
                    label=form["label"],
                    evidence_ids=form["evidence"],
                    confidence=form["confidence"],
                    reason=form["reason"],
                    notes=form["notes"],
                )
            else:
                edits.edit_second_annotation(
                    item=item, user=request.user, label=form["label"], evidence_ids=form["evidence"]
                )
        except edits.AnswerLocked as exc:
            if exc.reason == "forbidden":
                return forbidden(request, exc.message)
            errors, editable, status = {"form": exc.message}, False, 409
        except InvalidAnnotation as exc:
            errors, status = exc.errors, 400
        else:
            # The same words whatever the comparison now says: nothing about agreement.
            messages.success(request, "Your answer was changed.")
            return redirect("answers:edit", item.key)
    context = {
        "item": item,
        "claim": item.claim,
        "elements": _elements(item),
        "form": form,
        "errors": errors,
        "editable": editable,
        "too_late": edits.TOO_LATE,
        "adjudicating": adjudicating,
        "task_page": PAGES[item.kind],
        "confidences": Confidence.choices,
        "reasons": AdjudicationReason.choices,
    }
    return render(request, "annotation/review/edit_answer.html", context, status=status)
