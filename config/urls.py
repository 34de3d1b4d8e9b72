"""URL routes."""

from django.conf import settings
from django.contrib import admin
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.urls import include, path, re_path
from django.views.static import serve

urlpatterns = [
    path("admin/", admin.site.urls),
    path("accounts/", include("django.contrib.auth.urls")),
    path("", include("papers.urls")),
]

if settings.REDIS_URL:
    urlpatterns.append(path("django-rq/", include("django_rq.urls")))



@login_required
def media(request: HttpRequest, path: str) -> HttpResponse:
    """Paper images, for signed-in users only (at scale, let a proxy serve them internally)."""
    return serve(request, path, document_root=settings.MEDIA_ROOT)


urlpatterns.append(re_path(r"^media/(?P<path>.*)$", media))
