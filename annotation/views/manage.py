"""Admins' pages: assignment of papers by subfield, and people (accounts, expert profiles)."""

from __future__ import annotations

from urllib.parse import urlencode

from django.conf import settings
from django.contrib import messages
from django.contrib.auth import get_user_model
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.http import require_POST

from annotation import archiving, lists, timing
from annotation import inputs as parse
from annotation.assignment import acting
from annotation.assignment import selectors as assignment_selectors
from annotation.downloads import csv_download
from annotation.errors import AnnotationError
from annotation.experts import selectors as expert_selectors
from annotation.experts import services as expert_services
from annotation.experts.synthetic import is_synthetic_expert
from annotation.forms import (
    AccountForm,
    ExpertProfileForm,
    PaperFilterForm,
    PaperSelectionForm,
    PublicationForm,
    TrainingForm,
)
from annotation.models import Assignment, ExpertProfile, Publication, Subfield
from annotation.views.common import redirect_back
from papers.access import staff_required

User = get_user_model()
PAGE_SIZE = 100
PEOPLE_PER_PAGE = 50


# --- Assignment ----------------------------------------------------------------------------


@staff_required
def assignments(request: HttpRequest) -> HttpResponse:
    codes = list(Subfield.objects.values_list("code", flat=True))
    if request.method == "POST":
        return _act_on_papers(request)
    data = request.GET.copy()
    if "status" not in data:
        data["status"] = "parsed"
    filters = PaperFilterForm(data, subfield_codes=codes)
    papers = assignment_selectors.papers_for_assignment()
    if filters.is_valid():
        f = filters.cleaned_data
        papers = assignment_selectors.papers_for_assignment(
            subfield=f["subfield"],
            status=f["status"],
            acceptance=f["acceptance"],
            state=f["state"],
            min_tables=f["min_tables"],
            min_charts=f["min_charts"],
            search=f["q"].strip(),
        )
    listing = lists.page_of(request, papers, PAGE_SIZE)
    all_experts = request.GET.get("experts") == "all"
    overview = assignment_selectors.assignment_overview(active_only=not all_experts)
    subfield = filters.cleaned_data.get("subfield") if filters.is_valid() else ""
    # Offered: active experts eligible for the filtered subfield, else for at least one.
    active = [row for row in overview.experts if expert_selectors.is_active_expert(row.user)]
    if subfield:
        eligible = {u.pk for u in expert_selectors.eligible_experts(subfield)}
        expert_options = [row for row in active if row.user.pk in eligible]
    else:
        expert_options = [row for row in active if row.eligible]
    return render(
        request,
        "annotation/assignments.html",
        {
            "filters": filters,
            **listing,
            "overview": overview,
            "all_experts": all_experts,
            "hidden_experts": expert_selectors.experts().count() - len(overview.experts),
            "archived_papers": archiving.archived_paper_count(),
            "subfield": subfield,
            "expert_options": expert_options,
            "subfields": Subfield.objects.all(),
            "query": request.GET.urlencode(),
        },
        status=200 if filters.is_valid() else 400,  # refused filters: their errors show
    )


def _act_on_papers(request: HttpRequest) -> HttpResponse:
    form = PaperSelectionForm(request.POST, expert_choices=acting.expert_choices())
    if not form.is_valid():
        for errors in form.errors.values():
            for error in errors:
                messages.error(request, error)
        return redirect_back(request)
    try:
        done = acting.act_on_papers(form.cleaned_data, by=request.user)
    except AnnotationError as exc:
        messages.error(request, f"Nothing was changed. {exc.message}")
        return redirect_back(request)
    if done.action == "subfield":
        code = done.subfield.code if done.subfield else ""
        messages.success(request, f"Subfield of {done.subfield_set} paper(s) set to {code}.")
    elif done.action == "unassign":
        messages.success(request, f"Unassigned {len(done.unassigned)} paper(s).")
    elif (result := done.assigned) is not None:
        summary = ", ".join(f"{name}: {n}" for name, n in result.count_by_expert().items())
        moved = f" ({len(result.closed)} reassigned)" if result.closed else ""
        messages.success(request, f"Assigned {len(result.created)} paper(s){moved}: {summary}.")
        if result.not_eligible and len(done.chosen) > 1:
            names = "; ".join(f"{name} ({why})" for name, why in result.not_eligible)
            messages.warning(request, f"Given none, not eligible for these papers: {names}.")
    return redirect_back(request)


