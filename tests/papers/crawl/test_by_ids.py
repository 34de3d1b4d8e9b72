"""Adding papers by arXiv id: `crawl_arxiv --ids/--ids-file`, the crawl page's box, `--keep-all`.

The stand-in arXiv answers `id_list` as arXiv does: the ids it knows, in order of publication,
not of the list; the ones it does not know left out."""

from __future__ import annotations

import io
import re
from datetime import UTC, datetime
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command
from django.urls import reverse

from papers.crawl.ids import IdListError, read_id, read_id_lines, read_id_option
from papers.crawl.listed import listed_rows
from papers.crawl.runner import execute_crawl
from papers.crawl.services import create_crawl_run, prepare_resume
from papers.models import CrawlItem, CrawlListedId, CrawlRun, Paper
from tests.factories import AdminFactory
from tests.papers.crawl.standin_papers import day, paper
from tests.standin import Fault

pytestmark = pytest.mark.django_db

WITHDRAWN = "This paper has been withdrawn by the authors due to an error in Table 2"

# The reading list: comments, an empty line, pasted forms, and each case of the issue.
READING_LIST = """\
# Ana's reading list
2410.00101
2410.00102            # one table only: set aside
2410.00103

2410.00104v2          # arXiv has v3
2410.09999            # no such paper
2410.00107v4          # no such version
arXiv:2410.00101      # listed twice
cs/0112017            # old-style: no HTML (arXiv's HTML starts in 2023)
https://arxiv.org/abs/2410.00105
2410.00106
"""

EXPECTED = {  # line -> outcome
    2: "kept",
    3: "set_aside",
    4: "withdrawn",
    6: "kept",
    7: "not_found",
    8: "not_found",
    9: "duplicate",
    10: "no_html",
    11: "kept",
    12: "already_stored",
}


def stand_in_papers(standin) -> None:
    standin.add_paper(paper("2410.00101", published=day(9)))
    standin.add_paper(paper("2410.00102", published=day(8), tables=1, charts=3))
    standin.add_paper(
        paper("2410.00103", version=2, published=day(7), comment=WITHDRAWN, html=None)
    )
    standin.add_paper(paper("2410.00104", version=3, published=day(6)))
    standin.add_paper(paper("2410.00105", published=day(5)))
    standin.add_paper(paper("2410.00106", published=day(4)))
    standin.add_paper(paper("2410.00107", published=day(3)))
    standin.add_paper(
        paper(
            "cs/0112017",
            published=datetime(2001, 12, 7, tzinfo=UTC),
            categories=["cs.LG"],
            primary_category="cs.LG",
            html=None,
        )
    )


def crawl(*args: str, stdin: str | None = None) -> str:
    out = io.StringIO()
    extra = {"stdin": io.StringIO(stdin)} if stdin is not None else {}
    call_command("crawl_arxiv", *args, "--images", "none", "--no-progress", stdout=out, **extra)
    return out.getvalue()


def test_a_reading_list_gives_each_id_its_outcome(arxiv_settings, standin, tmp_path: Path):
    stand_in_papers(standin)
    crawl("--ids", "2410.00106")  # stored by an earlier run
    before = len(standin.log)
    listing = tmp_path / "reading-list.txt"
    listing.write_text(READING_LIST)

    out = crawl("--ids-file", str(listing))

    run = CrawlRun.objects.latest("pk")
    rows = {row.line: row for row in listed_rows(run)}
    assert {line: row.outcome for line, row in rows.items()} == EXPECTED
    assert rows[3].detail.startswith("1 table, 3 charts (at least 2 tables and 2 charts asked")
    assert rows[4].detail == f'v2 says "{WITHDRAWN}"'
    assert rows[10].detail == "HTTP 404"
    assert rows[6].requested == "2410.00104v2" and rows[6].newer == 3
    assert "newer version available: v3" in rows[6].text
    assert rows[7].detail == "arXiv knows no paper with this id"
    assert rows[8].detail == "arXiv has no version 4 of it (the latest is v1)"
    assert rows[9].detail == "also on line 2: looked up once"
    assert rows[12].detail == "as 2410.00106v1 (parsed)"
    # In the command's report, a line each, as on the page.
    assert "10 listed ids: kept 3, set aside 1, already stored 1, no HTML 1, not found 2, " in out
    for line, row in rows.items():
        assert re.search(rf"line +{line}  {re.escape(row.requested)} +{re.escape(row.text)}", out)
    # The version asked for is the one stored; the set-aside paper is stored as rejected.
    assert Paper.objects.get(arxiv_id="2410.00104").version == 2
    assert Paper.objects.get(arxiv_id="2410.00102").status == Paper.Status.REJECTED
    assert not Paper.objects.filter(arxiv_id__in=["2410.00103", "2410.09999"]).exists()

    # One API request for the whole list (ids and the latest of 2410.00104), then the pages
    # in the list's order; nothing for the withdrawn, missing, duplicate or stored ones.
    requests = [r.path for r in standin.log[before:]]
    api = [p for p in requests if p.startswith("/api/query")]
    assert len(api) == 1 and "id_list=" in api[0]
    pages = [p for p in requests if re.fullmatch(r"/html/[^/]+v\d+|/html/cs/\d+v\d+", p)]
    assert pages == [
        "/html/2410.00101v1",
        "/html/2410.00102v1",
        "/html/2410.00104v2",
        "/html/cs/0112017v1",
        "/html/2410.00105v1",
    ]


