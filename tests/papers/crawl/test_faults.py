"""Every fault the stand-in can inject is survived: retried, recorded with its reason, or both."""

from __future__ import annotations

import time
from datetime import date

import pytest

from papers.crawl.client import ArxivClient
from papers.crawl.retry import parse_retry_after
from papers.crawl.runner import execute_crawl
from papers.crawl.services import create_crawl_run, prepare_resume
from papers.models import CrawlEvent, CrawlItem, CrawlRun, Paper
from tests.papers.crawl.standin_papers import day, paper
from tests.standin import Fault

pytestmark = pytest.mark.django_db

HTML1 = r"^/html/2410\.00001v1$"


def crawl(**params: object) -> CrawlRun:
    params = {
        "date_from": date(2024, 10, 1),
        "date_to": date(2024, 10, 31),
        "categories": ["cs.CL"],
        "images": "none",
        **params,
    }
    run = create_crawl_run(**params)  # type: ignore[arg-type]
    return execute_crawl(run_id=run.pk)


@pytest.fixture
def two_papers(standin):
    standin.add_paper(paper("2410.00001", published=day(1), comment="Accepted at ACL 2024"))
    standin.add_paper(paper("2410.00002", published=day(2)))
    return standin


def statuses(standin, pattern: str) -> list[int]:
    import re

    return [r.status for r in standin.log if re.search(pattern, r.path)]


def outcome(arxiv_id: str) -> tuple[str, str]:
    item = CrawlItem.objects.get(paper__arxiv_id=arxiv_id)
    return item.outcome, item.reason_code


def test_503_then_success(arxiv_settings, two_papers):
    two_papers.add_fault(HTML1, Fault("status", status=503, times=2))
    run = crawl()
    assert statuses(two_papers, HTML1) == [503, 503, 200]
    assert outcome("2410.00001") == ("kept", "")
    assert run.stats["retries"] >= 2


def test_429_with_retry_after_is_honoured(arxiv_settings, two_papers):
    two_papers.add_fault(HTML1, Fault("retry_after", seconds=1))
    run = crawl()
    hits = [r for r in two_papers.log if r.path == "/html/2410.00001v1"]
    assert [r.status for r in hits] == [429, 200]
    assert hits[1].started - hits[0].ended >= 1.0 - 0.01
    assert outcome("2410.00001") == ("kept", "")
    assert run.status == CrawlRun.Status.FINISHED


def test_retry_after_holds_back_every_request(arxiv_settings, two_papers):
    """The deferral goes through the gate: no request at all before it has passed."""
    two_papers.add_fault(r"^/abs/2410\.00001v1$", Fault("retry_after", seconds=1))
    crawl()
    log = sorted(two_papers.log, key=lambda r: r.started)
    refused = next(i for i, r in enumerate(log) if r.status == 429)
    assert log[refused + 1].started - log[refused].ended >= 1.0 - 0.01


def test_retry_after_as_http_date():
    when = time.strftime("%a, %d %b %Y %H:%M:%S GMT", time.gmtime(time.time() + 30))
    assert 25 <= parse_retry_after(when) <= 31
    assert parse_retry_after("7") == 7.0
    assert parse_retry_after("soon") is None


def test_hung_connection_times_out_and_is_retried(arxiv_settings, two_papers):
    two_papers.add_fault(HTML1, Fault("hang", seconds=5))
    started = time.monotonic()
    crawl()
    assert time.monotonic() - started < 4, "the read timeout (0.5 s) ends the hung request"
    assert statuses(two_papers, HTML1)[-1] == 200
    assert outcome("2410.00001") == ("kept", "")


