"""The parser refuses bad pages with a ParseError that says why, and never raises anything else."""

from __future__ import annotations

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
    end = original.rstrip().lower().rfind(b"</html>")
    truncated = original[: cut % end]  # anywhere before the html element closes
    with pytest.raises(ParseError) as info:
        parse_paper(truncated, "https://arxiv.org/html/2409.00001v1")
    assert "truncated" in info.value.reason or "empty" in info.value.reason


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
    from papers.parsing.latexml import resolve_asset

    assert resolve_asset(page_url, src, has_base=has_base) == expected