def test_keep_all_stores_what_was_set_aside_and_marks_it(arxiv_settings, standin):
    standin.add_paper(paper("2410.00102", published=day(8), tables=1, charts=3))
    standin.add_paper(paper("2410.00101", published=day(9)))
    crawl("--ids", "2410.00102")
    assert Paper.objects.get().status == Paper.Status.REJECTED

    out = crawl("--ids", "2410.00102,2410.00101", "--keep-all")

    run = CrawlRun.objects.latest("pk")
    assert run.keep_all
    rows = listed_rows(run)
    assert [(r.outcome, r.detail) for r in rows] == [
        ("kept_below_filter", "1 table, 3 charts"),
        ("kept", "2410.00101v1, 2 tables, 2 charts"),
    ]
    kept = Paper.objects.get(arxiv_id="2410.00102")
    assert kept.status == Paper.Status.PARSED and kept.table_count == 1
    assert kept.status_reason.startswith("kept below the filter (--keep-all): 1 table, 3 charts")
    item = CrawlItem.objects.get(run=run, paper=kept)
    assert (item.outcome, item.reason_code) == (CrawlItem.Outcome.KEPT, "below_filter")
    assert "keeping all (--keep-all)" in out and "kept below the filter 1" in out
    assert standin.html_requests().count("/html/2410.00102v1") == 2  # fetched again


@pytest.mark.parametrize(
    "args, problems",
    [
        (
            ("--ids", "2410.00101,,abc, 2410.0026"),
            [
                "entry 2: empty, no id",
                "entry 3: 'abc': not an arXiv id",
                "entry 4: '2410.0026': ids of 2024 have 5 digits after the dot",
            ],
        ),
        (
            ("--ids-file", "-"),
            ["line 2: '2410.0026': ids of 2024", "line 3: 'abc': not", "line 5: only spaces"],
        ),
    ],
)
def test_malformed_ids_are_refused_before_anything_is_fetched(
    arxiv_settings, standin, args, problems
):
    standin.add_paper(paper("2410.00101"))
    with pytest.raises(CommandError) as refused:
        crawl(*args, stdin="2410.00101\n2410.0026  # four digits\nabc\ncs/0112017\n   \n")
    said = str(refused.value)
    where = "--ids" if args[0] == "--ids" else "standard input"
    assert said.startswith(f"nothing fetched: {len(problems)} problem(s) in {where}:")
    for problem in problems:
        assert problem in said
    assert "'cs/0112017'" not in said  # old-style ids are ids
    assert standin.log == [] and not CrawlRun.objects.exists()


def test_a_window_does_not_apply_to_a_list(arxiv_settings, standin):
    with pytest.raises(CommandError, match="--from, --accepted-only do not apply"):
        crawl("--ids", "2410.00101", "--from", "2024-10-01", "--accepted-only")
    with pytest.raises(CommandError, match="--ids or --ids-file, not both"):
        crawl("--ids", "2410.00101", "--ids-file", "-")
    assert standin.log == []


