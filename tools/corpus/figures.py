"""Draw the corpus papers' figures (PNG charts) with Pillow.

Developer step, like build.py: `python tools/corpus/figures.py` rewrites every
`papers/corpus/<slug>/figures/*.png` from the numbers below (the same numbers
the papers quote). Needs Pillow only; output is deterministic.
"""

from __future__ import annotations

import math
import random
from pathlib import Path

from PIL import Image, ImageDraw, ImageFont

CORPUS = Path(__file__).resolve().parents[2] / "papers" / "corpus"  # the data stays there
SS = 2  # supersampling factor: draw at 2x, downsample for anti-aliasing

PALETTE = ["#4C72B0", "#DD8452", "#55A868", "#C44E52", "#8172B3", "#937860", "#DA8BC3"]
GRID = "#E3E3E3"
INK = "#222222"

_FONT_DIRS = ["/usr/share/fonts/truetype/dejavu", "/usr/share/fonts/dejavu"]


def font(size: int, bold: bool = False) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    name = "DejaVuSans-Bold.ttf" if bold else "DejaVuSans.ttf"
    for d in _FONT_DIRS:
        p = Path(d) / name
        if p.exists():
            return ImageFont.truetype(str(p), size * SS)
    return ImageFont.load_default(size * SS)


def _rgb(hex_colour: str) -> tuple[int, int, int]:
    h = hex_colour.lstrip("#")
    return tuple(int(h[i : i + 2], 16) for i in (0, 2, 4))  # type: ignore[return-value]


def _lerp(a, b, t):
    return tuple(round(x + (y - x) * t) for x, y in zip(a, b, strict=True))


def colormap(name: str):
    """A few anchor colours interpolated linearly (close to viridis / magma / blues)."""
    anchors = {
        "viridis": ["#440154", "#3B528B", "#21918C", "#5EC962", "#FDE725"],
        "magma": ["#000004", "#3B0F70", "#8C2981", "#DE4968", "#FE9F6D", "#FCFDBF"],
        "blues": ["#F7FBFF", "#C6DBEF", "#6BAED6", "#2171B5", "#08306B"],
    }[name]
    cols = [_rgb(a) for a in anchors]

    def f(t: float) -> tuple[int, int, int]:
        t = min(max(t, 0.0), 1.0) * (len(cols) - 1)
        i = min(int(t), len(cols) - 2)
        return _lerp(cols[i], cols[i + 1], t - i)

    return f


class Canvas:
    def __init__(self, size=(480, 320)):
        self.w, self.h = size
        self.img = Image.new("RGB", (self.w * SS, self.h * SS), "white")
        self.d = ImageDraw.Draw(self.img)

    def text(self, xy, s, size=11, anchor="la", fill=INK, bold=False):
        self.d.text((xy[0] * SS, xy[1] * SS), s, font=font(size, bold), anchor=anchor, fill=fill)

    def vtext(self, xy, s, size=11, fill=INK):
        """Text rotated 90 degrees, centred on xy (for y-axis labels)."""
        f = font(size)
        box = self.d.textbbox((0, 0), s, font=f)
        tw, th = box[2] - box[0] + 4, box[3] - box[1] + 6
        tmp = Image.new("RGBA", (tw, th), (255, 255, 255, 0))
        ImageDraw.Draw(tmp).text((2, 1 - box[1] + 1), s, font=f, fill=fill)
        tmp = tmp.rotate(90, expand=True)
        self.img.paste(
            tmp, (int(xy[0] * SS - tmp.width / 2), int(xy[1] * SS - tmp.height / 2)), tmp
        )

    def line(self, pts, fill=INK, width=1.0):
        self.d.line(
            [(x * SS, y * SS) for x, y in pts],
            fill=fill,
            width=max(1, round(width * SS)),
            joint="curve",
        )

    def rect(self, box, fill=None, outline=None, width=1.0):
        x0, y0, x1, y1 = box
        self.d.rectangle(
            [min(x0, x1) * SS, min(y0, y1) * SS, max(x0, x1) * SS, max(y0, y1) * SS],
            fill=fill,
            outline=outline,
            width=max(1, round(width * SS)),
        )

    def marker(self, xy, shape="o", fill=INK, r=3.2):
        x, y = xy[0] * SS, xy[1] * SS
        r *= SS
        if shape == "o":
            self.d.ellipse([x - r, y - r, x + r, y + r], fill=fill, outline="white", width=SS)
        elif shape == "s":
            self.d.rectangle([x - r, y - r, x + r, y + r], fill=fill, outline="white", width=SS)
        elif shape == "^":
            self.d.polygon(
                [(x, y - r * 1.2), (x - r * 1.1, y + r * 0.8), (x + r * 1.1, y + r * 0.8)],
                fill=fill,
            )
        elif shape == "D":
            self.d.polygon([(x, y - r * 1.2), (x + r, y), (x, y + r * 1.2), (x - r, y)], fill=fill)

    def save(self, path: Path, colors: int = 160):
        out = self.img.resize((self.w, self.h), Image.LANCZOS)
        out = out.quantize(colors=colors, method=Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE)
        path.parent.mkdir(parents=True, exist_ok=True)
        out.save(path, optimize=True)


def _fmt(v: float) -> str:
    if abs(v - round(v)) < 1e-9:
        return str(int(round(v)))
    return f"{v:g}"


def left_margin(yticks, ytickfmt) -> float:
    """Room for the y tick labels plus the rotated y-axis label."""
    f = font(10)
    tmp = ImageDraw.Draw(Image.new("RGB", (4, 4)))
    widest = max(tmp.textlength(ytickfmt(t), font=f) for t in yticks) / SS
    return widest + 34


