"""A large synthetic LaTeXML page (≥ 2 MB, ≥ 50 tables, ≥ 50 figures) for the parse benchmark."""

from __future__ import annotations

import random


def _table(s: int, t: int, rng: random.Random) -> str:
    rows = []
    header = "".join(
        f'<td class="ltx_td ltx_align_center ltx_border_tt">Metric {c}</td>' for c in range(6)
    )
    rows.append(
        '<tr class="ltx_tr"><th class="ltx_td ltx_align_left ltx_th ltx_th_row ltx_border_tt" '
        f'rowspan="2">Model</th>{header}</tr>'
    )
    rows.append(
        '<tr class="ltx_tr">'
        + "".join(f'<td class="ltx_td ltx_align_center">sub {c}</td>' for c in range(6))
        + "</tr>"
    )
    for r in range(12):
        cells = "".join(
            f'<td class="ltx_td ltx_align_center"><math alttext="{rng.uniform(10, 99):.1f}" '
            f'class="ltx_Math" display="inline"><mn>{rng.uniform(10, 99):.1f}</mn></math></td>'
            for _ in range(6)
        )
        rows.append(
            f'<tr class="ltx_tr"><th class="ltx_td ltx_align_left ltx_th ltx_th_row">'
            f"Model-{r}</th>{cells}</tr>"
        )
    return (
        f'<figure class="ltx_table" id="S{s}.T{t}"><figcaption class="ltx_caption">'
        f'<span class="ltx_tag ltx_tag_table">Table {t}: </span>Results of experiment {t} on '
        f'benchmark <math alttext="B_{{{t}}}" class="ltx_Math"><msub><mi>B</mi><mn>{t}</mn>'
        f'</msub></math>.</figcaption><table class="ltx_tabular ltx_align_middle">'
        f'<tbody class="ltx_tbody">{"".join(rows)}</tbody></table></figure>'
    )


def _figure(s: int, f: int) -> str:
    panels = "".join(
        f'<div class="ltx_flex_cell ltx_flex_size_2"><figure class="ltx_figure ltx_figure_panel" '
        f'id="S{s}.F{f}.sf{k}"><img alt="Refer to caption" class="ltx_graphics" '
        f'src="extracted/5000000/figs/fig{f}_{k}.png" width="300" height="200"/>'
        f'<figcaption class="ltx_caption"><span class="ltx_tag ltx_tag_figure">({"ab"[k - 1]})'
        f"</span> Panel {k}</figcaption></figure></div>"
        for k in (1, 2)
    )
    return (
        f'<figure class="ltx_figure" id="S{s}.F{f}"><div class="ltx_flex_figure">{panels}</div>'
        f'<figcaption class="ltx_caption"><span class="ltx_tag ltx_tag_figure">Figure {f}: '
        f"</span>Accuracy as a function of training steps in setting {f}.</figcaption></figure>"
    )


def _paragraph(s: int, p: int, t: int, f: int, rng: random.Random) -> str:
    words = " ".join(rng.choice(_WORDS) for _ in range(180))
    return (
        f'<div class="ltx_para" id="S{s}.p{p}"><p class="ltx_p">{words} As shown in Table '
        f'<a class="ltx_ref" href="https://arxiv.org/html/2409.99999v1#S{s}.T{t}">{t}</a> and '
        f'Figure <a class="ltx_ref" href="https://arxiv.org/html/2409.99999v1#S{s}.F{f}">{f}</a>'
        f', accuracy reaches <math alttext="{rng.uniform(50, 99):.1f}\\%" class="ltx_Math" '
        f'display="inline"><mn>0</mn></math> <cite class="ltx_cite">[<a class="ltx_ref" '
        f'href="https://arxiv.org/html/2409.99999v1#bib.bib{p}">{p}</a>]</cite>.'
        f'<span class="ltx_note ltx_role_footnote"><sup class="ltx_note_mark">{p}</sup>'
        f'<span class="ltx_note_outer"><span class="ltx_note_content">A footnote.</span>'
        f"</span></span></p></div>"
    )


_WORDS = (
    "model training data accuracy baseline transformer layer attention benchmark results "
    "improves significantly dataset evaluation metric performance compared approach method "
    "learning representation retrieval generation robust efficient the of and in on with"
).split()


def synthetic_page(*, tables: int = 60, figures: int = 60, seed: int = 7) -> bytes:
    rng = random.Random(seed)
    body = []
    t = f = p = 0
    for s in range(1, 31):
        body.append(
            f'<section class="ltx_section" id="S{s}"><h2 class="ltx_title ltx_title_section">'
            f'<span class="ltx_tag ltx_tag_section">{s} </span>Section {s}</h2>'
        )
        for _ in range(max(1, tables // 30)):
            t += 1
            f += 1
            for _ in range(10):
                p += 1
                body.append(_paragraph(s, p, t, f, rng))
            body.append(_table(s, t, rng))
            body.append(_figure(s, f))
        body.append("</section>")
    return (
        '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"/>'
        '<base href="/html/2409.99999v1/"/><title>Synthetic</title></head><body>'
        '<div class="ltx_page_main"><div class="ltx_page_content">'
        '<article class="ltx_document"><h1 class="ltx_title ltx_title_document">A Synthetic '
        'Paper</h1><div class="ltx_abstract"><p class="ltx_p">Abstract.</p></div>'
        + "".join(body)
        + "</article></div></div></body></html>"
    ).encode()


if __name__ == "__main__":
    data = synthetic_page()
    print(len(data), "bytes")
