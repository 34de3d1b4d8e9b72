"""Pages in LaTeXML's markup as arXiv serves them in 2026 (no <base>, src under <id>vN/, id before
class, intent on math, the licence banner, the generator comment), built in code, and saved with
their images as a download folder."""

from __future__ import annotations

from io import BytesIO, StringIO
from pathlib import Path

from django.core.management import call_command
from PIL import Image

ARXIV_ID = "2508.08468v6"


URL = f"https://arxiv.org/html/{ARXIV_ID}"


def page(body: str, *, front: str = "") -> bytes:
    return (
        '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>A paper</title>'
        '<link rel="stylesheet" href="/static/browse/css/arxiv-html-papers-20260131.css">'
        "</head><body><!--Generated on Sun Jul  5 10:11:12 2026 by LaTeXML (version 0.8.8) "
        'http://dlmf.nist.gov/LaTeXML/.--><div class="ltx_page_main"><div class="ltx_page_content">'
        '<div id="watermark-tr" class="ltx_watermark"><a id="license-tr" '
        'href="https://info.arxiv.org/help/license/index.html#licenses-available">'
        'License: CC BY 4.0</a></div><article class="ltx_document ltx_authors_1line">'
        '<h1 class="ltx_title ltx_title_document">A Paper</h1>'
        f"{front}{body}</article></div></div></body></html>"
    ).encode()


def section(anchor: str, title: str, content: str) -> str:
    return (
        f'<section id="{anchor}" class="ltx_section"><h2 class="ltx_title ltx_title_section">'
        f'<span class="ltx_tag ltx_tag_section">{anchor[1:]} </span>{title}</h2>{content}</section>'
    )


def para(anchor: str, text: str, *, refs: tuple[str, ...] = ()) -> str:
    links = "".join(
        f' <a href="{URL}#{r}" class="ltx_ref" title="">'
        f'<span class="ltx_text ltx_ref_tag">{r}</span></a>'
        for r in refs
    )
    return (
        f'<div id="{anchor}" class="ltx_para"><p id="{anchor}.1" class="ltx_p">{text}{links}</p>'
        "</div>"
    )


def table(anchor: str, tag: str, caption: str, *, value: str = "73.2") -> str:
    """IEEEtran's shape: caption above, tag "TABLE II: ", a number in math with `intent`."""
    return (
        f'<figure id="{anchor}" class="ltx_table ltx_align_center">'
        f'<figcaption class="ltx_caption"><span class="ltx_tag ltx_tag_table">{tag}</span>'
        f"{caption}</figcaption>"
        f'<table id="{anchor}.1" class="ltx_tabular ltx_guessed_headers ltx_align_middle">'
        '<thead class="ltx_thead"><tr class="ltx_tr"><th class="ltx_td ltx_th ltx_th_column">'
        'Model</th><th class="ltx_td ltx_th ltx_th_column">BLEU</th></tr></thead>'
        '<tbody class="ltx_tbody"><tr class="ltx_tr"><td class="ltx_td">Ours</td>'
        f'<td class="ltx_td"><math id="{anchor}.m1" alttext="{value}" class="ltx_Math" '
        f'display="inline" intent=":literal"><mn>{value}</mn></math></td></tr></tbody>'
        "</table></figure>"
    )


def figure(anchor: str, tag: str, caption: str, images: tuple[str, ...]) -> str:
    if len(images) == 1:
        inner = (
            f'<img src="{ARXIV_ID}/{images[0]}" id="{anchor}.g1" class="ltx_graphics '
            'ltx_centering ltx_img_landscape" width="598" height="369" alt="Refer to caption">'
        )
    else:  # sub-figures: each panel with its own "(a)" caption
        inner = (
            '<div class="ltx_flex_figure">'
            + "".join(
                f'<div class="ltx_flex_cell"><figure id="{anchor}.sf{i}" class="ltx_figure '
                f'ltx_figure_panel"><img src="{ARXIV_ID}/{src}" class="ltx_graphics" alt="">'
                f'<figcaption class="ltx_caption"><span class="ltx_tag ltx_tag_figure">'
                f"({chr(96 + i)})</span> panel {i}</figcaption></figure></div>"
                for i, src in enumerate(images, start=1)
            )
            + "</div>"
        )
    return (
        f'<figure id="{anchor}" class="ltx_figure">{inner}<figcaption class="ltx_caption">'
        f'<span class="ltx_tag ltx_tag_figure">{tag}</span>{caption}</figcaption></figure>'
    )


def algorithm(anchor: str) -> str:
    return (
        f'<figure id="{anchor}" class="ltx_float ltx_float_algorithm">'
        '<figcaption class="ltx_caption"><span class="ltx_tag ltx_tag_float">Algorithm 1</span>'
        ' Search</figcaption><div class="ltx_listing"><div class="ltx_listingline">x</div></div>'
        "</figure>"
    )


def ieee_page() -> bytes:
    """An IEEE-style paper: TABLE I–III (roman), Fig. 1 (one image), Fig. 2 (two panels)."""
    return page(
        section("S1", "Introduction", para("S1.p1", "TABLE II holds the scores.", refs=("S2.T2",)))
        + section(
            "S2",
            "Results",
            para("S2.p1", "Results follow.", refs=("S2.T1", "S2.T3", "S2.F1", "S2.F2.sf2"))
            + table("S2.T1", "TABLE I: ", "Main results.")
            + table("S2.T2", "TABLE II: ", "Ablations.", value="68.9")
            + table("S2.T3", "TABLE III: ", "Costs.", value="12.5")
            + figure("S2.F1", "Fig. 1: ", "Accuracy over time.", ("x1.png",))
            + figure("S2.F2", "Fig. 2: ", "Loss curves.", ("x2.png", "x3.png"))
            + algorithm("alg1"),
        )
    )


def png() -> bytes:
    out = BytesIO()
    Image.new("RGB", (60, 40), (200, 30, 30)).save(out, "PNG")
    return out.getvalue()


def save_page(folder: Path, html: bytes, images: tuple[str, ...]) -> Path:
    """A saved page as arXiv serves it: the HTML, its images under <id>vN/."""
    (folder / ARXIV_ID).mkdir(parents=True)
    (folder / "paper.html").write_bytes(html)
    for name in images:
        (folder / ARXIV_ID / name).write_bytes(png())
    return folder


def import_folder(folder: Path) -> str:
    out = StringIO()
    call_command("import_arxiv_html", str(folder), "--images", "none", stdout=out, stderr=out)
    return out.getvalue()
