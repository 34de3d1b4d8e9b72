"""`evaluate_release --context retrieved` (RAG) against the stand-in server on 127.0.0.1: each
request holds only the retrieved evidence (paragraphs as text, tables/charts as images after
their captions), the setting is in the cache key and on the run, and the pages show RAG runs
beside full-context ones."""

from __future__ import annotations

import base64
import csv
import io
import json
import re

import pytest
from django.core.management import CommandError, call_command

from evaluation.models import EvaluationRun
from jobs import dispatch
from jobs.models import Job
from tests.evaluation.builders import (
    HAND,
    RETRIEVAL_CAPTIONS,
    RETRIEVAL_CLAIMS,
    RETRIEVAL_PARAGRAPHS,
    write_retrieval_release,
)
from tests.evaluation.standin_openai import StandInOpenAI
from tests.factories import AdminFactory
from validation.models import ReleaseExport, SplitVersion

pytestmark = pytest.mark.django_db
FAST = ["--timeout", "2", "--max-tries", "2"]
SECTION_NAMES = {"3": "Method", "4.1": "Results"}


def right_answer(body: dict) -> str:
    text = body["messages"][0]["content"][0]["text"]
    entailed = any(f"Claim: {e}\n" in text for e, *_ in RETRIEVAL_CLAIMS.values())
    return "Answer: yes" if entailed else "Answer: no"


@pytest.fixture
def server():
    standin = StandInOpenAI(answer=right_answer).start()
    yield standin
    standin.stop()


@pytest.fixture
def release(tmp_path, settings):
    settings.EVALUATION_CACHE_DIR = tmp_path / "cache"
    return write_retrieval_release(tmp_path)


def ask(release, server, tmp_path, *extra: str) -> None:
    call_command(
        "evaluate_release",
        str(release),
        "--part",
        "validation",
        "--endpoint",
        server.url,
        "--model",
        "standin-vl",
        "--out",
        str(tmp_path / "out.jsonl"),
        *FAST,
        *extra,
    )


def subset_of(text: str) -> str:
    return next(
        s
        for s, (e, r, *_) in RETRIEVAL_CLAIMS.items()
        if f"Claim: {e}\n" in text or f"Claim: {r}\n" in text
    )


def sent(content: list[dict]) -> tuple[set[str], list[str], list[bytes]]:
    """The paragraph units in the text part's context, the image captions, the image bytes."""
    text = content[0]["text"].split("\nClaim: ")[0]
    paragraphs = {u for u, t in RETRIEVAL_PARAGRAPHS.items() if t in text}
    captions = [p["text"] for p in content[1::2]]
    images = [base64.b64decode(p["image_url"]["url"].split(",", 1)[1]) for p in content[2::2]]
    return paragraphs, captions, images


def test_a_rag_run_sends_only_the_retrieved_evidence(release, server, tmp_path, capsys):
    ask(
        release,
        server,
        tmp_path,
        "--context",
        "retrieved",
        "--retriever",
        "bm25",
        "--k",
        "2",
        "--save",
    )
    printed = capsys.readouterr().out
    assert "8 requests sent to" in printed and "(BM25 top 2)" in printed
    assert "model standin-vl, BM25 top 2" in printed
    requests = server.requests()
    assert len(requests) == 8
    for request in requests:
        content = request.body["messages"][0]["content"]
        subset = subset_of(content[0]["text"])
        top = HAND[subset][0]
        paragraphs, captions, images = sent(content)
        assert paragraphs == {u for u in top if "/p" in u}, subset
        visuals = sorted(u for u in top if "/p" not in u)
        assert sorted(captions) == sorted(RETRIEVAL_CAPTIONS[u] for u in visuals), subset
        for unit, image in zip(sorted(visuals), sorted(images), strict=True):
            kind, item = unit.split("/")
            path = release / "images" / f"2409.00001_{kind}_{item}.png"
            assert image == path.read_bytes()
        for unit in top & set(RETRIEVAL_PARAGRAPHS):  # as SciVer's reading puts a section
            section = unit.split("/")[0]
            assert f"{SECTION_NAMES[section]}:\n{RETRIEVAL_PARAGRAPHS[unit]}" in content[0]["text"]
    run = EvaluationRun.objects.get()
    assert (run.context, run.retriever, run.top_k) == ("retrieved", "bm25", 2)
    assert run.context_label == "BM25 top 2" and run.records == 8
    assert run.outcomes.filter(correct=True).count() == 8


