"""The workspace home: the signed-in expert's queue from every stage, and for admins what waits
for them."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from annotation.assignment import selectors as assignment_selectors
from annotation.models import WorkKind
from annotation.queue import work
from annotation.review import selectors as review
from annotation.writing import selectors as writing
from validation import selectors as validation_selectors
from workspace import selectors as workspace_selectors


@login_required
def home(request: HttpRequest) -> HttpResponse:
    ws = workspace_selectors.workspace(request.user)
    queue = work.queue(request.user)  # every stage's counts in three queries
    validations = validation_selectors.validation_queue(request.user, queue)
    # The heading counts what is left to validate, the claim held included (as the other
    # stages' do): never "Validations 0" beside "Continue validating".
    validations["to_validate"] = queue.available[WorkKind.VALIDATE] + (
        1 if validations["held"] else 0
    )
    context: dict[str, object] = {
        "ws": ws,
        "claims": writing.writing_queue(request.user, ws.ready_paper_ids, queue),
        "review": review.review_queue(request.user, queue),
        "validations": validations,
    }
    if request.user.is_staff:
        context["overview"] = assignment_selectors.assignment_overview()
        context["writing"] = writing.writing_overview()
    return render(request, "workspace/home.html", context)
