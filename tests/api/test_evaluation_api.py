"""The evaluation routes: the endpoints a run may use, a run started through the API as the runs
page starts it (the same form and messages, the same confirmation before hidden test claims
leave this machine), asked of the stand-in OpenAI-compatible server, followed to its scores and
its outcomes (those of the page's outcomes download)."""

from __future__ import annotations

import json

import pytest
from django.contrib.auth.models import User
from django.utils.html import escape

from evaluation.models import EvaluationRun
from jobs import dispatch
from jobs.models import Job
from tests.evaluation.builders import write_small_release
from tests.evaluation.responses import right_answer
from tests.evaluation.standin_openai import StandInOpenAI
from validation.models import ReleaseExport, SplitVersion

pytestmark = pytest.mark.django_db

REMOTE = "https://api.example.org/v1"


@pytest.fixture
def server():
    standin = StandInOpenAI(answer=right_answer).start()
    yield standin
    standin.stop()


@pytest.fixture
def export(tmp_path) -> ReleaseExport:
    """A finished export whose folder is a small release (four pairs a part) with hidden test
    labels."""
    out = write_small_release(tmp_path, hide_test_labels=True, seed=2)
    split = SplitVersion.objects.create(name="v1", seed=1, validation_size=8, test_size=8)
    job = Job.objects.create(kind="export_release", function="x", status=Job.Status.FINISHED)
    return ReleaseExport.objects.create(split=split, out=str(out), hide_test_labels=True, job=job)


@pytest.fixture
def configured(settings, server, tmp_path) -> None:
    settings.EVALUATION_ENDPOINTS = {
        "standin": {"url": server.url, "key_variable": ""},
        "remote": {"url": REMOTE, "key_variable": "REMOTE_KEY"},
    }
    settings.EVALUATION_CACHE_DIR = tmp_path / "cache"


@pytest.fixture
def admin(admin_api):
    """The admin whose token `admin_api` sends (signed in on the pages too)."""
    return User.objects.get(username="api-admin")


def _run(finished: ReleaseExport, /, **fields) -> dict:
    return {
        "export": finished.pk,
        "part": "validation",
        "endpoint": "standin",
        "model": "m",
    } | fields


def test_the_endpoints_are_the_ones_the_runs_page_offers(configured, server, admin_api):
    answer = admin_api.get("/api/evaluation/endpoints/")
    assert answer.status == 200
    assert answer.body == [
        {"name": "remote", "url": REMOTE, "key_variable": "REMOTE_KEY", "local": False},
        {"name": "standin", "url": server.url, "key_variable": "", "local": True},
    ]


def test_hidden_test_claims_leave_only_with_the_pages_confirmation(
    configured, export, server, client, admin, admin_api
):
    client.force_login(admin)
    asked = _run(export, part="test", endpoint="remote")
    page = client.post("/manage/evaluation/", asked)
    refused = admin_api.post("/api/evaluation/runs/", asked)
    assert refused.status == 409 and refused.body["code"] == "refused"
    assert "would leak the hidden test set" in refused.body["message"]
    assert "Tick the confirmation to send them anyway." in refused.body["message"]
    assert escape(refused.body["message"]) in page.content.decode()
    assert not EvaluationRun.objects.exists()

    confirmed = admin_api.post("/api/evaluation/runs/", asked | {"confirm_remote": True})
    assert confirmed.status == 202, confirmed.body
    run = EvaluationRun.objects.get()
    assert confirmed.body["id"] == run.pk and confirmed.headers["Location"] == confirmed.body["url"]
    assert confirmed.body["hidden_confirmed_by"] == "api-admin"
    assert confirmed.body["hidden_confirmed_at"] and confirmed.body["status"] == "queued"
    assert confirmed.body["endpoint"] == "remote" and confirmed.body["part"] == "test"
    dispatch.request_cancel(run.job)  # recorded, never run here
    assert server.log == []


@pytest.mark.parametrize(
    ("fields", "status", "field"),
    [
        ({"part": "middle"}, 400, "part"),
        ({"part": ""}, 400, "part"),
        ({"k": 0, "context": "bm25"}, 400, "k"),
        ({"endpoint": "http://127.0.0.1:1/v1"}, 409, ""),
        ({"model": "  "}, 409, ""),
        ({"export": 999}, 409, ""),
    ],
)
def test_a_refused_run_says_what_the_page_says(
    configured, export, client, admin, admin_api, fields, status, field
):
    client.force_login(admin)
    asked = _run(export, **fields)
    answer = admin_api.post("/api/evaluation/runs/", asked)
    page = client.post("/manage/evaluation/", asked)
    assert answer.status == status, answer.body
    assert answer.body["field"] == field
    assert page.status_code == (400 if status == 400 else 200)
    assert escape(answer.body["message"]) in page.content.decode()
    if field:  # the page's message names the field the API names
        assert answer.body["message"].startswith(f"{field}: ")
    assert not EvaluationRun.objects.exists()


def test_a_run_asks_the_standin_and_is_followed_to_its_scores_and_outcomes(
    configured, export, server, client, admin, admin_api, settings
):
    settings.JOBS_INLINE = True  # the run's job asks the stand-in in the request
    started = admin_api.post("/api/evaluation/runs/", _run(export, model="standin-vl"))
    assert started.status == 202, started.body
    run = EvaluationRun.objects.get()
    assert len(server.requests()) == 8  # every validation record, asked once

    detail = admin_api.get(f"/api/evaluation/runs/{run.pk}/").body
    assert detail["status"] == "finished", detail["job"]["error"]
    assert detail["job"]["percent"] == 100 and detail["records"] == 8
    assert detail["scored"] is True and detail["model"] == "standin-vl"
    assert detail["context"] == "full" and detail["k"] is None
    subsets = {c["key"]: c["accuracy"] for c in detail["scores"]["breakdowns"]["subset"]}
    assert set(subsets) == {"direct", "parallel", "sequential", "analytical"}
    assert set(subsets.values()) == {1.0}
    assert detail["hidden_confirmed_by"] is None  # the stand-in is this machine
    listed = admin_api.get("/api/evaluation/runs/").body["results"]
    assert [r["id"] for r in listed] == [run.pk]

    # The outcomes a page at a time, as the page's outcomes download lists them.
    first = admin_api.get(detail["outcomes_url"], {"page_size": 5}).body
    assert len(first["results"]) == 5 and first["next"]
    rest = admin_api.get(first["next"]).body
    assert rest["next"] is None
    client.force_login(admin)
    download = client.get(f"/manage/evaluation/runs/{run.pk}/outcomes.json")
    assert first["results"] + rest["results"] == json.loads(download.content)["outcomes"]
    assert all(o["correct"] for o in rest["results"])


def test_evaluation_routes_are_for_admins_only(configured, export, annotator_api):
    for path in ("/api/evaluation/endpoints/", "/api/evaluation/runs/"):
        assert annotator_api.get(path).status == 403
    assert annotator_api.post("/api/evaluation/runs/", _run(export)).status == 403
    assert annotator_api.get("/api/evaluation/runs/1/outcomes/").status == 403
    assert not EvaluationRun.objects.exists()
