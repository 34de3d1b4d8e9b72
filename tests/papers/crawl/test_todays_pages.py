"""A crawl meets today's arXiv (issue 35): an oxide page served with a comment after </html> is
fetched once and kept, its generator counted in the run's report, its lost floats said."""

from __future__ import annotations

import io
import re
from datetime import UTC, datetime
from pathlib import Path

import pytest
from django.core.management import call_command

from papers.models import CrawlRun, Paper
from tests.standin import StandInPaper

pytestmark = pytest.mark.django_db

PAGES = Path(__file__).resolve().parents[1] / "pages"


def served(folder: str, arxiv_id: str, version: int, day: int) -> StandInPaper:
    page = PAGES / folder
    return StandInPaper(
        arxiv_id=arxiv_id,
        version=version,
        title=f"Paper {arxiv_id}",
        published=datetime(2024, 10, day, 12, 0, tzinfo=UTC),
        comment="Accepted to EMNLP 2024",
        html=(page / "paper.html").read_bytes(),
        assets={
            p.relative_to(page).as_posix(): p.read_bytes()
            for p in page.rglob("*")
            if p.suffix in (".png", ".svg")
        },
    )


def test_a_crawl_keeps_todays_pages_and_counts_them_per_generator(arxiv_settings, standin):
    standin.add_paper(served("oxide-boxes", "2410.00260", 2, 1))
    standin.add_paper(served("classic-trailer", "2409.20001", 3, 2))
    out = io.StringIO()
    call_command(
        "crawl_arxiv",
        *("--from", "2024-10-01", "--to", "2024-10-31", "--categories", "cs.CL"),
        *("--images", "none"),
        stdout=out,
        stderr=io.StringIO(),
    )
    report = out.getvalue()
    assert "kept 2, rejected 0" in report
    assert "pages made by: LaTeXML 0.8.8: 1, LaTeXML oxide 0.7.6: 1" in report
    # Each page ends with text after </html>: one request each, not a retry as "truncated".
    for path in (r"^/html/2410\.00260v2$", r"^/html/2409\.20001v3$"):
        assert [r.status for r in standin.log if re.search(path, r.path)] == [200]
    oxide = Paper.objects.get(arxiv_id="2410.00260")
    assert (oxide.generator_label, oxide.table_count, oxide.chart_count) == (
        "LaTeXML oxide 0.7.6",
        2,
        3,  # Figure 4 is a vector graphic (<object>): a chart since issue 39
    )
    assert [f["label"] for f in oxide.lost_floats] == ["Figure 3", "Figure 5", "Figure 6"]
    assert CrawlRun.objects.get().counts()["floats_lost"] == 3
