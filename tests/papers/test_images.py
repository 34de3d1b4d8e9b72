"""Figure images: what normalise_image accepts, what it refuses and why, and panel composition."""

from __future__ import annotations

import io
import random
import struct
import time
import zlib

import pytest
from PIL import Image, features

from papers.images import ImageError, NormalisedImage, compose_panels, normalise_image

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
LIMITS = {"max_bytes": 20 * 1024 * 1024, "max_pixels": 40_000_000}


def _encode(image: Image.Image, fmt: str, **params: object) -> bytes:
    out = io.BytesIO()
    image.save(out, format=fmt, **params)
    return out.getvalue()


def _chart(width: int = 64, height: int = 48, mode: str = "RGB") -> Image.Image:
    """A small picture with structure (so lossy formats keep something to compare)."""
    image = Image.new(mode, (width, height), "white")
    for x in range(width // 4, width // 2):
        for y in range(height // 3, height):
            image.putpixel((x, y), (200, 30, 30) if mode.startswith("RGB") else 0)
    return image


def _noise(width: int = 300, height: int = 300) -> Image.Image:
    # Random pixels do not compress, so the pixel data is most of the file and cutting it
    # really removes rows.
    return Image.frombytes("RGB", (width, height), random.Random(7).randbytes(width * height * 3))


def _png_chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))


def _png_claiming(width: int, height: int) -> bytes:
    """A well-formed PNG header announcing width x height, with almost no pixel data."""
    ihdr = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    idat = zlib.compress(b"\x00" * 64)
    return (
        PNG_SIGNATURE
        + _png_chunk(b"IHDR", ihdr)
        + _png_chunk(b"IDAT", idat)
        + _png_chunk(b"IEND", b"")
    )


def _decoded(result: NormalisedImage) -> Image.Image:
    assert result.png.startswith(PNG_SIGNATURE)
    image = Image.open(io.BytesIO(result.png))
    image.load()
    assert image.format == "PNG"
    assert image.size == (result.width, result.height)
    return image


# --- accepted ---------------------------------------------------------------------------------


def test_jpeg_becomes_an_rgb_png() -> None:
    result = normalise_image(_encode(_chart(), "JPEG", quality=90), **LIMITS)
    image = _decoded(result)
    assert result.source_format == "jpeg"
    assert image.mode == "RGB" and image.size == (64, 48)
    red, green, blue = image.getpixel((20, 40))
    assert red > 150 and green < 90 and blue < 90  # the bar survived re-encoding


@pytest.mark.parametrize("fmt", ["PNG", "BMP", "TIFF", "GIF", "WEBP"])
def test_raster_formats_are_accepted(fmt: str) -> None:
    if fmt == "WEBP" and not features.check("webp"):
        pytest.skip("this Pillow has no WebP support")
    result = normalise_image(_encode(_chart(), fmt), **LIMITS)
    assert result.source_format == fmt.lower()
    assert _decoded(result).size == (64, 48)


def test_cmyk_jpeg_becomes_rgb() -> None:
    result = normalise_image(_encode(_chart().convert("CMYK"), "JPEG"), **LIMITS)
    assert _decoded(result).mode == "RGB"


def test_transparency_is_kept_as_rgba() -> None:
    image = Image.new("RGBA", (10, 10), (0, 0, 0, 0))
    image.putpixel((5, 5), (0, 0, 255, 255))
    decoded = _decoded(normalise_image(_encode(image, "PNG"), **LIMITS))
    assert decoded.mode == "RGBA"
    assert decoded.getpixel((0, 0))[3] == 0 and decoded.getpixel((5, 5)) == (0, 0, 255, 255)

    palette = Image.new("P", (10, 10), 0)
    palette.putpalette([255, 255, 255, 0, 0, 0])
    assert _decoded(normalise_image(_encode(palette, "PNG", transparency=0), **LIMITS)).mode == (
        "RGBA"
    )


def test_animated_gif_keeps_its_first_frame() -> None:
    frames = [Image.new("RGB", (8, 8), (255, 0, 0)), Image.new("RGB", (8, 8), (0, 0, 255))]
    gif = _encode(frames[0], "GIF", save_all=True, append_images=frames[1:], duration=100)
    assert Image.open(io.BytesIO(gif)).n_frames == 2
    decoded = _decoded(normalise_image(gif, **LIMITS))
    red, _green, blue = decoded.convert("RGB").getpixel((4, 4))
    assert red > 200 and blue < 50


def test_sixteen_bit_greys_are_stretched_not_clipped_to_white() -> None:
    ramp = Image.new("I;16", (256, 4))
    for x in range(256):
        for y in range(4):
            ramp.putpixel((x, y), x * 257)
    decoded = _decoded(normalise_image(_encode(ramp, "PNG"), **LIMITS)).convert("L")
    assert decoded.getpixel((0, 0)) < 10
    assert 100 < decoded.getpixel((128, 0)) < 160
    assert decoded.getpixel((255, 0)) > 245


# --- refused ----------------------------------------------------------------------------------


def test_empty_and_oversized_bytes_are_refused() -> None:
    with pytest.raises(ImageError, match="empty"):
        normalise_image(b"", **LIMITS)
    png = _encode(_chart(), "PNG")
    with pytest.raises(ImageError, match="more than the 100 allowed"):
        normalise_image(png, max_bytes=100, max_pixels=40_000_000)


