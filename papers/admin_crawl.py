"""Django admin for crawl runs (imported by papers/admin.py): counts, log, pause/cancel."""

from __future__ import annotations

from django import forms
from django.contrib import admin, messages
from django.db.models import QuerySet
from django.http import HttpRequest
from django.urls import reverse
from django.utils.html import format_html

from papers.crawl.services import CrawlError, request_stop
from papers.models import CrawlEvent, CrawlItem, CrawlRun


class CrawlEventInline(admin.TabularInline):
    model = CrawlEvent
    fields = ("created_at", "level", "kind", "paper", "message")
    readonly_fields = fields
    extra = 0
    can_delete = False
    ordering = ("-id",)
    max_num = 0
    show_change_link = False

    def get_queryset(self, request: HttpRequest) -> QuerySet[CrawlEvent]:
        return super().get_queryset(request).exclude(level=CrawlEvent.Level.INFO)


class CrawlRunForm(forms.ModelForm):
    """The admin's change form of a run (its fields are the admin's)."""

    def clean_categories(self) -> list[str]:
        """A JSON field takes any JSON; a run's categories are a list of names."""
        value = self.cleaned_data["categories"]
        if not isinstance(value, list) or not all(isinstance(c, str) for c in value):
            raise forms.ValidationError('A list of arXiv categories, e.g. ["cs.CL", "cs.CV"].')
        return value


@admin.register(CrawlRun)
class CrawlRunAdmin(admin.ModelAdmin):
    form = CrawlRunForm
    list_display = (
        "id",
        "status",
        "phase",
        "window",
        "categories_list",
        "found",
        "kept",
        "created_at",
        "live_page",
    )
    list_filter = ("status",)
    readonly_fields = (
        "status",
        "phase",
        "stop_requested",
        "error",
        "search_done",
        "job",
        "worker",
        "created_at",
        "started_at",
        "finished_at",
        "heartbeat_at",
        "active_seconds",
        "stats",
        "counts_summary",
        "created_by",
    )
    inlines = [CrawlEventInline]
    actions = ["pause_runs", "cancel_runs"]

    @admin.display(description="window")
    def window(self, run: CrawlRun) -> str:
        if run.by_ids:
            return f"{run.items_listed} listed ids"
        return f"{run.date_from} – {run.date_to}"

    @admin.display(description="categories")
    def categories_list(self, run: CrawlRun) -> str:
        return ", ".join(run.categories)

    def get_queryset(self, request: HttpRequest) -> QuerySet[CrawlRun]:
        # found and kept are counted in the list's query, not one query per row.
        return super().get_queryset(request).with_item_counts()

    @admin.display(description="found")
    def found(self, run: CrawlRun) -> int:
        return run.items_found

    @admin.display(description="kept")
    def kept(self, run: CrawlRun) -> int:
        return run.items_kept

    @admin.display(description="counts")
    def counts_summary(self, run: CrawlRun) -> str:
        return ", ".join(f"{k}: {v}" for k, v in run.counts().items())

    @admin.display(description="progress")
    def live_page(self, run: CrawlRun) -> str:
        return format_html('<a href="{}">live</a>', reverse("crawl:detail", args=[run.pk]))

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False  # runs are started from the crawl page or `crawl_arxiv`

    def _stop(self, request: HttpRequest, queryset: QuerySet[CrawlRun], action: str) -> None:
        for run in queryset:
            try:
                request_stop(run=run, action=action)
            except CrawlError as exc:
                self.message_user(request, exc.reason, messages.WARNING)

    @admin.action(description="Pause selected runs")
    def pause_runs(self, request: HttpRequest, queryset: QuerySet[CrawlRun]) -> None:
        self._stop(request, queryset, CrawlRun.Stop.PAUSE)

    @admin.action(description="Cancel selected runs")
    def cancel_runs(self, request: HttpRequest, queryset: QuerySet[CrawlRun]) -> None:
        self._stop(request, queryset, CrawlRun.Stop.CANCEL)


@admin.register(CrawlItem)
class CrawlItemAdmin(admin.ModelAdmin):
    list_display = ("paper", "run", "acceptance", "outcome", "reason_code", "tables", "charts")
    list_filter = ("outcome", "acceptance", "reason_code")
    search_fields = ("paper__arxiv_id", "paper__title")
    raw_id_fields = ("paper", "run")
    readonly_fields = (
        "run",
        "paper",
        "acceptance",
        "priority",
        "published",
        "outcome",
        "reason_code",
        "reason",
        "tables",
        "charts",
        "attempted_at",
        "finished_at",
    )

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False
