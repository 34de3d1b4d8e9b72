"""The stand-in speaks arXiv's formats: its feeds parse with the arxiv package."""

from __future__ import annotations

import arxiv
import requests

from tests.papers.crawl.standin_papers import day, paper
from tests.standin import StandInArxiv, corpus_papers


def test_feeds_parse_with_the_arxiv_package() -> None:
    papers = corpus_papers()
    papers.append(
        paper(
            "2410.00001",
            comment="Accepted to EMNLP 2024 (Findings). 9 pages",
            journal_ref="Findings of EMNLP 2024",
            categories=["cs.CL", "cs.LG"],
            published=day(2),
            title="A Title That May\n  Wrap & <Break>",
        )
    )
    with StandInArxiv(papers) as standin:
        client = arxiv.Client(page_size=2, delay_seconds=0, num_retries=0)
        client.query_url_format = standin.api_url + "?{}"
        search = arxiv.Search(
            query="(cat:cs.CL OR cat:cs.LG) AND submittedDate:[202409010000 TO 202411152359]",
            max_results=None,
            sort_by=arxiv.SortCriterion.SubmittedDate,
        )
        results = list(client.results(search))
    ours = next(r for r in results if r.get_short_id() == "2410.00001v1")
    assert ours.title == "A Title That May Wrap & <Break>"
    assert ours.comment == "Accepted to EMNLP 2024 (Findings). 9 pages"
    assert ours.journal_ref == "Findings of EMNLP 2024"
    assert ours.primary_category == "cs.CL" and ours.categories == ["cs.CL", "cs.LG"]
    assert ours.published == day(2)
    assert [a.name for a in ours.authors] == ["Ada Author"]
    assert ours.pdf_url == "http://arxiv.org/pdf/2410.00001v1"
    expected = {p.versioned_id for p in papers if {"cs.CL", "cs.LG"} & set(p.categories)}
    assert {r.get_short_id() for r in results} == expected


def test_serves_pages_assets_and_licences() -> None:
    corpus = corpus_papers()
    with StandInArxiv(corpus) as standin:
        first = corpus[0]
        page = requests.get(f"{standin.html_url}{first.versioned_id}", timeout=5)
        assert page.status_code == 200 and b"ltx_document" in page.content
        asset = next(iter(first.assets))
        image = requests.get(f"{standin.html_url}{first.versioned_id}/{asset}", timeout=5)
        assert image.headers["Content-Type"].startswith("image/")
        abstract = requests.get(f"{standin.abs_url}{first.versioned_id}", timeout=5)
        assert b'class="abs-license"' in abstract.content
        assert requests.get(f"{standin.html_url}2401.99999v1", timeout=5).status_code == 404
        assert [r.status for r in standin.log if r.status != 301] == [200, 200, 200, 404]