class Axes:
    """A plot area inside a canvas with linear (or log-x) scales."""

    def __init__(self, cv: Canvas, box, xlim, ylim, logx=False):
        self.cv, self.box, self.xlim, self.ylim, self.logx = cv, box, xlim, ylim, logx

    def X(self, x):
        x0, _, x1, _ = self.box
        a, b = self.xlim
        if self.logx:
            x, a, b = math.log10(x), math.log10(a), math.log10(b)
        return x0 + (x - a) / (b - a) * (x1 - x0)

    def Y(self, y):
        _, y0, _, y1 = self.box
        a, b = self.ylim
        return y1 - (y - a) / (b - a) * (y1 - y0)

    def frame(
        self,
        yticks,
        xticks=None,
        xticklabels=None,
        xlabel="",
        ylabel="",
        title="",
        ytickfmt=_fmt,
        grid=True,
    ):
        cv, (x0, y0, x1, y1) = self.cv, self.box
        for t in yticks:
            y = self.Y(t)
            if grid:
                cv.line([(x0, y), (x1, y)], fill=GRID, width=1)
            cv.line([(x0 - 4, y), (x0, y)], width=1)
            cv.text((x0 - 7, y), ytickfmt(t), size=10, anchor="rm")
        if xticks is not None:
            labels = xticklabels or [_fmt(t) for t in xticks]
            for t, lab in zip(xticks, labels, strict=True):
                x = self.X(t)
                cv.line([(x, y1), (x, y1 + 4)], width=1)
                cv.text((x, y1 + 7), lab, size=10, anchor="mt")
        cv.line([(x0, y0), (x0, y1), (x1, y1)], width=1.2)
        if xlabel:
            cv.text(((x0 + x1) / 2, y1 + 24), xlabel, size=11, anchor="mt")
        if ylabel:
            cv.vtext((x0 - left_margin(yticks, ytickfmt) + 12, (y0 + y1) / 2), ylabel, size=11)
        if title:
            cv.text(((x0 + x1) / 2, y0 - 10), title, size=12, anchor="md", bold=True)

    def legend(self, entries, loc="lower right", kind="line", size=10):
        """entries: [(label, colour, marker)]"""
        cv = self.cv
        f = font(size)
        widths = [cv.d.textlength(lab, font=f) / SS for lab, _, _ in entries]
        lw, lh = max(widths) + 34, 15 * len(entries) + 8
        x0, y0, x1, y1 = self.box
        pad = 8
        if "right" in loc:
            lx = x1 - lw - pad
        elif "center" in loc:
            lx = (x0 + x1 - lw) / 2
        else:
            lx = x0 + pad
        ly = y1 - lh - pad if "lower" in loc else y0 + pad
        cv.rect((lx, ly, lx + lw, ly + lh), fill="white", outline="#BBBBBB", width=0.8)
        for i, (lab, col, mk) in enumerate(entries):
            yy = ly + 11 + 15 * i
            if kind == "line":
                cv.line([(lx + 6, yy), (lx + 24, yy)], fill=col, width=2)
                if mk:
                    cv.marker((lx + 15, yy), mk, fill=col, r=2.8)
            else:
                cv.rect((lx + 8, yy - 5, lx + 20, yy + 5), fill=col)
            cv.text((lx + 29, yy), lab, size=size, anchor="lm")


def line_chart(
    path,
    xs,
    series,
    *,
    xlabel,
    ylabel,
    ylim,
    yticks,
    title="",
    xticklabels=None,
    logx=False,
    legend_loc="lower right",
    size=(480, 320),
    legend=True,
    markers=True,
    ytickfmt=_fmt,
):
    cv = Canvas(size)
    top = 30 if title else 14
    ax = Axes(
        cv,
        (left_margin(yticks, ytickfmt), top, size[0] - 14, size[1] - 46),
        (xs[0], xs[-1]),
        ylim,
        logx=logx,
    )
    if not logx:
        span = xs[-1] - xs[0]
        ax.xlim = (xs[0] - 0.04 * span, xs[-1] + 0.04 * span)
    else:
        ax.xlim = (xs[0] / 1.25, xs[-1] * 1.25)
    ax.frame(yticks, xs, xticklabels, xlabel, ylabel, title, ytickfmt=ytickfmt)
    shapes = ["o", "s", "^", "D", "o", "s"]
    entries = []
    for i, (name, ys) in enumerate(series.items()):
        col = PALETTE[i % len(PALETTE)]
        pts = [(ax.X(x), ax.Y(y)) for x, y in zip(xs, ys, strict=True)]
        cv.line(pts, fill=col, width=2)
        if markers:
            for p in pts:
                cv.marker(p, shapes[i], fill=col)
        entries.append((name, col, shapes[i] if markers else None))
    if legend:
        ax.legend(entries, loc=legend_loc)
    cv.save(Path(path))


def bar_chart(
    path,
    groups,
    series,
    *,
    ylabel,
    ylim,
    yticks,
    title="",
    xlabel="",
    annotate=False,
    legend_loc="upper right",
    size=(480, 320),
    errors=None,
    ytickfmt=_fmt,
    colors=None,
    annotate_fmt="{:g}",
):
    cv = Canvas(size)
    top = 30 if title else 14
    bottom = size[1] - (46 if xlabel else 34)
    left = left_margin(yticks, ytickfmt)
    ax = Axes(cv, (left, top, size[0] - 14, bottom), (0, len(groups)), ylim)
    ax.frame(yticks, ylabel=ylabel, title=title, ytickfmt=ytickfmt)
    n = len(series)
    gw = 0.78
    bw = gw / n
    colors = colors or PALETTE
    entries = []
    for j, (name, vals) in enumerate(series.items()):
        col = colors[j % len(colors)]
        entries.append((name, col, None))
        for i, v in enumerate(vals):
            xa = i + 0.5 - gw / 2 + j * bw
            cv.rect((ax.X(xa + 0.06 * bw), ax.Y(ylim[0]), ax.X(xa + 0.94 * bw), ax.Y(v)), fill=col)
            if errors:
                e = errors[name][i]
                xc = ax.X(xa + bw / 2)
                cv.line([(xc, ax.Y(v - e)), (xc, ax.Y(v + e))], width=1)
                cv.line([(xc - 3, ax.Y(v + e)), (xc + 3, ax.Y(v + e))], width=1)
                cv.line([(xc - 3, ax.Y(v - e)), (xc + 3, ax.Y(v - e))], width=1)
            if annotate:
                cv.text(
                    (ax.X(xa + bw / 2), ax.Y(v) - 3), annotate_fmt.format(v), size=8, anchor="md"
                )
    for i, g in enumerate(groups):
        for k, part in enumerate(g.split("\n")):
            cv.text((ax.X(i + 0.5), bottom + 7 + 12 * k), part, size=10, anchor="mt")
    if xlabel:
        cv.text(((left + size[0] - 14) / 2, bottom + 24), xlabel, size=11, anchor="mt")
    if n > 1:
        ax.legend(entries, loc=legend_loc, kind="bar")
    cv.save(Path(path))


