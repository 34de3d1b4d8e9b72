"""A paper from arXiv and its context: sections and elements (paragraphs, tables, charts)."""

from __future__ import annotations

import zlib
from collections.abc import Iterable

from django.apps import apps
from django.db import models
from django.db.models import Q

from papers.parsing import numbering
from papers.parsing.document import Cell
from papers.parsing.stamp import stamp_label


class PaperStatus(models.TextChoices):
    FOUND = "found", "found (metadata only)"
    PARSED = "parsed", "parsed"
    REJECTED = "rejected", "rejected"
    NO_HTML = "no_html", "no HTML version"
    FAILED = "failed", "failed"


class PaperAcceptance(models.TextChoices):
    ACCEPTED = "accepted", "accepted at a venue"
    WORKSHOP = "workshop", "accepted at a workshop"
    UNDER_REVIEW = "under_review", "under review / submitted"
    UNKNOWN = "unknown", "unknown"


class PaperImagesStatus(models.TextChoices):
    NONE = "none", "not rendered"
    PENDING = "pending", "queued"
    DONE = "done", "rendered"
    PARTIAL = "partial", "rendered with problems"


class Paper(models.Model):
    Status = PaperStatus
    Acceptance = PaperAcceptance
    ImagesStatus = PaperImagesStatus

    arxiv_id = models.CharField(max_length=32, help_text="Without version, e.g. 2410.01234")
    version = models.PositiveIntegerField(default=1)
    title = models.TextField(blank=True)
    authors = models.JSONField(default=list, blank=True)
    abstract = models.TextField(blank=True)
    primary_category = models.CharField(max_length=32, blank=True)
    categories = models.JSONField(default=list, blank=True)
    published = models.DateTimeField(null=True, blank=True)
    updated = models.DateTimeField(null=True, blank=True)
    comment = models.TextField(blank=True)
    journal_ref = models.TextField(blank=True)
    acceptance = models.CharField(
        max_length=16, choices=Acceptance.choices, default=Acceptance.UNKNOWN
    )
    venue = models.CharField(max_length=200, blank=True)
    acceptance_phrase = models.TextField(blank=True)
    license_url = models.URLField(max_length=500, blank=True)
    license_name = models.CharField(max_length=200, blank=True)

    html_url = models.URLField(max_length=500, blank=True)
    raw_html_compressed = models.BinaryField(null=True, blank=True, editable=False)
    html_fetched_at = models.DateTimeField(null=True, blank=True)
    synthetic = models.BooleanField(
        default=False,
        help_text="A copy of a fixture paper made by simulate_annotation (demo and benchmark "
        "data), never a real arXiv paper.",
    )
    archived_at = models.DateTimeField(
        null=True,
        blank=True,
        help_text="Put away (e.g. demo data once a real project starts): hidden from lists, "
        "statistics, agreement, splits and exports; its work and history are kept.",
    )
    media_dir = models.CharField(
        max_length=200, blank=True, help_text="MEDIA_ROOT folder of the current import's images"
    )

    status = models.CharField(max_length=16, choices=Status.choices, default=Status.FOUND)
    status_reason = models.TextField(blank=True)
    images_status = models.CharField(
        max_length=16, choices=ImagesStatus.choices, default=ImagesStatus.NONE
    )
    parse_warnings = models.JSONField(default=list, blank=True)
    generator = models.CharField(
        max_length=300, blank=True, help_text="The page's 'Generated on … by LaTeXML …' line"
    )
    # The same line, read: what crawls count pages by (arXiv's 2026 pages come from two).
    generator_name = models.CharField(
        max_length=40, blank=True, help_text="'LaTeXML' or 'LaTeXML oxide'; empty: no stamp"
    )
    generator_version = models.CharField(max_length=40, blank=True)
    generator_date = models.DateField(
        null=True, blank=True, help_text="When the page was made (classic stamps only)"
    )
    parser_version = models.PositiveSmallIntegerField(
        default=0,
        help_text="papers.parsing.PARSER_VERSION of the parse that made the stored context "
        "(0: imported before versions were recorded)",
    )
    reparsed_at = models.DateTimeField(null=True, blank=True)
    lost_floats = models.JSONField(
        default=list,
        blank=True,
        help_text="Numbered tables and figures the parser did not keep: label, anchor, reason",
    )
    lost_count = models.PositiveIntegerField(
        default=0, help_text="Numbered tables and figures not kept (the paper needs a look)"
    )
    skipped_floats = models.JSONField(
        default=list,
        blank=True,
        help_text="Numbered floats deliberately not elements (algorithms, listings)",
    )
    skipped_count = models.PositiveIntegerField(default=0)
    # Tables and charts kept with an image (a table's cells can always be drawn): what the
    # crawl's MIN_TABLES / MIN_CHARTS and the assignment's minimums count.
    table_count = models.PositiveIntegerField(default=0)
    chart_count = models.PositiveIntegerField(default=0)
    paragraph_count = models.PositiveIntegerField(default=0)
    degraded_count = models.PositiveIntegerField(default=0)

    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["arxiv_id", "version"]
        constraints = [
            models.UniqueConstraint(fields=["arxiv_id", "version"], name="paper_unique_version"),
            models.CheckConstraint(
                condition=Q(status__in=PaperStatus.values), name="paper_status_valid"
            ),
            models.CheckConstraint(
                condition=Q(acceptance__in=PaperAcceptance.values),
                name="paper_acceptance_valid",
            ),
        ]
        indexes = [models.Index(fields=["status", "acceptance"])]

    def __str__(self) -> str:
        return f"{self.versioned_id} {self.title[:60]}"

    @property
    def versioned_id(self) -> str:
        return f"{self.arxiv_id}v{self.version}"

    @property
    def generator_label(self) -> str:
        """`LaTeXML oxide 0.7.6`, `LaTeXML 0.8.8 (2026-07-05)`; "" when the page had no stamp."""
        return stamp_label(self.generator_name, self.generator_version, self.generator_date)

    @property
    def raw_html(self) -> bytes:
        if not self.raw_html_compressed:
            return b""
        return zlib.decompress(bytes(self.raw_html_compressed))

    @raw_html.setter
    def raw_html(self, data: bytes) -> None:
        self.raw_html_compressed = zlib.compress(data, 6) if data else None

    def duplicate_numbers(self) -> dict[tuple[str, str], list[str]]:
        """(kind, number) that more than one of its tables or charts prints -> their anchors,
        as the elements stand now (an admin renumbers one in the admin to resolve it)."""
        rows = (
            self.elements.exclude(kind=ElementKind.PARAGRAPH)
            .order_by("order")
            .values_list("kind", "number", "anchor")
        )
        return numbering.duplicate_numbers(rows)


