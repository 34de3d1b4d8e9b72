"""What the annotation views share: the 403 answer (its page and the staff-only guard are
`papers.access`'s), the 400 page of a bad request, the answer to someone who may not open a work
item, the one Next view of every stage and where a recorded submission goes on to, the autosave
endpoint and the one rule for the images of an item's context."""

from __future__ import annotations

import mimetypes
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import (
    FileResponse,
    Http404,
    HttpRequest,
    HttpResponse,
    HttpResponseRedirect,
    JsonResponse,
)
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.http import url_has_allowed_host_and_scheme
from django.views import defaults
from django.views.decorators.http import require_POST

from annotation import inputs as parse
from annotation.errors import AnnotationError
from annotation.models import CuratedElement
from annotation.queue import work
from annotation.views import refusals
from papers import access
from papers.models import Element
from papers.parsing.svg import SERVED_CSP


def forbidden(request: HttpRequest, message: str, reason: str = "forbidden") -> HttpResponse:
    """403 with why; a page's script (an autosave, htmx) gets it as JSON with a reason code."""

    if refusals.is_script(request):
        return refusals.as_json(
            request, refusals.Refusal(reason, message, http_status=403, own_page=False)
        )
    return access.forbidden_page(request, message)


def not_yours(request: HttpRequest, item) -> HttpResponse:
    """The answer to someone who may not open a work item: why, if they held it or are named
    for it; otherwise 404, the very answer an item that does not exist gets (one answer for every
    item the requester never held: blindness must not leak through status codes)."""

    found = work.lost(item, request.user)
    if found is None:
        raise Http404
    return forbidden(request, found[1], reason=found[0])


def item_image(request: HttpRequest, item, element_id: int, *, may_see: bool) -> HttpResponse:
    """The one image rule, at every stage: an element's image goes to those who may see a work
    item only for an element of that item's curated context (an element the curator removed is
    404, as is one of another paper)."""

    if not may_see:
        return not_yours(request, item)
    in_context = CuratedElement.objects.filter(
        context__claim_pairs=item.pair_id, element_id=element_id, in_context=True
    ).exists()
    if not in_context:
        raise Http404
    return element_image(paper_id=item.paper_id, element_id=element_id)


@dataclass(frozen=True)
class NextStage:
    """What Next does at one stage: lease the expert's next item (`take(user)`, which raises
    `work.NothingToDo` when none waits for them) and open its page (`page`, a URL name taking
    the item's key); with nothing to take, the workspace says `nothing`."""

    take: Callable[..., object]
    page: str
    nothing: str
    onward: str = "Here is the next one."  # said on the next item's page after a submission


def next_view(stages: NextStage | Mapping[str, NextStage]) -> Callable[..., HttpResponse]:
    """The Next button's view (a POST), the same at every stage. A route that serves several
    stages (`review/<page>/next/`) passes them by its `page`; a page it does not name is 404."""

    @login_required
    @require_POST
    def next_item(request: HttpRequest, page: str | None = None) -> HttpResponse:

        stage = stages if isinstance(stages, NextStage) else stages.get(page or "")
        if stage is None:
            raise Http404
        try:
            item = stage.take(request.user)
        except work.NothingToDo:
            messages.info(request, stage.nothing)
            return redirect("annotation:home")
        return redirect(stage.page, item_key=item.key)

    return next_item


# The field of a work page's second submit button: "home" records and goes back to the
# workspace; without it (the first button, Ctrl+Enter, a script's resubmission) a recorded
# submission goes straight on to the expert's next item of the same stage.
THEN = "then"
THEN_HOME = "home"


def after_submission(request: HttpRequest, stage: NextStage, recorded: str) -> HttpResponse:
    """Where a recorded submission goes (answered through `refusals.done`, so that a page's
    script is told where to go): by default on to the expert's next item at the same stage,
    leased in its own transaction as the Next button leases it, with `recorded` and a word that
    this is the next one; to the workspace when the page's other button asked for it (`then=
    home`) or when nothing more waits (then `recorded` with `stage.nothing`). A lease refused
    for another reason never hides that the submission was recorded: the workspace says both."""

    if request.POST.get(THEN) == THEN_HOME:
        messages.success(request, recorded)
        return refusals.done(request, redirect("annotation:home"))
    try:
        item = stage.take(request.user)
    except work.NothingToDo:
        messages.success(request, f"{recorded} {stage.nothing}")
        return refusals.done(request, redirect("annotation:home"))
    except AnnotationError as exc:
        messages.success(request, recorded)
        messages.error(request, f"The next item could not be opened: {exc.message}")
        return refusals.done(request, redirect("annotation:home"))
    messages.success(request, f"{recorded} {stage.onward}")
    return refusals.done(request, redirect(stage.page, item_key=item.key))


