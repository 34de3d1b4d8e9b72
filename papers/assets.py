"""A page's chart images read before an import stores anything: from a saved page's folder or
a data URI (`FolderAssets`), or from any `AssetSource` (the crawler's gated fetch); each checked
and turned into PNG, or, when it is SVG, made inert, so that nothing unchecked reaches storage."""

from __future__ import annotations

import base64
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol
from urllib.parse import unquote, urlsplit

from django.conf import settings

from papers import images as image_tools
from papers.parsing import Panel, ParsedPaper
from papers.parsing.svg import SvgRefused, inert_svg
from papers.storable import storable_text


class AssetError(Exception):
    """An asset (chart image) could not be read."""

    def __init__(self, reason: str):
        super().__init__(reason)
        self.reason = reason


class AssetSource(Protocol):
    def fetch(self, panel: Panel) -> bytes:
        """The bytes of a panel's image; raise AssetError with a reason."""
        ...


class FolderAssets:
    """Assets of a page saved on disk: the folder holding the page and its images."""

    def __init__(self, folder: Path, *, max_bytes: int | None = None):
        self.folder = folder.resolve()
        self.max_bytes = max_bytes or settings.MAX_IMAGE_BYTES

    def fetch(self, panel: Panel) -> bytes:
        if panel.src.startswith("data:"):
            return decode_data_uri(panel.src)
        for candidate in self._candidates(panel):
            path = (self.folder / candidate).resolve()
            if not path.is_relative_to(self.folder):
                continue  # never read outside the page's folder
            if path.is_file():
                if path.stat().st_size > self.max_bytes:
                    raise AssetError(f"{panel.src}: larger than {self.max_bytes} bytes")
                return path.read_bytes()
        raise AssetError(f"{panel.src}: not found in {self.folder}")

    @staticmethod
    def _candidates(panel: Panel) -> list[str]:
        src = unquote(urlsplit(panel.src).path).lstrip("/")
        candidates = [src]
        parts = src.split("/")
        # "2501.11120v1/x1.png" (relative to /html/) or "html/2501.11120v1/x1.png"
        for i, part in enumerate(parts[:-1]):
            if part and part[0].isdigit() and "v" in part:
                candidates.append("/".join(parts[i + 1 :]))
        if panel.url:
            url_path = unquote(urlsplit(panel.url).path)
            url_parts = url_path.strip("/").split("/")
            if "html" in url_parts:
                rest = url_parts[url_parts.index("html") + 1 :]
                candidates.append("/".join(rest[1:]) if len(rest) > 1 else "/".join(rest))
        candidates.append(parts[-1])
        return list(dict.fromkeys(c for c in candidates if c))


def decode_data_uri(uri: str) -> bytes:
    header, _, payload = uri.partition(",")
    if ";base64" not in header:
        raise AssetError("data URI is not base64")
    try:
        return base64.b64decode(payload, validate=False)
    except ValueError as exc:
        raise AssetError(f"bad data URI: {exc}") from None


@dataclass
class PanelImage:
    png: bytes | None
    width: int | None
    height: int | None
    error: str = ""
    svg: str = ""  # a fetched vector graphic, made inert: rasterised with the tables


def load_panels(
    parsed: ParsedPaper, assets: AssetSource, problems: list[str]
) -> dict[tuple[str, int], PanelImage]:
    loaded: dict[tuple[str, int], PanelImage] = {}
    for element in parsed.elements:
        for index, panel in enumerate(element.panels):
            if panel.svg:
                continue
            name = f"{element.label or element.anchor} panel {index + 1}"
            try:
                data = assets.fetch(panel)
                if image_tools.looks_like_svg(data):
                    loaded[(element.anchor, index)] = _vector_panel(data, name, problems)
                    continue
                image = image_tools.normalise_image(
                    data,
                    max_bytes=settings.MAX_IMAGE_BYTES,
                    max_pixels=settings.MAX_IMAGE_PIXELS,
                )
            except (AssetError, image_tools.ImageError) as exc:
                reason = storable_text(getattr(exc, "reason", str(exc)))
                problems.append(f"{name}: {reason}")
                loaded[(element.anchor, index)] = PanelImage(None, None, None, reason)
            else:
                loaded[(element.anchor, index)] = PanelImage(image.png, image.width, image.height)
    return loaded


def _vector_panel(data: bytes, name: str, problems: list[str]) -> PanelImage:
    """A panel whose file is SVG: made inert (what was removed is said), or refused."""
    if len(data) > settings.MAX_IMAGE_BYTES:
        reason = (
            f"the SVG is {len(data):,} bytes, more than the {settings.MAX_IMAGE_BYTES:,} allowed"
        )
        problems.append(f"{name}: {reason}")
        return PanelImage(None, None, None, reason)
    try:
        inert = inert_svg(data, max_pixels=settings.MAX_IMAGE_PIXELS)
    except SvgRefused as exc:
        reason = storable_text(f"SVG not drawn: {exc}")
        problems.append(f"{name}: {reason}")
        return PanelImage(None, None, None, reason)
    if said := inert.report():
        problems.append(f"{name}: SVG made inert before drawing: {said}")
    width = round(inert.width) if inert.width else None
    height = round(inert.height) if inert.height else None
    return PanelImage(None, width, height, svg=inert.text)
