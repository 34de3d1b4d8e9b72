"""Django admin for background jobs."""

from django.contrib import admin

from jobs.dispatch import reconcile_jobs
from jobs.models import Job


@admin.register(Job)
class JobAdmin(admin.ModelAdmin):
    list_display = ("id", "kind", "status", "percent", "message", "created_at", "finished_at")
    list_filter = ("kind", "status")
    readonly_fields = [f.name for f in Job._meta.fields]

    def changelist_view(self, request, extra_context=None):
        # Before listing, settle jobs whose worker died, so none shows "running" forever.
        reconcile_jobs()
        return super().changelist_view(request, extra_context)
