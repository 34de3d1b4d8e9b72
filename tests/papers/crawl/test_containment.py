"""A misbehaving page or server costs one paper, never the crawl (issue 16).

One run against the stand-in arXiv serves good papers and a paper per fault: each fault paper
ends with its reason (failed, or kept with what was fitted said in the log), and every other
paper of the run is done as if nothing had happened.
"""

from __future__ import annotations

import re
from datetime import date

import pytest

from papers.crawl.bookkeeping import is_infrastructure_error
from papers.crawl.runner import execute_crawl
from papers.crawl.services import create_crawl_run
from papers.models import CrawlEvent, CrawlItem, CrawlRun, Element, ElementPanel, Paper, Section
from papers.storable import Unstorable
from tests.papers import fault_pages as faults
from tests.papers.crawl.standin_papers import day, paper
from tests.standin import Fault, StandInPaper

pytestmark = pytest.mark.django_db

EMPTY = Fault("body", status=200, body=b"")
NOT_LATEXML = Fault(
    "body", status=200, body=b"<html><body><p>Down for maintenance.</p></body></html>"
)


def crawl(**params: object) -> CrawlRun:
    params = {
        "date_from": date(2024, 10, 1),
        "date_to": date(2024, 10, 31),
        "categories": ["cs.CL"],
        "images": "now",
        "min_tables": 1,
        "min_charts": 1,
        **params,
    }
    run = create_crawl_run(**params)  # type: ignore[arg-type]
    return execute_crawl(run_id=run.pk)


def faulty(n: int, mutate, **fields: object) -> StandInPaper:
    good = paper(f"2410.000{n:02d}", published=day(n), tables=3, charts=3, **fields)
    good.html = mutate(good.html)
    return good


def long_values(html: bytes) -> bytes:
    """Every long value at once: each target on a float or section of its own."""
    for which, target in enumerate(faults.LONG_TARGETS):
        html = faults.long_values(html, target=target, length=150, which=which)
    return html


def html_path(arxiv_id: str) -> str:
    return rf"^/html/{re.escape(arxiv_id)}v1$"


def item(arxiv_id: str) -> CrawlItem:
    return CrawlItem.objects.select_related("paper").get(paper__arxiv_id=arxiv_id)


def warnings_of(run: CrawlRun, arxiv_id: str) -> list[str]:
    return list(
        run.events.filter(paper=f"{arxiv_id}v1", level=CrawlEvent.Level.WARNING).values_list(
            "message", flat=True
        )
    )


@pytest.fixture
def pillow(arxiv_settings):
    arxiv_settings.USE_CHROMIUM = False
    return arxiv_settings


