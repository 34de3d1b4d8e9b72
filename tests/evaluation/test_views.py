"""The evaluation pages over HTTP: every route for every role, a run started from the page
against the stand-in server (its job run by the job runner), the endpoints settings allow and
nothing else, the guard on hidden test labels, the comparison with its plots and downloads."""

from __future__ import annotations

import csv
import io
import json
import logging

import pytest
from django.urls import get_resolver, resolve

from evaluation.models import EvaluationRun
from jobs import dispatch
from jobs.models import Job
from tests.evaluation.builders import write_small_release
from tests.evaluation.responses import right_answer
from tests.evaluation.standin_openai import StandInOpenAI
from tests.factories import AdminFactory, UserFactory
from validation.models import ReleaseExport, SplitVersion

pytestmark = pytest.mark.django_db


@pytest.fixture
def server():
    standin = StandInOpenAI(answer=right_answer, api_key="sk-page").start()
    yield standin
    standin.stop()


@pytest.fixture
def export(tmp_path):
    """A finished export whose folder is a small release with hidden test labels."""
    out = write_small_release(tmp_path, hide_test_labels=True, seed=2)
    split = SplitVersion.objects.create(name="v1", seed=1, validation_size=8, test_size=8)
    job = Job.objects.create(kind="export_release", function="x", status=Job.Status.FINISHED)
    return ReleaseExport.objects.create(split=split, out=str(out), hide_test_labels=True, job=job)


@pytest.fixture
def configured(settings, server, monkeypatch, tmp_path):
    settings.EVALUATION_ENDPOINTS = {
        "standin": {"url": server.url, "key_variable": "STANDIN_KEY"},
        "remote": {"url": "https://api.example.org/v1", "key_variable": ""},
    }
    settings.EVALUATION_CACHE_DIR = tmp_path / "cache"
    settings.REDIS_URL = ""  # jobs in-process: the test runs each with the runner's entry point
    monkeypatch.setenv("STANDIN_KEY", "sk-page")
    monkeypatch.setenv("HOME_SECRET", "never-sent")


def start(client, export, **fields):
    data = {
        "export": export.pk,
        "part": "validation",
        "endpoint": "standin",
        "model": "standin-vl",
    } | fields
    return client.post("/manage/evaluation/", data)


def _routes(run) -> list[tuple[str, str, int]]:
    return [
        ("get", "/manage/evaluation/", 200),
        ("post", "/manage/evaluation/", 400),
        ("get", f"/manage/evaluation/runs/{run.pk}/", 200),
        ("post", f"/manage/evaluation/runs/{run.pk}/cancel/", 302),
        ("get", f"/manage/evaluation/runs/{run.pk}/outcomes.csv", 200),
        ("get", f"/manage/evaluation/runs/{run.pk}/outcomes.json", 200),
        ("get", "/manage/evaluation/runs/999/", 404),
        ("get", "/manage/evaluation/compare/", 200),
        ("get", "/manage/evaluation/compare.csv", 200),
        ("get", "/manage/evaluation/compare.json", 200),
    ]


def test_the_table_covers_every_evaluation_route(export):
    run = EvaluationRun.objects.create(
        release_dir=export.out, part="validation", source="responses", model="m"
    )
    apps = [p for p in get_resolver().url_patterns if getattr(p, "namespace", None) == "evaluation"]
    named = {route.name for app in apps for route in app.url_patterns}
    assert named  # the app's URLs are mounted
    # The error analysis' routes (the taggers' among them) have their own table:
    # tests/evaluation/test_error_analysis.py.
    named = {n for n in named if "error" not in n}
    # The model in the loop's routes (writers' and validators' among them) too:
    # tests/evaluation/test_model_in_the_loop.py.
    named -= {"assistant", "text_share", "text_check", "ideas"}
    assert {
        resolve(url.split("?")[0]).url_name
        for _, url, _ in _routes(run)
        if not url.endswith("/999/")
    } == named