def test_the_full_context_run_differs_from_the_retrieved_one(release, server, tmp_path):
    ask(release, server, tmp_path)  # full context: the record's section 4.1, its own images
    sequential = next(
        r.body
        for r in server.requests()
        if subset_of(r.body["messages"][0]["content"][0]["text"]) == "sequential"
    )
    paragraphs, captions, _ = sent(sequential["messages"][0]["content"])
    assert paragraphs == {"4.1/p1", "4.1/p2"}  # the whole of section 4.1, none of section 3
    assert captions == [RETRIEVAL_CAPTIONS["table/2"], RETRIEVAL_CAPTIONS["chart/3"]]


def test_the_setting_is_in_the_cache_key(release, server, tmp_path):
    ask(release, server, tmp_path)
    assert len(server.requests()) == 8
    ask(release, server, tmp_path, "--context", "retrieved", "--k", "2")
    assert len(server.requests()) == 16
    ask(release, server, tmp_path, "--context", "retrieved", "--k", "2")
    assert len(server.requests()) == 16  # the same setting: every answer from the cache
    # TF-IDF's top two are BM25's here (same text, same images): only the setting differs.
    ask(release, server, tmp_path, "--context", "retrieved", "--retriever", "tfidf", "--k", "2")
    assert len(server.requests()) == 24
    bodies = [json.dumps(r.body, sort_keys=True) for r in server.requests()]
    assert sorted(bodies[8:16]) == sorted(bodies[16:])


def test_a_retrieved_table_without_an_image_is_given_by_its_caption(release, server, tmp_path):
    ask(release, server, tmp_path, "--context", "retrieved", "--k", "7")  # every unit
    content = server.requests()[0].body["messages"][0]["content"]
    paragraphs, captions, images = sent(content)
    assert paragraphs == set(RETRIEVAL_PARAGRAPHS)
    assert sorted(captions) == [RETRIEVAL_CAPTIONS["chart/3"], RETRIEVAL_CAPTIONS["table/2"]]
    assert len(images) == 2
    assert "Table 5: Hyperparameters. [the release holds no image of it]" in content[0]["text"]


def test_the_dry_run_and_a_responses_file_know_the_setting(release, server, tmp_path, capsys):
    call_command(
        "evaluate_release",
        str(release),
        "--part",
        "validation",
        "--endpoint",
        server.url,
        "--model",
        "m",
        "--dry-run",
        "--context",
        "retrieved",
        "--k",
        "1",
    )
    printed = capsys.readouterr().out
    assert "(BM25 top 1)" in printed and "requests: 8 (0 already cached, 8 to send)" in printed
    assert server.log == []
    responses = tmp_path / "r.jsonl"
    responses.write_text('{"request_id": 1, "response": "yes"}\n')
    with pytest.raises(CommandError, match="--context retrieved is for --endpoint"):
        call_command(
            "evaluate_release",
            str(release),
            "--part",
            "validation",
            "--responses",
            str(responses),
            "--out",
            str(tmp_path / "o.jsonl"),
            "--context",
            "retrieved",
        )


