"""Django admin for papers, sections, elements and their images."""

from __future__ import annotations

from django.apps import apps
from django.contrib import admin
from django.db.models import Count, Q, QuerySet
from django.http import HttpRequest
from django.urls import reverse
from django.utils.html import format_html, format_html_join
from django.utils.safestring import mark_safe

from papers import admin_crawl  # noqa: F401  (registers the crawl run admin)
from papers.models import Element, ElementPanel, Paper, Section

# What a claim was written on: once claims exist, these change only through a flag and its
# recorded fix (guidelines' flag queue), never silently here.
CLAIMED_READ_ONLY = ("caption", "text", "cells", "table_html", "image")

THUMBNAIL_HEIGHTS = (60, 160, 400)  # px; classes in static/css/admin.css (no style attributes)


def _thumbnail(field_file, height: int = 160) -> str:
    if not field_file:
        return "—"
    return format_html(
        '<a href="{0}" target="_blank"><img src="{0}" class="sv-thumb sv-thumb-{1}" alt=""></a>',
        field_file.url,
        min(THUMBNAIL_HEIGHTS, key=lambda h: abs(h - height)),
    )


def claims_on(element: Element) -> list[int]:
    """The claims written on this element: those citing it as evidence, and those of pairs
    written on a task that sampled it. Through Django's model registry, so that papers imports
    no later app (as papers.models.work_citing does); no claims app, no claims."""
    try:
        claim = apps.get_model("annotation", "Claim")
        task = apps.get_model("annotation", "ClaimTask")
    except LookupError:
        return []
    sampled = [
        pk
        for pk, ids in task.objects.filter(paper_id=element.paper_id).values_list(
            "pk", "sampled_ids"
        )
        if element.pk in (ids or [])
    ]
    found = claim.objects.filter(Q(evidence=element) | Q(pair__task__in=sampled))
    return sorted(set(found.values_list("pk", flat=True)))


class AdminStyles:
    css = {"all": ["css/admin.css"]}


class ParseProblemFilter(admin.SimpleListFilter):
    """Papers an admin should look at: a numbered float lost, or one number printed twice."""

    title = "parse problems"
    parameter_name = "problems"

    def lookups(self, request: HttpRequest, model_admin: admin.ModelAdmin) -> list[tuple[str, str]]:
        return [
            ("lost", "lost a numbered table or figure"),
            ("duplicates", "two tables or figures with one number"),
            ("skipped", "algorithm/listing floats skipped"),
        ]

    def queryset(self, request: HttpRequest, queryset: QuerySet[Paper]) -> QuerySet[Paper]:
        if self.value() == "lost":
            return queryset.filter(lost_count__gt=0)
        if self.value() == "skipped":
            return queryset.filter(skipped_count__gt=0)
        if self.value() == "duplicates":
            twice = (
                Element.objects.exclude(kind=Element.Kind.PARAGRAPH)
                .exclude(number="")
                .values("paper_id", "kind", "number")
                .annotate(n=Count("id"))
                .filter(n__gt=1)
                .values("paper_id")
            )
            return queryset.filter(pk__in=twice)
        return queryset


