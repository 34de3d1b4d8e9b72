"""The HTTP API under /api/: its OpenAPI 3 schema, the browsable docs, and every route (each
module of api/views holds its routes)."""

from django.urls import path, re_path
from drf_spectacular.utils import extend_schema
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerSplitView
from rest_framework.decorators import api_view, permission_classes
from rest_framework.permissions import AllowAny

import annotation.keys  # noqa: F401  (registers the <key:…>, <id:…> and <arxiv:…> converters)
from api.errors import not_found
from api.views import evaluation, me, papers, people, releases

app_name = "api"

urlpatterns = [
    path("schema/", SpectacularAPIView.as_view(), name="schema"),
    path("docs/", SpectacularSwaggerSplitView.as_view(url_name="api:schema"), name="docs"),
    *papers.urlpatterns,
    *people.urlpatterns,
    *releases.urlpatterns,
    *evaluation.urlpatterns,
    *me.urlpatterns,
]

# Last: an address no route above takes answers 404 in the API's JSON shape.
unknown = extend_schema(exclude=True)(
    api_view(["GET", "POST", "PUT", "PATCH", "DELETE"])(permission_classes([AllowAny])(not_found))
)
urlpatterns.append(re_path(r"^(?P<path>.*)$", unknown, name="unknown"))
