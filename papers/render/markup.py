"""The HTML page Chromium renders for a table (its LaTeXML markup, or markup made from bare
cell grids, with the caption below) or an SVG figure: styled close to arXiv's pages, with a CSP
that lets no request out."""

from __future__ import annotations

import html
from collections.abc import Sequence

from papers.parsing.document import Grid, header_row_count
from papers.render.mathtext import readable_math

# Close to arXiv's LaTeXML CSS, except that \toprule/\bottomrule (ltx_border_tt/bb) are drawn as
# booktabs' heavier single rules rather than LaTeXML's double lines, which read as a grid.
TABLE_CSS = """
html, body { margin: 0; padding: 0; background: #fff; color: #000; }
body {
  font-family: "Latin Modern Roman", "LM Roman 10", "CMU Serif", "Computer Modern Serif",
    "Times New Roman", "Liberation Serif", "Nimbus Roman", "DejaVu Serif", serif;
  font-size: 16px; line-height: 1.3; font-kerning: normal;
}
math { font-family: "Latin Modern Math", "STIX Two Math", "DejaVu Math TeX Gyre", math; }
#sciver-box { display: table; margin: 12px; }
/* A short table's caption is set at a readable measure, not squeezed under the table. */
#sciver-box.sciver-captioned { min-width: 26em; }
/* An inline SVG would sit on the text baseline and gain a strip of white below it. */
#sciver-box > svg { display: block; }
.sciver-body { text-align: center; }
.sciver-body > * + * { margin-top: 0.8em; }
.sciver-caption {
  display: table-caption; caption-side: bottom; text-align: center;
  padding: 0.7em 0.2em 0 0.2em; font-size: 0.95em; line-height: 1.35;
}
.sciver-caption-text { display: inline-block; text-align: left; }
.ltx_tabular { display: inline-table; border-collapse: collapse; text-align: left; }
.ltx_tabular.ltx_centering { display: table; margin-left: auto; margin-right: auto; }
.ltx_tabular .ltx_tabular { width: 100%; }
.ltx_thead, .ltx_tfoot, .ltx_tbody { display: table-row-group; }
.ltx_tr { display: table-row; }
.ltx_td, .ltx_th { display: table-cell; }
.ltx_tabular .ltx_td, .ltx_tabular .ltx_th { padding: 0.2em 0.5em; vertical-align: middle; }
.ltx_th { font-weight: normal; }
.ltx_align_left { text-align: left; }
.ltx_align_right { text-align: right; }
.ltx_align_center { text-align: center; }
.ltx_align_justify { text-align: justify; }
.ltx_align_top { vertical-align: top; }
.ltx_align_bottom { vertical-align: bottom; }
.ltx_align_middle { vertical-align: middle; }
.ltx_align_baseline { vertical-align: baseline; }
.ltx_td.ltx_align_left, .ltx_th.ltx_align_left, .ltx_td.ltx_align_right,
.ltx_th.ltx_align_right, .ltx_td.ltx_align_center, .ltx_th.ltx_align_center { white-space: nowrap; }
.ltx_td.ltx_wrap, .ltx_th.ltx_wrap, .ltx_td.ltx_align_justify { white-space: normal; }
.ltx_nopad { padding: 0 !important; }
.ltx_nopad_l { padding-left: 0 !important; }
.ltx_nopad_r { padding-right: 0 !important; }
.ltx_border_t { border-top: 1px solid #000; }
.ltx_border_b { border-bottom: 1px solid #000; }
.ltx_border_l { border-left: 1px solid #000; }
.ltx_border_r { border-right: 1px solid #000; }
.ltx_border_tt { border-top: 1.5px solid #000; }
.ltx_border_bb { border-bottom: 1.5px solid #000; }
.ltx_border_ll { border-left: 3px double #000; }
.ltx_border_rr { border-right: 3px double #000; }
.ltx_border_T { border-top: 1px solid #888; }
.ltx_border_B { border-bottom: 1px solid #888; }
.ltx_border_L { border-left: 1px solid #888; }
.ltx_border_R { border-right: 1px solid #888; }
.ltx_framed { border: 1px solid #000; }
.ltx_font_bold { font-weight: bold; }
.ltx_font_medium { font-weight: normal; }
.ltx_font_italic { font-style: italic; }
.ltx_font_upright { font-style: normal; }
.ltx_font_slanted { font-style: oblique; }
.ltx_font_smallcaps { font-variant: small-caps; }
.ltx_font_serif { font-family: inherit; }
.ltx_font_sansserif { font-family: "Latin Modern Sans", "DejaVu Sans", sans-serif; }
.ltx_font_typewriter { font-family: "Latin Modern Mono", "DejaVu Sans Mono", monospace; }
.ltx_inline-block, .ltx_parbox, .ltx_minipage { display: inline-block; }
.ltx_p { margin: 0; }
.ltx_ERROR { color: #c00; }
.ltx_note_content { display: none; }
.ltx_flex_figure {
  display: flex; flex-flow: row wrap; justify-content: center; align-items: baseline;
  gap: 0.5em 1.5em;
}
.ltx_flex_figure .ltx_flex_break { flex-basis: 100%; height: 0; }
.sciver-body figure { margin: 0; }
.sciver-body figcaption { margin-top: 0.3em; }
img { max-height: 4em; }
"""

