"""Drawing a stored paper's images after its import has committed: table screenshots and
SVG-chart rasters (with the chart's inert SVG file), now or by a job, all of them or only what
a killed render left undone. The drawing itself is `papers.render`'s."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Literal

from django.conf import settings
from django.core.files.storage import default_storage
from django.db.models import Q

from jobs.dispatch import queues_enabled, start_job
from papers.media import file_name, save_composed, save_file
from papers.models import Element, Paper
from papers.parsing.svg import Piece, SvgRefused, composed_svg
from papers.render.limits import RenderUnavailable
from papers.render.renderer import open_table_renderer
from papers.storable import storable_text

log = logging.getLogger(__name__)

ImagesMode = Literal["auto", "now", "job", "none"]
ProgressCallback = Callable[[int, int, str], None]


def make_paper_images(
    *, paper_id: int, images: ImagesMode, only_missing: bool = False
) -> tuple[str, list[str]]:
    """A paper's table screenshots and SVG rasters, the way `images` says: drawn now, or by a
    job ("job", or "auto" when Redis is set). `only_missing`: only what has no image yet (a
    render killed half-way). Returns ("rendered" | "queued" | "skipped", problems)."""
    if images == "none":
        return "skipped", []

    if images == "job" or (images == "auto" and queues_enabled()):
        Paper.objects.filter(pk=paper_id).update(images_status=Paper.ImagesStatus.PENDING)
        start_job(
            kind="render_images",
            function="papers.jobs.render_images",
            params={"paper_id": paper_id, **({"only_missing": True} if only_missing else {})},
            queue="render",
            timeout=3600,
        )
        return "queued", []
    if only_missing:
        render = render_missing_images(paper_id=paper_id)
    else:
        render = render_paper_images(paper_id=paper_id)
    return "rendered", list(render["problems"])  # type: ignore[call-overload]


def missing_image_ids(paper: Paper) -> list[int]:
    """The tables and SVG charts of a paper that a render has not finished: tables without a
    screenshot, SVG charts never rasterised (nor marked SVG-only)."""
    tables = paper.elements.filter(kind=Element.Kind.TABLE, is_image_table=False, image="")
    charts = paper.elements.filter(
        kind=Element.Kind.CHART, panels__svg__gt="", image_renderer=Element.Renderer.NONE
    )
    return sorted({*tables.values_list("pk", flat=True), *charts.values_list("pk", flat=True)})


def render_missing_images(
    *, paper_id: int, progress: ProgressCallback | None = None
) -> dict[str, object]:
    """render_paper_images for what has no image yet; the screenshots already drawn stay."""
    paper = Paper.objects.get(pk=paper_id)
    return render_paper_images(
        paper_id=paper_id, progress=progress, element_ids=missing_image_ids(paper)
    )


def render_paper_images(
    *,
    paper_id: int,
    progress: ProgressCallback | None = None,
    element_ids: list[int] | None = None,
) -> dict[str, object]:
    """Screenshot every table and rasterise SVG charts (or only `element_ids`: what a re-parse
    added or changed); one browser for the whole paper."""

    paper = Paper.objects.get(pk=paper_id)
    tables, svg_charts = _elements_to_draw(paper, element_ids)
    total = len(tables) + len(svg_charts)
    problems: list[str] = []
    done = 0
    renderer_name = ""
    with open_table_renderer(
        chromium_path=settings.CHROMIUM_PATH, use_chromium=settings.USE_CHROMIUM
    ) as renderer:
        renderer_name = renderer.name
        for element in tables:
            _screenshot_table(element, renderer, problems, paper)
            done += 1
            if progress:
                progress(done, total, f"{element.label} rendered with {renderer.name}")
        for element in svg_charts:
            _render_svg_chart(element, renderer, problems, RenderUnavailable, paper.media_dir)
            done += 1
            if progress:
                progress(done, total, f"{element.label} rasterised")
    status = Paper.ImagesStatus.PARTIAL if problems else Paper.ImagesStatus.DONE
    Paper.objects.filter(pk=paper.pk).update(images_status=status)
    return {
        "renderer": renderer_name,
        "tables": len(tables),
        "svg_charts": len(svg_charts),
        "problems": problems,
    }


def _elements_to_draw(
    paper: Paper, element_ids: list[int] | None
) -> tuple[list[Element], list[Element]]:
    """The paper's tables to screenshot and its vector charts to rasterise, in reading order
    (only those of `element_ids` when given)."""
    elements = paper.elements.all()
    if element_ids is not None:
        elements = elements.filter(pk__in=element_ids)
    tables = list(elements.filter(kind=Element.Kind.TABLE, is_image_table=False).order_by("order"))
    # Charts, and image tables, whose panels are vector graphics (an <embed> in a table float).
    svg_charts = list(
        elements.filter(panels__svg__gt="")
        .filter(Q(kind=Element.Kind.CHART) | Q(kind=Element.Kind.TABLE, is_image_table=True))
        .distinct()
        .order_by("order")
        .prefetch_related("panels")
    )
    return tables, svg_charts


def _screenshot_table(element: Element, renderer, problems: list[str], paper: Paper) -> None:
    """Draw one table's screenshot and save it; a failure is the table's error and a problem
    of the paper's, never the end of the paper's drawing."""
    try:
        png = renderer.render_table(
            table_html=element.table_html,
            grids=element.cell_grids(),
            label=element.label,
            caption=element.caption,
        )
    except Exception as exc:  # noqa: BLE001 - one bad table must not stop the paper
        log.warning("table %s of %s: %s", element.anchor, paper.versioned_id, exc)
        reason = storable_text(str(exc))
        problems.append(f"{element.label}: screenshot failed: {reason}")
        element.image_error = reason[:2000]
        element.save(update_fields=["image_error"])
    else:
        save_file(element.image, paper.media_dir, file_name(element.anchor), png)
        element.image_renderer = renderer.name
        element.image_error = ""
        element.save(update_fields=["image", "image_renderer", "image_error"])


def _render_svg_chart(
    element: Element, renderer, problems: list[str], unavailable: type[Exception], media_dir: str
) -> None:
    """Rasterise a vector chart's SVG panels and compose its PNG; its panels are also kept as
    one inert SVG file (`Element.vector`), which pages show while there is no PNG."""
    composed: list[tuple[bytes, int]] = []
    pieces: list[Piece] = []
    missing = False
    for panel in element.panels.all():
        if panel.svg:
            pieces.append(Piece(panel.row, svg=panel.svg, width=panel.width, height=panel.height))
            try:
                png = renderer.rasterize_svg(svg=panel.svg)
            except unavailable:
                missing = True
                panel.error = "no raster: Chromium is not available to rasterise the SVG"
                panel.save(update_fields=["error"])
                continue
            except Exception as exc:  # noqa: BLE001
                missing = True
                panel.error = storable_text(f"rasterising failed: {exc}")[:2000]
                panel.save(update_fields=["error"])
                problems.append(f"{element.label}: {panel.error}")
                continue
            save_file(panel.image, media_dir, file_name(element.anchor, f"-{panel.order + 1}"), png)
            panel.error = ""
            panel.save()
            composed.append((png, panel.row))
        elif panel.image:
            with panel.image.open("rb") as handle:
                data = handle.read()
            composed.append((data, panel.row))
            pieces.append(Piece(panel.row, png=data, width=panel.width, height=panel.height))
    vector_error = _save_vector(element, pieces, media_dir)
    if composed and not missing:
        save_composed(element, composed, media_dir)
        element.image_renderer = Element.Renderer.SOURCE_IMAGE
        element.image_error = ""
    else:
        element.image_renderer = Element.Renderer.SVG_ONLY
        element.image_error = "SVG kept; no raster image (Chromium unavailable or failed)"
        if vector_error:  # nothing at all to show: said on the page and in the problems
            element.image_error += f"; {vector_error}"
            problems.append(f"{element.label}: {vector_error}")
    element.save(update_fields=["image", "image_renderer", "image_error", "vector"])


def _save_vector(element: Element, pieces: list[Piece], media_dir: str) -> str:
    """Store the chart's panels as one inert SVG file; what stopped it, or ""."""
    try:
        inert = composed_svg(pieces, max_pixels=settings.MAX_IMAGE_PIXELS)
    except SvgRefused as exc:
        if old := element.vector.name:
            default_storage.delete(old)
            element.vector.name = ""
        return f"no SVG file to show either: {exc}"
    name = file_name(element.anchor, ext="svg")
    save_file(element.vector, media_dir, name, inert.text.encode("utf-8"))
    return ""