def test_every_route_for_every_role(client, export):
    run = EvaluationRun.objects.create(
        release_dir=export.out, part="validation", source="responses", model="m"
    )
    routes = _routes(run)
    for method, url, _ in routes:
        response = getattr(client, method)(url)
        assert response.status_code == 302 and "/accounts/login/" in response.url, url
    client.force_login(UserFactory(username="annotator"))
    for method, url, _ in routes:
        assert getattr(client, method)(url).status_code == 403, url
    client.force_login(AdminFactory())
    for method, url, status in routes:
        assert getattr(client, method)(url).status_code == status, url
    assert EvaluationRun.objects.count() == 1  # the empty POST started nothing


def test_a_run_from_the_page_asks_the_standin_and_is_compared(client, export, server, configured):
    admin = AdminFactory()
    client.force_login(admin)
    releases = client.get("/manage/releases/").content.decode()
    assert 'href="/manage/evaluation/"' in releases
    page = client.get("/manage/evaluation/").content.decode()
    assert "standin (" in page and "remote (" in page
    response = start(client, export, key_variable="HOME_SECRET")  # not a field: ignored
    run = EvaluationRun.objects.get()
    assert response.status_code == 302 and response.url == f"/manage/evaluation/runs/{run.pk}/"
    assert run.job.status == Job.Status.QUEUED and run.created_by == admin
    dispatch.run_job(run.job_id)  # what the job's thread or RQ worker runs
    run.refresh_from_db()
    assert run.job.status == Job.Status.FINISHED, run.job.error
    assert run.records == 8 and run.outcomes.filter(correct=True).count() == 8
    assert run.prompt_version.startswith("chain_of_thought@")
    assert {r.headers["Authorization"] for r in server.requests()} == {"Bearer sk-page"}
    assert "never-sent" not in json.dumps([r.headers for r in server.log])
    detail = client.get(response.url).content.decode()
    assert "By subset (SciVer Table 3)" in detail and "100.0" in detail
    outcomes = client.get(f"/manage/evaluation/runs/{run.pk}/outcomes.csv").content.decode()
    rows = list(csv.DictReader(io.StringIO(outcomes)))
    assert len(rows) == 8 and {r["correct"] for r in rows} == {"True"}
    as_json = json.loads(client.get(f"/manage/evaluation/runs/{run.pk}/outcomes.json").content)
    assert as_json["run"]["model"] == "standin-vl" and len(as_json["outcomes"]) == 8
    # A second run scored from a file, for the side by side.
    other = EvaluationRun.objects.create(
        release_dir=export.out,
        part="validation",
        source="responses",
        model="other",
        summary={
            "breakdowns": {
                **run.summary["breakdowns"],
                "subset": [c | {"accuracy": 0.5} for c in run.summary["breakdowns"]["subset"]],
            }
        },
    )
    compared = client.get(f"/manage/evaluation/compare/?run={run.pk}&run={other.pk}")
    html = compared.content.decode()
    assert html.count("<svg") == 2 and "Accuracy per subset" in html
    assert "SciVer Figure 4" in html and "<polyline" in html
    assert "style=" not in html.split("<main>")[1] and "<script" not in html.split("<main>")[1]
    table = client.get(f"/manage/evaluation/compare.csv?run={run.pk}&run={other.pk}")
    lines = list(csv.DictReader(io.StringIO(table.content.decode())))
    direct = {(r["model"], r["key"]): r["accuracy"] for r in lines if r["group"] == "subset"}
    assert direct[("standin-vl", "direct")] == "1.0" and direct[("other", "direct")] == "0.5"
    data = json.loads(client.get(f"/manage/evaluation/compare.json?run={run.pk}").content)
    assert [r["model"] for r in data["runs"]] == ["standin-vl"]


