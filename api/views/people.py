"""API routes: people (the People page's list, a person's page), assignment of papers (the
assignment page's form), and the figures admins watch (progress per stage, agreement).
Admins only, as the pages."""

from __future__ import annotations

from typing import Any

from django.contrib.auth import get_user_model
from django.db.models import Count
from django.http import Http404
from django.urls import URLPattern, path
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework.generics import GenericAPIView
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from annotation import lists
from annotation.assignment import acting
from annotation.assignment import selectors as assignment_selectors
from annotation.experts import selectors as expert_selectors
from annotation.forms import PaperSelectionForm
from annotation.models import ExpertProfile, Publication, Subfield, Training, WorkKind
from annotation.queue import work
from annotation.review import selectors as review_selectors
from annotation.review import stats
from annotation.writing import selectors as writing_selectors
from api import links
from api import serializers_papers as out
from api.forms import read
from api.pagination import Cursor
from papers.models import Paper
from validation import selectors as validation_selectors

User = get_user_model()


class PeopleList(GenericAPIView):
    """The People page's accounts, filtered as it is (`show`, `q`), each with the subfields
    they are eligible for and their open workload."""

    pagination_class = Cursor
    serializer_class = out.PersonSerializer

    @extend_schema(
        parameters=[
            OpenApiParameter("show", str, description="'' active, inactive, archived, all"),
            OpenApiParameter("q", str, description="In the username and names"),
        ],
        responses=out.PersonSerializer(many=True),
    )
    def get(self, request: Request) -> Response:
        f = read(lists.PeopleListForm, request.query_params)
        people = expert_selectors.people(show=f["show"], search=f["q"].strip())
        users = list(self.paginate_queryset(people) or [])
        ids = [u.pk for u in users]
        codes = list(Subfield.objects.values_list("code", flat=True))
        eligibility = expert_selectors.eligibility_by_expert(ids, codes)
        workload = assignment_selectors.open_workload(ids)
        context = {"request": request}
        profiles = {u.pk: _profile(u) for u in users}
        rows = [
            {
                "id": u.pk,
                "username": u.get_username(),
                "first_name": u.first_name,
                "last_name": u.last_name,
                "is_staff": u.is_staff,
                "is_active": u.is_active,
                "has_profile": profiles[u.pk] is not None,
                "profile_active": profiles[u.pk].active if profiles[u.pk] else None,
                "archived": u.archived_at is not None,
                "eligible": [c for c, e in eligibility[u.pk].items() if e.eligible],
                "open_workload": workload.get(u.pk, 0),
                "url": links.absolute(context, "api:person", u.pk),
            }
            for u in users
        ]
        return self.get_paginated_response(out.PersonSerializer(rows, many=True).data)


def _profile(user: Any) -> ExpertProfile | None:
    try:
        return user.expert
    except ExpertProfile.DoesNotExist:
        return None


class PersonDetail(APIView):
    """A person's page: account, expert profile, eligibility per subfield (and why not),
    publications, training and open workload. Reading it creates no profile."""

    @extend_schema(responses=out.PersonDetailSerializer)
    def get(self, request: Request, user_id: int) -> Response:
        person = User.objects.select_related("expert").filter(pk=user_id).first()
        if person is None:
            raise Http404(f"No account #{user_id}.")
        profile = _profile(person)
        publications = Publication.objects.filter(expert__user=person).select_related("subfield")
        trainings = Training.objects.filter(expert__user=person).select_related("recorded_by")
        body = {
            "id": person.pk,
            "username": person.get_username(),
            "first_name": person.first_name,
            "last_name": person.last_name,
            "email": person.email,
            "is_staff": person.is_staff,
            "is_active": person.is_active,
            "active_expert": expert_selectors.is_active_expert(person),
            "profile": (
                {
                    "active": profile.active,
                    "archived": profile.archived_at is not None,
                    "notes": profile.notes,
                    "subfields": [s.code for s in profile.subfields.all()],
                }
                if profile
                else None
            ),
            "subfields": [
                {
                    "code": subfield.code,
                    "name": subfield.name,
                    "declared": e.declared,
                    "publications": e.publications,
                    "required": e.required,
                    "eligible": e.eligible,
                    "reasons": e.reasons,
                }
                for subfield, e in expert_selectors.subfields_with_eligibility(person.pk)
            ],
            "publications": [
                {
                    "id": p.pk,
                    "title": p.title,
                    "venue": p.venue,
                    "year": p.year,
                    "subfield": p.subfield.code,
                }
                for p in publications
            ],
            "training": [
                {
                    "id": t.pk,
                    "completed_on": t.completed_on,
                    "trainer": t.trainer,
                    "notes": t.notes,
                    "recorded_by": t.recorded_by.get_username() if t.recorded_by else None,
                }
                for t in trainings
            ],
            "open_workload": assignment_selectors.open_workload([person.pk]).get(person.pk, 0),
            "page_url": links.absolute({"request": request}, "annotation:expert", person.pk),
        }
        return Response(out.PersonDetailSerializer(body).data)


