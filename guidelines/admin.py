"""Django admin for the guideline versions, the version each item was done under, and the flags
with their fixes. All of it is read-only here: a version is published on the guideline editor
(the next number; published ones never change), an item's version is set when it is submitted,
and a flag changes only on its flag page, which records each fix with who, when, before and
after."""

from __future__ import annotations

from django.contrib import admin
from django.db.models import Count
from django.urls import reverse
from django.utils.html import format_html

from annotation.admin import ReadOnlyAdmin
from guidelines.models import Flag, FlagFix, GuidelineVersion, SubmittedItem


@admin.register(GuidelineVersion)
class GuidelineVersionAdmin(ReadOnlyAdmin):
    list_display = ("number", "section_count", "created_by", "created_at", "note", "page")
    search_fields = ("note",)
    list_select_related = ("created_by",)
    readonly_fields = ("number", "sections", "note", "created_by", "created_at")

    @admin.display(description="sections")
    def section_count(self, version: GuidelineVersion) -> int:
        return len(version.sections or [])

    @admin.display(description="page")
    def page(self, version: GuidelineVersion) -> str:
        url = reverse("guidelines:version", args=[version.number])
        return format_html('<a href="{}">v{}</a>', url, version.number)


@admin.register(SubmittedItem)
class SubmittedItemAdmin(ReadOnlyAdmin):
    """The submitted items (only those: an item has its version once it is done)."""

    list_display = ("key", "kind", "guideline", "done_by", "done_at")
    list_filter = ("guideline", "kind")
    search_fields = ("key",)
    list_select_related = ("guideline", "done_by")
    fields = ("key", "kind", "paper", "pair", "claim", "guideline", "done_by", "done_at")
    readonly_fields = fields


class FixInline(admin.TabularInline):
    model = FlagFix
    extra = 0
    can_delete = False
    fields = ("at", "action", "by", "before", "after", "note")
    readonly_fields = fields

    def has_add_permission(self, request, obj=None) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False


@admin.register(Flag)
class FlagAdmin(ReadOnlyAdmin):
    """Fixed, dismissed or corrected on its flag page (linked), which records every fix."""

    list_display = ("id", "kind", "status", "paper", "element", "item", "by", "at", "fixes", "page")
    list_filter = ("status", "kind")
    search_fields = ("note", "paper__arxiv_id", "item__key", "by__username")
    list_select_related = ("paper", "element", "item", "by")
    date_hierarchy = "at"
    inlines = [FixInline]

    def get_queryset(self, request):
        return super().get_queryset(request).annotate(fix_count=Count("fixes"))

    @admin.display(description="fixes", ordering="fix_count")
    def fixes(self, flag: Flag) -> int:
        return flag.fix_count

    @admin.display(description="flag page")
    def page(self, flag: Flag) -> str:
        return format_html('<a href="{}">open</a>', reverse("guidelines:flag", args=[flag.pk]))


@admin.register(FlagFix)
class FlagFixAdmin(ReadOnlyAdmin):
    list_display = ("at", "action", "flag", "by", "note")
    list_filter = ("action",)
    search_fields = ("note", "by__username", "flag__paper__arxiv_id")
    list_select_related = ("flag", "by")
    date_hierarchy = "at"
