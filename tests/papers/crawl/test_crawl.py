"""The crawl end to end against the stand-in arXiv: search, priority, selection, licences."""

from __future__ import annotations

from datetime import date

import pytest

from papers.crawl.runner import execute_crawl
from papers.crawl.services import DEFAULT_CATEGORIES, create_crawl_run
from papers.models import CrawlItem, CrawlRun, ElementPanel, Paper
from tests.papers.crawl.standin_papers import day, paper
from tests.standin import StandInArxiv, corpus_papers

pytestmark = pytest.mark.django_db

WINDOW = {"date_from": date(2024, 9, 1), "date_to": date(2024, 11, 15)}


def crawl(**params: object) -> CrawlRun:
    params = {**WINDOW, "categories": ["cs.CL", "cs.CV", "cs.LG"], "images": "none", **params}
    run = create_crawl_run(**params)  # type: ignore[arg-type]
    return execute_crawl(run_id=run.pk)


def html_order(standin: StandInArxiv) -> list[str]:
    return [path.removeprefix("/html/") for path in standin.html_requests()]


def test_full_crawl_fills_the_database(arxiv_settings, standin):
    corpus = corpus_papers()
    assert corpus, "papers/corpus holds the fixture papers"
    for p in corpus:
        standin.add_paper(p)
    standin.add_paper(paper("2410.00011", comment="Accepted at ICLR 2025", published=day(3)))
    standin.add_paper(paper("2410.00012", tables=1, charts=3, published=day(4)))
    standin.add_paper(paper("2410.00013", tables=0, charts=0, published=day(5)))
    standin.add_paper(paper("2410.00014", html=None, published=day(6)))
    standin.add_paper(paper("2410.00015", categories=["math.CO"], published=day(6)))

    in_window = [
        p
        for p in corpus
        if set(p.categories) & set(DEFAULT_CATEGORIES)
        and WINDOW["date_from"] <= p.published.date() <= WINDOW["date_to"]
    ]
    assert in_window

    run = crawl(categories=DEFAULT_CATEGORIES)

    assert run.status == CrawlRun.Status.FINISHED, run.error
    counts = run.counts()
    assert counts["found"] == len(in_window) + 4  # math.CO is not crawled
    assert counts["fetched"] == counts["found"]
    assert counts["rejected"] == 2 and counts["no_html"] == 1 and counts["failed"] == 0
    assert counts["rejected_by_reason"] == {
        "not_found": 1,
        "too_few_tables": 1,
        "too_few_tables_and_charts": 1,
    }
    kept = Paper.objects.filter(status=Paper.Status.PARSED)
    assert kept.count() == counts["kept"] >= 2
    for p in kept:
        assert p.table_count >= 2 and p.chart_count >= 2
        assert p.license_url and p.license_name, "the licence comes from the abstract page"
        assert p.html_fetched_at and p.raw_html
        assert ElementPanel.objects.filter(element__paper=p).exclude(image="").exists()
    rejected = Paper.objects.get(arxiv_id="2410.00012")
    assert (rejected.status, rejected.table_count, rejected.chart_count) == ("rejected", 1, 3)
    assert not rejected.license_url, "no abstract page is fetched for a rejected paper"
    assert Paper.objects.get(arxiv_id="2410.00014").status == Paper.Status.NO_HTML
    sparse = Paper.objects.get(arxiv_id="2409.13817")
    assert (sparse.acceptance, sparse.venue) == ("accepted", "EMNLP 2024 (Findings)")
    assert sparse.license_name == "CC BY 4.0"
    # Every request the crawler made is in the run's figures and came through the gate.
    assert run.stats["requests"] == len(standin.log)
    assert run.stats["by_kind"]["abs"] == counts["kept"]
    assert run.finished_at and run.active_seconds > 0


def test_accepted_papers_are_fetched_first(arxiv_settings, standin):
    standin.add_paper(paper("2410.00001", comment="13 pages, 5 figures", published=day(1)))
    standin.add_paper(paper("2410.00002", comment="Submitted to ICLR 2025", published=day(2)))
    standin.add_paper(
        paper("2410.00003", comment="Accepted at a NeurIPS 2024 workshop", published=day(3))
    )
    standin.add_paper(
        paper("2410.00004", comment="", journal_ref="Findings of EMNLP 2024", published=day(4))
    )
    standin.add_paper(paper("2410.00005", comment="Accepted to ACL 2024", published=day(5)))

    run = crawl()

    assert run.status == CrawlRun.Status.FINISHED
    assert html_order(standin) == [
        "2410.00004v1",
        "2410.00005v1",  # accepted, oldest first
        "2410.00003v1",  # workshop
        "2410.00002v1",  # under review
        "2410.00001v1",  # unknown
    ]
    items = {i.paper.arxiv_id: i for i in run.items.select_related("paper")}
    assert items["2410.00004"].acceptance == "accepted"
    assert Paper.objects.get(arxiv_id="2410.00003").venue == "NeurIPS 2024 (workshop)"


