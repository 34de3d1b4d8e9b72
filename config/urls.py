"""URL routes."""

from django.conf import settings
from django.contrib import admin
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse, HttpResponsePermanentRedirect
from django.templatetags.static import static
from django.urls import include, path, re_path
from django.views.static import serve

from annotation.access import can_view_media
from annotation.views.common import forbidden, svg_policy
from config.admin_input import guard_admin_input
from config.admin_site import admin_urls
from config.views import sign_ins


def healthz(request: HttpRequest) -> HttpResponse:
    """Liveness for load balancers, and the baseline of bench/pages.py: no database, no session."""
    return HttpResponse("ok", content_type="text/plain")


def favicon(request: HttpRequest) -> HttpResponse:
    """Browsers ask for /favicon.ico whatever a page links (templates/base.html links the SVG)."""
    return HttpResponsePermanentRedirect(static("favicon.svg"))


# A BadInput from the forms and readers of annotation/inputs.py says what was wrong.
handler400 = "annotation.views.common.bad_request"
guard_admin_input(admin.site)  # the admin's own crashes on bad values: 400/404 (before its URLs)

urlpatterns = [
    path("healthz", healthz, name="healthz"),
    path("favicon.ico", favicon, name="favicon"),
    path("manage/sign-ins/", sign_ins, name="sign_ins"),
    path("admin/", admin_urls(admin.site)),
    path("accounts/", include("annotation.account_urls")),
    path("api/", include("api.urls")),
    path("crawl/", include("papers.urls_crawl")),
    path("", include("api.page_urls")),
    path("", include("workspace.urls")),  # the workspace home and the annotation app's pages
    path("", include("guidelines.urls")),
    path("", include("annotation.answer_urls")),  # "edit my last answer"
    path("", include("validation.answer_urls")),
    path("", include("validation.urls")),
    path("", include("evaluation.urls")),
    path("", include("workspace.paper_urls")),  # the paper list and a paper's page
]

# django-rq's pages are in the admin (Admin -> Django-RQ, with Redis only): config/admin_site.py.


@login_required
def media(request: HttpRequest, path: str) -> HttpResponse:
    """Paper images, only to signed-in users who may see that paper (staff: all papers).
    At scale, let a proxy serve them after this check (X-Accel-Redirect)."""
    if not can_view_media(request.user, path):
        return forbidden(request, "This file belongs to a paper that is not assigned to you.")
    try:
        response = serve(request, path, document_root=settings.MEDIA_ROOT)
    except OSError as exc:  # e.g. a name longer than the file system takes: no such file
        raise Http404("No such file.") from exc
    return svg_policy(response)


urlpatterns.append(re_path(r"^media/(?P<path>.*)$", media))