@admin.register(Paper)
class PaperAdmin(admin.ModelAdmin):
    Media = AdminStyles
    list_display = (
        "versioned_id",
        "short_title",
        "primary_category",
        "status",
        "acceptance",
        "venue",
        "table_count",
        "chart_count",
        "paragraph_count",
        "degraded_count",
        "lost_flag",
        "images_status",
        "synthetic",
    )
    list_filter = (
        ParseProblemFilter,
        "synthetic",
        "status",
        "acceptance",
        "images_status",
        "primary_category",
        "generator_name",
    )
    search_fields = ("arxiv_id", "title", "venue", "comment")
    readonly_fields = (
        "parse_report",
        "html_fetched_at",
        "media_dir",
        "generator",
        "generator_name",
        "generator_version",
        "generator_date",
        "parser_version",
        "reparsed_at",
        "table_count",
        "chart_count",
        "paragraph_count",
        "degraded_count",
        "lost_count",
        "skipped_count",
        "parse_warnings",
        "created_at",
        "updated_at",
        "context_outline",
    )
    exclude = ("raw_html_compressed", "lost_floats", "skipped_floats")

    @admin.display(description="lost floats", ordering="lost_count")
    def lost_flag(self, paper: Paper) -> str:
        if not paper.lost_count:
            return "—"
        return format_html('<strong class="sv-warn">{} not kept</strong>', paper.lost_count)

    @admin.display(description="what the parser did not keep")
    def parse_report(self, paper: Paper) -> str:
        """Lost floats (a warning each), numbers printed twice, deliberate skips."""
        elements_url = reverse("admin:papers_element_changelist")
        parts = []
        if paper.lost_floats:
            rows = format_html_join(
                "",
                "<li><strong>{}</strong> {}: {}</li>",
                (
                    (f.get("label", ""), f"({f['anchor']})" if f.get("anchor") else "", f["reason"])
                    for f in paper.lost_floats
                ),
            )
            parts.append(
                format_html(
                    '<p class="sv-warn"><strong>{} numbered table(s)/figure(s) not kept as '
                    "elements</strong> (python manage.py reparse_papers {} re-reads the stored "
                    "page with the current parser):</p><ul>{}</ul>",
                    paper.lost_count,
                    paper.pk,
                    rows,
                )
            )
        for (kind, number), anchors in paper.duplicate_numbers().items():
            parts.append(
                format_html(
                    '<p class="sv-warn"><strong>{} {} is printed by {}</strong>: '
                    '<a href="{}?paper__id__exact={}&amp;number={}">give each a distinct '
                    "number</a>; until then an export whose context holds both refuses this "
                    "paper.</p>",
                    "Table" if kind == "table" else "Figure",
                    number,
                    ", ".join(anchors),
                    elements_url,
                    paper.pk,
                    number,
                )
            )
        if paper.skipped_floats:
            parts.append(
                format_html(
                    '<p class="help">Skipped on purpose: {}</p>',
                    "; ".join(
                        f"{f.get('label', '')} ({f.get('anchor', '')}): {f['reason']}"
                        for f in paper.skipped_floats
                    ),
                )
            )
        if not parts:
            return "Every numbered table and figure is an element; no number is printed twice."
        return format_html_join("", "{}", ((p,) for p in parts))

    @admin.display(description="title")
    def short_title(self, paper: Paper) -> str:
        return paper.title[:80]

    @admin.display(description="arXiv id", ordering="arxiv_id")
    def versioned_id(self, paper: Paper) -> str:
        return paper.versioned_id

    @admin.display(description="context: sections and their elements")
    def context_outline(self, paper: Paper) -> str:
        sections = paper.sections.annotate(n=Count("elements")).order_by("order")
        elements_url = reverse("admin:papers_element_changelist")
        rows = format_html_join(
            "",
            '<li class="sv-level-{}">{} {} <em>({})</em> — '
            '<a href="{}?section__id__exact={}">{} elements</a></li>',
            (
                (
                    min(max(s.level, 1), 6),
                    s.number,
                    s.title or s.anchor,
                    s.get_kind_display(),
                    elements_url,
                    s.pk,
                    s.n,
                )
                for s in sections
            ),
        )
        return format_html("<ul>{}</ul>", rows) if rows else "—"


@admin.register(Section)
class SectionAdmin(admin.ModelAdmin):
    Media = AdminStyles
    list_display = ("anchor", "number", "title", "kind", "level", "paper")
    list_filter = ("kind",)
    search_fields = ("title", "anchor", "paper__arxiv_id")
    raw_id_fields = ("paper", "parent")

    def get_queryset(self, request: HttpRequest) -> QuerySet[Section]:
        return super().get_queryset(request).select_related("paper")


class ElementPanelInline(admin.TabularInline):
    model = ElementPanel
    extra = 0
    fields = ("order", "row", "caption", "preview", "source_url", "width", "height", "error")
    readonly_fields = fields
    can_delete = False

    @admin.display(description="image")
    def preview(self, panel: ElementPanel) -> str:
        if panel.image:
            return _thumbnail(panel.image, 160)
        return "SVG only" if panel.svg else "—"

    def has_add_permission(self, request: HttpRequest, obj: object = None) -> bool:
        return False