def _link_days() -> int:
    return max(1, round(settings.PASSWORD_RESET_TIMEOUT / 86400))


# --- People --------------------------------------------------------------------------------


@staff_required
def people(request: HttpRequest) -> HttpResponse:
    form = AccountForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            user, path = expert_services.create_account(
                created_by=request.user, **form.cleaned_data
            )
        except AnnotationError as exc:
            form.add_error("username", exc.message)
        else:
            # The link is shown once, here, and stored nowhere.
            return render(
                request,
                "annotation/reset_link.html",
                {
                    "person": user,
                    "link": request.build_absolute_uri(path),
                    "created": True,
                    "timeout_days": _link_days(),
                },
            )
    filters = lists.PeopleListForm(request.GET or None)
    people_rows = expert_selectors.people(show=filters.value("show"), search=filters.value("q"))
    listing = lists.page_of(request, people_rows, PEOPLE_PER_PAGE)
    users = list(listing["page"].object_list)
    subfields = list(Subfield.objects.all())
    eligibility = expert_selectors.eligibility_by_expert(
        [u.pk for u in users], [s.code for s in subfields]
    )
    workload = assignment_selectors.open_workload([u.pk for u in users])
    times = timing.time_by_expert([u.pk for u in users])
    rows = [
        {
            "user": u,
            "eligible": [c for c, e in eligibility[u.pk].items() if e.eligible],
            "open": workload.get(u.pk, 0),
            "synthetic": is_synthetic_expert(u),
            "archived": bool(u.archived_at),
            "time": times.get(u.pk),
        }
        for u in users
    ]
    return render(
        request,
        "annotation/people.html",
        {
            "form": form,
            "rows": rows,
            "filters": filters,
            **listing,
            "archived_accounts": archiving.archived_account_count(),
            "show": filters.value("show"),
            "elsewhere": _matches_elsewhere(filters, found=listing["page"].paginator.count),
            "cap_minutes": timing.gap_cap_minutes(),
        },
        status=400
        if request.method == "POST" or (filters.is_bound and not filters.is_valid())
        else 200,
    )


def _matches_elsewhere(filters: lists.PeopleListForm, *, found: int) -> dict | None:
    """When a search finds nobody among the people shown, how many it finds among the others
    (inactive or disabled, archived), with the link that shows them all."""
    query, show = filters.value("q"), filters.value("show")
    if found or not query or show == "all":
        return None
    counts = {
        other: expert_selectors.people(show=other, search=query).count()
        for other in ("", "inactive", "archived")
        if other != show
    }
    if not any(counts.values()):
        return None
    parts = [
        f"{n} {'active' if other == '' else other} {'person' if n == 1 else 'people'}"
        for other, n in counts.items()
        if n
    ]
    total = sum(counts.values())
    return {
        "said": f"{' and '.join(parts)} match{'es' if total == 1 else ''}",
        "query": urlencode({"q": query, "show": "all"}),
    }


@staff_required
def people_time_csv(request: HttpRequest) -> HttpResponse:
    """Active time per work item (one row per submitted item), for planning and pay."""
    return csv_download("time-per-item.csv", timing.CSV_FIELDS, timing.item_rows())


@staff_required
@require_POST
def archive_account(request: HttpRequest, user_id: int) -> HttpResponse:
    person = get_object_or_404(User, pk=user_id)
    note = parse.parse_text(
        request.POST.get("note", ""), field="note", max_length=archiving.MAX_NOTE
    )
    try:
        if request.POST.get("action") == "unarchive":
            archiving.unarchive_account(user=person, by=request.user, note=note)
            messages.success(
                request,
                f"{person.get_username()} is shown again; still inactive: tick Active on "
                "their page to give them work.",
            )
        else:
            archiving.archive_account(user=person, by=request.user, note=note)
            messages.success(
                request,
                f"{person.get_username()} archived: hidden from People and Assignment, gets no "
                "work; their work and history are kept.",
            )
    except ExpertProfile.DoesNotExist:
        messages.error(request, f"{person.get_username()} is not archived.")
    except AnnotationError as exc:
        messages.error(request, f"Nothing was changed. {exc.message}")
    return redirect_back(request, default="annotation:people")


