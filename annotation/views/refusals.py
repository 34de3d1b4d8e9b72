"""What a refused write tells the page it came from: a reason code for the page's script
(`static/js/autosave.js`), a message for the person, and what the page sent beside what won.

One panel (`annotation/_refusal.html`) says it on a re-rendered page and inside the JSON a
script gets, so both show the same. Blind by construction: what won is shown only when it is
the requester's own work (their submission from another tab, their draft saved since); when
someone else holds or submitted the item the panel says what happened to the hold
(`work.lost`), never what the other person chose.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace

from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.template.loader import render_to_string
from django.utils import timezone

from annotation import events
from annotation.errors import AnnotationError
from annotation.inputs import id_set
from annotation.models import WorkAction, WorkEvent, WorkItem
from annotation.queue import work
from papers.access import is_script
from papers.models import Element

KEPT = "Nothing on this page was recorded: your text stays here and in this browser."


@dataclass(frozen=True)
class Shown:
    """One line of what a page holds, as the comparison shows it: the draft's `key`, its
    caption, and how its value reads ("text", "ids" of elements, a "list" of codes)."""

    key: str
    caption: str
    kind: str = "text"


Spec = Sequence[Shown]


@dataclass
class Refusal:
    reason: str
    message: str
    http_status: int = 409
    errors: dict[str, str] = field(default_factory=dict)
    # (caption, this page's value, what won's value): what won only when it is the requester's.
    compared: list[tuple[str, str, str]] = field(default_factory=list)
    won_title: str = ""
    # The item's version now, when the requester still holds it and may keep this page's text.
    version: int | None = None
    links: list[tuple[str, str]] = field(default_factory=list)
    # Whether the work page itself may be shown again with the refusal (the requester holds or
    # submitted the item); otherwise a page of its own says it.
    own_page: bool = True

    @property
    def won(self) -> bool:
        return bool(self.won_title)


def _labels(ids: set[int]) -> dict[int, str]:
    """Each element's name as every page gives it (`Element.display_name`)."""

    rows = Element.objects.filter(pk__in=ids).only("pk", "kind", "label", "anchor")
    return {e.pk: e.display_name for e in rows}


def compare(spec: Spec, kept: Mapping, won: Mapping | None) -> list[tuple[str, str, str]]:
    """The lines of the comparison: each of `spec` that either side holds."""
    won = won or {}
    ids = {
        pk
        for line in spec
        if line.kind == "ids"
        for side in (kept, won)
        for pk in id_set(side.get(line.key))
    }
    labels = _labels(ids) if ids else {}

    def shown(line: Shown, side: Mapping) -> str:
        value = side.get(line.key)
        if line.kind == "ids":
            return ", ".join(labels.get(pk, str(pk)) for pk in sorted(id_set(value))) or "none"
        if line.kind == "list":
            return ", ".join(str(v) for v in value) if isinstance(value, list) and value else "none"
        return "" if value is None else str(value)

    return [
        (line.caption, shown(line, kept), shown(line, won) if line.key in won else "")
        for line in spec
        if line.key in kept or line.key in won
    ]


def submitted_values(item: WorkItem) -> events.SubmittedNew:
    """What the item's submission recorded, as its history row has it."""

    new = (
        WorkEvent.objects.filter(item_id=item.pk, action=WorkAction.SUBMITTED)
        .order_by("-at", "-id")
        .values_list("new", flat=True)
        .first()
    )
    return events.read(events.SubmittedNew, new)


def for_work(request: HttpRequest, item: WorkItem, exc: AnnotationError, **shown) -> Refusal:
    """The refusal of a write to a work item (`work.StaleWork`, `work.NotHolder`, or another
    domain error), from the item as it is now: 409 when the item changed or was submitted, 403
    when it is no longer theirs. Raises Http404 for someone who never held it (the answer a key
    that names nothing gets). `shown`: `_refusal`'s keywords."""
    refusal = _refusal(request, item, exc, **shown)
    if isinstance(exc, work.NotHolder) and refusal.reason != "stale":
        refusal = replace(refusal, http_status=403)
    return refusal


