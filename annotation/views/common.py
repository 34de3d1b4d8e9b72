"""What the annotation views share: the staff-only guard, the 403 page, the answer to someone
who may not open a work item and the one rule for the images of an item's context."""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render


def forbidden(request: HttpRequest, message: str) -> HttpResponse:
    return render(request, "annotation/forbidden.html", {"message": message}, status=403)


def not_yours(request: HttpRequest, item) -> HttpResponse:
    """The answer to someone who may not open a work item: why, if they held it or are named
    for it; otherwise 404, the very answer an item that does not exist gets (one answer for every
    item the requester never held: blindness must not leak through status codes)."""
    from django.http import Http404

    from annotation import work

    why = work.lost_reason(item, request.user)
    if why is None:
        raise Http404
    return forbidden(request, why)


def item_image(request: HttpRequest, item, element_id: int, *, may_see: bool) -> HttpResponse:
    """The one image rule, at every stage: an element's image goes to those who may see a work
    item only for an element of that item's curated context (an element the curator removed is
    404, as is one of another paper)."""
    from django.http import Http404

    from annotation.models import CuratedElement

    if not may_see:
        return not_yours(request, item)
    in_context = CuratedElement.objects.filter(
        context__claim_pairs=item.pair_id, element_id=element_id, in_context=True
    ).exists()
    if not in_context:
        raise Http404
    return element_image(paper_id=item.paper_id, element_id=element_id)


def staff_required(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
    """Sign-in first (anonymous: to the login page), then staff only (others: 403)."""

    @login_required
    @wraps(view)
    def guarded(request: HttpRequest, *args, **kwargs) -> HttpResponse:
        if not request.user.is_staff:
            return forbidden(request, "Only admins can open this page.")
        return view(request, *args, **kwargs)

    return guarded


def autosave_draft(request: HttpRequest, item, form_class) -> HttpResponse:
    """The autosave endpoint every work page shares: JSON draft in, JSON answer out. A refused
    draft stays in the browser, which shows why (400 unreadable, 409 stale, 403 not yours)."""
    import json

    from django.http import JsonResponse
    from django.utils import timezone

    from annotation import work

    try:
        body = json.loads(request.body or b"{}")
        draft = form_class.from_data(body.get("draft") or {})
    except (ValueError, AttributeError):
        return JsonResponse({"error": "The draft could not be read."}, status=400)
    try:
        version = int(body["version"]) if str(body.get("version", "")).isdigit() else None
        saved = work.save_draft(
            item=item, user=request.user, version=version, draft=draft.as_draft()
        )
    except work.StaleWork as exc:
        return JsonResponse({"error": exc.message}, status=409)
    except work.NotHolder as exc:
        if work.lost_reason(item, request.user) is None and not request.user.is_staff:
            from django.http import Http404

            raise Http404 from exc
        return JsonResponse({"error": exc.message}, status=403)
    return JsonResponse(
        {
            "saved_at": timezone.localtime(saved.draft_saved_at).strftime("%H:%M:%S"),
            "lease_expires_at": saved.lease_expires_at.isoformat(),
        }
    )


def element_image(*, paper_id: int, element_id: int) -> HttpResponse:
    """A table/chart image of the paper, once the caller has checked the user may see it."""
    import mimetypes

    from django.http import FileResponse, Http404
    from django.shortcuts import get_object_or_404

    from papers.models import Element

    element = get_object_or_404(
        Element.objects.only("id", "image"), pk=element_id, paper_id=paper_id
    )
    if not element.image:
        raise Http404("No image.")
    try:
        handle = element.image.open("rb")
    except FileNotFoundError as exc:
        raise Http404("No image file.") from exc
    content_type = mimetypes.guess_type(element.image.name)[0] or "application/octet-stream"
    return FileResponse(handle, content_type=content_type)
