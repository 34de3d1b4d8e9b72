"""Django admin for background jobs."""

from django.contrib import admin

from jobs.models import Job


@admin.register(Job)
class JobAdmin(admin.ModelAdmin):
    list_display = ("id", "kind", "status", "percent", "message", "created_at", "finished_at")
    list_filter = ("kind", "status")
    readonly_fields = [f.name for f in Job._meta.fields]
