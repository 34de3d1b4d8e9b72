"""The parser refuses bad pages with a ParseError that says why, and never raises anything else."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bench.synthetic import synthetic_page
from papers.parsing import ParseError, parse_paper

CORPUS = Path(__file__).resolve().parents[2] / "papers" / "corpus"
PAGES = sorted(CORPUS.glob("*/paper.html"))
assert PAGES, f"the fixture corpus is missing from {CORPUS}"
MINIMAL = (
    b'<!DOCTYPE html><html><head><title>t</title></head><body><article class="ltx_document">'
    b'<section class="ltx_section" id="S1"><h2 class="ltx_title">1 Intro</h2>'
    b'<div class="ltx_para" id="S1.p1"><p class="ltx_p">Hello.</p></div></section>'
    b"</article></body></html>"
)


def reason_of(data: bytes, **kwargs) -> str:
    with pytest.raises(ParseError) as info:
        parse_paper(data, "https://arxiv.org/html/2409.00001v1", **kwargs)
    return info.value.reason


def test_minimal_page_parses():
    paper = parse_paper(MINIMAL, "")
    assert [s.anchor for s in paper.sections] == ["S1"]
    assert [e.text for e in paper.elements] == ["Hello."]


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        (b"", "empty page"),
        (b"   \n ", "empty page"),
        (MINIMAL.replace(b"</article></body></html>", b""), "truncated"),
        (MINIMAL[: len(MINIMAL) // 2], "truncated"),
        (MINIMAL.replace(b"</article>", b""), "article.ltx_document is never closed"),
        (MINIMAL.replace(b"Hello.", b"H\xe9llo."), "not UTF-8"),
        (b"<html><body><p>Just a web page</p></body></html>", "not LaTeXML output"),
        (
            b"<html><body><h1>Conversion to HTML had a Fatal error and exited abruptly."
            b"</h1></body></html>",
            "conversion failed",
        ),
        (
            b'<html><body><article class="ltx_document"></article></body></html>',
            "empty document",
        ),
    ],
)
def test_bad_pages_are_refused_with_a_reason(data: bytes, expected: str):
    assert expected in reason_of(data)


def test_size_limit():
    assert "too large" in reason_of(MINIMAL, max_bytes=100)


def test_synthetic_page_is_large_and_complete():
    data = synthetic_page()
    assert len(data) >= 1_900_000
    paper = parse_paper(data, "https://arxiv.org/html/2409.99999v1")
    assert len(paper.tables()) == 60
    assert len(paper.charts()) == 60
    assert all(len(c.panels) == 2 for c in paper.charts())
    # Every paragraph cites the table and the figure of its block; footnotes are out.
    cited = [p for p in paper.paragraphs() if p.refs]
    assert len(cited) == 600
    assert all("footnote" not in p.text for p in paper.paragraphs())
    assert paper.charts()[0].panels[0].url == (
        "https://arxiv.org/html/2409.99999v1/extracted/5000000/figs/fig1_1.png"
    )


def _mutations(data: bytes) -> st.SearchStrategy[bytes]:
    """Truncations, deleted or duplicated spans of bytes (whole tags or not), garbage bytes."""
    n = len(data)
    index = st.integers(min_value=0, max_value=n)
    truncate = index.map(lambda i: data[:i])
    delete = st.tuples(index, st.integers(0, 4000)).map(
        lambda t: data[: t[0]] + data[t[0] + t[1] :]
    )
    duplicate = st.tuples(index, st.integers(0, 4000)).map(
        lambda t: data[: t[0] + t[1]] + data[t[0] : t[0] + t[1]] + data[t[0] + t[1] :]
    )
    garbage = st.tuples(index, st.binary(min_size=1, max_size=64)).map(
        lambda t: data[: t[0]] + t[1] + data[t[0] :]
    )
    return st.one_of(truncate, delete, duplicate, garbage)


def _node_mutations(data: bytes) -> st.SearchStrategy[bytes]:
    """Delete or duplicate whole elements (a paragraph, a table row, a caption, ...)."""
    import lxml.etree

    tree = lxml.etree.fromstring(data, lxml.etree.HTMLParser(encoding="utf-8"))
    count = sum(1 for _ in tree.iter())

    def mutate(args: tuple[int, bool]) -> bytes:
        position, duplicate = args
        root = lxml.etree.fromstring(data, lxml.etree.HTMLParser(encoding="utf-8"))
        nodes = [el for el in root.iter() if el.getparent() is not None]
        node = nodes[position % len(nodes)]
        parent = node.getparent()
        if duplicate:
            import copy

            parent.insert(parent.index(node), copy.deepcopy(node))
        else:
            parent.remove(node)
        return lxml.etree.tostring(root, method="html", encoding="utf-8")

    return st.tuples(st.integers(0, count), st.booleans()).map(mutate)


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.parent.name)
@given(data=st.data())
def test_mutated_pages_raise_only_parse_error(page: Path, data: st.DataObject):
    original = page.read_bytes()
    mutated = data.draw(st.one_of(_mutations(original), _node_mutations(original)))
    try:
        parse_paper(mutated, "https://arxiv.org/html/2409.00001v1")
    except ParseError:
        pass


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.parent.name)
@given(cut=st.integers(min_value=0))
def test_truncated_pages_are_refused(page: Path, cut: int):
    original = page.read_bytes()
    # Anywhere before the body element has closed (its closing tag's last byte excluded): what
    # follows </body> says nothing about truncation (`latexml.truncation`), so a cut between
    # </body> and </html> is a whole page (Hypothesis found one: a single newline there).
    end = original.lower().rfind(b"</body>") + len(b"</body>")
    truncated = original[: cut % end]
    with pytest.raises(ParseError) as info:
        parse_paper(truncated, "https://arxiv.org/html/2409.00001v1")
    assert "truncated" in info.value.reason or "empty" in info.value.reason


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.parent.name)
def test_a_page_cut_inside_its_closing_body_tag_is_refused(page: Path):
    original = page.read_bytes()
    last = original.lower().rfind(b"</body>") + len(b"</body>") - 1  # its ">"
    with pytest.raises(ParseError) as info:
        parse_paper(original[:last], "https://arxiv.org/html/2409.00001v1")
    assert "truncated" in info.value.reason
    parse_paper(original[: last + 1], "https://arxiv.org/html/2409.00001v1")  # whole: no error


@pytest.mark.parametrize(
    ("page_url", "src", "has_base", "expected"),
    [
        # arXiv, no <base>: src relative to /html/
        (
            "https://arxiv.org/html/2410.04522v2",
            "2410.04522v2/x1.png",
            False,
            "https://arxiv.org/html/2410.04522v2/x1.png",
        ),
        # plain LaTeXML output served at /html/<id>vN: src relative to the paper's folder
        (
            "https://arxiv.org/html/2410.04522v2",
            "figures/a.png",
            False,
            "https://arxiv.org/html/2410.04522v2/figures/a.png",
        ),
        # with <base href="/html/2501.11120v1/">, the effective base already ends with "/"
        (
            "https://arxiv.org/html/2501.11120v1/",
            "extracted/1/a.png",
            True,
            "https://arxiv.org/html/2501.11120v1/extracted/1/a.png",
        ),
        (
            "https://arxiv.org/html/2501.11120v1",
            "https://example.org/x.png",
            False,
            "https://example.org/x.png",
        ),
        ("", "x1.png", False, "x1.png"),
    ],
)
def test_asset_urls_resolve_like_arxiv_serves_them(page_url, src, has_base, expected):
    from papers.parsing.figures import resolve_asset

    assert resolve_asset(page_url, src, has_base=has_base) == expected


# --- issue 16: what urllib or lxml refuses is a ParseError with the reason, or is read --------
TABLE_PAGE = (
    b'<!DOCTYPE html><html><head><title>t</title><base href="/html/2409.00001v1/"/></head>'
    b'<body><article class="ltx_document"><section class="ltx_section" id="S1">'
    b'<h2 class="ltx_title">1 Intro</h2><div class="ltx_para" id="S1.p1"><p class="ltx_p">'
    b"See Table 1.</p></div>"
    b'<figure class="ltx_table" id="S1.T1"><figcaption class="ltx_caption">'
    b'<span class="ltx_tag ltx_tag_table">Table 1: </span>Scores.</figcaption>'
    b'<table class="ltx_tabular"><tr class="ltx_tr"><td class="ltx_td">CELL</td>'
    b'<td class="ltx_td"><img src="icon.png"/>AFTER</td></tr></table></figure>'
    b'<figure class="ltx_figure" id="S1.F1"><img class="ltx_graphics" src="x1.png"/>'
    b'<figcaption class="ltx_caption"><span class="ltx_tag ltx_tag_figure">Figure 1: </span>'
    b"Plot.</figcaption></figure></section></article></body></html>"
)
URL = "https://arxiv.org/html/2409.00001v1"


@pytest.mark.parametrize(
    "href", ["http://[::1", "http://[zz]/", "https://a]b/", "http://a\uff03b/"]
)
def test_a_base_urllib_refuses_is_a_parse_error_that_says_so(href):
    page = TABLE_PAGE.replace(b"/html/2409.00001v1/", href.encode())
    reason = reason_of(page)
    assert "<base href=" in reason and "not a usable URL" in reason


def test_an_image_src_urllib_refuses_is_a_parse_error_that_names_the_float():
    reason = reason_of(TABLE_PAGE.replace(b'src="x1.png"', b'src="http://[::1/x.png"'))
    assert "S1.F1" in reason and "not a usable URL" in reason
    # Without a page address to join to, the src is still checked.
    with pytest.raises(ParseError, match="not a usable URL"):
        parse_paper(TABLE_PAGE.replace(b'src="x1.png"', b'src="http://[::1/x.png"'), "")


@pytest.mark.parametrize(
    "char", [b"\x01", b"\x00", b"\x1f", b"\x7f", b"\x0b", "\ufffe".encode()], ids=repr
)
@pytest.mark.parametrize(
    "markup",
    [b'<td a{c}b="1" class="ltx_td">', b"<td><sp{c}an>x</sp{c}an>", b'<td><x{c} {c}="v">y</x{c}>'],
    ids=["attribute", "tag", "both"],
)
def test_a_control_character_in_a_name_inside_a_table_is_read(char, markup):
    page = TABLE_PAGE.replace(b'<td class="ltx_td">CELL', markup.replace(b"{c}", char) + b"CELL")
    table = parse_paper(page, URL).tables()[0]
    assert "CELL" in table.table_html and table.grids[0][0][0].text.endswith("CELL")
    assert not re.search("[\x00-\x08\x0b-\x1f\x7f\ufffe]", table.table_html)


def test_control_characters_from_references_never_reach_the_text():
    page = (
        TABLE_PAGE.replace(b"AFTER", b"AF&#1;TER&#xfffe;")
        .replace(b"Scores.", b"Sco&#x1b;res.\x00")
        .replace(b"See Table", b"See&#8; Table")
    )
    paper = parse_paper(page, URL)
    table = paper.tables()[0]
    assert table.caption == "Scores." and paper.paragraphs()[0].text == "See Table 1."
    assert [c.text for c in table.grids[0][0]] == ["CELL", "AFTER"]
    # An image in a cell becomes a placeholder in place, the text after it untouched (lxml
    # would refuse to set it again); the importer cleans the markup (tests/papers/test_storable).
    assert '<span class="ltx_image_placeholder">[image]</span>AF\x01TER' in table.table_html


def test_a_number_longer_than_a_number_may_be_is_a_loss_with_its_reason():
    page = TABLE_PAGE.replace(b"Table 1: ", b"Table " + b"1" * 33 + b": ")
    paper = parse_paper(page, URL)
    assert not paper.tables()
    (loss,) = paper.lost()
    assert "a number has at most 32 characters" in loss.reason and loss.anchor == "S1.T1"
    assert any("not kept" in w for w in paper.warnings)