@pytest.mark.parametrize(
    "text, expected",
    [
        ("2410.00260", ("2410.00260", None)),
        ("2409.13817v2", ("2409.13817", 2)),
        ("0801.1234", ("0801.1234", None)),
        ("cs/0112017", ("cs/0112017", None)),
        ("math.AG/0601001v3", ("math.AG/0601001", 3)),
        ("hep-th/9901001", ("hep-th/9901001", None)),
        ("arXiv:2410.00260", ("2410.00260", None)),
        ("https://arxiv.org/abs/2410.00260v2", ("2410.00260", 2)),
        ("https://arxiv.org/pdf/2410.00260v1.pdf", ("2410.00260", 1)),
        ("https://arxiv.org/html/2410.00260v1/", ("2410.00260", 1)),
    ],
)
def test_ids_and_their_pasted_forms(text, expected):
    assert read_id(text) == expected


@pytest.mark.parametrize(
    "text, why",
    [
        ("2410.0026", "5 digits after the dot"),
        ("1401.12345", "ids of 2014 have 4 digits"),
        ("2413.00001", "month 13 does not exist"),
        ("0703.1234", "new-style ids start in April 2007"),
        ("cs/0801001", "old-style ids end in March 2007"),
        ("2410.00260v0", "versions start at v1"),
        ("abc", "not an arXiv id"),
        ("2410.00260 2410.00261", "not an arXiv id"),
    ],
)
def test_what_is_not_an_id_says_why(text, why):
    with pytest.raises(ValueError, match=why):
        read_id(text)


def test_lists_keep_their_line_numbers_through_comments_and_empty_lines():
    listed = read_id_lines("# header\n\n2410.00260\n\n  cs/0112017   # old\n")
    assert [(i.line, i.requested) for i in listed] == [(3, "2410.00260"), (5, "cs/0112017")]
    with pytest.raises(IdListError, match="the list holds no id"):
        read_id_lines("# only a comment\n\n")
    with pytest.raises(IdListError) as refused:
        read_id_option("2410.00260, ")
    assert refused.value.problems == ["entry 2: only spaces, no id"]


def test_a_failed_look_up_fails_the_run_and_resume_looks_up_again(arxiv_settings, standin):
    standin.add_paper(paper("2410.00101"))
    standin.add_fault("/api/query", Fault("status", status=503, times=3))  # every try
    run = create_crawl_run(ids=read_id_option("2410.00101,2410.09999"), images="none")

    failed = execute_crawl(run_id=run.pk)

    assert failed.status == CrawlRun.Status.FAILED
    assert "1 of 1 batches of listed ids could not be read" in failed.error
    assert set(run.listed.values_list("outcome", flat=True)) == {CrawlListedId.Outcome.PENDING}

    finished = execute_crawl(run_id=prepare_resume(run=failed).pk)

    assert finished.status == CrawlRun.Status.FINISHED
    assert [r.outcome for r in listed_rows(finished)] == ["kept", "not_found"]


def test_the_crawl_page_takes_a_list_and_shows_each_outcome(client, arxiv_settings, standin):
    stand_in_papers(standin)
    client.force_login(AdminFactory())
    url = reverse("crawl:list")
    refused = client.post(
        url, {"kind": "ids", "ids": "2410.00101\nabc\n", "min_tables": "2", "min_charts": "2"}
    )
    assert refused.status_code == 400 and not CrawlRun.objects.exists()
    page = refused.content.decode()
    assert "line 2: &#x27;abc&#x27;: not an arXiv id" in page
    assert "2410.00101\nabc" in page  # the box keeps what was typed

    started = client.post(
        url,
        {
            "kind": "ids",
            "ids": "2410.00101\r\n2410.00102\r\n2410.00103\r\n2410.09999\r\n",
            "min_tables": "2",
            "min_charts": "2",
            "keep_all": "",
        },
    )
    run = CrawlRun.objects.get()
    assert started.status_code == 302 and run.by_ids and not run.keep_all
    execute_crawl(run_id=run.pk)  # what the started job does (its thread waits for commit)

    detail = client.get(reverse("crawl:detail", args=[run.pk])).content.decode()
    outcomes = re.findall(
        r'<tr data-outcome="(\w+)"><td class="num">(\d+)</td><td>([^<]+)</td>', detail
    )
    assert outcomes == [
        ("kept", "1", "2410.00101"),
        ("set_aside", "2", "2410.00102"),
        ("withdrawn", "3", "2410.00103"),
        ("not_found", "4", "2410.09999"),
    ]
    assert "kept 1 · set aside 1 · not found 1 · withdrawn 1" in detail
    listing = client.get(url).content.decode()
    assert "4 listed ids" in listing