class SectionKind(models.TextChoices):
    ABSTRACT = "abstract"
    BODY = "body"
    RELATED_WORK = "related_work", "related work"
    ACKNOWLEDGMENTS = "acknowledgments"
    REFERENCES = "references"
    APPENDIX = "appendix"


class Section(models.Model):
    Kind = SectionKind

    paper = models.ForeignKey(Paper, on_delete=models.CASCADE, related_name="sections")
    anchor = models.CharField(max_length=100)
    number = models.CharField(max_length=32, blank=True)
    title = models.TextField(blank=True)
    level = models.PositiveSmallIntegerField(default=1)
    parent = models.ForeignKey(
        "self", null=True, blank=True, on_delete=models.CASCADE, related_name="children"
    )
    order = models.PositiveIntegerField()
    kind = models.CharField(max_length=20, choices=Kind.choices, default=Kind.BODY)

    class Meta:
        ordering = ["paper", "order"]
        constraints = [
            models.UniqueConstraint(fields=["paper", "anchor"], name="section_unique_anchor"),
            models.CheckConstraint(
                condition=Q(kind__in=SectionKind.values), name="section_kind_valid"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.number} {self.title}".strip() or self.anchor


class ElementKind(models.TextChoices):
    PARAGRAPH = "paragraph"
    TABLE = "table"
    CHART = "chart"


class ImageRenderer(models.TextChoices):
    NONE = "", "no image yet"
    CHROMIUM = "chromium", "Chromium screenshot"
    PILLOW = "pillow", "Pillow grid drawing"
    SOURCE_IMAGE = "source_image", "the paper's own image"
    SVG_ONLY = "svg_only", "SVG kept, no raster"


class Element(models.Model):
    Kind = ElementKind
    Renderer = ImageRenderer

    paper = models.ForeignKey(Paper, on_delete=models.CASCADE, related_name="elements")
    section = models.ForeignKey(Section, on_delete=models.CASCADE, related_name="elements")
    kind = models.CharField(max_length=12, choices=Kind.choices)
    anchor = models.CharField(max_length=100)
    order = models.PositiveIntegerField()
    label = models.CharField(max_length=64, blank=True)
    number = models.CharField(max_length=32, blank=True)
    caption = models.TextField(blank=True)
    text = models.TextField(blank=True)
    table_html = models.TextField(blank=True)
    cells = models.JSONField(
        default=list, blank=True, help_text="Tables: one grid per tabular, rows of cells."
    )
    is_image_table = models.BooleanField(default=False)
    degraded = models.BooleanField(default=False)
    degraded_reasons = models.JSONField(default=list, blank=True)
    image = models.ImageField(upload_to="papers/", blank=True, max_length=300)
    image_renderer = models.CharField(
        max_length=16, choices=Renderer.choices, default=Renderer.NONE, blank=True
    )
    image_error = models.TextField(blank=True)
    vector = models.FileField(
        upload_to="papers/",
        blank=True,
        max_length=300,
        help_text="A vector chart's panels as one inert SVG, kept beside its PNG; pages show it "
        "(as an <img>) while the chart has no PNG.",
    )
    references = models.ManyToManyField(
        "self",
        symmetrical=False,
        blank=True,
        related_name="referenced_by",
        help_text="Paragraphs: the tables and charts this paragraph cross-references.",
    )

    class Meta:
        ordering = ["paper", "order"]
        constraints = [
            models.UniqueConstraint(fields=["paper", "anchor"], name="element_unique_anchor"),
            models.CheckConstraint(
                condition=Q(kind__in=ElementKind.values), name="element_kind_valid"
            ),
        ]
        indexes = [models.Index(fields=["paper", "kind"])]

    def __str__(self) -> str:
        return self.label or self.anchor

    @property
    def display_name(self) -> str:
        """How every page names the element: "paragraph <anchor>" for a paragraph, else its
        label ("Table 3", "Figure 2"), else its anchor."""
        if self.kind == ElementKind.PARAGRAPH:
            return f"paragraph {self.anchor}"
        return self.label or self.anchor

    def cell_grids(self) -> list[list[list[Cell]]]:
        """The stored cell grids as the parser's Cell objects (one grid per tabular)."""
        return [
            [
                [
                    Cell(
                        text=c.get("text", ""),
                        rowspan=int(c.get("rowspan", 1)),
                        colspan=int(c.get("colspan", 1)),
                        header=bool(c.get("header", False)),
                    )
                    for c in row
                ]
                for row in grid
            ]
            for grid in self.cells or []
        ]

    @property
    def picture(self):
        """What pages show for a table or chart: its PNG, else its inert SVG (a vector chart
        not drawn yet), else an empty file (falsy)."""
        return self.image if self.image else self.vector

    @property
    def is_visual(self) -> bool:
        return self.kind in (self.Kind.TABLE, self.Kind.CHART)


class ElementPanel(models.Model):
    """One image of a chart (or of a table that is an image), in layout order."""

    element = models.ForeignKey(Element, on_delete=models.CASCADE, related_name="panels")
    order = models.PositiveSmallIntegerField()
    row = models.PositiveSmallIntegerField(default=0)
    caption = models.TextField(blank=True)
    source_url = models.TextField(blank=True, help_text="The src resolved against the page.")
    svg = models.TextField(blank=True, help_text="Inline SVG (TikZ) when there is no image file.")
    image = models.ImageField(upload_to="papers/", blank=True, max_length=300)
    width = models.PositiveIntegerField(null=True, blank=True)
    height = models.PositiveIntegerField(null=True, blank=True)
    error = models.TextField(blank=True)

    class Meta:
        ordering = ["element", "order"]
        constraints = [
            models.UniqueConstraint(fields=["element", "order"], name="panel_unique_order")
        ]

    def __str__(self) -> str:
        return f"{self.element} panel {self.order + 1}"


def work_citing(model: type[models.Model], pks: Iterable[int]) -> dict[int, list[str]]:
    """Rows of the later stages (curated contexts, claims, evidence marks) that point at these
    rows of `model` (Element, Section): pk -> descriptions such as "claim #12 (evidence)".

    Found through Django's model registry, so that papers imports none of those apps: every
    foreign key to `model` from another app, and every many-to-many link table to it.
    """
    wanted = list(pks)
    found: dict[int, list[str]] = {}
    if not wanted:
        return found
    for other in apps.get_models(include_auto_created=True):
        if other._meta.app_label == model._meta.app_label:
            continue  # the paper's own structure (panels, cross-references) is not work
        for fk in other._meta.concrete_fields:
            if not (fk.is_relation and fk.many_to_one and fk.related_model is model):
                continue
            owner, source, what = _citing_row(other, fk)
            for start in range(0, len(wanted), 500):
                rows = other._default_manager.filter(
                    **{f"{fk.attname}__in": wanted[start : start + 500]}
                ).values_list(fk.attname, source)
                for pk, citing in rows:
                    found.setdefault(pk, []).append(f"{owner} #{citing}{what}")
    return found


def _citing_row(model: type[models.Model], fk: models.Field) -> tuple[str, str, str]:
    """(what cites, the column naming the citing row, which of its fields) for a foreign key."""
    owner = model._meta.auto_created
    if owner:  # a many-to-many link table: the citing row is the other side
        source = next(f for f in model._meta.concrete_fields if f.is_relation and f is not fk)
        field = next(m for m in owner._meta.many_to_many if m.remote_field.through is model)
        return str(owner._meta.verbose_name), source.attname, f" ({field.name})"
    return str(model._meta.verbose_name), "pk", ""
