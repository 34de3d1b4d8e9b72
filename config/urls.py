"""URL routes."""

from django.conf import settings
from django.contrib import admin
from django.contrib.auth.decorators import login_required
from django.urls import include, path, re_path
from django.views.static import serve

urlpatterns = [
    path("admin/", admin.site.urls),
    path("accounts/", include("django.contrib.auth.urls")),
    path("", include("papers.urls")),
]

if settings.REDIS_URL:
    urlpatterns.append(path("django-rq/", include("django_rq.urls")))

# Paper images are served only to signed-in users (behind a proxy, X-Accel-Redirect can take over).
urlpatterns.append(
    re_path(
        r"^media/(?P<path>.*)$",
        login_required(serve),
        {"document_root": settings.MEDIA_ROOT},
    )
)
