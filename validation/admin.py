"""Admin for validation records, baseline studies, frozen splits and release exports."""

from __future__ import annotations

from django.contrib import admin, messages
from django.db.models import QuerySet
from django.http import HttpRequest
from django.urls import reverse
from django.utils.html import format_html

from annotation.admin import ReadOnlyAdmin
from validation.export import services as export_services
from validation.models import (
    BaselineAnswer,
    BaselineItem,
    BaselineStudy,
    ReleaseExport,
    SplitMember,
    SplitVersion,
    Validation,
    ValidationRevision,
)


class RevisionInline(admin.TabularInline):
    model = ValidationRevision
    extra = 0
    can_delete = False
    readonly_fields = ["field", "before", "after", "criteria_failed", "by", "at"]

    def has_add_permission(self, request, obj=None) -> bool:
        return False


@admin.register(Validation)
class ValidationAdmin(ReadOnlyAdmin):
    list_display = ["claim", "status", "validator", "validated_at", "revisions"]
    # The validator may be empty: Django's own join skips a nullable link (a query per row).
    list_select_related = ["claim", "validator"]
    list_filter = ["status"]
    inlines = [RevisionInline]


@admin.register(ValidationRevision)
class ValidationRevisionAdmin(ReadOnlyAdmin):
    list_display = ["validation", "field", "by", "at"]
    list_filter = ["field"]


class MemberInline(admin.TabularInline):
    model = SplitMember
    extra = 0
    can_delete = False
    readonly_fields = ["pair", "part", "subset"]

    def has_add_permission(self, request, obj=None) -> bool:
        return False


@admin.register(SplitVersion)
class SplitVersionAdmin(ReadOnlyAdmin):
    list_display = [
        "name",
        "seed",
        "validation_size",
        "test_size",
        "papers",
        "shared_papers_allowed",
        "created_at",
    ]
    inlines = [MemberInline]
    actions = ["export_in_background"]

    def has_change_permission(self, request: HttpRequest, obj=None) -> bool:
        return request.method == "GET"  # view the members; a frozen split never changes

    @admin.action(description="Export the release in the background")
    def export_in_background(self, request: HttpRequest, queryset: QuerySet) -> None:
        for split in queryset:
            export = export_services.start_export(split=split, by=request.user)
            url = reverse("validation:export_status", args=[export.pk])
            self.message_user(
                request,
                format_html('Export of {} started: <a href="{}">progress</a>', split, url),
                messages.SUCCESS,
            )


@admin.register(ReleaseExport)
class ReleaseExportAdmin(ReadOnlyAdmin):
    list_display = ["split", "out", "hide_test_labels", "job", "progress", "created_at"]

    @admin.display(description="progress")
    def progress(self, obj: ReleaseExport) -> str:
        url = reverse("validation:export_status", args=[obj.pk])
        return format_html('<a href="{}">{}</a>', url, obj.job.status if obj.job else "—")


class AnswerInline(admin.TabularInline):
    model = BaselineAnswer
    extra = 0
    readonly_fields = ["expert", "label", "explanation", "at", "work_item"]


@admin.register(BaselineStudy)
class BaselineStudyAdmin(ReadOnlyAdmin):
    list_display = ["pk", "per_subset", "seed", "created_at"]


@admin.register(BaselineItem)
class BaselineItemAdmin(ReadOnlyAdmin):
    list_display = ["study", "claim", "subset", "gold_label"]
    inlines = [AnswerInline]
