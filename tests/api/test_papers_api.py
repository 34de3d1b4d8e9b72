"""The API's paper routes: the assignment list and its filters, one paper's context, adding
papers by arXiv id (a crawl against the stand-in arXiv), crawl runs and jobs. A refused input
gets the page's own message for the same input; annotators get 403, no token 401."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from django.urls import reverse

from annotation.models import Subfield
from jobs.models import Job
from papers.crawl.services import create_crawl_run
from papers.models import CrawlRun, Element, Paper
from tests.annotation.claim_factories import curated_paper
from tests.annotation.factories import make_paper
from tests.api.apiclient import Api
from tests.factories import AdminFactory
from tests.papers.crawl.standin_papers import day, paper
from tests.standin import StandInArxiv

pytestmark = pytest.mark.django_db

WITHDRAWN = "This paper has been withdrawn by the authors."


@pytest.fixture
def standin() -> Iterator[StandInArxiv]:
    """The stand-in arXiv on loopback, serving three small papers."""
    server = StandInArxiv().start()
    server.add_paper(paper("2410.00101", published=day(9)))
    server.add_paper(paper("2410.00102", published=day(8), tables=1, charts=3))
    server.add_paper(paper("2410.00103", published=day(7), comment=WITHDRAWN, html=None))
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def arxiv(settings, standin: StandInArxiv, tmp_path: Path) -> StandInArxiv:
    """The crawler pointed at the stand-in, quick, its jobs run inline (no thread to wait for)."""
    standin.point_crawler(settings, tmp_path)
    settings.USE_CHROMIUM = False
    settings.REDIS_URL = ""
    settings.JOBS_INLINE = True
    settings.MEDIA_ROOT = str(tmp_path / "media")
    return standin


@pytest.fixture
def page(admin_api: Api) -> Client:
    """The same admin in a browser, to set a page's answer beside the API's."""
    client = Client()
    client.force_login(get_user_model().objects.get(username="api-admin"))
    return client


def refused_as_the_page(answer, form) -> None:
    """The API's 400 says what the page's form says: its first message and field, and all."""
    errors = {name: list(messages) for name, messages in form.errors.items()}
    field, messages = next(iter(errors.items()))
    assert answer.status == 400, answer.body
    assert answer.body["code"] == "invalid"
    assert answer.body["message"] == messages[0]
    assert answer.body["field"] == ("" if field == "__all__" else field)
    assert answer.body["errors"] == errors


# --- The papers list -----------------------------------------------------------------------


def test_the_list_holds_the_assignment_pages_papers_with_their_filters(admin_api: Api):
    Subfield.ensure_sciver_subfields()
    cl = make_paper(category="cs.CL", title="Tables of BLEU", acceptance="accepted")
    cv = make_paper(category="cs.CV", title="Pictures")
    found = make_paper(category="cs.CL", status=Paper.Status.FOUND)
    archived = make_paper(category="cs.CL")
    Paper.objects.filter(pk=archived.pk).update(archived_at="2024-11-01T00:00:00Z")

    answer = admin_api.get("/api/papers/")
    assert answer.status == 200
    rows = {row["id"]: row for row in answer.body["results"]}
    assert set(rows) == {cl.pk, cv.pk}  # parsed unless told, never archived
    row = rows[cl.pk]
    assert row["arxiv_id"] == cl.arxiv_id and row["version"] == 1
    assert row["versioned_id"] == f"{cl.arxiv_id}v1" and row["title"] == "Tables of BLEU"
    assert (row["subfield"], row["status"], row["acceptance"]) == ("cs.CL", "parsed", "accepted")
    assert (row["table_count"], row["chart_count"]) == (3, 3)
    assert row["archived"] is False and row["assigned_to"] is None
    assert row["url"] == f"http://testserver/api/papers/{cl.arxiv_id}v1/"
    assert admin_api.get(row["url"]).status == 200

    def ids(**params) -> set[int]:
        answer = admin_api.get("/api/papers/", params)
        assert answer.status == 200, answer.body
        return {row["id"] for row in answer.body["results"]}

    assert ids(subfield="cs.CV") == {cv.pk}
    assert ids(q="bleu") == {cl.pk}
    assert ids(status="") == {cl.pk, cv.pk, found.pk}
    assert ids(status="found") == {found.pk}
    assert ids(acceptance="accepted") == {cl.pk}
    assert ids(min_tables=4) == set()
    assert ids(state="unassigned") == {cl.pk, cv.pk}

    first = admin_api.get("/api/papers/", {"page_size": 1})
    assert len(first.body["results"]) == 1 and first.body["next"]
    second = admin_api.get(first.body["next"])
    assert {first.body["results"][0]["id"], second.body["results"][0]["id"]} == {cl.pk, cv.pk}


@pytest.mark.parametrize(
    "params",
    [
        {"subfield": "cs.NOPE"},
        {"min_tables": "-1", "status": "lost"},
        {"min_charts": "many"},
        {"q": "x" * 201},
    ],
)
def test_a_bad_filter_is_refused_as_the_assignment_page_refuses_it(
    admin_api: Api, page: Client, params
):
    Subfield.ensure_sciver_subfields()
    shown = page.get(reverse("annotation:assignments"), params)
    assert shown.status_code == 400
    refused_as_the_page(admin_api.get("/api/papers/", params), shown.context["filters"])


# --- One paper -----------------------------------------------------------------------------


def test_a_papers_context_before_and_after_curation(admin_api: Api):
    paper_ = make_paper()
    chart = Element.objects.filter(paper=paper_, kind="chart").order_by("order").first()
    Element.objects.filter(pk=chart.pk).update(image="papers/chart-1.png")

    answer = admin_api.get(f"/api/papers/{paper_.arxiv_id}v1/")
    assert answer.status == 200
    body = answer.body
    assert body["id"] == paper_.pk and body["curated_version"] is None
    assert body["page_url"] == f"http://testserver/papers/{paper_.arxiv_id}v1/"
    assert [s["name"] for s in body["sections"]][:3] == [
        "1 Abstract",
        "2 Introduction",
        "3 Related Work",
    ]
    assert all(s["kept"] is None for s in body["sections"])
    assert len(body["paragraphs"]) == 11 and len(body["tables"]) == 3 and len(body["charts"]) == 3
    shown = body["charts"][0]
    assert (shown["id"], shown["label"], shown["caption"]) == (
        chart.pk,
        "Figure 1",
        "Caption of Figure 1",
    )
    assert shown["image_url"] == "http://testserver/media/papers/chart-1.png"
    assert body["tables"][0]["image_url"] is None

    curated, context = curated_paper(AdminFactory())
    body = admin_api.get(f"/api/papers/{curated.arxiv_id}v1/").body
    assert body["curated_version"] == context.number
    kept = {s["name"]: s["kept"] for s in body["sections"]}
    assert kept["1 Abstract"] is True and kept["3 Related Work"] is False
    assert kept["9 References"] is False
    referring = [p for p in body["paragraphs"] if p["references"]]
    visual_ids = {v["id"] for v in body["tables"] + body["charts"]}
    assert referring and all(set(p["references"]) <= visual_ids for p in referring)


def test_an_unknown_paper_is_404(admin_api: Api):
    answer = admin_api.get("/api/papers/2410.99999v1/")
    assert answer.status == 404 and answer.body["code"] == "not_found"
    assert answer.body["message"] == "No paper 2410.99999v1."


# --- Adding papers by arXiv id ---------------------------------------------------------------


def test_added_ids_are_crawled_and_stored(admin_api: Api, arxiv: StandInArxiv):
    answer = admin_api.post(
        "/api/papers/add/",
        {"ids": ["2410.00101", "2410.00102", "2410.00103"], "min_tables": 2, "min_charts": 2},
    )
    assert answer.status == 202, answer.body
    run = CrawlRun.objects.get()
    assert run.by_ids and run.created_by.username == "api-admin"
    url = f"http://testserver/api/crawls/{run.pk}/"
    assert answer.body["crawl_id"] == run.pk and answer.body["crawl_url"] == url
    assert answer.headers["Location"] == url

    crawl = admin_api.get(url).body
    assert crawl["finished"] is True and crawl["status"] == "finished", crawl
    assert [(r["line"], r["requested"], r["outcome"]) for r in crawl["listed"]] == [
        (1, "2410.00101", "kept"),
        (2, "2410.00102", "set_aside"),
        (3, "2410.00103", "withdrawn"),
    ]
    assert {c["label"]: c["count"] for c in crawl["listed_counts"]} == {
        "kept": 1,
        "set aside": 1,
        "withdrawn": 1,
    }
    assert crawl["counts"]["kept"] == 1 and crawl["counts"]["found"] == 2
    assert crawl["progress"] == {"done": 2, "total": 2, "percent": 100}
    assert crawl["error"] is None and crawl["stale"] is False
    stored = Paper.objects.get(arxiv_id="2410.00101")
    assert stored.status == Paper.Status.PARSED and stored.table_count == 2
    assert Paper.objects.get(arxiv_id="2410.00102").status == Paper.Status.REJECTED
    assert not Paper.objects.filter(arxiv_id="2410.00103").exists()

    job = admin_api.get(crawl["job_url"])
    assert job.status == 200 and job.body["id"] == run.job_id
    assert job.body["kind"] == "crawl" and job.body["status"] == "finished"
    assert job.body["finished"] is True and job.body["error"] == ""
    assert set(job.body["progress"]) == {"done", "total", "percent"}


@pytest.mark.parametrize(
    ("fields", "ids"),
    [
        ({"min_tables": "2", "min_charts": "2"}, "2410.00101\nabc\n"),
        ({"min_tables": "2", "min_charts": "2"}, ""),
        ({"min_tables": "-1", "min_charts": "2"}, "2410.00101"),
        ({"min_tables": "", "min_charts": "2"}, "2410.00101"),
    ],
)
def test_a_refused_list_gets_the_crawl_pages_message(admin_api: Api, page: Client, fields, ids):
    shown = page.post(reverse("crawl:list"), {"kind": "ids", "ids": ids, **fields})
    assert shown.status_code == 400
    form = shown.context["id_form"]
    refused_as_the_page(admin_api.post("/api/papers/add/", {"ids": ids, **fields}), form)
    if ids:  # the same list as a JSON list of lines
        lines = ids.splitlines()
        refused_as_the_page(admin_api.post("/api/papers/add/", {"ids": lines, **fields}), form)
    assert not CrawlRun.objects.exists() and not Job.objects.exists()


def test_ids_given_as_anything_but_strings_are_refused(admin_api: Api):
    answer = admin_api.post(
        "/api/papers/add/", {"ids": [2410.00101], "min_tables": 2, "min_charts": 2}
    )
    assert answer.status == 400 and answer.body["field"] == "ids"
    assert not CrawlRun.objects.exists()


# --- Crawls and jobs -----------------------------------------------------------------------


def test_crawl_runs_are_listed_newest_first_with_their_counts(admin_api: Api):
    older = create_crawl_run(categories=["cs.CL"], images="none")
    newer = create_crawl_run(categories=["cs.CV"], images="none")
    answer = admin_api.get("/api/crawls/")
    assert answer.status == 200
    rows = answer.body["results"]
    assert [r["id"] for r in rows] == [newer.pk, older.pk]
    assert rows[0]["scope"].startswith("cs.CV ") and rows[0]["status"] == "queued"
    assert rows[0]["finished"] is False and rows[0]["found"] == 0
    assert rows[0]["url"] == f"http://testserver/api/crawls/{newer.pk}/"
    detail = admin_api.get(rows[0]["url"]).body
    assert detail["listed"] is None and detail["job_id"] is None
    assert detail["progress"] == {"done": 0, "total": newer.search_chunks, "percent": 0}


def test_unknown_crawls_and_jobs_are_404(admin_api: Api):
    assert admin_api.get("/api/crawls/999999/").status == 404
    assert admin_api.get("/api/jobs/999999/").status == 404


def test_a_jobs_progress_message_and_error(admin_api: Api):
    job = Job.objects.create(
        kind="render_images",
        function="papers.jobs.render",
        status=Job.Status.FAILED,
        progress_done=3,
        progress_total=4,
        message="3 of 4 papers",
        error="ValueError: no image",
        result={"rendered": 3},
    )
    body = admin_api.get(f"/api/jobs/{job.pk}/").body
    assert body["progress"] == {"done": 3, "total": 4, "percent": 75}
    assert (body["status"], body["finished"]) == ("failed", True)
    assert (body["message"], body["error"], body["result"]) == (
        "3 of 4 papers",
        "ValueError: no image",
        {"rendered": 3},
    )


# Who may call them: tests/api/test_api_permissions.py (every route, every role).


def test_the_schema_documents_each_routes_answer(admin_api: Api):
    schema = Client().get("/api/schema/", {"format": "json"}).json()
    paths = schema["paths"]
    expected = {
        ("/api/papers/", "get"): "PaginatedPaperList",
        ("/api/papers/{arxiv_id}v{version}/", "get"): "PaperDetail",
        ("/api/papers/add/", "post"): "PaperAdded",
        ("/api/crawls/", "get"): "PaginatedCrawlList",
        ("/api/crawls/{run_id}/", "get"): "CrawlDetail",
        ("/api/jobs/{job_id}/", "get"): "BackgroundJob",
    }
    for (route, method), component in expected.items():
        responses = paths[route][method]["responses"]
        answer = responses.get("200") or responses["202"]
        ref = answer["content"]["application/json"]["schema"]["$ref"]
        assert ref == f"#/components/schemas/{component}", route
    body = paths["/api/papers/add/"]["post"]["requestBody"]["content"]["application/json"]
    assert body["schema"]["$ref"] == "#/components/schemas/NewPapersRequest"