def test_hung_every_time_fails_the_paper_and_the_run_goes_on(arxiv_settings, two_papers):
    two_papers.add_fault(HTML1, Fault("hang", seconds=5, times=3))
    run = crawl()
    assert run.status == CrawlRun.Status.FINISHED
    assert outcome("2410.00001") == ("failed", "retries_exhausted")
    assert outcome("2410.00002") == ("kept", "")
    failed = Paper.objects.get(arxiv_id="2410.00001")
    assert failed.status == Paper.Status.FAILED and "Timeout" in failed.status_reason
    event = run.events.get(level=CrawlEvent.Level.ERROR, paper="2410.00001v1")
    assert "after 3 tries" in event.message
    assert run.counts()["failed_by_reason"] == {"retries_exhausted": 1}


@pytest.mark.parametrize("kind", ["truncate", "truncate_unframed"])
def test_truncated_body_is_fetched_again(arxiv_settings, two_papers, kind):
    two_papers.add_fault(HTML1, Fault(kind))
    crawl()
    assert len(statuses(two_papers, HTML1)) == 2
    assert outcome("2410.00001") == ("kept", "")


def test_truncated_every_time_fails(arxiv_settings, two_papers):
    two_papers.add_fault(HTML1, Fault("truncate_unframed", times=10))
    crawl()
    assert outcome("2410.00001") == ("failed", "retries_exhausted")
    assert "truncated" in Paper.objects.get(arxiv_id="2410.00001").status_reason


def test_404_means_no_html_and_is_not_retried(arxiv_settings, two_papers):
    two_papers.add_fault(HTML1, Fault("not_found"))
    run = crawl()
    assert statuses(two_papers, HTML1) == [404]
    assert outcome("2410.00001") == ("no_html", "not_found")
    assert Paper.objects.get(arxiv_id="2410.00001").status == Paper.Status.NO_HTML
    assert run.counts()["rejected_by_reason"] == {"not_found": 1}


def test_conversion_failure_page(arxiv_settings, two_papers):
    body = (
        b"<html><body><h1>Conversion to HTML had a Fatal error and exited abruptly."
        b"</h1></body></html>"
    )
    two_papers.add_fault(HTML1, Fault("body", status=200, body=body))
    crawl()
    assert outcome("2410.00001") == ("no_html", "conversion_failed")
    assert "conversion failed" in Paper.objects.get(arxiv_id="2410.00001").status_reason


def test_wrong_content_type(arxiv_settings, two_papers):
    two_papers.add_fault(
        HTML1, Fault("body", status=200, body=b"%PDF-1.5", content_type="application/pdf")
    )
    crawl()
    assert outcome("2410.00001") == ("failed", "wrong_content_type")


def test_response_over_the_size_limit(arxiv_settings, two_papers):
    arxiv_settings.MAX_HTML_BYTES = 1000
    crawl()
    assert outcome("2410.00001") == ("failed", "too_large")
    assert "over the limit" in Paper.objects.get(arxiv_id="2410.00001").status_reason


def test_broken_chart_image_is_a_warning_not_a_failure(arxiv_settings, two_papers):
    two_papers.add_fault(
        r"^/html/2410\.00001v1/x1\.png$", Fault("body", status=200, body=b"<html>oops</html>")
    )
    run = crawl(min_charts=1)
    assert outcome("2410.00001") == ("kept", "")
    warnings = list(run.events.filter(kind="asset").values_list("message", flat=True))
    assert len(warnings) == 2 and "content type" in warnings[0]
    assert "does not count towards MIN_CHARTS" in warnings[1]


def test_a_chart_whose_only_image_failed_does_not_count_towards_min_charts(
    arxiv_settings, two_papers
):
    two_papers.add_fault(
        r"^/html/2410\.00001v1/x1\.png$", Fault("body", status=200, body=b"<html>oops</html>")
    )
    run = crawl(min_charts=2)
    assert outcome("2410.00001") == ("rejected", "too_few_charts")
    stored = Paper.objects.get(arxiv_id="2410.00001")
    assert stored.chart_count == 1 and stored.elements.filter(kind="chart").count() == 2
    assert "1 charts with an image (fewer than 2)" in stored.status_reason
    assert run.events.filter(kind="asset", message__contains="does not count").exists()