def test_max_papers_takes_the_accepted_ones(arxiv_settings, standin):
    for n in range(1, 6):
        standin.add_paper(
            paper(
                f"2410.0000{n}",
                published=day(n),
                comment="Accepted to EMNLP 2024" if n in (2, 4) else "",
            )
        )
    run = crawl(max_papers=3)
    assert run.status == CrawlRun.Status.FINISHED
    assert html_order(standin) == ["2410.00002v1", "2410.00004v1", "2410.00001v1"]
    counts = run.counts()
    assert (counts["found"], counts["fetched"], counts["pending"]) == (5, 3, 2)


def test_accepted_only(arxiv_settings, standin):
    standin.add_paper(paper("2410.00001", comment="Accepted to EMNLP 2024", published=day(1)))
    standin.add_paper(paper("2410.00002", comment="Under review", published=day(2)))
    standin.add_paper(paper("2410.00003", comment="NeurIPS 2024 workshop on X", published=day(3)))
    run = crawl(accepted_only=True)
    assert html_order(standin) == ["2410.00001v1"]
    counts = run.counts()
    assert (counts["found"], counts["kept"], counts["excluded"]) == (3, 1, 2)
    # Their metadata is stored all the same, for a later run.
    assert Paper.objects.get(arxiv_id="2410.00002").status == Paper.Status.FOUND


def test_cross_listed_papers_and_versions_are_deduplicated(arxiv_settings, standin):
    standin.per_category_duplicates = True  # one entry per matching category
    standin.stale_versions = {"2410.00002": 1}  # and an older version besides the newest
    standin.add_paper(paper("2410.00001", categories=["cs.CL", "cs.LG", "cs.CV"], published=day(1)))
    standin.add_paper(
        paper("2410.00002", version=3, categories=["cs.CL", "cs.LG"], published=day(2))
    )
    standin.add_paper(paper("2410.00003", categories=["cs.LG"], published=day(3)))

    run = crawl()

    assert run.status == CrawlRun.Status.FINISHED
    assert sorted(Paper.objects.values_list("arxiv_id", "version")) == [
        ("2410.00001", 1),
        ("2410.00002", 3),
        ("2410.00003", 1),
    ]
    assert run.counts()["found"] == 3
    assert sorted(html_order(standin)) == ["2410.00001v1", "2410.00002v3", "2410.00003v1"]
    assert Paper.objects.get(arxiv_id="2410.00001").categories == ["cs.CL", "cs.LG", "cs.CV"]


def test_second_overlapping_run_skips_what_is_stored(arxiv_settings, standin):
    standin.add_paper(paper("2410.00001", published=day(1)))
    standin.add_paper(paper("2410.00002", published=day(20), html=None))
    first = crawl(date_from=date(2024, 10, 1), date_to=date(2024, 10, 10))
    assert first.counts()["kept"] == 1
    standin.add_paper(paper("2410.00001", version=2, published=day(1)))  # a new version since
    standin.log.clear()

    second = crawl(date_from=date(2024, 9, 25), date_to=date(2024, 10, 31))

    counts = second.counts()
    assert (counts["found"], counts["skipped"], counts["no_html"]) == (2, 1, 1)
    assert html_order(standin) == ["2410.00002v1"], "the stored paper is not fetched again"
    assert not Paper.objects.filter(arxiv_id="2410.00001", version=2).exists()
    skipped = second.items.get(outcome=CrawlItem.Outcome.SKIPPED)
    assert skipped.reason_code == "other_version_stored"


def test_politeness_delay_measured_at_the_server(arxiv_settings, standin):
    arxiv_settings.ARXIV_DELAY_SECONDS = 0.2
    standin.add_paper(paper("2410.00001", published=day(1), comment="Accepted at ICLR 2025"))
    standin.add_paper(paper("2410.00002", published=day(2), charts=1))

    run = crawl(date_from=date(2024, 10, 1), date_to=date(2024, 10, 5))

    assert run.status == CrawlRun.Status.FINISHED
    log = sorted(standin.log, key=lambda r: r.started)
    assert len(log) >= 6  # API, HTML, assets and an abstract page
    gaps = [b.started - a.ended for a, b in zip(log, log[1:], strict=False)]
    assert min(gaps) >= 0.2 - 0.005, f"requests closer than the delay: {gaps}"
    # The crawler's own account of its politeness: it did wait, and only between requests
    # (work done between two requests counts toward the delay, so how long depends on load).
    assert 0 < run.stats["wait_seconds"] <= sum(gaps) + 0.01


def test_identifies_itself(arxiv_settings, standin):
    arxiv_settings.ARXIV_USER_AGENT = "SciVerStudio/test (+mailto:crawler@example.org)"
    arxiv_settings.ARXIV_CONTACT = "crawler@example.org"
    standin.add_paper(paper("2410.00001", published=day(1)))
    crawl(date_from=date(2024, 10, 1), date_to=date(2024, 10, 2))
    assert {r.user_agent for r in standin.log} == {arxiv_settings.ARXIV_USER_AGENT}
    assert {r.sender for r in standin.log} == {"crawler@example.org"}
