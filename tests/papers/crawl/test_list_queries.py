"""The crawl run lists (the admin's changelist and the staff page) run a fixed number of
queries: the same count with two runs as with eight, each run's found / fetched / kept counted
in the list's own query, and the numbers shown are those of the run's counts()."""

from __future__ import annotations

import re
from datetime import date, timedelta

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

import papers.admin_crawl  # noqa: F401 - registers the crawl models in the admin
from papers.crawl.starting import progress_of
from papers.models import CrawlItem, CrawlRun, Paper
from tests.factories import AdminFactory

pytestmark = pytest.mark.django_db

Outcome = CrawlItem.Outcome
# Run i finds the first i of these (run 0 finds nothing): every outcome, and kept twice.
OUTCOMES = [
    Outcome.KEPT,
    Outcome.PENDING,
    Outcome.KEPT,
    Outcome.REJECTED,
    Outcome.NO_HTML,
    Outcome.FAILED,
    Outcome.SKIPPED,
    Outcome.EXCLUDED,
]


def _add_runs(n: int) -> None:
    start = CrawlRun.objects.count()
    for i in range(start, start + n):
        run = CrawlRun.objects.create(
            date_from=date(2024, 10, 1),
            date_to=date(2024, 10, 1) + timedelta(days=i),
            categories=["cs.CL"],
        )
        for j, outcome in enumerate(OUTCOMES[: i % (len(OUTCOMES) + 1)]):
            paper = Paper.objects.create(arxiv_id=f"2410.{i:02d}{j:03d}", version=1)
            CrawlItem.objects.create(run=run, paper=paper, outcome=outcome)
    # An archived paper is still one the run found (and kept): the counts do not hide it.
    Paper.objects.filter(crawl_items__outcome=Outcome.KEPT).update(archived_at=timezone.now())


def _expected() -> dict[int, tuple[int, int, int]]:
    out = {}
    for run in CrawlRun.objects.all():
        c = run.counts()
        out[run.pk] = (c["found"], c["fetched"], c["kept"])
    return out


def _get(client: Client, url: str) -> tuple[str, int]:
    with CaptureQueriesContext(connection) as queries:
        response = client.get(url)
    assert response.status_code == 200, url
    return response.content.decode(), len(queries.captured_queries)


def _admin_rows(html: str) -> dict[int, tuple[int, int]]:
    rows = re.findall(
        r'<th class="field-id"><a href="[^"]*/papers/crawlrun/(\d+)/change/[^"]*">\d+</a></th>'
        r'.*?<td class="field-found">(\d+)</td><td class="field-kept">(\d+)</td>',
        html,
    )
    return {int(pk): (int(found), int(kept)) for pk, found, kept in rows}


def _page_rows(html: str) -> dict[int, tuple[int, int, int]]:
    rows = re.findall(
        r'<td><a href="/crawl/(\d+)/">\d+</a></td>.*?<td class="num">(\d+)</td>'
        r'<td class="num">(\d+)</td><td class="num">(\d+)</td>',
        html,
        re.S,
    )
    return {int(pk): (int(a), int(b), int(c)) for pk, a, b, c in rows}


@pytest.fixture
def admin_client(client: Client) -> Client:
    client.force_login(AdminFactory())
    return client


def test_the_admin_list_of_runs_counts_in_one_query(admin_client):
    url = reverse("admin:papers_crawlrun_changelist")
    _add_runs(2)
    html, small = _get(admin_client, url)
    expected = _expected()
    assert _admin_rows(html) == {pk: (f, k) for pk, (f, _, k) in expected.items()}
    _add_runs(6)
    html, large = _get(admin_client, url)
    expected = _expected()
    assert len(expected) == 8 and {f for f, _, _ in expected.values()} == set(range(8))
    assert _admin_rows(html) == {pk: (f, k) for pk, (f, _, k) in expected.items()}
    assert large == small


@pytest.mark.parametrize("name", ["crawl:list", "crawl:runs"])
def test_the_crawl_page_lists_runs_in_a_fixed_number_of_queries(admin_client, name):
    url = reverse(name)  # the page, and its runs table that htmx polls
    _add_runs(2)
    html, small = _get(admin_client, url)
    assert _page_rows(html) == _expected()
    _add_runs(6)
    html, large = _get(admin_client, url)
    expected = _expected()
    assert len(expected) == 8 and any(k == 2 for _, _, k in expected.values())
    assert _page_rows(html) == expected
    assert large == small


def _progress_cells(html: str) -> dict[int, str]:
    rows = re.findall(
        r'<td><a href="/crawl/(\d+)/">\d+</a></td>.*?<td class="run-progress">(.*?)</td>',
        html,
        re.S,
    )
    return {
        int(pk): re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", cell)).strip() for pk, cell in rows
    }


def test_each_run_shows_its_progress_as_its_page_does_and_the_table_polls_while_one_runs(
    admin_client,
):
    """Searching: date ranges searched of those to search; fetching: papers fetched of those it
    will fetch (pending and fetched, within its cap); a finished run that found nothing shows
    no bar. The same figures as the run's own page (`progress_of`)."""
    _add_runs(8)
    runs = list(CrawlRun.objects.order_by("pk"))
    searching, fetching, capped, finished = runs[1], runs[5], runs[7], runs[0]
    CrawlRun.objects.filter(pk=searching.pk).update(
        status=CrawlRun.Status.RUNNING, search_chunks=4, search_done=["2024-10-01"]
    )
    CrawlRun.objects.filter(pk__in=[fetching.pk, capped.pk]).update(
        status=CrawlRun.Status.RUNNING, phase=CrawlRun.Phase.FETCH
    )
    CrawlRun.objects.filter(pk=capped.pk).update(max_papers=5)
    CrawlRun.objects.filter(pk=finished.pk).update(
        status=CrawlRun.Status.FINISHED, phase=CrawlRun.Phase.DONE
    )
    html, _ = _get(admin_client, reverse("crawl:list"))
    cells = _progress_cells(html)
    assert cells[searching.pk] == "25% 1 of 4 date ranges searched"
    # Run 5 found kept, pending, kept, rejected, no HTML: 4 fetched of 5.
    assert cells[fetching.pk] == "80% 4 of 5 fetched"
    # Run 7 found every outcome but excluded: 5 fetched and 1 pending, which its cap of 5 leaves.
    assert cells[capped.pk] == "100% 5 of 5 fetched"
    assert cells[finished.pk] == "—"
    for run in (searching, fetching, capped):
        run.refresh_from_db()
        page = progress_of(run)
        assert cells[run.pk].startswith(f"{page['percent']}% {page['done']} of {page['total']}")
    assert 'hx-get="/crawl/runs/" hx-trigger="every 2s"' in html
    CrawlRun.objects.update(status=CrawlRun.Status.FINISHED)
    html, _ = _get(admin_client, reverse("crawl:runs"))
    assert 'id="crawl-runs"' in html and "hx-get" not in html  # nothing runs: no polling


def test_the_admin_list_of_crawl_items_reads_papers_and_runs_in_its_query(admin_client):
    url = reverse("admin:papers_crawlitem_changelist")
    _add_runs(3)
    html, small = _get(admin_client, url)
    _add_runs(5)
    html, large = _get(admin_client, url)
    assert large == small
    items = list(CrawlItem.objects.select_related("paper", "run"))
    assert len(items) == sum(range(8)) and len(items) <= 100  # one page
    for item in items:
        assert str(item) in html and str(item.run) in html
