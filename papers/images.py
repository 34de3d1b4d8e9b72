"""Check downloaded figure images, turn them into PNG, and compose sub-figure panels."""

from __future__ import annotations

import io
import warnings
from collections.abc import Sequence
from dataclasses import dataclass

from PIL import Image, ImageFile, ImageOps, UnidentifiedImageError

# Only these decoders may look at downloaded bytes: others (EPS runs Ghostscript, for one) are
# attack surface we do not need. (Multi-picture JPEGs open through JPEG and report "MPO".)
ACCEPTED_FORMATS = ("PNG", "JPEG", "GIF", "WEBP", "BMP", "TIFF")

# Signatures of things people upload as figures that are not raster images, to say so plainly.
NON_RASTER_SIGNATURES = (
    (b"%PDF", "a PDF document"),
    (b"%!PS", "a PostScript/EPS file"),
    (b"\xc5\xd0\xd3\xc6", "an EPS file"),
)


class ImageError(Exception):
    """The bytes are not an image we accept; `reason` says why, for people."""

    def __init__(self, reason: str):
        super().__init__(reason)
        self.reason = reason


@dataclass(frozen=True, slots=True)
class NormalisedImage:
    png: bytes
    width: int
    height: int
    source_format: str  # "png", "jpeg", "gif", "webp", "bmp", "tiff"


def looks_like_svg(data: bytes) -> bool:
    head = data[:2048].lstrip(b"\xef\xbb\xbf \t\r\n").lower()
    return head.startswith(b"<svg") or (
        head.startswith((b"<?xml", b"<!doctype svg", b"<!--")) and b"<svg" in head
    )


def _open(data: bytes, max_pixels: int) -> Image.Image:
    """Open (headers only) and check the announced size before any pixel is decoded."""
    try:
        # Pillow's own bomb check is a warning below twice its limit: make it an error.
        with warnings.catch_warnings():
            warnings.simplefilter("error", Image.DecompressionBombWarning)
            image = Image.open(io.BytesIO(data), formats=ACCEPTED_FORMATS)
    except (Image.DecompressionBombError, Image.DecompressionBombWarning) as exc:
        # Pillow checks its own limit (about 89 million pixels) while reading the header.
        raise ImageError(f"the image is too large to decode safely: {exc}") from exc
    except UnidentifiedImageError as exc:
        raise ImageError(
            "not a supported raster image (PNG, JPEG, GIF, WebP, BMP or TIFF expected)"
        ) from exc
    except (OSError, ValueError, SyntaxError) as exc:
        raise ImageError(f"the image header is damaged: {exc}") from exc
    width, height = image.size
    if width < 1 or height < 1:
        raise ImageError(f"the image has no pixels ({width}x{height})")
    if width * height > max_pixels:
        raise ImageError(
            f"the image is {width}x{height} = {width * height:,} pixels, "
            f"more than the {max_pixels:,} allowed"
        )
    return image


def _to_rgb_or_rgba(image: Image.Image) -> Image.Image:
    if image.mode in ("I;16", "I;16B", "I;16L", "I;16N", "I", "F"):
        # 16-bit and float greys would clip to white in a plain convert; stretch them to 8 bits.
        image = image.convert("F")
        low, high = image.getextrema()
        span = (high - low) or 1
        image = image.point(lambda v: (v - low) * 255.0 / span).convert("L")
    has_alpha = image.mode in ("RGBA", "LA", "PA", "RGBa", "La") or (
        image.mode == "P" and "transparency" in image.info
    )
    if has_alpha:
        return image.convert("RGBA")
    return image if image.mode == "RGB" else image.convert("RGB")