@admin.register(Element)
class ElementAdmin(admin.ModelAdmin):
    Media = AdminStyles
    list_display = (
        "anchor",
        "kind",
        "label",
        "number",
        "short_text",
        "thumbnail",
        "degraded",
        "paper",
    )
    list_filter = ("kind", "degraded", "image_renderer", "section__kind")
    search_fields = ("anchor", "label", "number", "caption", "text", "paper__arxiv_id")
    raw_id_fields = ("paper", "section")
    filter_horizontal = ()
    readonly_fields = (
        "image_preview",
        "table_preview",
        "image_renderer",
        "image_error",
        "vector",  # made inert by the importer: never an upload (it is served from this site)
        "referenced_tables_and_charts",
        "referring_paragraphs",
    )
    exclude = ("references",)
    inlines = [ElementPanelInline]
    list_per_page = 50

    def _claims(self, element: Element | None) -> list[int]:
        if element is None or element.pk is None:
            return []
        # Asked once per request: the change page's element is one instance throughout.
        if not hasattr(element, "_claims_on"):
            element._claims_on = claims_on(element)  # type: ignore[attr-defined]
        return element._claims_on  # type: ignore[attr-defined]

    def get_readonly_fields(self, request: HttpRequest, obj: Element | None = None):
        fields = ("correction", *super().get_readonly_fields(request, obj))
        if self._claims(obj):
            fields = (*fields, *CLAIMED_READ_ONLY)
        return fields

    def get_fields(self, request: HttpRequest, obj: Element | None = None):
        # The note on corrections first; then the fields in the model's order.
        fields = [f for f in super().get_fields(request, obj) if f != "correction"]
        return ["correction", *fields]

    @admin.display(description="corrections")
    def correction(self, element: Element) -> str:
        claims = self._claims(element)
        if not claims:
            return (
                "No claim was written on this element yet: its caption, text, cells, HTML and "
                "image may be corrected here. Once claims are written on it they are read-only."
            )
        return format_html(
            '<p class="sv-warn"><strong>{} claim{} {} written on this element</strong> ({}): '
            "its caption, text, cells, HTML and image are read-only here.</p>"
            '<p class="help">A correction goes through a flag and its recorded fix: raise a flag '
            'on the element from its task page, then correct it from <a href="{}">the flag '
            "queue</a> (edit the caption or text, re-render, or mark it degraded), where the "
            "fix is recorded with who, when, and the values before and after.</p>",
            len(claims),
            "s" if len(claims) != 1 else "",
            "were" if len(claims) != 1 else "was",
            ", ".join(f"claim #{pk}" for pk in claims[:10]) + (" …" if len(claims) > 10 else ""),
            reverse("guidelines:queue"),
        )

    def get_queryset(self, request: HttpRequest) -> QuerySet[Element]:
        return super().get_queryset(request).select_related("paper")

    def save_model(self, request: HttpRequest, obj: Element, form, change: bool) -> None:
        # A new number (the release's item) carries over to the label when the admin left the
        # label as printed: "Table 1" becomes "Table S1".
        if change and "number" in form.changed_data and "label" not in form.changed_data:
            old = form.initial.get("number", "")
            if old and obj.label.endswith(f" {old}"):
                obj.label = f"{obj.label[: -len(old)]}{obj.number}"
        super().save_model(request, obj, form, change)

    @admin.display(description="text / caption")
    def short_text(self, element: Element) -> str:
        return (element.text or element.caption)[:100]

    @admin.display(description="image")
    def thumbnail(self, element: Element) -> str:
        return _thumbnail(element.image, 60)

    @admin.display(description="image (screenshot or figure)")
    def image_preview(self, element: Element) -> str:
        return _thumbnail(element.image, 400)

    @admin.display(description="table (sanitized HTML)")
    def table_preview(self, element: Element) -> str:
        # table_html was sanitized at parse time (papers/parsing/sanitize.py): no scripts,
        # event handlers or external loads survive, so it is safe to show as markup.
        return mark_safe(element.table_html) if element.table_html else "—"  # noqa: S308

    @admin.display(description="refers to")
    def referenced_tables_and_charts(self, element: Element) -> str:
        return ", ".join(str(e) for e in element.references.all()) or "—"

    @admin.display(description="referred to by")
    def referring_paragraphs(self, element: Element) -> str:
        return ", ".join(e.anchor for e in element.referenced_by.all()) or "—"


@admin.register(ElementPanel)
class ElementPanelAdmin(admin.ModelAdmin):
    Media = AdminStyles
    list_display = ("__str__", "row", "caption", "preview", "error")
    list_filter = ("element__kind",)
    search_fields = ("caption", "element__anchor", "element__paper__arxiv_id")
    raw_id_fields = ("element",)

    def get_queryset(self, request: HttpRequest) -> QuerySet[ElementPanel]:
        return super().get_queryset(request).select_related("element")

    @admin.display(description="image")
    def preview(self, panel: ElementPanel) -> str:
        return _thumbnail(panel.image, 60) if panel.image else ("SVG only" if panel.svg else "—")