class Assignments(APIView):
    """The assignment page's action on selected papers (its form, its services): assign to one
    expert, spread over several, unassign, or choose their subfield."""

    @extend_schema(request=out.AssignmentAction, responses=out.AssignmentDoneSerializer)
    def post(self, request: Request) -> Response:
        values = read(PaperSelectionForm, request.data, expert_choices=acting.expert_choices())
        done = acting.act_on_papers(values, by=request.user)
        result = done.assigned
        created = result.created if result else []
        body = {
            "action": done.action,
            "papers": [p.pk for p in done.papers],
            "assigned": [
                {
                    "assignment_id": a.pk,
                    "paper_id": a.paper_id,
                    "paper": a.paper.versioned_id,
                    "expert_id": a.expert_id,
                    "expert": a.expert.get_username(),
                }
                for a in created
            ],
            "reassigned": len(result.closed) if result else 0,
            "by_expert": result.count_by_expert() if result else {},
            "not_eligible": [{"expert": name, "reason": why} for name, why in result.not_eligible]
            if result
            else [],
            "left_over": [p.pk for p in result.left_over] if result else [],
            "unassigned": len(done.unassigned),
            "subfield": done.subfield.code if done.subfield else None,
            "subfield_set": done.subfield_set,
        }
        return Response(out.AssignmentDoneSerializer(body).data)


def _papers_by_status() -> dict[str, int]:
    """Live papers by status, and how many are archived (left out of every other figure)."""
    counts = dict.fromkeys(Paper.Status.values, 0)
    live = Paper.objects.filter(archived_at__isnull=True).order_by()
    counts |= dict(live.values("status").annotate(n=Count("id")).values_list("status", "n"))
    counts["archived"] = Paper.objects.filter(archived_at__isnull=False).count()
    return counts


def _validation() -> dict[str, Any]:
    """The validation overview's counts (validation/views.py `overview`), from its selectors."""
    waiting, _ = work.waiting_items(kind=WorkKind.VALIDATE)
    back, _ = work.waiting_items(kind=WorkKind.REPERTURB)
    live = validation_selectors.live_validations()
    splittable, _ = validation_selectors.complete_pair_ids()
    return {
        "counts": work.status_counts(WorkKind.VALIDATE),
        "waiting": waiting + back,
        "validated": live.filter(status="validated").count(),
        "revised": live.filter(revisions__gt=0).count(),
        "pending": live.filter(status="pending").count(),
        "splittable": len(splittable),
    }


class ProgressFigures(APIView):
    """What admins watch on their home and overview pages, per stage: papers, assignment
    (per subfield and expert), claim writing, review (claims by state) and validation."""

    @extend_schema(responses=out.ProgressFiguresSerializer)
    def get(self, request: Request) -> Response:
        overview = assignment_selectors.assignment_overview()
        writing = writing_selectors.writing_overview()
        review = review_selectors.review_overview()
        body = {
            "papers": _papers_by_status(),
            "assignment": {
                "subfields": [
                    {
                        "code": row.code,
                        "name": row.subfield.name if row.subfield else None,
                        "waiting": row.waiting,
                        "eligible_experts": row.eligible_experts,
                    }
                    for row in overview.subfields
                ],
                "experts": [
                    {
                        "username": row.user.get_username(),
                        "eligible": row.eligible,
                        "to_curate": row.to_curate,
                        "curated": row.curated,
                        "contexts_saved": row.contexts_saved,
                        "claim_pairs": row.claim_pairs,
                    }
                    for row in overview.experts
                ],
            },
            "writing": {
                "counts": writing.counts,
                "waiting": writing.waiting_total,
                "writers": [
                    {"username": name, "pairs": pairs, "held": held}
                    for name, pairs, held in writing.written_by
                ],
            },
            "review": {
                "states": review.states,
                "waiting": review.waiting_total,
                "unresolved": len(review.unresolved),
                "flagged": len(review.flagged),
                "dropped": len(review.dropped),
            },
            "validation": _validation(),
        }
        return Response(out.ProgressFiguresSerializer(body).data)


class Agreement(APIView):
    """The agreement statistics page's figures as numbers: overall, per subset, subfield,
    annotator pair and blindness (label percent, Cohen's kappa, evidence Jaccard), the
    adjudications and the progress per day."""

    @extend_schema(responses=out.AgreementSerializer)
    def get(self, request: Request) -> Response:
        summary = stats.agreement_summary()
        body = {**summary.as_dict(), "archived_papers": summary.archived_papers}
        return Response(out.AgreementSerializer(body).data)


urlpatterns: list[URLPattern] = [
    path("people/", PeopleList.as_view(), name="people"),
    path("people/<id:user_id>/", PersonDetail.as_view(), name="person"),
    path("assignments/", Assignments.as_view(), name="assignments"),
    path("progress/", ProgressFigures.as_view(), name="progress"),
    path("agreement/", Agreement.as_view(), name="agreement"),
]