def heatmap(
    path,
    matrix,
    rowlabels,
    collabels,
    *,
    xlabel="",
    title="",
    cmap="blues",
    vmin=0.0,
    vmax=1.0,
    size=(480, 320),
    colorbar=True,
    annotate=False,
):
    cv = Canvas(size)
    cm = colormap(cmap)
    left, top = 78, 30 if title else 12
    right = size[0] - (58 if colorbar else 12)
    bottom = size[1] - (44 if xlabel else 28)
    nr, nc = len(matrix), len(matrix[0])
    cw, ch = (right - left) / nc, (bottom - top) / nr
    for r, row in enumerate(matrix):
        for c, v in enumerate(row):
            t = (v - vmin) / (vmax - vmin)
            cv.rect(
                (left + c * cw, top + r * ch, left + (c + 1) * cw, top + (r + 1) * ch), fill=cm(t)
            )
            if annotate:
                cv.text(
                    (left + (c + 0.5) * cw, top + (r + 0.5) * ch),
                    f"{v:.2f}",
                    size=8,
                    anchor="mm",
                    fill="white" if t > 0.55 else INK,
                )
        cv.text((left - 6, top + (r + 0.5) * ch), rowlabels[r], size=9, anchor="rm")
    for c, lab in enumerate(collabels):
        cv.text((left + (c + 0.5) * cw, bottom + 5), lab, size=9, anchor="mt")
    cv.rect((left, top, right, bottom), outline=INK, width=1)
    if xlabel:
        cv.text(((left + right) / 2, bottom + 22), xlabel, size=11, anchor="mt")
    if title:
        cv.text(((left + right) / 2, top - 10), title, size=12, anchor="md", bold=True)
    if colorbar:
        bx = right + 14
        steps = 60
        for i in range(steps):
            y0 = bottom - (bottom - top) * i / steps
            y1 = bottom - (bottom - top) * (i + 1) / steps
            cv.rect((bx, y0, bx + 12, y1), fill=cm(i / (steps - 1)))
        cv.rect((bx, top, bx + 12, bottom), outline=INK, width=0.8)
        for t in (0.0, 0.5, 1.0):
            v = vmin + t * (vmax - vmin)
            y = bottom - (bottom - top) * t
            cv.text((bx + 16, y), f"{v:g}", size=9, anchor="lm")
    cv.save(Path(path))


def histogram(
    path,
    bins,
    series,
    *,
    xlabel,
    ylabel,
    ylim,
    yticks,
    xticks,
    size=(480, 320),
    legend_loc="upper right",
    title="",
):
    """Overlaid histograms: bins = edges (len n+1), series = {name: counts (len n)}."""
    cv = Canvas(size)
    top = 30 if title else 14
    ax = Axes(
        cv, (left_margin(yticks, _fmt), top, size[0] - 14, size[1] - 46), (bins[0], bins[-1]), ylim
    )
    ax.frame(yticks, xticks, None, xlabel, ylabel, title)
    entries = []
    for j, (name, counts) in enumerate(series.items()):
        col = PALETTE[j]
        lay = Image.new("RGBA", cv.img.size, (0, 0, 0, 0))
        ld = ImageDraw.Draw(lay)
        r, g, b = _rgb(col)
        for i, c in enumerate(counts):
            x0, x1 = ax.X(bins[i]), ax.X(bins[i + 1])
            ld.rectangle(
                [x0 * SS + SS, ax.Y(c) * SS, x1 * SS - SS, ax.Y(0) * SS], fill=(r, g, b, 150)
            )
        cv.img.paste(lay, (0, 0), lay)
        entries.append((name, col, None))
    ax.legend(entries, loc=legend_loc, kind="bar")
    cv.save(Path(path))


