"""URL routes."""

from django.conf import settings
from django.contrib import admin
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.urls import include, path, re_path
from django.views.static import serve

from annotation.selectors import can_view_media
from annotation.views.common import forbidden


def healthz(request: HttpRequest) -> HttpResponse:
    """Liveness for load balancers, and the baseline of bench/pages.py: no database, no session."""
    return HttpResponse("ok", content_type="text/plain")


urlpatterns = [
    path("healthz", healthz, name="healthz"),
    path("admin/", admin.site.urls),
    path("accounts/", include("annotation.account_urls")),
    path("crawl/", include("papers.urls_crawl")),
    path("", include("workspace.urls")),  # the workspace home and the annotation app's pages
    path("", include("validation.urls")),
    path("", include("annotation.paper_urls")),
]

if settings.REDIS_URL:
    urlpatterns.append(path("django-rq/", include("django_rq.urls")))


@login_required
def media(request: HttpRequest, path: str) -> HttpResponse:
    """Paper images, only to signed-in users who may see that paper (staff: all papers).
    At scale, let a proxy serve them after this check (X-Accel-Redirect)."""
    if not can_view_media(request.user, path):
        return forbidden(request, "This file belongs to a paper that is not assigned to you.")
    return serve(request, path, document_root=settings.MEDIA_ROOT)


urlpatterns.append(re_path(r"^media/(?P<path>.*)$", media))