def test_the_pages_start_a_rag_run_and_show_it_beside_the_full_context_run(
    client, release, server, tmp_path, settings, capsys
):
    settings.EVALUATION_ENDPOINTS = {"standin": {"url": server.url, "key_variable": ""}}
    settings.REDIS_URL = ""
    ask(release, server, tmp_path, "--save")  # a full-context run from the shell
    full = EvaluationRun.objects.get()
    split = SplitVersion.objects.create(name="v1", seed=1, validation_size=8, test_size=8)
    job = Job.objects.create(kind="export_release", function="x", status=Job.Status.FINISHED)
    export = ReleaseExport.objects.create(split=split, out=str(release), job=job)
    client.force_login(AdminFactory())
    page = client.get("/manage/evaluation/").content.decode()
    assert '<option value="bm25">BM25: retrieved evidence only (RAG)</option>' in page
    bad = client.post(
        "/manage/evaluation/",
        {
            "export": export.pk,
            "part": "validation",
            "endpoint": "standin",
            "model": "standin-vl",
            "context": "contriever",
        },
    )
    assert bad.status_code == 400 and EvaluationRun.objects.count() == 1
    client.post(
        "/manage/evaluation/",
        {
            "export": export.pk,
            "part": "validation",
            "endpoint": "standin",
            "model": "standin-vl",
            "context": "bm25",
            "k": "2",
        },
    )
    rag = EvaluationRun.objects.exclude(pk=full.pk).get()
    assert (rag.context, rag.retriever, rag.top_k) == ("retrieved", "bm25", 2)
    before = len(server.requests())
    dispatch.run_job(rag.job_id)
    rag.refresh_from_db()
    assert rag.job.status == Job.Status.FINISHED, rag.job.error
    assert len(server.requests()) == before + 8
    for request in server.requests()[before:]:  # only the retrieved evidence, from the job too
        content = request.body["messages"][0]["content"]
        assert len(content) == 1 + 2 * len(
            [u for u in HAND[subset_of(content[0]["text"])][0] if "/p" not in u]
        )
    listing = client.get("/manage/evaluation/").content.decode()
    assert "<td>full context</td>" in listing and "<td>BM25 top 2</td>" in listing
    html = client.get(f"/manage/evaluation/compare/?run={full.pk}&run={rag.pk}").content.decode()
    assert f'#{full.pk} standin-vl <span class="small">(full context)</span>' in html
    assert f'#{rag.pk} standin-vl <span class="small">(BM25 top 2)</span>' in html
    assert f"#{rag.pk} standin-vl · BM25@2</text>" in html  # the plots' legends
    assert f"#{full.pk} standin-vl</text>" in html
    widths = [int(w) for w in re.findall(r'<svg [^>]*width="(\d+)"', html)]
    assert len(widths) == 2 and min(widths) > 560  # widened so that the longer legend fits
    table = client.get(f"/manage/evaluation/compare.csv?run={full.pk}&run={rag.pk}")
    rows = list(csv.DictReader(io.StringIO(table.content.decode())))
    assert {(r["run"], r["context"]) for r in rows} == {
        (str(full.pk), "full context"),
        (str(rag.pk), "BM25 top 2"),
    }
    data = json.loads(client.get(f"/manage/evaluation/compare.json?run={rag.pk}").content)
    assert data["runs"][0]["retriever"] == "bm25"
    assert data["runs"][0]["k"] == 2 and data["runs"][0]["context"] == "retrieved"


def test_the_grounded_demonstration_model_needs_the_records_images(release):
    from tests.evaluation.standin_openai import demonstration_model

    model = demonstration_model(str(release), "validation", 1.0, grounded=True)
    claim, *_ = RETRIEVAL_CLAIMS["direct"]
    text = {"type": "text", "text": f"Context:\n\nClaim: {claim}\n\nThink."}
    png = (release / "images" / "2409.00001_table_2.png").read_bytes()
    image = {
        "type": "image_url",
        "image_url": {"url": "data:image/png;base64," + base64.b64encode(png).decode()},
    }
    assert "cannot determine" in model({"messages": [{"content": [text]}]})
    assert "cannot" not in model({"messages": [{"content": [text, image]}]})