# --------------------------------------------------------------------------- scenes
def street_scene(path, seed: int, kind: str, size=(160, 96)):
    """A tiny synthetic driving frame ('rgb'), or a depth map of it ('depth_good' / 'depth_blurry')."""
    rng = random.Random(seed)
    w, h = size
    img = Image.new("RGB", (w * SS, h * SS))
    d = ImageDraw.Draw(img)
    horizon = int(h * (0.42 + 0.06 * rng.random()))
    cars = []
    for _ in range(rng.randint(2, 3)):
        depth = rng.uniform(0.25, 0.85)
        cw = int(w * (0.34 - 0.26 * depth))
        chh = int(cw * 0.55)
        cx = rng.randint(int(w * 0.1), int(w * 0.9))
        cy = int(horizon + (h - horizon) * (1 - depth) * 0.85) + 4
        cars.append((depth, cx - cw // 2, cy - chh, cx + cw // 2, cy))
    cars.sort(key=lambda c: -c[0])  # far first
    poles = [(rng.uniform(0.15, 0.5), rng.randint(5, w - 5)) for _ in range(2)]
    mag = colormap("magma")

    def depth_col(t):  # t: 0 near .. 1 far -> bright near
        return mag(1.0 - 0.92 * t)

    if kind == "rgb":
        for y in range(h):
            if y < horizon:
                c = _lerp((150, 185, 225), (215, 228, 240), y / max(horizon, 1))
            else:
                c = _lerp((120, 120, 125), (70, 72, 78), (y - horizon) / max(h - horizon, 1))
            d.rectangle([0, y * SS, w * SS, (y + 1) * SS], fill=c)
        d.polygon(
            [
                (0, horizon * SS),
                (w * SS * 0.3, horizon * SS - 14 * SS),
                (w * SS * 0.55, horizon * SS),
            ],
            fill=(96, 130, 92),
        )
        d.polygon(
            [
                (w * SS * 0.6, horizon * SS),
                (w * SS * 0.85, horizon * SS - 18 * SS),
                (w * SS, horizon * SS),
            ],
            fill=(84, 118, 86),
        )
        for i in range(6):
            y = horizon + (h - horizon) * (i / 6) ** 1.6
            d.line(
                [(w / 2 * SS, (y + 1) * SS), (w / 2 * SS, (y + 3 + i) * SS)],
                fill=(235, 235, 210),
                width=SS,
            )
        for depth, px in poles:
            top = horizon - int(30 * (1 - depth))
            d.rectangle(
                [px * SS, top * SS, (px + 2) * SS, (horizon + int(20 * (1 - depth))) * SS],
                fill=(60, 60, 60),
            )
        colours = [(178, 34, 34), (30, 80, 160), (220, 220, 220), (40, 40, 40), (200, 160, 40)]
        for _depth, x0, y0, x1, y1 in cars:
            col = rng.choice(colours)
            d.rounded_rectangle([x0 * SS, y0 * SS, x1 * SS, y1 * SS], radius=3 * SS, fill=col)
            d.rectangle(
                [
                    (x0 + (x1 - x0) * 0.2) * SS,
                    (y0 + 2) * SS,
                    (x1 - (x1 - x0) * 0.2) * SS,
                    (y0 + (y1 - y0) * 0.45) * SS,
                ],
                fill=(170, 200, 220),
            )
    else:
        blurry = kind == "depth_blurry"
        for y in range(h):
            if y < horizon:
                t = 1.0
            else:
                t = max(0.0, 1.0 - ((y - horizon) / max(h - horizon, 1)) ** 0.7)
            d.rectangle([0, y * SS, w * SS, (y + 1) * SS], fill=depth_col(t))
        for depth, px in poles:
            top = horizon - int(30 * (1 - depth))
            d.rectangle(
                [px * SS, top * SS, (px + 2) * SS, (horizon + int(20 * (1 - depth))) * SS],
                fill=depth_col(depth),
            )
        for depth, x0, y0, x1, y1 in cars:
            d.rounded_rectangle(
                [x0 * SS, y0 * SS, x1 * SS, y1 * SS], radius=3 * SS, fill=depth_col(depth)
            )
            if blurry:  # bleeding halo around occlusion boundaries
                halo = Image.new("RGBA", img.size, (0, 0, 0, 0))
                hd = ImageDraw.Draw(halo)
                r, g, b = depth_col(depth)
                hd.rounded_rectangle(
                    [(x0 - 4) * SS, (y0 - 3) * SS, (x1 + 4) * SS, (y1 + 1) * SS],
                    radius=6 * SS,
                    fill=(r, g, b, 110),
                )
                img.paste(halo, (0, 0), halo)
        if blurry:
            from PIL import ImageFilter

            img = img.filter(ImageFilter.GaussianBlur(2.2 * SS))
    out = img.resize((w, h), Image.LANCZOS)
    out = out.quantize(colors=128, method=Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE)
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    out.save(path, optimize=True)


def table_image(path, header, rows, *, col_align=None, size=None, bold_first_col=False):
    """Render a small booktabs-looking table to PNG (for a paper's 'table that is an image')."""
    f = font(11)
    fb = font(11, bold=True)
    tmp = ImageDraw.Draw(Image.new("RGB", (10, 10)))
    ncol = len(header)
    widths = []
    for c in range(ncol):
        cells = [header[c]] + [r[c] for r in rows]
        widths.append(
            max(tmp.textlength(s, font=fb if i == 0 else f) for i, s in enumerate(cells)) / SS + 18
        )
    w = int(sum(widths) + 16)
    rh = 19
    h = int(rh * (len(rows) + 1) + 22)
    cv = Canvas((w, h))
    col_align = col_align or ["l"] + ["c"] * (ncol - 1)
    y = 10
    cv.line([(8, y), (w - 8, y)], width=1.4)

    def row(cells, y, bold):
        x = 8
        for c, s in enumerate(cells):
            if col_align[c] == "l":
                cv.text((x + 8, y + rh / 2), s, size=11, anchor="lm", bold=bold)
            else:
                cv.text((x + widths[c] / 2, y + rh / 2), s, size=11, anchor="mm", bold=bold)
            x += widths[c]

    row(header, y + 1, True)
    y += rh + 2
    cv.line([(8, y), (w - 8, y)], width=0.8)
    for r in rows:
        row(r, y + 1, False)
        y += rh
    cv.line([(8, y + 2), (w - 8, y + 2)], width=1.4)
    cv.save(Path(path), colors=64)


# --------------------------------------------------------------------------- papers
def sparse_adapter_mt(out: Path):
    sizes = [5, 10, 25, 50, 100]
    labels = ["5k", "10k", "25k", "50k", "100k"]
    panels = {
        "scaling_swh": (
            "English→Swahili",
            [38.9, 42.0, 45.6, 48.1, 50.3],
            [38.2, 41.3, 44.8, 47.2, 49.1],
            [42.7, 45.1, 47.9, 49.6, 51.2],
            (36, 54),
            [36, 40, 44, 48, 52],
        ),
        "scaling_yor": (
            "English→Yoruba",
            [24.1, 26.9, 30.2, 32.8, 34.6],
            [23.8, 26.5, 29.6, 32.0, 33.5],
            [28.5, 30.6, 33.1, 34.9, 36.0],
            (22, 38),
            [22, 26, 30, 34, 38],
        ),
        "scaling_npi": (
            "English→Nepali",
            [36.2, 39.4, 42.7, 44.9, 46.8],
            [35.7, 38.8, 42.0, 44.1, 45.9],
            [39.8, 42.1, 44.6, 46.3, 47.6],
            (34, 50),
            [34, 38, 42, 46, 50],
        ),
        "scaling_sin": (
            "English→Sinhala",
            [33.0, 36.1, 39.8, 42.2, 44.0],
            [32.6, 35.5, 39.0, 41.4, 43.1],
            [36.9, 39.3, 41.9, 43.6, 44.8],
            (30, 46),
            [30, 34, 38, 42, 46],
        ),
    }
    for name, (title, full, lora, route, ylim, yt) in panels.items():
        line_chart(
            out / f"{name}.png",
            sizes,
            {"Full fine-tuning": full, "LoRA": lora, "RouteAdapt": route},
            xlabel="Training sentence pairs",
            ylabel="chrF++",
            ylim=ylim,
            yticks=yt,
            title=title,
            xticklabels=labels,
            logx=True,
        )
    bar_chart(
        out / "forgetting.png",
        ["deu", "fra", "zho", "hin", "rus", "Avg."],
        {
            "Full fine-tuning": [3.4, 2.9, 3.8, 2.6, 2.8, 3.1],
            "LoRA": [1.3, 1.1, 1.6, 0.9, 1.1, 1.2],
            "RouteAdapt": [0.5, 0.3, 0.6, 0.2, 0.4, 0.4],
        },
        ylabel="BLEU drop (English→X)",
        xlabel="High-resource target language",
        ylim=(0, 4.5),
        yticks=[0, 1, 2, 3, 4],
        annotate=True,
    )
    rng = random.Random(7)
    langs = ["swh", "yor", "hau", "zul", "amh", "lug", "npi", "sin", "asm", "pan", "mar", "snd"]
    matrix = []
    for li, _ in enumerate(langs):
        african = li < 6
        row = []
        for e in range(16):
            base = 0.08
            if african and e < 8 or (not african) and e >= 8:
                base = 0.35 + 0.5 * rng.random() ** 2
            if e in (3, 11):
                base = 0.55 + 0.2 * rng.random()
            row.append(min(1.0, base + 0.06 * rng.random()))
        s = sum(row)
        matrix.append([v / s * 4 for v in row])
    heatmap(
        out / "router_usage.png",
        matrix,
        langs,
        [str(i) for i in range(16)],
        xlabel="Adapter index (layer 12)",
        cmap="blues",
        vmin=0.0,
        vmax=0.6,
    )


def occlusion_depth(out: Path):
    bar_chart(
        out / "region_absrel.png",
        ["All pixels", "Boundaries", "Disoccluded", "Interior"],
        {
            "Baseline": [0.106, 0.187, 0.241, 0.091],
            "Auto-masking": [0.103, 0.176, 0.228, 0.089],
            "GateDepth": [0.098, 0.151, 0.192, 0.087],
        },
        ylabel="AbsRel (lower is better)",
        xlabel="Pixel region (KITTI Eigen test)",
        ylim=(0, 0.28),
        yticks=[0, 0.05, 0.1, 0.15, 0.2, 0.25],
        annotate=True,
        legend_loc="upper left",
        ytickfmt=lambda v: f"{v:.2f}",
    )
    ranges = [1, 2, 3, 4]
    rl = ["0–10 m", "10–20 m", "20–40 m", "40–80 m"]
    line_chart(
        out / "range_absrel.png",
        ranges,
        {"Baseline": [0.071, 0.094, 0.127, 0.168], "GateDepth": [0.066, 0.086, 0.116, 0.159]},
        xlabel="Ground-truth depth range",
        ylabel="AbsRel",
        ylim=(0.05, 0.18),
        yticks=[0.06, 0.09, 0.12, 0.15, 0.18],
        xticklabels=rl,
        legend_loc="upper left",
        title="AbsRel by depth range",
        ytickfmt=lambda v: f"{v:.2f}",
    )
    line_chart(
        out / "range_delta.png",
        ranges,
        {"Baseline": [0.951, 0.912, 0.861, 0.788], "GateDepth": [0.958, 0.925, 0.879, 0.806]},
        xlabel="Ground-truth depth range",
        ylabel="δ < 1.25",
        ylim=(0.75, 1.0),
        yticks=[0.75, 0.8, 0.85, 0.9, 0.95, 1.0],
        xticklabels=rl,
        legend_loc="lower left",
        title="Accuracy by depth range",
        ytickfmt=lambda v: f"{v:.2f}",
    )
    edges = [i / 10 for i in range(11)]
    histogram(
        out / "gate_hist.png",
        edges,
        {
            "Visible pixels": [1, 1, 2, 2, 3, 5, 8, 14, 26, 38],
            "Occluded pixels": [31, 22, 15, 10, 7, 5, 4, 3, 2, 1],
        },
        xlabel="Gate value",
        ylabel="Share of pixels (%)",
        ylim=(0, 50),
        yticks=[0, 10, 20, 30, 40, 50],
        xticks=[0, 0.2, 0.4, 0.6, 0.8, 1.0],
        legend_loc="upper right",
        title="Gate values",
    )
    epochs = list(range(1, 21))
    base = [0.160 * math.exp(-0.28 * (e - 1)) + 0.106 + 0.0008 * math.sin(e) for e in epochs]
    ours = [0.168 * math.exp(-0.25 * (e - 1)) + 0.098 + 0.0008 * math.cos(e) for e in epochs]
    line_chart(
        out / "val_curve.png",
        epochs,
        {"Baseline": [round(v, 4) for v in base], "GateDepth": [round(v, 4) for v in ours]},
        xlabel="Epoch",
        ylabel="Validation AbsRel",
        ylim=(0.09, 0.28),
        yticks=[0.1, 0.15, 0.2, 0.25],
        xticklabels=None,
        legend_loc="upper right",
        title="Training",
        markers=False,
        ytickfmt=lambda v: f"{v:.2f}",
    )
    for scene, seed in (("a", 11), ("b", 23)):
        street_scene(out / f"qual_{scene}_rgb.png", seed, "rgb")
        street_scene(out / f"qual_{scene}_base.png", seed, "depth_blurry")
        street_scene(out / f"qual_{scene}_ours.png", seed, "depth_good")
    street_scene(out / "teaser_rgb.png", 5, "rgb", size=(240, 120))
    street_scene(out / "teaser_depth.png", 5, "depth_good", size=(240, 120))


def tactile_regrasp(out: Path):
    line_chart(
        out / "regrasp_budget.png",
        [0, 1, 2, 3],
        {
            "SlipReG (learned residual)": [75.0, 84.5, 88.8, 89.5],
            "Random perturbation": [75.0, 77.8, 79.5, 80.3],
        },
        xlabel="Maximum number of regrasps K",
        ylabel="Success rate (%)",
        ylim=(70, 95),
        yticks=[70, 75, 80, 85, 90, 95],
        legend_loc="lower right",
    )
    bar_chart(
        out / "regrasp_counts.png",
        ["Rigid", "Low-friction", "Deformable", "Top-heavy"],
        {
            "0 regrasps": [78.6, 38.0, 57.5, 48.8],
            "1 regrasp": [12.1, 36.0, 20.0, 27.5],
            "2 regrasps": [2.9, 13.0, 7.5, 10.0],
        },
        ylabel="Trials (%)",
        xlabel="Object category",
        ylim=(0, 100),
        yticks=[0, 20, 40, 60, 80, 100],
        annotate=True,
    )


def seedsmith_fuzzing(out: Path):
    hours = [0, 1, 2, 4, 6, 8, 12, 16, 20, 24]

    def curve(final, speed, start):
        return [
            round(
                start + (final - start) * (1 - math.exp(-speed * h)) / (1 - math.exp(-speed * 24))
            )
            for h in hours
        ]

    line_chart(
        out / "cov_kamailio.png",
        hours,
        {
            "AFLNet": curve(9846, 0.22, 5200),
            "ChatAFL": curve(11502, 0.25, 5900),
            "SeedSmith": curve(12597, 0.32, 7400),
        },
        xlabel="Time (hours)",
        ylabel="Branches covered",
        ylim=(4000, 14000),
        yticks=[4000, 6000, 8000, 10000, 12000, 14000],
        title="Kamailio (SIP)",
        legend_loc="lower right",
        xticklabels=[str(h) for h in hours],
        ytickfmt=lambda v: f"{int(v):,}",
    )
    line_chart(
        out / "cov_proftpd.png",
        hours,
        {
            "AFLNet": curve(4904, 0.2, 2600),
            "ChatAFL": curve(5672, 0.24, 3000),
            "SeedSmith": curve(6478, 0.3, 3900),
        },
        xlabel="Time (hours)",
        ylabel="Branches covered",
        ylim=(2000, 7000),
        yticks=[2000, 3000, 4000, 5000, 6000, 7000],
        title="ProFTPD (FTP)",
        legend_loc="lower right",
        xticklabels=[str(h) for h in hours],
        ytickfmt=lambda v: f"{int(v):,}",
    )
    bar_chart(
        out / "ablation.png",
        ["SeedSmith", "w/o state\ntargeting", "w/o coverage\nfeedback", "w/o grammar"],
        {"Coverage gain over AFLNet (%)": [23.0, 14.8, 17.6, 9.4]},
        ylabel="Mean branch coverage gain (%)",
        ylim=(0, 30),
        yticks=[0, 5, 10, 15, 20, 25, 30],
        annotate=True,
        annotate_fmt="{:.1f}",
        colors=["#55A868"],
    )
    table_image(
        out / "crashes_table.png",
        ["Target", "AFLNet", "ChatAFL", "SeedSmith", "Crash types (SeedSmith)"],
        [
            ["Kamailio", "1", "2", "4", "over-read, NULL deref."],
            ["Live555", "2", "3", "4", "use-after-free, over-read"],
            ["ProFTPD", "0", "1", "2", "memory leak"],
            ["Dnsmasq", "2", "2", "3", "assertion, over-read"],
            ["Exim", "1", "1", "1", "over-read"],
            ["LightFTP", "0", "0", "0", "–"],
            ["Total", "6", "9", "14", ""],
        ],
        col_align=["l", "c", "c", "c", "l"],
    )


def listwise_distill(out: Path):
    layers = [2, 4, 6, 8, 12]
    line_chart(
        out / "eff_layers.png",
        layers,
        {"Margin-MSE": [29.8, 33.9, 36.1, 36.9, 37.4], "ListKD": [32.6, 36.2, 37.9, 38.4, 38.8]},
        xlabel="Student layers",
        ylabel="MRR@10 (MS MARCO dev)",
        ylim=(28, 40),
        yticks=[28, 31, 34, 37, 40],
        title="Effectiveness",
        legend_loc="lower right",
    )
    bar_chart(
        out / "eff_latency.png",
        [str(n) for n in layers],
        {"Query encoding latency": [1.9, 3.4, 5.0, 6.6, 9.8]},
        ylabel="Latency per query (ms, CPU)",
        xlabel="Student layers",
        ylim=(0, 12),
        yticks=[0, 3, 6, 9, 12],
        title="Query latency",
        annotate=True,
        annotate_fmt="{:.1f}",
        colors=["#8172B3"],
    )
    line_chart(
        out / "eff_listsize.png",
        [4, 8, 16, 32, 64],
        {"ListKD (6 layers)": [35.8, 36.9, 37.5, 37.9, 37.9]},
        xlabel="Teacher list size",
        ylabel="MRR@10 (MS MARCO dev)",
        ylim=(35, 39),
        yticks=[35, 36, 37, 38, 39],
        title="List size",
        logx=True,
        xticklabels=["4", "8", "16", "32", "64"],
        legend_loc="lower right",
    )
    line_chart(
        out / "temperature.png",
        [0.5, 1, 2, 4, 8],
        {
            "MRR@10 (MS MARCO dev)": [36.4, 37.3, 37.9, 37.6, 36.8],
            "nDCG@10 (BEIR avg.)": [42.1, 42.9, 43.4, 43.5, 43.0],
        },
        xlabel="Distillation temperature τ",
        ylabel="Score",
        ylim=(35, 45),
        yticks=[35, 37, 39, 41, 43, 45],
        logx=True,
        xticklabels=["0.5", "1", "2", "4", "8"],
        legend_loc="lower center",
    )
    steps = [0, 20, 40, 60, 80, 100, 120, 140, 160]
    line_chart(
        out / "training_curve.png",
        steps,
        {
            "Margin-MSE": [14.2, 30.1, 33.0, 34.4, 35.2, 35.6, 35.9, 36.0, 36.1],
            "ListKD": [14.2, 31.8, 34.9, 36.3, 37.0, 37.4, 37.7, 37.8, 37.9],
        },
        xlabel="Training steps (thousands)",
        ylabel="MRR@10 (MS MARCO dev)",
        ylim=(10, 40),
        yticks=[10, 15, 20, 25, 30, 35, 40],
        legend_loc="lower right",
    )


def offline_rl_curriculum(out: Path):
    steps = [0, 100, 200, 300, 400, 500]
    envs = {
        "curve_hopper": (
            "hopper-medium-replay",
            [12.0, 61.2, 78.4, 87.1, 91.2, 92.9],
            [12.0, 48.5, 66.0, 75.3, 80.1, 82.7],
            (0, 100),
            [0, 20, 40, 60, 80, 100],
        ),
        "curve_walker": (
            "walker2d-medium-replay",
            [8.0, 47.2, 63.5, 70.1, 73.2, 74.3],
            [8.0, 38.1, 54.0, 61.8, 65.2, 66.6],
            (0, 100),
            [0, 20, 40, 60, 80, 100],
        ),
        "curve_antmaze": (
            "antmaze-medium-play",
            [0.0, 18.3, 39.7, 55.2, 63.4, 66.8],
            [0.0, 0.4, 0.8, 0.6, 0.2, 0.0],
            (0, 80),
            [0, 20, 40, 60, 80],
        ),
    }
    for name, (title, ours, dt_, ylim, yt) in envs.items():
        line_chart(
            out / f"{name}.png",
            steps,
            {"RCC (ours)": ours, "Decision Transformer": dt_},
            xlabel="Gradient steps (thousands)",
            ylabel="Normalized return",
            ylim=ylim,
            yticks=yt,
            title=title,
            legend_loc="lower right",
            xticklabels=[str(x) for x in steps],
        )
    # uncaptioned illustration: the target-return schedule
    line_chart(
        out / "schedule.png",
        [0, 1, 2, 3, 4, 5, 6, 7, 8],
        {
            "Target return (quantile of dataset returns)": [
                0.5,
                0.55,
                0.595,
                0.636,
                0.672,
                0.705,
                0.734,
                0.761,
                0.785,
            ]
        },
        xlabel="Curriculum stage",
        ylabel="Return quantile",
        ylim=(0.4, 1.0),
        yticks=[0.4, 0.6, 0.8, 1.0],
        legend_loc="lower right",
        size=(480, 240),
        ytickfmt=lambda v: f"{v:.1f}",
    )
    bar_chart(
        out / "sensitivity.png",
        ["0.3", "0.5", "0.7", "0.9"],
        {
            "hopper-m-r": [88.6, 92.9, 91.5, 85.1],
            "walker2d-m-r": [71.0, 74.3, 73.6, 68.2],
            "antmaze-m-p": [58.9, 66.8, 64.1, 49.7],
        },
        ylabel="Normalized return",
        xlabel="Initial quantile q0",
        ylim=(0, 130),
        yticks=[0, 20, 40, 60, 80, 100, 120],
        legend_loc="upper right",
    )


def prefetch_edge_cache(out: Path):
    bar_chart(
        out / "hit_by_method.png",
        ["Metropolitan trace", "Campus trace"],
        {
            "LRU": [41.2, 36.5],
            "LFU": [43.8, 35.9],
            "LRB": [47.9, 40.3],
            "CacheCast": [53.6, 45.1],
        },
        ylabel="Hit ratio (%)",
        ylim=(0, 70),
        yticks=[0, 10, 20, 30, 40, 50, 60, 70],
        annotate=True,
        legend_loc="upper right",
    )
    sizes = [2, 5, 10, 15, 20]
    for name, title, lru, lrb, ours in (
        (
            "size_metro",
            "Metropolitan trace",
            [28.4, 35.6, 41.2, 44.9, 47.6],
            [34.1, 42.0, 47.9, 51.3, 53.8],
            [41.8, 48.7, 53.6, 56.4, 58.3],
        ),
        (
            "size_campus",
            "Campus trace",
            [22.1, 30.2, 36.5, 40.4, 43.0],
            [26.0, 34.5, 40.3, 43.9, 46.2],
            [33.9, 40.6, 45.1, 47.8, 49.5],
        ),
    ):
        line_chart(
            out / f"{name}.png",
            sizes,
            {"LRU": lru, "LRB": lrb, "CacheCast": ours},
            xlabel="Cache size (% of catalogue)",
            ylabel="Hit ratio (%)",
            ylim=(20, 60),
            yticks=[20, 30, 40, 50, 60],
            title=title,
            xticklabels=[str(x) for x in sizes],
        )
    line_chart(
        out / "horizon.png",
        [1, 2, 3, 6, 12, 24],
        {"Forecaster": [18.2, 21.5, 24.0, 29.8, 36.1, 43.5]},
        xlabel="Forecast horizon (hours)",
        ylabel="MAPE (%)",
        ylim=(10, 50),
        yticks=[10, 20, 30, 40, 50],
        logx=True,
        xticklabels=["1", "2", "3", "6", "12", "24"],
        legend_loc="upper left",
    )


def session_query_suggest(out: Path):
    bar_chart(
        out / "latency_mrr.png",
        ["MostPopular\n0.3 ms", "MP-LTR\n1.1 ms", "IntentGraph\n1.9 ms", "T5\n38.5 ms"],
        {"MRR (AOL)": [0.412, 0.448, 0.479, 0.510]},
        ylabel="MRR (AOL)",
        ylim=(0.3, 0.55),
        yticks=[0.3, 0.35, 0.4, 0.45, 0.5, 0.55],
        annotate=True,
        annotate_fmt="{:.3f}",
        colors=["#4C72B0"],
        ytickfmt=lambda v: f"{v:.2f}",
        size=(480, 300),
    )
    prev = [1, 2, 3, 4, 5]
    for name, title, ltr, ig, t5, ylim, yt in (
        (
            "length_aol",
            "AOL",
            [0.452, 0.447, 0.445, 0.443, 0.441],
            [0.462, 0.476, 0.487, 0.495, 0.501],
            [0.488, 0.505, 0.517, 0.527, 0.534],
            (0.42, 0.56),
            [0.42, 0.46, 0.5, 0.54],
        ),
        (
            "length_shop",
            "Shop",
            [0.395, 0.390, 0.388, 0.386, 0.385],
            [0.407, 0.430, 0.447, 0.459, 0.468],
            [0.436, 0.457, 0.473, 0.484, 0.492],
            (0.36, 0.52),
            [0.36, 0.4, 0.44, 0.48, 0.52],
        ),
    ):
        line_chart(
            out / f"{name}.png",
            prev,
            {"MostPopular-LTR": ltr, "IntentGraph": ig, "T5 fine-tuned": t5},
            xlabel="Previous queries in the session",
            ylabel="MRR",
            ylim=ylim,
            yticks=yt,
            title=title,
            xticklabels=["1", "2", "3", "4", "5+"],
            legend_loc="upper left",
            ytickfmt=lambda v: f"{v:.2f}",
        )
    cats = [
        "phones",
        "cases",
        "chargers",
        "laptops",
        "bags",
        "mice",
        "monitors",
        "cables",
        "audio",
        "games",
    ]
    rng = random.Random(15)
    matrix = []
    for r in range(10):
        row = []
        for c in range(10):
            v = 0.02 + 0.04 * rng.random()
            if abs(r - c) == 1 or {r, c} in ({0, 2}, {3, 5}, {3, 6}, {6, 7}):
                v += 0.3 + 0.2 * rng.random()
            if r == c:
                v += 0.15
            row.append(v)
        s = sum(row)
        matrix.append([v / s for v in row])
    heatmap(
        out / "intent_transitions.png",
        matrix,
        cats,
        cats,
        xlabel="Next intent category",
        cmap="blues",
        vmin=0.0,
        vmax=0.4,
        size=(640, 340),
    )
    bar_chart(
        out / "degree.png",
        ["1", "2–4", "5–16", "17–64", "65–256", ">256"],
        {"Share of intents": [21.4, 30.9, 25.2, 14.6, 6.1, 1.8]},
        ylabel="Share of intents (%)",
        xlabel="Out-degree",
        ylim=(0, 40),
        yticks=[0, 10, 20, 30, 40],
        annotate=True,
        annotate_fmt="{:.1f}",
        colors=["#55A868"],
    )


def triage_flaky_tests(out: Path):
    th = [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9]
    for name, title, prec, rec in (
        (
            "pr_java",
            "Java",
            [0.71, 0.78, 0.83, 0.87, 0.90, 0.92, 0.94, 0.96, 0.97],
            [0.99, 0.97, 0.95, 0.92, 0.88, 0.83, 0.76, 0.66, 0.51],
        ),
        (
            "pr_python",
            "Python",
            [0.66, 0.72, 0.77, 0.81, 0.85, 0.88, 0.91, 0.93, 0.95],
            [0.98, 0.95, 0.92, 0.88, 0.83, 0.77, 0.69, 0.58, 0.44],
        ),
        (
            "pr_all",
            "Both languages",
            [0.69, 0.76, 0.81, 0.85, 0.88, 0.90, 0.93, 0.95, 0.96],
            [0.99, 0.96, 0.94, 0.90, 0.86, 0.81, 0.73, 0.63, 0.48],
        ),
    ):
        line_chart(
            out / f"{name}.png",
            th,
            {"Precision": prec, "Recall": rec},
            xlabel="Decision threshold",
            ylabel="Score",
            ylim=(0.4, 1.0),
            yticks=[0.4, 0.6, 0.8, 1.0],
            title=title,
            xticklabels=[f"{t:.1f}" for t in th],
            legend_loc="lower left",
            ytickfmt=lambda v: f"{v:.1f}",
        )
    bar_chart(
        out / "error_causes.png",
        ["Timeout", "Resource\nleak", "Ordering", "Network", "Other"],
        {"False negatives": [31, 9, 12, 7, 5], "False positives": [11, 6, 4, 9, 6]},
        ylabel="Errors (of 200 sampled)",
        ylim=(0, 40),
        yticks=[0, 10, 20, 30, 40],
        annotate=True,
    )
    steps = [0, 1, 2, 3, 4, 5, 6]
    line_chart(
        out / "train_loss.png",
        steps,
        {
            "125M": [0.69, 0.48, 0.41, 0.38, 0.36, 0.35, 0.35],
            "350M": [0.69, 0.42, 0.33, 0.29, 0.27, 0.26, 0.26],
            "1.3B": [0.69, 0.39, 0.30, 0.26, 0.25, 0.24, 0.24],
        },
        xlabel="Training steps (thousands)",
        ylabel="Cross-entropy loss",
        ylim=(0.2, 0.7),
        yticks=[0.2, 0.3, 0.4, 0.5, 0.6, 0.7],
        legend_loc="upper right",
        ytickfmt=lambda v: f"{v:.1f}",
        markers=False,
    )


def tempered_early_exit(out: Path):
    skipped = [0, 10, 20, 30, 40, 50]
    line_chart(
        out / "tradeoff.png",
        skipped,
        {
            "Calibrated": [40.8, 40.8, 40.7, 40.6, 40.5, 40.1],
            "Raw confidence": [40.8, 40.7, 40.6, 40.4, 39.6, 38.4],
        },
        xlabel="Skipped layers (%)",
        ylabel="ROUGE-L",
        ylim=(38, 41.5),
        yticks=[38, 39, 40, 41],
        xticklabels=[str(x) for x in skipped],
        legend_loc="lower left",
    )
    edges = list(range(0, 26, 2))
    histogram(
        out / "exit_layers.png",
        edges,
        {
            "Function words": [0, 34, 27, 14, 8, 5, 4, 3, 2, 1, 1, 1],
            "Content words": [0, 6, 9, 11, 12, 12, 11, 10, 9, 8, 6, 6],
        },
        xlabel="Exit layer",
        ylabel="Share of tokens (%)",
        ylim=(0, 40),
        yticks=[0, 10, 20, 30, 40],
        xticks=[0, 4, 8, 12, 16, 20, 24],
    )
    bar_chart(
        out / "batch_speedup.png",
        ["1", "4", "16", "64"],
        {"Summarisation": [1.52, 1.38, 1.19, 1.05], "Translation": [1.41, 1.30, 1.14, 1.03]},
        ylabel="Speed-up over the full model",
        xlabel="Batch size",
        ylim=(0, 2),
        yticks=[0, 0.5, 1.0, 1.5, 2.0],
        annotate=True,
        annotate_fmt="{:.2f}",
        ytickfmt=lambda v: f"{v:.1f}",
    )


PAPERS = {
    "sparse-adapter-mt": sparse_adapter_mt,
    "occlusion-depth": occlusion_depth,
    "tactile-regrasp": tactile_regrasp,
    "seedsmith-fuzzing": seedsmith_fuzzing,
    "listwise-distill": listwise_distill,
    "offline-rl-curriculum": offline_rl_curriculum,
    "prefetch-edge-cache": prefetch_edge_cache,
    "session-query-suggest": session_query_suggest,
    "triage-flaky-tests": triage_flaky_tests,
    "tempered-early-exit": tempered_early_exit,
}


def main(argv=None):
    import sys

    names = (argv if argv is not None else sys.argv[1:]) or list(PAPERS)
    for slug in names:
        PAPERS[slug](CORPUS / slug / "figures")
        print("figures:", slug)


if __name__ == "__main__":
    main()
