"""The "edit my last answer" page of a validation (the service is `validation.edits`)."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_http_methods

from annotation import access
from annotation import inputs as parse
from annotation.inputs import MAX_TEXT
from annotation.models import ClaimReview, CuratedElement, WorkItem, WorkKind
from annotation.views.common import forbidden, not_yours
from validation import edits
from validation.models import CRITERIA, Validation
from validation.services import InvalidValidation


class ValidationAnswerForm(parse.Form):
    """A validator's answer, as they change it (texts taken whole, never cut)."""

    text = parse.TextField(MAX_TEXT)
    explanation = parse.TextField(MAX_TEXT)
    evidence = parse.IdsField()
    criteria = parse.ChoicesField(CRITERIA)


@login_required
@require_http_methods(["GET", "POST"])
def edit_validation(request: HttpRequest, item_key: str) -> HttpResponse:
    item = get_object_or_404(
        WorkItem.objects.select_related("pair", "claim"), key=item_key, kind=WorkKind.VALIDATE
    )
    if not access.submitted_by(request.user, item):
        return not_yours(request, item)
    claim = item.claim
    review = ClaimReview.objects.get(claim=claim)
    validation = Validation.objects.get(claim=claim)
    form = {
        "text": claim.text,
        "explanation": claim.explanation,
        "evidence": set(review.final_evidence.values_list("pk", flat=True)),
        "criteria": set(validation.criteria_failed),
    }
    editable = edits.validation_editable(item, request.user)
    errors: dict[str, str] = {}
    status = 200
    if request.method == "POST":
        form = ValidationAnswerForm.read(request.POST, errors=errors)
        form |= {"evidence": set(form["evidence"]), "criteria": set(form["criteria"])}
        try:
            if errors:
                raise InvalidValidation(dict(errors))
            edits.edit_validation(
                item=item,
                user=request.user,
                criteria_failed=form["criteria"],
                text=form["text"],
                evidence_ids=form["evidence"],
                explanation=form["explanation"],
            )
        except edits.ValidationLocked as exc:
            if exc.reason == "forbidden":
                return forbidden(request, exc.message)
            errors, editable, status = {"form": exc.message}, False, 409
        except InvalidValidation as exc:
            errors, status = exc.errors, 400
        else:
            messages.success(request, "Your validation was changed.")
            return redirect("validation_answers:edit", item.key)
    shown = CuratedElement.objects.filter(context_id=item.pair.context_id, in_context=True)
    elements = [c.element for c in shown.select_related("element").order_by("element__order")]
    context = {
        "item": item,
        "claim": claim,
        "review": review,
        "form": form,
        "errors": errors,
        "editable": editable,
        "too_late": edits.TOO_LATE,
        "elements": elements,
        "criteria": CRITERIA.items(),
    }
    return render(request, "validation/edit_answer.html", context, status=status)