@pytest.mark.parametrize(
    ("data", "says"),
    [
        (b"<html><body>404 Not Found</body></html>" * 4, "not a supported raster image"),
        (b"\x00\x01garbage" * 50, "not a supported raster image"),
        (b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n1 0 obj", "PDF"),
        (b"%!PS-Adobe-3.0 EPSF-3.0\n%%BoundingBox: 0 0 10 10\n", "PostScript"),
    ],
)
def test_non_images_are_refused_with_a_reason(data: bytes, says: str) -> None:
    with pytest.raises(ImageError, match=says):
        normalise_image(data, **LIMITS)


@pytest.mark.parametrize(
    "svg",
    [
        b"<svg xmlns='http://www.w3.org/2000/svg' width='10' height='10'/>",
        b"\xef\xbb\xbf<?xml version='1.0'?>\n<svg xmlns='http://www.w3.org/2000/svg'></svg>",
    ],
)
def test_svg_is_refused_as_not_raster(svg: bytes) -> None:
    with pytest.raises(ImageError) as caught:
        normalise_image(svg, **LIMITS)
    assert "SVG" in caught.value.reason and "not a raster" in caught.value.reason


def test_decompression_bomb_is_refused_before_decoding() -> None:
    bomb = _png_claiming(8_000, 8_000)  # 64 million pixels: under Pillow's limit, over ours
    assert len(bomb) < 200
    started = time.perf_counter()
    with pytest.raises(ImageError) as caught:
        normalise_image(bomb, **LIMITS)
    # Refused on the announced size (decoding would have ended in a truncation error instead),
    # and at once: the 192 MB of pixels were never allocated.
    assert "8000x8000" in caught.value.reason
    assert "more than the 40,000,000 allowed" in caught.value.reason
    assert time.perf_counter() - started < 1.0


def test_a_huge_bomb_hits_pillows_own_limit_even_with_a_generous_max_pixels() -> None:
    bomb = _png_claiming(100_000, 100_000)
    for max_pixels in (40_000_000, 10**12):
        with pytest.raises(ImageError, match="too large to decode safely"):
            normalise_image(bomb, max_bytes=10_000, max_pixels=max_pixels)


def test_a_real_image_over_the_pixel_limit_is_refused() -> None:
    png = _encode(Image.new("RGB", (2000, 1500), "white"), "PNG")
    with pytest.raises(ImageError, match="2000x1500"):
        normalise_image(png, max_bytes=10**8, max_pixels=1_000_000)


@pytest.mark.parametrize("fmt", ["PNG", "JPEG"])
def test_truncated_images_are_refused(fmt: str) -> None:
    whole = _encode(_noise(), fmt)
    assert normalise_image(whole, **LIMITS).width == 300  # the uncut file is fine
    with pytest.raises(ImageError, match="truncated|damaged"):
        normalise_image(whole[: len(whole) * 6 // 10], **LIMITS)


def test_a_png_with_a_corrupted_chunk_is_refused() -> None:
    png = bytearray(_encode(_chart(), "PNG"))
    idat = png.index(b"IDAT")
    png[idat + 10] ^= 0xFF  # the chunk's CRC no longer matches
    with pytest.raises(ImageError, match="damaged"):
        normalise_image(bytes(png), **LIMITS)


# --- composing panels -------------------------------------------------------------------------


def _panel(width: int, height: int, colour: tuple[int, int, int]) -> bytes:
    return _encode(Image.new("RGB", (width, height), colour), "PNG")


def test_compose_two_rows_of_two_panels() -> None:
    panels = [
        (_panel(100, 50, (255, 0, 0)), 0),  # scaled to the row's height: 200x100
        (_panel(100, 100, (0, 255, 0)), 0),
        (_panel(50, 50, (0, 0, 255)), 1),
        (_panel(50, 50, (0, 0, 0)), 1),
    ]
    image = Image.open(io.BytesIO(compose_panels(panels, gap=16)))
    assert image.format == "PNG" and image.mode == "RGB"
    # Row 0: 200 + 16 + 100 wide, 100 high; row 1: 50 + 16 + 50, 50 high; a gap between rows.
    assert image.size == (316, 100 + 16 + 50)
    assert image.getpixel((100, 50)) == (255, 0, 0)
    assert image.getpixel((208, 50)) == (255, 255, 255)  # the gap between panels
    assert image.getpixel((266, 50)) == (0, 255, 0)
    assert image.getpixel((150, 108)) == (255, 255, 255)  # the gap between rows
    # Row 1 (116 wide) is centred: it starts at (316 - 116) // 2 = 100.
    assert image.getpixel((99, 140)) == (255, 255, 255)
    assert image.getpixel((125, 140)) == (0, 0, 255)
    assert image.getpixel((190, 140)) == (0, 0, 0)


def test_compose_orders_rows_by_index_and_puts_transparency_on_white() -> None:
    clear = Image.new("RGBA", (20, 20), (0, 0, 0, 0))
    panels = [(_panel(20, 20, (0, 0, 255)), 1), (_encode(clear, "PNG"), 0)]
    image = Image.open(io.BytesIO(compose_panels(panels, gap=0))).convert("RGB")
    assert image.size == (20, 40)
    assert image.getpixel((10, 10)) == (255, 255, 255)
    assert image.getpixel((10, 30)) == (0, 0, 255)


def test_compose_scales_an_oversized_figure_down() -> None:
    panels = [(_panel(3000, 1000, (0, 0, 0)), 0), (_panel(3000, 1000, (0, 0, 0)), 0)]
    image = Image.open(io.BytesIO(compose_panels(panels, gap=16, max_side=2000)))
    assert 1995 <= image.width <= 2000  # rounding each panel may lose a pixel or two
    assert abs(image.height - 1000 * 2000 / 6016) <= 2


def test_compose_refuses_nothing_and_non_images() -> None:
    with pytest.raises(ImageError):
        compose_panels([])
    with pytest.raises(ImageError):
        compose_panels([(b"not an image", 0)])