# JavaScript is off in the context too; the CSP stops even a stray request from being issued.
PAGE_CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:; font-src data:"


def html_page(body: str) -> str:
    return (
        "<!DOCTYPE html><html><head><meta charset='utf-8'>"
        f'<meta http-equiv="Content-Security-Policy" content="{PAGE_CSP}">'
        f"<style>{TABLE_CSS}</style></head><body>{body}</body></html>"
    )


def table_document(*, table_html: str, label: str, caption: str) -> str:
    """The whole page Chromium renders for one table: the tabular(s) with the caption below."""
    tag = f"{html.escape(label)}: " if label else ""
    caption_html = ""
    if tag or caption:
        caption_html = (
            f"<div class='sciver-caption'><span class='sciver-caption-text'>"
            f"<span class='ltx_tag ltx_tag_table'>{tag}</span>{html.escape(readable_math(caption))}"
            f"</span></div>"
        )
    box_class = " class='sciver-captioned'" if caption_html else ""
    return html_page(
        f"<div id='sciver-box'{box_class}><div class='sciver-body'>{table_html}</div>"
        f"{caption_html}</div>"
    )


def grids_to_html(grids: Sequence[Grid]) -> str:
    """LaTeXML-like markup for bare grids, so Chromium can draw a table the parser kept no HTML for."""
    tables = []
    for grid in grids:
        header_rows = header_row_count(grid)
        rows = []
        for r, row in enumerate(grid):
            cells = []
            for c, cell in enumerate(row):
                classes = ["ltx_td", "ltx_align_left" if c == 0 else "ltx_align_center"]
                if r == 0:
                    classes.append("ltx_border_tt")
                elif r == header_rows and header_rows < len(grid):
                    classes.append("ltx_border_t")
                if r + max(1, cell.rowspan) >= len(grid):
                    classes.append("ltx_border_bb")
                tag = "th" if cell.header else "td"
                spans = ""
                if cell.rowspan > 1:
                    spans += f" rowspan='{int(cell.rowspan)}'"
                if cell.colspan > 1:
                    spans += f" colspan='{int(cell.colspan)}'"
                bold = " style='font-weight:bold'" if cell.header else ""
                cells.append(
                    f"<{tag} class='{' '.join(classes)}'{spans}{bold}>"
                    f"{html.escape(readable_math(cell.text))}</{tag}>"
                )
            rows.append(f"<tr class='ltx_tr'>{''.join(cells)}</tr>")
        tables.append(
            "<table class='ltx_tabular ltx_centering'><tbody class='ltx_tbody'>"
            f"{''.join(rows)}</tbody></table>"
        )
    return "".join(tables)
