"""Where a paper's files live and how they are written: one folder per import under
papers/<id>v<version>/, files saved into it (a table's or chart's panels and their composed
image), and folders removed when an import is replaced, rolled back or its paper deleted."""

from __future__ import annotations

from pathlib import Path

from django.conf import settings
from django.core.files.base import ContentFile
from django.core.files.storage import default_storage
from django.utils import timezone

from papers import images as image_tools
from papers.assets import PanelImage
from papers.models import Element, ElementPanel
from papers.parsing import Element as ParsedElement


def _paper_dir(arxiv_id: str, version: int) -> str:
    return f"papers/{arxiv_id}v{version}"


def new_media_dir(arxiv_id: str, version: int) -> str:
    # Each import writes into a folder of its own, so a failed re-import never touches the
    # files that the previous (still current) import points at.
    return f"{_paper_dir(arxiv_id, version)}/{timezone.now():%Y%m%dT%H%M%S%f}"


def remove_tree(relative: str) -> None:
    root = Path(settings.MEDIA_ROOT) / relative
    if not root.is_dir():
        return
    for path in sorted(root.rglob("*"), reverse=True):
        if path.is_dir():
            path.rmdir()
        else:
            path.unlink()
    root.rmdir()


def remove_paper_media(arxiv_id: str, version: int) -> None:
    """Remove every file stored for this paper version (all its imports)."""
    remove_tree(_paper_dir(arxiv_id, version))


def remove_other_media(arxiv_id: str, version: int, keep: str) -> None:
    root = Path(settings.MEDIA_ROOT) / _paper_dir(arxiv_id, version)
    if not root.is_dir():
        return
    for child in root.iterdir():
        relative = f"{_paper_dir(arxiv_id, version)}/{child.name}"
        if child.is_dir() and relative != keep:
            remove_tree(relative)


def file_name(anchor: str, suffix: str = "", ext: str = "png") -> str:
    safe = "".join(c if c.isalnum() or c in "._-" else "_" for c in anchor)
    return f"{safe}{suffix}.{ext}"


def save_file(field_file, media_dir: str, name: str, data: bytes) -> str:
    """Store `data` at media_dir/name (replacing a file there), point the field at it, and
    return the name it was stored under."""
    path = f"{media_dir}/{name}"
    if field_file and field_file.name and field_file.name != path:
        default_storage.delete(field_file.name)
    if default_storage.exists(path):
        default_storage.delete(path)
    field_file.name = stored = default_storage.save(path, ContentFile(data))
    return stored


def save_composed(element: Element, panels: list[tuple[bytes, int]], media_dir: str) -> str:
    png = panels[0][0] if len(panels) == 1 else image_tools.compose_panels(panels)
    return save_file(element.image, media_dir, file_name(element.anchor), png)


def store_panels(
    row: Element,
    element: ParsedElement,
    panel_files: dict[tuple[str, int], PanelImage],
    media_dir: str,
    written: list[str],
) -> None:
    """Store a parsed table's or chart's panels (their files under `media_dir`, each file's
    name appended to `written`) and, when every panel is a raster image, the composed image.
    A panel that is SVG (inline, or a fetched file made inert) is rasterised later, with the
    table screenshots."""
    composed: list[tuple[bytes, int]] = []
    vector = False
    for index, panel in enumerate(element.panels):
        image = panel_files.get((element.anchor, index))
        svg = panel.svg or (image.svg if image is not None else "")
        vector = vector or bool(svg)
        stored = ElementPanel(
            element=row,
            order=index,
            row=panel.row,
            caption=panel.caption,
            source_url=panel.url or panel.src,
            svg=svg,
        )
        if image is not None:
            stored.error = image.error
            stored.width, stored.height = image.width, image.height
            if image.png:
                name = file_name(row.anchor, f"-{index + 1}")
                written.append(save_file(stored.image, media_dir, name, image.png))
                composed.append((image.png, panel.row))
        stored.save()
    if composed and not vector:
        written.append(save_composed(row, composed, media_dir))
        row.image_renderer = Element.Renderer.SOURCE_IMAGE
        row.save(update_fields=["image", "image_renderer"])