def normalise_image(data: bytes, *, max_bytes: int, max_pixels: int) -> NormalisedImage:
    """A downloaded figure as an RGB(A) PNG, or ImageError saying why it cannot be one.

    The pixel limit is checked on the size the header announces, before any decoding; Pillow's
    own limit (Image.MAX_IMAGE_PIXELS) applies too, so the effective limit is the smaller.
    """
    if not data:
        raise ImageError("the image is empty (0 bytes)")
    if len(data) > max_bytes:
        raise ImageError(f"the image is {len(data):,} bytes, more than the {max_bytes:,} allowed")
    if looks_like_svg(data):
        raise ImageError("the image is SVG, a vector format, not a raster image")
    for signature, what in NON_RASTER_SIGNATURES:
        if data.startswith(signature):
            raise ImageError(f"the file is {what}, not a raster image")
    if ImageFile.LOAD_TRUNCATED_IMAGES:
        # Someone switched this on globally; we would then accept half-decoded images silently.
        raise ImageError("refusing to decode: PIL.ImageFile.LOAD_TRUNCATED_IMAGES is enabled")

    # verify() checks a PNG's chunk CRCs without decoding, and leaves the image unusable,
    # so the pixels come from a second open.
    probe = _open(data, max_pixels)
    source_format = "jpeg" if probe.format == "MPO" else (probe.format or "").lower()
    try:
        probe.verify()
    except Exception as exc:  # verify raises whatever the plugin's parser hits
        raise ImageError(f"the image is damaged: {exc}") from exc

    image = _open(data, max_pixels)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", Image.DecompressionBombWarning)
            image.seek(0)  # GIF, WebP, TIFF, MPO: the first frame is the figure
            image.load()
        image = ImageOps.exif_transpose(image) or image
        image = _to_rgb_or_rgba(image)
    except (Image.DecompressionBombError, Image.DecompressionBombWarning) as exc:
        raise ImageError(f"the image is too large to decode safely: {exc}") from exc
    except (OSError, ValueError, SyntaxError, EOFError) as exc:
        raise ImageError(f"the image is truncated or damaged: {exc}") from exc

    out = io.BytesIO()
    image.save(out, format="PNG")
    return NormalisedImage(
        png=out.getvalue(), width=image.width, height=image.height, source_format=source_format
    )


def compose_panels(
    panels: Sequence[tuple[bytes, int]], *, gap: int = 16, max_side: int = 8000
) -> bytes:
    """One PNG of a figure's panels: each row side by side at a common height, rows stacked.

    `panels` are (image bytes, row index) in reading order. A row takes its tallest panel's
    height so that no panel loses detail; rows are centred on a white background. A figure
    that would be wider or taller than `max_side` is scaled down as a whole, gaps included.
    """
    if not panels:
        raise ImageError("a figure needs at least one panel")
    rows: dict[int, list[Image.Image]] = {}
    for data, row in panels:
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("error", Image.DecompressionBombWarning)
                panel = Image.open(io.BytesIO(data), formats=ACCEPTED_FORMATS)
                panel.load()
        except Exception as exc:
            raise ImageError(f"a panel is not a readable image: {exc}") from exc
        rows.setdefault(row, []).append(panel.convert("RGBA"))

    # Lay out at full size first, then resize each panel once to its final size: a panel
    # enlarged to its row's height and shrunk again to fit max_side would blur twice.
    ordered = [rows[row] for row in sorted(rows)]
    heights = [max(panel.height for panel in row) for row in ordered]
    widths = [
        [panel.width * h / panel.height for panel in row]
        for row, h in zip(ordered, heights, strict=True)
    ]
    full_w = max(sum(ws) + gap * (len(ws) - 1) for ws in widths)
    full_h = sum(heights) + gap * (len(heights) - 1)
    factor = min(1.0, max_side / max(full_w, full_h))
    gap_px = round(gap * factor)

    resized: list[list[Image.Image]] = []
    for row, ws, h in zip(ordered, widths, heights, strict=True):
        target_h = max(1, round(h * factor))
        resized.append(
            [
                panel
                if panel.size == (round(w * factor), target_h)
                else panel.resize((max(1, round(w * factor)), target_h), Image.Resampling.LANCZOS)
                for panel, w in zip(row, ws, strict=True)
            ]
        )
    row_widths = [sum(p.width for p in row) + gap_px * (len(row) - 1) for row in resized]
    width = max(row_widths)
    height = sum(row[0].height for row in resized) + gap_px * (len(resized) - 1)
    canvas = Image.new("RGB", (width, height), (255, 255, 255))
    y = 0
    for row, row_width in zip(resized, row_widths, strict=True):
        x = (width - row_width) // 2
        for panel in row:
            canvas.paste(panel, (x, y), panel)  # the alpha mask puts transparency on white
            x += panel.width + gap_px
        y += row[0].height + gap_px
    out = io.BytesIO()
    canvas.save(out, format="PNG")
    return out.getvalue()
