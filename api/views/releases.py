"""API routes of the release manager (admins only, the default permission): frozen splits, made
as the releases page makes them; exports of a split, their status, archive and hidden test
labels; and check_release's verdict on an export's folder."""

from __future__ import annotations

from pathlib import Path

from django.conf import settings
from django.http import FileResponse, Http404
from django.shortcuts import get_object_or_404
from django.urls import URLPattern, path
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import status
from rest_framework.generics import GenericAPIView
from rest_framework.request import Request
from rest_framework.response import Response

from annotation.errors import AnnotationError
from api.errors import Refused
from api.forms import read
from api.serializers_releases import (
    CheckSerializer,
    ExportSerializer,
    NewExport,
    NewSplit,
    SplitSerializer,
)
from jobs.models import Job
from validation.export import services as export_services
from validation.forms import SplitForm
from validation.models import ReleaseExport, SplitVersion
from validation.release import ReleaseError
from validation.release_check import inspect_release
from validation.split import services as split_services
from validation.split.rules import SplitError

ZIP = OpenApiResponse(OpenApiTypes.BINARY, description="The file, as an attachment")


def _exports():
    return ReleaseExport.objects.select_related("split", "job")


def _export(export_id: int) -> ReleaseExport:
    return get_object_or_404(_exports(), pk=export_id)


class Splits(GenericAPIView):
    """The frozen splits, newest first; POST freezes a new one as the releases page does."""

    queryset = SplitVersion.objects.select_related("created_by")
    serializer_class = SplitSerializer

    @extend_schema(responses=SplitSerializer(many=True))
    def get(self, request: Request) -> Response:
        page = self.paginate_queryset(self.get_queryset())
        return self.get_paginated_response(
            SplitSerializer(page, many=True, context={"request": request}).data
        )

    @extend_schema(request=NewSplit, responses={201: SplitSerializer})
    def post(self, request: Request) -> Response:
        values = read(SplitForm, request.data)
        try:
            split = split_services.freeze_split_from_form(values, by=request.user)
        except (SplitError, AnnotationError) as exc:
            raise Refused(str(exc)) from exc
        return Response(
            SplitSerializer(split, context={"request": request}).data,
            status=status.HTTP_201_CREATED,
        )


class SplitDetail(GenericAPIView):
    """One frozen split."""

    serializer_class = SplitSerializer
    pagination_class = None

    @extend_schema(responses=SplitSerializer)
    def get(self, request: Request, split_id: int) -> Response:
        split = get_object_or_404(SplitVersion.objects.select_related("created_by"), pk=split_id)
        return Response(SplitSerializer(split, context={"request": request}).data)


class SplitExports(GenericAPIView):
    """Start an export of the split (a background job), as the releases page's button does."""

    serializer_class = ExportSerializer
    pagination_class = None

    @extend_schema(request=NewExport, responses={202: ExportSerializer})
    def post(self, request: Request, split_id: int) -> Response:
        split = get_object_or_404(SplitVersion, pk=split_id)
        flags = read(export_services.ExportForm, request.data)
        try:
            export = export_services.start_export(split=split, by=request.user, **flags)
        except ReleaseError as exc:
            raise Refused(str(exc)) from exc
        export = _export(export.pk)  # as it stands now (inline jobs have finished)
        headers = {"Location": ExportSerializer(export, context={"request": request}).data["url"]}
        return Response(
            ExportSerializer(export, context={"request": request}).data,
            status=status.HTTP_202_ACCEPTED,
            headers=headers,
        )


class Exports(GenericAPIView):
    """Every export, newest first."""

    queryset = _exports()
    serializer_class = ExportSerializer

    @extend_schema(responses=ExportSerializer(many=True))
    def get(self, request: Request) -> Response:
        page = self.paginate_queryset(self.get_queryset())
        return self.get_paginated_response(
            ExportSerializer(page, many=True, context={"request": request}).data
        )


class ExportDetail(GenericAPIView):
    """An export's status (its job's), its manifest once written, and its files' URLs."""

    serializer_class = ExportSerializer
    pagination_class = None

    @extend_schema(responses=ExportSerializer)
    def get(self, request: Request, export_id: int) -> Response:
        return Response(ExportSerializer(_export(export_id), context={"request": request}).data)


class ExportDownload(GenericAPIView):
    """The export's zip (what the export page's download link sends)."""

    pagination_class = None

    @extend_schema(responses={200: ZIP})
    def get(self, request: Request, export_id: int) -> FileResponse:
        path = export_services.archive_file(_export(export_id))
        if path is None:
            raise Http404("This export has no archive (yet).")
        return FileResponse(open(path, "rb"), as_attachment=True, filename=path.name)


class ExportLabels(GenericAPIView):
    """The hidden test labels an export wrote beside its folder (never in the zip): the
    organisers' answers, for admins only."""

    pagination_class = None

    @extend_schema(responses={200: OpenApiResponse(OpenApiTypes.BINARY, description="JSON")})
    def get(self, request: Request, export_id: int) -> FileResponse:
        path = export_services.labels_file(_export(export_id))
        if path is None or not path.is_file():
            raise Http404("This export wrote no hidden test labels.")
        return FileResponse(
            open(path, "rb"),
            as_attachment=True,
            filename=path.name,
            content_type="application/json",
        )


class ExportCheck(GenericAPIView):
    """check_release on the export's folder: the same problems and warnings as the command
    (`validation.release_check.inspect_release` with ARTIFACT_MARGIN). 409 until finished."""

    serializer_class = CheckSerializer
    pagination_class = None

    @extend_schema(responses=CheckSerializer)
    def get(self, request: Request, export_id: int) -> Response:
        export = _export(export_id)
        if export.job is None or export.job.status != Job.Status.FINISHED:
            state = export.job.status if export.job else Job.Status.QUEUED
            raise Refused(f"The export is {state}, not finished: there is nothing to check yet.")
        root = Path(export.out)
        if not root.is_dir():
            raise Refused(f"The export's folder {root} is gone.")
        report = inspect_release(root, artifact_margin=settings.ARTIFACT_MARGIN)
        body = {"ok": not report.problems, "problems": report.problems, "warnings": report.warnings}
        return Response(CheckSerializer(body, context={"request": request}).data)


urlpatterns: list[URLPattern] = [
    path("splits/", Splits.as_view(), name="splits"),
    path("splits/<id:split_id>/", SplitDetail.as_view(), name="split"),
    path("splits/<id:split_id>/exports/", SplitExports.as_view(), name="split_exports"),
    path("exports/", Exports.as_view(), name="exports"),
    path("exports/<id:export_id>/", ExportDetail.as_view(), name="export"),
    path("exports/<id:export_id>/download/", ExportDownload.as_view(), name="export_download"),
    path("exports/<id:export_id>/labels/", ExportLabels.as_view(), name="export_labels"),
    path("exports/<id:export_id>/check/", ExportCheck.as_view(), name="export_check"),
]
