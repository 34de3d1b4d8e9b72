"""The admin without answers of 500: django-rq's dashboard, and the admin's "view on site".

Without Redis the dashboard is not registered at all (settings.RQ_SHOW_ADMIN_LINK): there are
no queues to show. With Redis, its pages answer 404 for a queue, job or worker that does not
exist (or a scheduler page without rq-scheduler) and 400 for a form that lacks a field, where
django-rq itself raises. Its model has no table: the admin's object pages for it are 404 too.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps

from django.contrib import admin
from django.contrib.contenttypes.models import ContentType
from django.contrib.contenttypes.views import shortcut
from django.core.exceptions import BadRequest, ImproperlyConfigured
from django.http import Http404, HttpRequest, HttpResponse
from django.urls import URLPattern, path
from django.utils.datastructures import MultiValueDictKeyError


def _answers_not_found(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
    from rq.exceptions import NoSuchJobError  # noqa: PLC0415 - only with REDIS_URL set

    @wraps(view)
    def guarded(request: HttpRequest, *args, **kwargs) -> HttpResponse:
        try:
            return view(request, *args, **kwargs)
        except MultiValueDictKeyError as exc:
            raise BadRequest(f"Missing form field {exc}.") from exc
        except (IndexError, KeyError, ValueError, NoSuchJobError) as exc:
            raise Http404("No such queue, job or worker.") from exc
        except ImproperlyConfigured as exc:  # e.g. the scheduler pages without rq-scheduler
            raise Http404(str(exc)) from exc

    return guarded


def guard_dashboard(site: admin.AdminSite) -> None:
    """Replace django-rq's registration by one whose pages cannot answer 500."""
    from django_rq.admin import QueueAdmin  # noqa: PLC0415 - only with REDIS_URL set
    from django_rq.models import Dashboard  # noqa: PLC0415 - only with REDIS_URL set

    if not site.is_registered(Dashboard):
        return

    class GuardedQueueAdmin(QueueAdmin):
        def get_urls(self) -> list[URLPattern]:
            return [
                URLPattern(p.pattern, _answers_not_found(p.callback), p.default_args, p.name)
                if isinstance(p, URLPattern)
                else p
                for p in super().get_urls()
            ]

        def change_view(self, request, object_id, form_url="", extra_context=None):
            raise Http404("The queues dashboard has no objects.")

        def history_view(self, request, object_id, extra_context=None):
            raise Http404("The queues dashboard has no objects.")

        def delete_view(self, request, object_id, extra_context=None):
            raise Http404("The queues dashboard has no objects.")

    site.unregister(Dashboard)
    site.register(Dashboard, GuardedQueueAdmin)


def view_on_site(request: HttpRequest, content_type_id: int, object_id: str) -> HttpResponse:
    """The admin's "view on site" redirect, 404 for models without a table (django-rq's
    dashboard) instead of a database error."""
    content_type = ContentType.objects.filter(pk=content_type_id).first()
    model = content_type.model_class() if content_type else None
    if model is None or not model._meta.managed:
        raise Http404("Nothing to show on the site for this.")
    return shortcut(request, content_type_id, object_id)


def admin_urls(site: admin.AdminSite) -> tuple[list, str, str]:
    """The admin's URLs with the guarded "view on site" first (same name, same path)."""
    guard_dashboard(site)
    patterns, app_name, namespace = site.urls
    guarded = path(
        "r/<int:content_type_id>/<path:object_id>/",
        site.admin_view(view_on_site),
        name="view_on_site",
    )
    return [guarded, *patterns], app_name, namespace
