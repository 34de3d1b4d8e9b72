"""`evaluate_release --endpoint`: against a stand-in OpenAI-compatible server on 127.0.0.1 with
injected faults; the request's content, the cache and resume, retries, the first-request
errors, the dry run, bounded concurrency, and the guard on hidden test labels."""

from __future__ import annotations

import base64
import json

import pytest
from django.core.management import CommandError, call_command

from evaluation.client import ChatClient, EndpointError, chat_url, is_local
from evaluation.prompting import Template, plan_requests
from evaluation.release import load_part
from evaluation.running import ResponseCache, ask_model
from tests.evaluation.builders import write_small_release
from tests.evaluation.responses import right_answer
from tests.evaluation.standin_openai import StandInOpenAI

pytestmark = pytest.mark.django_db
FAST = ["--timeout", "0.5", "--max-tries", "4"]


@pytest.fixture
def server():
    standin = StandInOpenAI(answer=right_answer, api_key="sk-test").start()
    yield standin
    standin.stop()


@pytest.fixture
def release(tmp_path):
    return write_small_release(tmp_path, hide_test_labels=True, seed=2)


@pytest.fixture(autouse=True)
def _key(monkeypatch, tmp_path, settings):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    settings.EVALUATION_CACHE_DIR = tmp_path / "cache"


def run(release, server, out, *extra: str, part: str = "validation") -> None:
    call_command(
        "evaluate_release",
        str(release),
        "--part",
        part,
        "--endpoint",
        server.url,
        "--model",
        "standin-vl",
        "--out",
        str(out),
        *FAST,
        *extra,
    )


