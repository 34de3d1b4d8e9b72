"""API routes of the signed-in person's own work (anyone signed in): the counts their workspace
home shows, and the work items they finished. Only their own, and nothing of any item's
answer: a blind annotator learns nothing of another's label or evidence here (the blind work
itself stays on the pages)."""

from __future__ import annotations

from dataclasses import asdict

from django.urls import URLPattern, path
from drf_spectacular.utils import extend_schema
from rest_framework.generics import GenericAPIView
from rest_framework.request import Request
from rest_framework.response import Response

from api.permissions import IsSignedIn
from api.serializers_releases import MeSerializer, MyItemSerializer
from workspace import selectors as workspace_selectors


class Me(GenericAPIView):
    """The signed-in person's workspace counts: papers to curate and curated, claim pairs
    written, and per stage the items waiting for them and those they finished."""

    permission_classes = [IsSignedIn]
    serializer_class = MeSerializer
    pagination_class = None

    @extend_schema(responses=MeSerializer)
    def get(self, request: Request) -> Response:
        counts = workspace_selectors.home_counts(request.user)
        ws = counts.workspace
        body = {
            "username": request.user.get_username(),
            "is_admin": request.user.is_staff,
            "papers": {
                "assigned": ws.assigned,
                "to_curate": len(ws.to_curate),
                "curated": len(ws.curated),
                "ready_for_claims": ws.ready,
            },
            "pairs_written": counts.pairs_written,
            "stages": [asdict(stage) for stage in counts.stages],
        }
        return Response(MeSerializer(body, context={"request": request}).data)


class MyItems(GenericAPIView):
    """The work items the signed-in person finished, newest first: kind, key, when, paper."""

    permission_classes = [IsSignedIn]
    serializer_class = MyItemSerializer

    @extend_schema(responses=MyItemSerializer(many=True))
    def get(self, request: Request) -> Response:
        page = self.paginate_queryset(workspace_selectors.finished_items(request.user))
        return self.get_paginated_response(
            MyItemSerializer(page, many=True, context={"request": request}).data
        )


urlpatterns: list[URLPattern] = [
    path("me/", Me.as_view(), name="me"),
    path("me/items/", MyItems.as_view(), name="me_items"),
]