def _refusal(
    request: HttpRequest,
    item: WorkItem,
    exc: AnnotationError,
    *,
    kept: Mapping,
    spec: Spec,
    recorded: Callable[[dict], Mapping] = lambda new: new,
    links: Sequence[tuple[str, str]] = (),
) -> Refusal:
    """`for_work`'s refusal. `kept`: what the page sent, in the draft's shape; `spec`: how it
    is shown; `recorded(new)` turns the submission's history row into the draft's shape, to
    set beside it."""
    user = request.user
    now = WorkItem.objects.get(pk=item.pk)
    links = list(links)
    if not isinstance(exc, work.StaleWork | work.NotHolder):
        return Refusal(
            exc.reason,
            f"{exc.message} {KEPT}",
            compared=compare(spec, kept, None),
            links=links + [("Workspace", "/")],
        )
    if now.held_by(user):
        # Still theirs, changed since the page was opened (handed back and taken again, perhaps
        # in another tab): their own draft saved since is what won.
        return Refusal(
            "stale",
            "This item changed since you opened the page (it was handed back and taken again, "
            "perhaps in another tab). Nothing was overwritten. Keep this page's text as the "
            "draft, or take the draft saved since.",
            compared=compare(spec, kept, now.draft if isinstance(now.draft, dict) else {}),
            won_title="The draft saved since",
            version=now.version,
        )
    found = work.lost(now, user)
    if found is None:
        if not user.is_staff:
            raise Http404
        found = (exc.reason, exc.message)
    reason, message = found
    if reason == "submitted" and now.done_by_id == user.pk:
        at = timezone.localtime(now.done_at).strftime("%H:%M") if now.done_at else ""
        return Refusal(
            "submitted",
            f"You submitted this item already, in another tab or browser{f' at {at}' if at else ''}"
            f". {KEPT}",
            compared=compare(spec, kept, recorded(submitted_values(now))),
            won_title="What was recorded",
            links=links,
        )
    return Refusal(
        reason,
        f"{message} {KEPT}",
        compared=compare(spec, kept, None),
        links=[("Workspace", "/")],
        own_page=user.is_staff,
    )


def invalid(message: str, errors: Mapping[str, str] | None = None, *, status: int = 400) -> Refusal:
    """A submission that breaks a rule or could not be read: the page keeps everything."""
    return Refusal("invalid", message, http_status=status, errors=dict(errors or {}))


def panel(request: HttpRequest, refusal: Refusal) -> str:
    return render_to_string("annotation/_refusal.html", {"refusal": refusal}, request=request)


def as_json(request: HttpRequest, refusal: Refusal) -> JsonResponse:
    return JsonResponse(
        {
            "error": refusal.message,
            "reason": refusal.reason,
            "message": refusal.message,
            "errors": refusal.errors,
            "version": refusal.version,
            "html": panel(request, refusal),
        },
        status=refusal.http_status,
    )


def answer(
    request: HttpRequest, refusal: Refusal, page: Callable[[], HttpResponse] | None = None
) -> HttpResponse:
    """JSON to the page's script; to a form post, the work page again with the refusal (what
    was typed kept) when the requester may see it, else a page of its own that shows it."""
    if is_script(request):
        return as_json(request, refusal)
    if page is not None and refusal.own_page:
        return page()
    return render(
        request, "annotation/refused.html", {"refusal": refusal}, status=refusal.http_status
    )


def done(request: HttpRequest, response: HttpResponse) -> HttpResponse:
    """A recorded submission: its redirect, as JSON to the page's script (which goes there)."""
    if is_script(request) and response.status_code in (301, 302, 303):
        return JsonResponse({"ok": True, "redirect": response["Location"]})
    return response