def refused_text(
    request: HttpRequest,
    errors: dict[str, str],
    *,
    title: str,
    fields: list[tuple[str, str, str]],
    button: str,
    back: str,
    keep: tuple[str, ...] = (),
) -> HttpResponse:
    """The refusal of an admin's small form (a note with an action on a list page) whose text
    it does not take (`errors`, from `parse.kept_text`): nothing is recorded and nothing is cut;
    a page of its own shows the form again with the text as typed beside why (`fields`: name,
    caption, value), posting to the same URL (`keep`: the other fields sent, carried along).
    A page's script gets the refusal as JSON (reason "invalid")."""

    refusal = refusals.invalid("Nothing was recorded: " + " ".join(errors.values()), errors)
    hidden = [(name, value) for name in keep for value in request.POST.getlist(name)]
    context = {
        "refusal": refusal,
        "title": title,
        "fields": fields,
        "errors": errors,
        "hidden": hidden,
        "button": button,
        "back": reverse(back),
        "action": request.path,
    }
    return refusals.answer(
        request,
        refusal,
        lambda: render(
            request, "annotation/refused_text.html", context, status=refusal.http_status
        ),
    )


def wants_json(request: HttpRequest) -> bool:
    """A fetch() that sent JSON or asks for it (the autosaves) reads errors as JSON."""
    return request.content_type == "application/json" or "application/json" in request.headers.get(
        "Accept", ""
    )


def bad_request(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    """Django's answer to a BadRequest (config.urls' handler400): what was wrong with the
    request when the parsing layer said so (`BadInput`), as JSON to a JSON request."""

    if not isinstance(exception, parse.BadInput):  # e.g. a suspicious operation: say nothing
        return defaults.bad_request(request, exception)
    if wants_json(request):
        return JsonResponse({"error": exception.message}, status=400)
    return render(
        request, "annotation/bad_request.html", {"message": exception.message}, status=400
    )


def element_image(*, paper_id: int, element_id: int) -> HttpResponse:
    """A table/chart image of the paper (its PNG, else a vector chart's inert SVG), once the
    caller has checked the user may see it."""

    element = get_object_or_404(
        Element.objects.only("id", "image", "vector"), pk=element_id, paper_id=paper_id
    )
    if not element.picture:
        raise Http404("No image.")
    try:
        handle = element.picture.open("rb")
    except FileNotFoundError as exc:
        raise Http404("No image file.") from exc
    return file_response(handle, element.picture.name)


def file_response(handle, name: str) -> HttpResponse:
    """A paper's file, typed by its name (an SVG under `svg_policy`)."""
    content_type = mimetypes.guess_type(name)[0] or "application/octet-stream"
    return svg_policy(FileResponse(handle, content_type=content_type))


def svg_policy(response: HttpResponse) -> HttpResponse:
    """An SVG answer (a vector chart's inert file, from /media/ or an item's image route) with a
    policy under which, opened on its own, it runs and loads nothing (drawn by an <img> it could
    not anyway); any other answer as it is."""
    if response.get("Content-Type", "").startswith("image/svg+xml"):
        response["Content-Security-Policy"] = SERVED_CSP
    return response


def redirect_back(request: HttpRequest, default: str = "annotation:assignments") -> HttpResponse:
    """Back to the page the form was on (`next`: a path on this site; anything else, e.g. a
    bare word redirect() would take for a view name, goes to the assignment page)."""
    target = request.POST.get("next", "")
    safe = (
        target.startswith("/")
        and len(target) <= 2000
        and not any(c in target for c in "\x00\r\n")
        and url_has_allowed_host_and_scheme(target, allowed_hosts={request.get_host()})
    )
    return HttpResponseRedirect(target if safe else reverse(default))