def _expert_page(request: HttpRequest, person, *, status: int = 200, **forms) -> HttpResponse:
    profile = expert_services.ensure_expert_profile(user=person)
    subfields = list(Subfield.objects.all())
    eligibility = expert_selectors.eligibility_by_expert([person.pk], [s.code for s in subfields])[
        person.pk
    ]
    context = {
        "person": person,
        "profile": profile,
        "eligibility": [(s, eligibility[s.code]) for s in subfields],
        "publications": profile.publications.select_related("subfield"),
        "trainings": profile.trainings.select_related("recorded_by"),
        "assignments": Assignment.objects.filter(expert=person)
        .select_related("paper")
        .only(
            "id",
            "status",
            "role",
            "created_at",
            "paper__arxiv_id",
            "paper__version",
            "paper__title",
        )[:200],
        "profile_form": forms.get("profile_form")
        or ExpertProfileForm(
            initial={
                "subfields": list(profile.subfields.all()),
                "active": profile.active,
                "notes": profile.notes,
            }
        ),
        "publication_form": forms.get("publication_form") or PublicationForm(),
        "training_form": forms.get("training_form") or TrainingForm(),
    }
    return render(request, "annotation/expert.html", context, status=status)


@staff_required
def expert(request: HttpRequest, user_id: int) -> HttpResponse:
    return _expert_page(request, get_object_or_404(User, pk=user_id))


@staff_required
@require_POST
def expert_profile(request: HttpRequest, user_id: int) -> HttpResponse:
    person = get_object_or_404(User, pk=user_id)
    form = ExpertProfileForm(request.POST)
    if not form.is_valid():
        return _expert_page(request, person, status=400, profile_form=form)
    expert_services.update_expert_profile(
        profile=expert_services.ensure_expert_profile(user=person),
        subfields=form.cleaned_data["subfields"],
        active=form.cleaned_data["active"],
        notes=form.cleaned_data["notes"],
    )
    messages.success(request, f"Profile of {person.get_username()} saved.")
    return redirect("annotation:expert", user_id=person.pk)


@staff_required
@require_POST
def add_publication(request: HttpRequest, user_id: int) -> HttpResponse:
    person = get_object_or_404(User, pk=user_id)
    form = PublicationForm(request.POST)
    if form.is_valid():
        try:
            expert_services.add_publication(
                profile=expert_services.ensure_expert_profile(user=person), **form.cleaned_data
            )
        except AnnotationError as exc:
            form.add_error(None, exc.message)
    if not form.is_valid():
        return _expert_page(request, person, status=400, publication_form=form)
    messages.success(request, "Publication recorded.")
    return redirect(reverse("annotation:expert", args=[person.pk]) + "#publications")


@staff_required
@require_POST
def remove_publication(request: HttpRequest, user_id: int, publication_id: int) -> HttpResponse:
    publication = get_object_or_404(Publication, pk=publication_id, expert__user_id=user_id)
    expert_services.remove_publication(publication=publication)
    messages.success(request, "Publication removed.")
    return redirect(reverse("annotation:expert", args=[user_id]) + "#publications")


@staff_required
@require_POST
def record_training(request: HttpRequest, user_id: int) -> HttpResponse:
    person = get_object_or_404(User, pk=user_id)
    form = TrainingForm(request.POST)
    if form.is_valid():
        try:
            expert_services.record_training(
                profile=expert_services.ensure_expert_profile(user=person),
                recorded_by=request.user,
                **form.cleaned_data,
            )
        except AnnotationError as exc:
            form.add_error(None, exc.message)
    if not form.is_valid():
        return _expert_page(request, person, status=400, training_form=form)
    messages.success(request, "Training recorded.")
    return redirect(reverse("annotation:expert", args=[person.pk]) + "#training")


@staff_required
@require_POST
def reset_password(request: HttpRequest, user_id: int) -> HttpResponse:
    person = get_object_or_404(User, pk=user_id)
    path = expert_services.reset_password(user=person, by=request.user)
    return render(
        request,
        "annotation/reset_link.html",
        {
            "person": person,
            "link": request.build_absolute_uri(path),
            "created": False,
            "timeout_days": _link_days(),
        },
    )