def test_licence_page_down_keeps_the_paper_and_says_so(arxiv_settings, two_papers):
    two_papers.add_fault(r"^/abs/2410\.00001v1$", Fault("status", status=503, times=3))
    run = crawl()
    assert outcome("2410.00001") == ("kept", "")
    assert Paper.objects.get(arxiv_id="2410.00001").license_url == ""
    assert run.events.filter(kind="licence", level=CrawlEvent.Level.WARNING).exists()


def test_malformed_atom_page_is_asked_again(arxiv_settings, standin):
    for n in range(1, 8):
        standin.add_paper(paper(f"2410.0000{n}", published=day(n), html=None))
    standin.add_fault(r"^/api/query.*start=3&", Fault("malformed"))
    run = crawl()
    assert run.counts()["found"] == 7
    assert [r.fault for r in standin.requests("/api/")].count("malformed") == 1


def test_short_page_is_asked_again(arxiv_settings, standin):
    for n in range(1, 8):
        standin.add_paper(paper(f"2410.0000{n}", published=day(n), html=None))
    standin.add_fault(r"^/api/query.*start=3&", Fault("empty", total=7))
    run = crawl()
    assert run.counts()["found"] == 7


@pytest.mark.parametrize("announced", [0, 2], ids=["says-zero", "says-two"])
def test_empty_first_page_is_asked_again(arxiv_settings, two_papers, announced):
    two_papers.add_fault(r"^/api/query.*start=0&", Fault("empty", total=announced))
    run = crawl()
    assert run.counts()["found"] == 2
    assert len(two_papers.requests("/api/")) == 2


def test_genuinely_empty_window_costs_one_confirmation(arxiv_settings, standin):
    run = crawl()
    assert run.status == CrawlRun.Status.FINISHED
    assert run.counts()["found"] == 0
    assert len(standin.requests("/api/")) == 2


def test_search_down_fails_the_run_which_resumes_later(arxiv_settings, two_papers):
    two_papers.add_fault(r"^/api/query", Fault("status", status=503, times=3))
    run = crawl()
    assert run.status == CrawlRun.Status.FAILED
    assert "search incomplete" in run.error
    assert run.events.filter(kind="search", level=CrawlEvent.Level.ERROR).exists()

    run = execute_crawl(run_id=prepare_resume(run=run).pk)

    assert run.status == CrawlRun.Status.FINISHED
    assert run.counts()["kept"] == 2


def test_redirect_hops_pass_the_gate(arxiv_settings, two_papers):
    arxiv_settings.ARXIV_DELAY_SECONDS = 0.1
    two_papers.papers["2410.00001"].trailing_slash = True
    crawl()
    hits = [r for r in two_papers.log if r.path.startswith("/html/2410.00001v1")]
    assert [r.status for r in hits[:2]] == [301, 200]
    assert hits[1].started - hits[0].ended >= 0.1 - 0.005
    assert outcome("2410.00001") == ("kept", "")


def test_never_follows_a_redirect_off_arxiv(arxiv_settings, two_papers, settings):
    client = ArxivClient.from_settings()
    from papers.crawl.errors import FetchError

    with pytest.raises(FetchError, match="not an arXiv address"):
        client.fetch_asset("http://127.0.0.2:9/x.png")


def test_gate_down_fails_the_run_not_the_papers(arxiv_settings, two_papers):
    from papers.crawl.gate import GateError

    arxiv_settings.ARXIV_GATE = "redis"
    arxiv_settings.REDIS_URL = "redis://127.0.0.1:1/0"  # nothing listens there
    run = create_crawl_run(
        date_from=date(2024, 10, 1), date_to=date(2024, 10, 31), categories=["cs.CL"], images="none"
    )
    with pytest.raises(GateError):
        execute_crawl(run_id=run.pk)
    run.refresh_from_db()
    assert run.status == CrawlRun.Status.FAILED and "Redis gate unavailable" in run.error
    assert not two_papers.log, "no request went out without the gate"
    assert not Paper.objects.filter(status=Paper.Status.FAILED).exists()
