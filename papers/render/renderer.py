"""Choosing a renderer: Chromium when it is wanted and starts, otherwise Pillow (with a
warning saying why); both draw a table and, Chromium only, rasterise an SVG figure."""

from __future__ import annotations

import logging
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Protocol

from papers.parsing.document import Grid
from papers.render.chromium import ChromiumRenderer
from papers.render.limits import RenderUnavailable
from papers.render.pillow import PillowRenderer

logger = logging.getLogger(__name__)


class TableRenderer(Protocol):
    name: str

    def render_table(
        self, *, table_html: str = "", label: str, caption: str, grids: Sequence[Grid] = ()
    ) -> bytes: ...

    def rasterize_svg(self, *, svg: str) -> bytes: ...


@contextmanager
def open_table_renderer(
    *, chromium_path: str = "", use_chromium: bool = True
) -> Iterator[TableRenderer]:
    """Chromium when it is wanted and starts; otherwise Pillow, with a warning saying why."""
    renderer: ChromiumRenderer | PillowRenderer = PillowRenderer()
    if use_chromium:
        chromium = ChromiumRenderer(executable_path=chromium_path)
        try:
            chromium.open()
        except RenderUnavailable as exc:
            logger.warning("%s; tables will be drawn with Pillow (no SVG figures)", exc.reason)
        else:
            renderer = chromium
    try:
        yield renderer
    finally:
        if isinstance(renderer, ChromiumRenderer):
            renderer.close()