def lines(path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_every_record_is_asked_once_with_its_context_images_and_captions(release, server, tmp_path):
    out = tmp_path / "out.jsonl"
    run(release, server, out)
    asked = server.requests()
    assert len(asked) == 8
    assert all(r.headers["Authorization"] == "Bearer sk-test" for r in asked)
    body = next(
        r.body
        for r in asked
        if "parallel" not in json.dumps(r.body) and len(r.body["messages"][0]["content"]) == 5
    )
    assert body["model"] == "standin-vl" and body["temperature"] == 0.0
    text, caption1, image1, caption2, image2 = body["messages"][0]["content"]
    assert "Results:\nTable 2 shows accuracy." in text["text"]  # SciVer's reading of section 4.1
    assert 'final line "Answer: yes"' in text["text"]
    assert (caption1["text"], caption2["text"]) == (
        "Table 2: accuracy per model.",
        "Figure 3: loss curves.",
    )
    url = image1["image_url"]["url"]
    assert url.startswith("data:image/png;base64,")
    png = (release / "images" / "2409.00001_table_2.png").read_bytes()
    assert base64.b64decode(url.split(",", 1)[1]) == png
    scored = lines(out)
    assert all(line["correct"] and line["official_correct"] for line in scored)


def test_faults_are_retried_and_429_waits_for_retry_after(release, server, tmp_path, capsys):
    server.add_faults("", "429", "500", "hang")
    out = tmp_path / "out.jsonl"
    run(release, server, out, "--concurrency", "1", "--max-tries", "6")  # one record meets three
    log = server.requests()
    assert [r.answered for r in log[:4]] == ["ok", "429", "500", "hang"]
    assert len(log) == 8 + 3
    assert log[2].at - log[1].at >= 1.0  # Retry-After: 1
    assert all(line["correct"] for line in lines(out))
    # An answer that is not a chat completion fails its request at once (the package does not
    # retry a 200); the next run asks only those.
    server.add_faults("", "malformed", "shape")  # the first request goes alone, and must pass
    run(release, server, out, "--concurrency", "1", "--temperature", "0.5")
    err = capsys.readouterr().err
    assert "2 requests failed after every retry" in err and "not a chat completion" in err
    assert len(server.requests()) == 11 + 8
    run(release, server, out, "--concurrency", "1", "--temperature", "0.5")
    assert len(server.requests()) == 11 + 8 + 2
    assert all(line["correct"] for line in lines(out))


def test_an_interrupted_run_resumes_without_asking_again(release, server, tmp_path, capsys):
    server.always_fail("Model B beats A on v3", "500")
    out = tmp_path / "out.jsonl"
    run(release, server, out)
    err = capsys.readouterr().err
    assert "1 requests failed after every retry" in err and "run the same command again" in err
    assert sum(line["response"] is None for line in lines(out)) == 1
    before = len(server.requests())
    server._always.clear()
    run(release, server, out)
    assert len(server.requests()) == before + 1  # only the one that failed
    assert all(line["correct"] for line in lines(out))
    run(release, server, out)
    assert len(server.requests()) == before + 1  # everything from the cache
    run(release, server, out, "--temperature", "0.7")  # other settings: other answers
    assert len(server.requests()) == before + 1 + 8


def test_a_wrong_key_is_a_clear_error_at_the_first_request(release, server, tmp_path, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-wrong")
    with pytest.raises(CommandError, match=r"HTTP 401\): the API key is missing or wrong"):
        run(release, server, tmp_path / "out.jsonl")
    assert len(server.requests()) == 1 and not (tmp_path / "out.jsonl").exists()


def test_a_wrong_url_or_a_server_that_is_not_there_is_said_at_once(release, server, tmp_path):
    with pytest.raises(CommandError, match="no chat-completions API at .*HTTP 404"):
        call_command(
            "evaluate_release",
            str(release),
            "--part",
            "validation",
            "--endpoint",
            server.url.replace("/v1", "/api"),
            "--model",
            "m",
            "--out",
            str(tmp_path / "o.jsonl"),
            *FAST,
        )
    closed = StandInOpenAI().start()
    url = closed.url
    closed.stop()
    with pytest.raises(CommandError, match="cannot reach the endpoint"):
        call_command(
            "evaluate_release",
            str(release),
            "--part",
            "validation",
            "--endpoint",
            url,
            "--model",
            "m",
            "--out",
            str(tmp_path / "o.jsonl"),
            *FAST,
        )


def test_a_server_that_keeps_failing_the_first_request_stops_the_run(release, server, tmp_path):
    server.add_faults("500", "500", "500", "500")
    with pytest.raises(CommandError, match=r"the first request failed: .*HTTP 500.* 4 tries"):
        run(release, server, tmp_path / "out.jsonl")
    assert len(server.requests()) == 4


def test_the_dry_run_counts_and_sends_nothing(release, server, tmp_path, capsys):
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
    )
    printed = capsys.readouterr().out
    assert "requests: 8 (0 already cached, 8 to send)" in printed
    assert "images: 12" in printed and "estimated input tokens to send: ~" in printed
    assert "output tokens: at most 16,384" in printed
    assert server.log == []


def test_concurrency_is_bounded(release, server, tmp_path):
    server.delay = 0.1
    run(release, server, tmp_path / "out.jsonl", "--concurrency", "3")
    assert server.max_in_flight == 3


def test_hidden_test_claims_go_to_a_remote_endpoint_only_when_confirmed(release, server, tmp_path):
    # Loopback: no question asked (the stand-in is on 127.0.0.1).
    run(release, server, tmp_path / "test.jsonl", part="test")
    assert sum(line["correct"] for line in lines(tmp_path / "test.jsonl")) == 8
    # Remote: refused before anything is sent (stdin is not a terminal under pytest).
    with pytest.raises(CommandError, match="contaminate the benchmark.*--yes"):
        call_command(
            "evaluate_release",
            str(release),
            "--part",
            "test",
            "--endpoint",
            "https://api.example.org/v1",
            "--model",
            "m",
            "--out",
            str(tmp_path / "remote.jsonl"),
        )
    assert not (tmp_path / "remote.jsonl").exists()


def test_a_cancelled_run_sends_nothing_more_and_keeps_what_was_answered(release, server, tmp_path):
    part = load_part(release, "validation")
    template = Template.load()
    client = ChatClient(server.url, "m", api_key="sk-test")
    checks = []

    def cancelled() -> bool:
        checks.append(1)
        return True  # asked for as soon as the first batch is in

    result = ask_model(
        plan_requests(part, template),
        client=client,
        template=template,
        cache=ResponseCache(tmp_path / "c"),
        concurrency=2,
        cancelled=cancelled,
    )
    assert result.cancelled and checks
    assert 2 <= len(result.responses) == len(server.requests()) <= 3


def test_loopback_and_urls():
    assert is_local("http://127.0.0.1:8000/v1") and is_local("http://localhost/v1")
    assert is_local("http://[::1]:9/v1") and is_local("http://127.8.0.1/v1")
    assert not is_local("https://api.openai.com/v1") and not is_local("http://10.0.0.1/")
    assert not is_local("http://127.0.0.1.example.invalid/v1")
    assert chat_url("http://h/v1/") == "http://h/v1/chat/completions"
    assert chat_url("http://h/v1/chat/completions") == "http://h/v1/chat/completions"
    with pytest.raises(EndpointError, match="not an http"):
        ChatClient("ftp://h/v1", "m")
