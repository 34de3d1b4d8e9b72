"""API routes of model evaluation (admins only, the default permission): the endpoints a run may
use, runs started as the runs page starts them (the same form, the same guard on hidden test
claims), their status and scores, and each record's outcome."""

from __future__ import annotations

from django.shortcuts import get_object_or_404
from django.urls import URLPattern, path
from drf_spectacular.utils import extend_schema
from rest_framework import status
from rest_framework.generics import GenericAPIView
from rest_framework.request import Request
from rest_framework.response import Response

from api.errors import Refused
from api.forms import read
from api.pagination import Ascending
from api.serializers_releases import (
    EndpointSerializer,
    NewRun,
    OutcomeSerializer,
    RunSerializer,
)
from evaluation import services
from evaluation.client import is_local
from evaluation.models import EvaluationRun
from evaluation.release import EvaluationError
from evaluation.views import RunForm


def _runs():
    return EvaluationRun.objects.select_related("job", "hidden_confirmed_by")


class ByRequestId(Ascending):
    """A run's outcomes in the order its downloads list them (request ids are unique)."""

    ordering = "request_id"


class Endpoints(GenericAPIView):
    """The endpoints a run may use (EVALUATION_ENDPOINTS), by name, as the runs page offers
    them; `local` is whether requests stay on this machine (hidden test claims go elsewhere
    only with `confirm_remote`)."""

    serializer_class = EndpointSerializer
    pagination_class = None

    @extend_schema(responses=EndpointSerializer(many=True))
    def get(self, request: Request) -> Response:
        rows = [
            {
                "name": name,
                "url": endpoint["url"],
                "key_variable": endpoint.get("key_variable") or "",
                "local": is_local(endpoint["url"]),
            }
            for name, endpoint in sorted(services.endpoint_choices().items())
        ]
        return Response(EndpointSerializer(rows, many=True, context={"request": request}).data)


class Runs(GenericAPIView):
    """The runs, newest first; POST starts one on a finished export as the runs page does."""

    queryset = _runs()
    serializer_class = RunSerializer

    @extend_schema(responses=RunSerializer(many=True))
    def get(self, request: Request) -> Response:
        page = self.paginate_queryset(self.get_queryset())
        return self.get_paginated_response(
            RunSerializer(page, many=True, context={"request": request}).data
        )

    @extend_schema(request=NewRun, responses={202: RunSerializer})
    def post(self, request: Request) -> Response:
        values = read(RunForm, request.data)
        try:
            run = services.start_run_from(values, by=request.user)
        except EvaluationError as exc:
            raise Refused(str(exc)) from exc
        data = RunSerializer(
            get_object_or_404(_runs(), pk=run.pk), context={"request": request}
        ).data
        return Response(data, status=status.HTTP_202_ACCEPTED, headers={"Location": data["url"]})


class RunDetail(GenericAPIView):
    """A run: its job's status and progress, and its scores once scored."""

    serializer_class = RunSerializer
    pagination_class = None

    @extend_schema(responses=RunSerializer)
    def get(self, request: Request, run_id: int) -> Response:
        return Response(
            RunSerializer(get_object_or_404(_runs(), pk=run_id), context={"request": request}).data
        )


class RunOutcomes(GenericAPIView):
    """A run's outcome per record (as its outcomes download lists them), by request id."""

    serializer_class = OutcomeSerializer
    pagination_class = ByRequestId

    @extend_schema(responses=OutcomeSerializer(many=True))
    def get(self, request: Request, run_id: int) -> Response:
        run = get_object_or_404(EvaluationRun, pk=run_id)
        page = self.paginate_queryset(services.run_outcomes(run))
        return self.get_paginated_response(
            OutcomeSerializer(page, many=True, context={"request": request}).data
        )


urlpatterns: list[URLPattern] = [
    path("evaluation/endpoints/", Endpoints.as_view(), name="endpoints"),
    path("evaluation/runs/", Runs.as_view(), name="runs"),
    path("evaluation/runs/<id:run_id>/", RunDetail.as_view(), name="run"),
    path("evaluation/runs/<id:run_id>/outcomes/", RunOutcomes.as_view(), name="run_outcomes"),
]