def test_each_fault_costs_its_paper_at_most_and_the_run_goes_on(pillow, standin):
    standin.add_paper(paper("2410.00001", published=day(1), tables=3, charts=3))
    standin.add_paper(faulty(2, long_values))
    standin.add_paper(faulty(3, lambda h: faults.huge_spans(h, cells=12, insert=True)))
    standin.add_paper(faulty(4, lambda h: faults.bad_base(h, target="base")))
    standin.add_paper(faulty(5, lambda h: faults.bad_base(h, target="img")))
    standin.add_paper(faulty(6, lambda h: faults.control_names(h, count=6)))
    standin.add_paper(
        faulty(
            7,
            lambda h: faults.nul_characters(
                faults.nul_characters(faults.nul_characters(h, where="text"), where="attributes"),
                where="head",
            ),
        )
    )
    standin.add_paper(faulty(8, faults.panel_rows))
    standin.add_paper(
        paper(
            "2410.00009", published=day(9), primary_category="cs." + "X" * 40, categories=["cs.CL"]
        )
    )
    standin.add_paper(paper("2410.00010", published=day(10)))  # an empty 200 first
    standin.add_paper(paper("2410.00011", published=day(11)))  # a page that is not LaTeXML's
    standin.add_paper(paper("2410.00012", published=day(12)))  # an empty 200 every time
    standin.add_paper(paper("2410." + "9" * 40, published=day(13)))  # an id no column holds
    standin.add_fault(html_path("2410.00010"), EMPTY)
    standin.add_fault(html_path("2410.00011"), NOT_LATEXML)
    standin.add_fault(html_path("2410.00012"), Fault("body", status=200, body=b"", times=3))

    run = crawl()

    assert run.status == CrawlRun.Status.FINISHED, run.error
    kept = ["2410.00001", "2410.00002", "2410.00003", "2410.00006", "2410.00007", "2410.00008"]
    kept += ["2410.00009", "2410.00010", "2410.00011"]
    for arxiv_id in kept:
        assert (item(arxiv_id).outcome, item(arxiv_id).reason_code) == ("kept", ""), arxiv_id
        stored = Paper.objects.get(arxiv_id=arxiv_id)
        # Screenshots drawn (the huge table's refused: "rendered with problems").
        images = "partial" if arxiv_id == "2410.00003" else "done"
        assert (bool(stored.license_url), stored.images_status) == (True, images), arxiv_id
    good = Paper.objects.get(arxiv_id="2410.00001")
    assert all(e.image for e in good.elements.exclude(kind=Element.Kind.PARAGRAPH))

    # Values longer than their columns: anchors shortened (still unique, still cited), the
    # number read as none (a lost float, warned), label and section number cut (warned).
    stored = Paper.objects.get(arxiv_id="2410.00002")
    assert (
        max(len(a) for a in Section.objects.filter(paper=stored).values_list("anchor", flat=True))
        == 100
    )
    assert max(len(a) for a in stored.elements.values_list("anchor", flat=True)) <= 100
    assert (
        stored.lost_count == 1
        and "a number has at most 32 characters" in stored.lost_floats[0]["reason"]
    )
    said = " ".join(warnings_of(run, "2410.00002"))
    assert "label cut to 64" in said and "number cut to 32" in said and "not kept" in said
    assert all(len(label) <= 64 for label in stored.elements.values_list("label", flat=True))

    # Huge spans: the table is kept, its screenshot refused before anything was laid out.
    huge = Paper.objects.get(arxiv_id="2410.00003").elements.get(anchor="HUGE.T1")
    assert not huge.image and "grid slots" in huge.image_error
    assert any("HUGE" in w or "Table 99" in w for w in warnings_of(run, "2410.00003"))

    # A <base> or an image src urllib refuses: the paper fails with the reason.
    for arxiv_id, said in (("2410.00004", "<base href="), ("2410.00005", "not a usable URL")):
        failed = item(arxiv_id)
        assert (failed.outcome, failed.reason_code) == ("failed", "parse_error")
        assert said in failed.reason and said in failed.paper.status_reason

    # Control characters in names, NUL characters: read, and nothing of them stored.
    assert Paper.objects.get(arxiv_id="2410.00006").table_count == 3
    for arxiv_id in ("2410.00006", "2410.00007"):
        stored = Paper.objects.get(arxiv_id=arxiv_id)
        texts = stored.elements.values_list("text", "caption", "table_html", "anchor")
        assert not any(re.search("[\x00-\x08\x0b-\x1f]", t) for row in texts for t in row)

    # A panel in layout row 32,768: stored in the last row the column holds, and said.
    rows = ElementPanel.objects.filter(element__paper__arxiv_id="2410.00008")
    assert max(rows.values_list("row", flat=True)) == 32_767
    assert any("layout row 32768" in w for w in warnings_of(run, "2410.00008"))

    # A category longer than its column is cut; an id no column holds is left out, said.
    assert len(Paper.objects.get(arxiv_id="2410.00009").primary_category) == 32
    assert not Paper.objects.filter(arxiv_id__startswith="2410.9999").exists()
    assert run.events.filter(kind="search", message__contains="left out").count() == 1

    # An empty or non-LaTeXML 200 once: asked again (with back-off), then kept.
    for arxiv_id in ("2410.00010", "2410.00011"):
        hits = [r.status for r in standin.log if re.search(html_path(arxiv_id), r.path)]
        assert hits == [200, 200], arxiv_id
    assert run.stats["retries"] >= 2
    # Empty every time: failed as transient, not a permanent "no HTML".
    failed = item("2410.00012")
    assert (failed.outcome, failed.reason_code) == ("failed", "retries_exhausted")
    assert "empty page" in failed.reason and failed.paper.status == Paper.Status.FAILED

    # --retry-failed asks for it again (and for nothing that was stored).
    standin.clear_faults()
    before = len(standin.html_requests())
    again = crawl(retry_failed=True)
    assert again.status == CrawlRun.Status.FINISHED
    assert CrawlItem.objects.get(run=again, paper__arxiv_id="2410.00012").outcome == "kept"
    fetched = standin.html_requests()[before:]
    assert sorted(fetched) == ["/html/2410.00004v1", "/html/2410.00005v1", "/html/2410.00012v1"]


def test_what_ends_a_run_and_what_ends_a_paper():
    from django.db import DataError, IntegrityError, OperationalError

    from papers.crawl.gate import GateError

    assert is_infrastructure_error(OperationalError("database is locked"))
    assert is_infrastructure_error(GateError("Redis gate unavailable"))
    assert not is_infrastructure_error(DataError("value too long for type character varying"))
    assert not is_infrastructure_error(IntegrityError("duplicate key value"))
    assert not is_infrastructure_error(Unstorable("Element.number", "33 characters"))
    assert not is_infrastructure_error(ValueError("Invalid IPv6 URL"))
