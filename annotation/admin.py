"""Django admin for subfields (admins add more here), expert profiles, assignments, contexts,
and the archiving history (read-only)."""

from __future__ import annotations

from django.contrib import admin, messages
from django.contrib.auth import get_user_model
from django.contrib.auth.admin import UserAdmin
from django.db import transaction
from django.http import HttpRequest

from annotation.models import (
    ArchiveEvent,
    Assignment,
    AssignmentEvent,
    CuratedContext,
    ExpertProfile,
    PaperSubfield,
    Publication,
    Subfield,
    Training,
)
from annotation.sessions import end_sessions


@admin.register(Subfield)
class SubfieldAdmin(admin.ModelAdmin):
    list_display = ("code", "name", "order", "shared_second_annotator")
    list_editable = ("order", "shared_second_annotator")
    search_fields = ("code", "name")


class PublicationInline(admin.TabularInline):
    model = Publication
    extra = 1


class TrainingInline(admin.TabularInline):
    model = Training
    extra = 0
    readonly_fields = ("recorded_by", "recorded_at")


@admin.register(ExpertProfile)
class ExpertProfileAdmin(admin.ModelAdmin):
    list_display = ("user", "active", "subfield_codes")
    list_filter = ("active", "subfields")
    search_fields = ("user__username", "user__first_name", "user__last_name")
    filter_horizontal = ("subfields",)
    inlines = [PublicationInline, TrainingInline]

    @admin.display(description="subfields")
    def subfield_codes(self, profile: ExpertProfile) -> str:
        return ", ".join(s.code for s in profile.subfields.all())

    def get_queryset(self, request: HttpRequest):
        return super().get_queryset(request).select_related("user").prefetch_related("subfields")


class ReadOnlyAdmin(admin.ModelAdmin):
    """An audit record: listed and viewed, never added, changed or deleted by hand (the pages
    that make these records are the only writers)."""

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj=None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj=None) -> bool:
        return False


class ReadOnlyInline(admin.TabularInline):
    extra = 0
    can_delete = False

    def has_add_permission(self, request: HttpRequest, obj=None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj=None) -> bool:
        return False


class AssignmentEventInline(ReadOnlyInline):
    model = AssignmentEvent
    fields = ("at", "from_status", "to_status", "actor", "note")
    readonly_fields = fields


@admin.register(Assignment)
class AssignmentAdmin(admin.ModelAdmin):
    """Read-only: assignments change through the Assignment page, which keeps the history."""

    list_display = ("paper", "expert", "role", "status", "assigned_by", "created_at")
    list_filter = ("status", "role")
    search_fields = ("paper__arxiv_id", "expert__username")
    list_select_related = ("paper", "expert", "assigned_by")
    inlines = [AssignmentEventInline]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj=None) -> bool:
        return False


@admin.register(CuratedContext)
class CuratedContextAdmin(admin.ModelAdmin):
    """Read-only: versions are made by saving on the curation page, and never change."""

    list_display = (
        "paper",
        "number",
        "created_by",
        "created_at",
        "table_count",
        "chart_count",
        "not_chart_count",
        "ready",
    )
    list_select_related = ("paper", "created_by")
    search_fields = ("paper__arxiv_id",)

    @admin.display(boolean=True, description="ready for claims")
    def ready(self, context: CuratedContext) -> bool:
        return context.ready_for_claims

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj=None) -> bool:
        return False


@admin.register(PaperSubfield)
class PaperSubfieldAdmin(admin.ModelAdmin):
    list_display = ("paper", "subfield", "changed_by", "changed_at")
    list_select_related = ("paper", "subfield", "changed_by")
    raw_id_fields = ("paper",)


@admin.register(ArchiveEvent)
class ArchiveEventAdmin(ReadOnlyAdmin):
    """The history of archiving (Manage -> Archive makes it): who put away or brought back
    which paper or account, when and why."""

    list_display = ("at", "action", "paper", "account", "actor", "note")
    list_filter = ("action", ("paper", admin.EmptyFieldListFilter))
    search_fields = ("paper__arxiv_id", "account__username", "actor__username", "note")
    list_select_related = ("paper", "account", "actor")
    date_hierarchy = "at"


# --- People: Django's user admin, with the action that signs a person out everywhere ----------

User = get_user_model()


@admin.action(description="Sign the selected people out everywhere")
def sign_out_everywhere(modeladmin, request, queryset) -> None:
    with transaction.atomic():
        people = list(queryset)
        ended = sum(end_sessions(person) for person in people)
    modeladmin.message_user(
        request,
        f"{len(people)} {'person' if len(people) == 1 else 'people'} signed out everywhere: "
        f"{ended} session{'' if ended == 1 else 's'} ended.",
        messages.SUCCESS,
    )


class PeopleAdmin(UserAdmin):
    actions = [sign_out_everywhere]


admin.site.unregister(User)
admin.site.register(User, PeopleAdmin)
