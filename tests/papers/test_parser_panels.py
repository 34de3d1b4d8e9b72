"""Figure grids: a table-shaped float made of images keeps each image's row."""

from __future__ import annotations

from papers.parsing import parse_paper


def _image_grid(rows: int, per_row: int) -> bytes:
    body = "".join(
        '<tr class="ltx_tr">'
        + "".join(
            f'<td class="ltx_td"><img class="ltx_graphics" src="r{r}c{c}.png"/></td>'
            for c in range(per_row)
        )
        + "</tr>"
        for r in range(rows)
    )
    return (
        '<html><body><article class="ltx_document"><section class="ltx_section" id="S1">'
        '<h2 class="ltx_title ltx_title_section"><span class="ltx_tag">1 </span>Results</h2>'
        '<div class="ltx_para" id="S1.p1"><p class="ltx_p">Text.</p></div>'
        '<figure class="ltx_figure" id="S1.F1"><table class="ltx_tabular">'
        f"<tbody>{body}</tbody></table>"
        '<figcaption class="ltx_caption"><span class="ltx_tag ltx_tag_figure">Figure 1: </span>'
        "A grid of plots.</figcaption></figure></section></article></body></html>"
    ).encode()


def test_each_image_keeps_its_table_row() -> None:
    # Many shapes: rows were once keyed by id() of short-lived lxml proxies, and a freed
    # proxy's address coming back put a later row's images in an earlier row (some shapes).
    wrong = []
    for rows in range(1, 15):
        for per_row in range(1, 5):
            paper = parse_paper(_image_grid(rows, per_row), "https://arxiv.org/html/2409.00001v1")
            (chart,) = paper.charts()
            got = [(p.src, p.row) for p in chart.panels]
            if got != [(f"r{r}c{c}.png", r) for r in range(rows) for c in range(per_row)]:
                wrong.append((rows, per_row, [row for _, row in got]))
    assert not wrong


def test_an_image_url_is_what_urljoin_makes_of_it():
    """The parser joins a plain relative src itself (most images of a page): the same URL as
    urllib's urljoin, whatever the base and src."""
    import itertools
    from urllib.parse import urljoin

    from papers.parsing.figures import resolve_asset

    bases = [
        "https://arxiv.org/html/2410.00260v2/",
        "https://arxiv.org/html/",
        "http://127.0.0.1:8000/html/x/",
        "https://a.b/c?x=1/",
        "https://a.b/c/#f/",
        "https://a.b/%7e/",
    ]
    srcs = [
        "x1.png",
        "2410.00260v2/x1.png",
        "a/b/c.svg",
        "./x.png",
        "../x.png",
        "/x.png",
        "x.png?a",
        "x#y",
        "a//b",
        "-x.png",
        "x..png",
        ".x",
        "a/./b",
        "a/../b",
        "http://e/x",
        "data:image/png;base64,AA",
        "x y.png",
        "é.png",
        "a:b",
    ]
    for base, src in itertools.product(bases, srcs):
        assert resolve_asset(base, src, has_base=True) == urljoin(base, src), (base, src)
