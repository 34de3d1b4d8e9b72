"""The guideline pages (current, any old version, the admins' editor), the flag form of a task
page, and the admins' flag queue with its fixes. Views parse, call one service, render."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.db.models import Count
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.http import require_http_methods

from annotation import access
from annotation import inputs as parse
from annotation.errors import AnnotationError
from annotation.models import CuratedElement, WorkItem
from annotation.views.common import forbidden, not_yours
from guidelines import services
from guidelines.models import Flag, FlagKind, FlagStatus, GuidelineVersion
from papers.access import staff_required
from papers.models import Element, Paper

MAX_SECTIONS = 60
# Each work item's task page (the flag page links back to it).
TASK_PAGES = {
    "write": "annotation:write",
    "reperturb": "annotation:reperturb",
    "evidence": "annotation:annotate",
    "adjudicate": "annotation:adjudicate",
    "validate": "validation:validate",
    "baseline": "validation:baseline_answer",
}


def _text(
    data, name: str, errors: dict[str, str], max_length: int = services.MAX_BODY, label: str = ""
) -> str:
    """The field's text, whole: longer than `max_length` is recorded in `errors` (the page shows
    it again with the text as typed), never cut."""
    return parse.kept_text(data, name, max_length=max_length, errors=errors, label=label)


@login_required
def current(request: HttpRequest) -> HttpResponse:
    version = services.current_version()
    return render(request, "guidelines/version.html", {"version": version, "latest": version})


@login_required
def version(request: HttpRequest, number: int) -> HttpResponse:
    shown = get_object_or_404(GuidelineVersion, number=number)
    latest = services.current_version()
    return render(request, "guidelines/version.html", {"version": shown, "latest": latest})


@login_required
def versions(request: HttpRequest) -> HttpResponse:
    rows = GuidelineVersion.objects.select_related("created_by").order_by("-number")
    return render(request, "guidelines/versions.html", {"versions": rows})


def _posted_sections(data, errors: dict[str, str]) -> list[dict]:
    """The sections as posted (the last one is the "new section"), each with the messages of
    its refused fields (`errors`: every field's, by name)."""
    count = min(parse.parse_int(data.get("count"), field="count", default=0), MAX_SECTIONS)
    sections = []
    for i in range(count + 1):
        mine: dict[str, str] = {}
        section = {
            name: _text(data, f"{name}-{i}", mine, limit, f"Section {i + 1}'s {what}")
            for name, limit, what in (
                ("key", services.MAX_KEY, "key"),
                ("title", services.MAX_TITLE, "title"),
                ("body", services.MAX_BODY, "text"),
            )
        }
        if mine:
            section["errors"] = list(mine.values())
            errors.update(mine)
        sections.append(section)
    return sections


def _published(section: dict) -> dict[str, str]:
    return {name: section[name] for name in ("key", "title", "body")}


@staff_required
@require_http_methods(["GET", "POST"])
def edit(request: HttpRequest) -> HttpResponse:
    latest = services.current_version()
    sections = list(latest.sections) if latest else []
    based_on, note, error = (latest.number if latest else 0), "", ""
    errors: dict[str, str] = {}
    if request.method == "POST":
        sections = _posted_sections(request.POST, errors)
        based_on = parse.parse_int(request.POST.get("based_on"), field="based_on", default=0)
        note = _text(request.POST, "note", errors, services.MAX_NOTE, "What changed")
        try:
            if errors:  # nothing is published, nothing is cut: the page keeps every text
                raise services.GuidelineError("Nothing was published: " + " ".join(errors.values()))
            published = services.publish_guidelines(
                by=request.user,
                sections=[_published(s) for s in sections],
                note=note,
                based_on=based_on,
            )
        except AnnotationError as exc:
            error = exc.message
            sections = [s for s in sections if s["title"] or s["body"]]
        else:
            messages.success(request, f"Published version {published.number}.")
            return redirect("guidelines:current")
    context = {
        "sections": sections,
        "count": len(sections),
        "based_on": based_on,
        "note": note,
        "error": error,
        "errors": errors,
        "latest": latest,
        "limits": services.LIMITS,
    }
    return render(request, "guidelines/edit.html", context, status=400 if error else 200)


# --- Flags -----------------------------------------------------------------------------------


def _shown_elements(context_id: int | None, paper_id: int) -> list[Element]:
    if context_id is None:
        return list(Element.objects.filter(paper_id=paper_id).order_by("order"))
    ids = CuratedElement.objects.filter(context_id=context_id, in_context=True).values("element_id")
    return list(Element.objects.filter(pk__in=ids).order_by("order"))


def _flag_page(request, *, item=None, paper=None, context_id=None, back=""):
    paper_id = item.paper_id if item is not None else paper.pk
    error, form = "", {"kind": "", "note": "", "element": request.GET.get("element", "")}
    errors: dict[str, str] = {}
    if request.method == "POST":
        form = {
            k: _text(request.POST, k, errors, services.MAX_NOTE)
            for k in ("kind", "note", "element")
        }
        element_id = None
        if form["element"] and "element" not in errors:
            element_id = parse.parse_int(form["element"], field="element", min=1)
        try:
            if errors:  # nothing is flagged, nothing is cut: the page keeps the note
                raise services.GuidelineError("Nothing was flagged: " + " ".join(errors.values()))
            services.raise_flag(
                user=request.user,
                kind=form["kind"],
                note=form["note"],
                item=item,
                paper=paper,
                element_id=element_id,
            )
        except AnnotationError as exc:
            if exc.reason == "forbidden":
                return forbidden(request, exc.message)
            error = exc.message
        else:
            messages.success(request, "Flagged: an admin will look at it.")
            return redirect(request.path)
    # Only the requester's own flags: a blind annotator never sees anyone else's on this claim.
    mine = Flag.objects.filter(by=request.user, paper_id=paper_id).select_related("element")
    mine = mine.filter(item=item) if item is not None else mine.filter(item__isnull=True)
    elements = _shown_elements(context_id, paper_id)
    context = {
        "item": item,
        "flag_paper": paper,
        "elements": elements,
        "kinds": FlagKind.choices,
        "form": form,
        "error": error,
        "errors": errors,
        "mine": mine,
        "back": back,
        "limits": services.LIMITS,
    }
    return render(request, "guidelines/flag.html", context, status=400 if error else 200)


@login_required
@require_http_methods(["GET", "POST"])
def flag_item(request: HttpRequest, item_key: str) -> HttpResponse:
    item = get_object_or_404(WorkItem.objects.select_related("pair", "task"), key=item_key)
    if not access.worked_on(request.user, item):
        return not_yours(request, item)
    back = reverse(TASK_PAGES[item.kind], args=[item.key]) if item.kind in TASK_PAGES else ""
    return _flag_page(request, item=item, context_id=services.item_context_id(item), back=back)


@login_required
@require_http_methods(["GET", "POST"])
def flag_paper(request: HttpRequest, paper_id: int) -> HttpResponse:
    paper = get_object_or_404(Paper, pk=paper_id)
    if not access.writes_paper(request.user, paper.pk):
        return forbidden(request, f"{paper.versioned_id} is not assigned to you.")
    return _flag_page(
        request,
        paper=paper,
        back=reverse("annotation:curate", args=[paper.arxiv_id, paper.version]),
    )


@staff_required
def queue(request: HttpRequest) -> HttpResponse:
    status = request.GET.get("status", FlagStatus.OPEN)
    if status not in FlagStatus.values:
        raise parse.BadInput(f"status: one of {', '.join(FlagStatus.values)}.", field="status")
    flags = (
        Flag.objects.filter(status=status)
        .select_related("paper", "element", "item", "by")
        .order_by("at", "id")[:500]
    )
    counts = dict(Flag.objects.values_list("status").annotate(n=Count("id")).order_by())
    statuses = [(value, text, counts.get(value, 0)) for value, text in FlagStatus.choices]
    return render(
        request, "guidelines/queue.html", {"flags": flags, "status": status, "statuses": statuses}
    )


ACTIONS = ("edit", "mark", "rerender", "fixed", "dismissed")


@staff_required
@require_http_methods(["GET", "POST"])
def flag_detail(request: HttpRequest, pk: int) -> HttpResponse:
    flag = get_object_or_404(Flag.objects.select_related("paper", "element", "item", "by"), pk=pk)
    error = ""
    errors: dict[str, str] = {}
    posted: dict[str, str | None] = {}
    if request.method == "POST":
        action = request.POST.get("action", "")
        if action not in ACTIONS:
            raise Http404
        # What the admin typed, whole (a refused form shows it again, nothing is cut).
        posted = {"action": action, "note": _text(request.POST, "note", errors, services.MAX_NOTE)}
        for name in ("caption", "text"):
            posted[name] = _text(request.POST, name, errors) if name in request.POST else None
        try:
            if errors:
                raise services.GuidelineError("Nothing was recorded: " + " ".join(errors.values()))
            if action == "edit":
                services.edit_flagged_element(
                    flag=flag,
                    by=request.user,
                    note=posted["note"],
                    caption=posted["caption"],
                    text=posted["text"],
                )
            elif action == "mark":
                services.mark_flagged_element(flag=flag, by=request.user, reason=posted["note"])
            elif action == "rerender":
                job = services.start_rerender(flag=flag, by=request.user)
            else:
                services.close_flag(flag=flag, by=request.user, status=action, note=posted["note"])
        except AnnotationError as exc:
            error = exc.message
        else:
            if action == "rerender":
                messages.success(
                    request,
                    f"Re-render started in the background (job {job.pk}): "
                    "its progress is shown on this page.",
                )
            else:
                messages.success(request, "Recorded.")
            return redirect("guidelines:flag", pk=flag.pk)
    # The latest re-render's job: htmx asks this page for its status until it ends.
    rerender = services.rerender_jobs(flag).first()
    if request.method == "GET" and request.headers.get("HX-Request"):
        response = render(
            request, "guidelines/_rerender_status.html", {"flag": flag, "rerender": rerender}
        )
        if rerender is None or not rerender.is_active:
            response["HX-Refresh"] = "true"  # it ended: the whole page, with the image and fix
        return response
    fixes = flag.fixes.select_related("by")
    return render(
        request,
        "guidelines/flag_detail.html",
        {
            "flag": flag,
            "fixes": fixes,
            "error": error,
            "errors": errors,
            "posted": posted,
            "rerender": rerender,
            "limits": services.LIMITS,
        },
        status=400 if error else 200,
    )