def test_only_configured_endpoints_and_hidden_labels_need_confirmation(
    client, export, configured, server
):
    admin = AdminFactory()
    client.force_login(admin)
    refused = start(client, export, endpoint="http://127.0.0.1:1/v1").content.decode()
    assert "No endpoint" in refused and "standin" in refused
    hidden = start(client, export, part="test", endpoint="remote").content.decode()
    assert "contaminate the benchmark" in hidden
    assert EvaluationRun.objects.count() == 0 and server.log == []
    local = start(client, export, part="test")  # the stand-in is this machine: no question
    assert local.status_code == 302
    confirmed = start(client, export, part="test", endpoint="remote", confirm_remote="1")
    assert confirmed.status_code == 302
    started = EvaluationRun.objects.filter(part="test")
    assert started.count() == 2
    # Who sent hidden claims elsewhere, and when: recorded on the run and said on its page.
    remote = started.get(endpoint_name="remote")
    assert remote.hidden_confirmed_by.username == admin.username
    assert remote.hidden_confirmed_at is not None
    assert started.get(endpoint_name="standin").hidden_confirmed_at is None
    page = client.get(f"/manage/evaluation/runs/{remote.pk}/").content.decode()
    assert f"confirmed by {admin.username} at" in page
    for run in started:  # recorded, never run here: and cancelled, should a worker see them
        dispatch.request_cancel(run.job)
    assert server.log == []


def test_a_run_cancelled_before_it_starts_sends_nothing(client, export, configured, server):
    client.force_login(AdminFactory())
    start(client, export)
    run = EvaluationRun.objects.get()
    client.post(f"/manage/evaluation/runs/{run.pk}/cancel/")
    dispatch.run_job(run.job_id)
    run.job.refresh_from_db()
    assert run.job.status == Job.Status.CANCELLED and server.log == []


def test_a_run_that_cannot_reach_its_model_fails_with_what_to_fix(
    client, export, configured, server, monkeypatch
):
    client.force_login(AdminFactory())
    start(client, export)
    run = EvaluationRun.objects.get()
    monkeypatch.setenv("STANDIN_KEY", "sk-revoked")
    dispatch.run_job(run.job_id)
    run.refresh_from_db()
    assert run.job.status == Job.Status.FAILED and not run.scored
    page = client.get(f"/manage/evaluation/runs/{run.pk}/").content.decode()
    assert "The run failed: EndpointError: the endpoint" in page and "API key is missing" in page
    assert len(server.requests()) == 1  # stopped at the first request
    monkeypatch.delenv("STANDIN_KEY")
    start(client, export)
    second = EvaluationRun.objects.latest("pk")
    dispatch.run_job(second.job_id)
    second.job.refresh_from_db()
    assert "the key variable STANDIN_KEY of endpoint 'standin' is not set" in second.job.error
    assert len(server.requests()) == 1


def test_an_endpoint_that_echoes_the_key_shows_it_nowhere(
    client, export, configured, server, caplog
):
    """An endpoint that quotes the request's headers in its 400: the run fails, and neither
    its page, its stored error nor any log line holds the key."""
    caplog.set_level(logging.DEBUG)
    client.force_login(AdminFactory())
    start(client, export)
    run = EvaluationRun.objects.get()
    server.add_faults("echo")
    dispatch.run_job(run.job_id)
    run.refresh_from_db()
    assert run.job.status == Job.Status.FAILED and "HTTP 400" in run.job.error
    assert server.requests()[0].headers["Authorization"] == "Bearer sk-page"  # it was sent
    page = client.get(f"/manage/evaluation/runs/{run.pk}/").content.decode()
    assert "bearer [redacted]" in page.lower()
    for shown in (page, run.job.error, run.job.message, caplog.text):
        assert "sk-page" not in shown


def test_a_model_name_over_the_limit_is_refused_by_the_page_and_the_service_never_cut(
    client, export, configured, server
):
    from evaluation import services

    admin = AdminFactory()
    long, at_limit = "m" * (services.MAX_MODEL + 1), "m" * services.MAX_MODEL
    said = "model: longer than 200 characters (it has 201); shorten it."
    client.force_login(admin)
    page = start(client, export, model=long)
    assert page.status_code == 400 and said in page.content.decode()
    asked = {"by": admin, "export": export, "part": "validation", "endpoint_name": "standin"}
    with pytest.raises(services.EvaluationRefused) as refused:
        services.start_run(model=long, **asked)
    assert str(refused.value) == f"Nothing was recorded: {said}"
    assert not EvaluationRun.objects.exists() and not Job.objects.exclude(pk=export.job_id)
    run = services.start_run(model=at_limit, **asked)
    assert EvaluationRun.objects.get(pk=run.pk).model == at_limit
    dispatch.request_cancel(run.job)  # recorded, never run here
    assert server.log == []
