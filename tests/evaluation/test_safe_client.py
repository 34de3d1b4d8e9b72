"""The model client as an attacker's endpoint meets it: a stand-in OpenAI-compatible server on
127.0.0.1 that redirects (307, 302) to another server nobody listed, echoes the request's
headers in a 400, drips its answer, sends a huge one, or answers 429 with Retry-After and 500.
Each is refused or contained, the key is in no message or log line, and nothing reaches the
unlisted server."""

from __future__ import annotations

import io
import logging
import socket
import time

import pytest
from django.core.management import CommandError, call_command

from evaluation.client import (
    ChatClient,
    EndpointError,
    RequestFailed,
    chat_url,
    is_local,
    redact,
)
from tests.evaluation.builders import write_small_release
from tests.evaluation.standin_openai import StandInOpenAI

KEY = "sk-secret-7f3a9c1e5b"
MESSAGE = [{"type": "text", "text": "Claim: Model B beats A on v3\n"}]


@pytest.fixture
def server():
    standin = StandInOpenAI(answer=lambda body: "Answer: yes", api_key=KEY).start()
    yield standin
    standin.stop()


@pytest.fixture
def elsewhere():
    """The server a redirect points at: listed nowhere, it must never hear a word."""
    standin = StandInOpenAI().start()
    yield standin
    standin.stop()


@pytest.fixture
def logs(caplog):
    caplog.set_level(logging.DEBUG)  # every logger, the openai package's and httpx's too
    return caplog


def client(server, **options) -> ChatClient:
    return ChatClient(server.url, "standin-vl", api_key=KEY, **options)


@pytest.mark.parametrize("status", ["307", "302"])
def test_a_redirect_is_refused_and_nothing_reaches_where_it_points(server, elsewhere, status, logs):
    server.redirect_to = f"{elsewhere.url}/chat/completions"
    server.add_faults(status)
    with pytest.raises(EndpointError) as refused:
        client(server).complete(MESSAGE)
    assert str(refused.value) == (
        f"the endpoint redirects to {elsewhere.url}/chat/completions (HTTP {status}): list that "
        "URL instead; nothing was sent there"
    )
    assert len(server.requests()) == 1  # a refusal, not retried
    assert elsewhere.log == []
    assert KEY not in logs.text


def test_an_endpoint_that_echoes_the_key_never_gets_it_shown(server, logs):
    server.add_faults("echo")
    with pytest.raises(EndpointError) as refused:
        client(server).complete(MESSAGE)
    said = str(refused.value)
    assert said.startswith(f"the endpoint {chat_url(server.url)} refused the request (HTTP 400)")
    # The echo is shown, its secret is not.
    assert "'authorization': 'bearer [redacted]'" in said.lower() and KEY not in said
    assert server.requests()[0].headers["Authorization"] == f"Bearer {KEY}"  # it was sent
    assert KEY not in logs.text and "Bearer sk-" not in logs.text


def test_a_slow_drip_ends_at_the_deadline_and_says_so(server):
    server.drip_seconds = 0.05  # a 200-byte answer would take 10 s
    server.add_faults("drip")
    started = time.monotonic()
    with pytest.raises(RequestFailed, match=r"took over 0.6 s to arrive \(a slow drip\)"):
        client(server, deadline=0.6, max_tries=3).complete(MESSAGE)
    assert time.monotonic() - started < 4
    assert len(server.requests()) == 1  # the guard's refusal is not retried


def test_a_huge_answer_is_cut_off_and_says_so(server):
    server.huge_bytes = 3 * 1024 * 1024
    server.add_faults("huge")
    with pytest.raises(RequestFailed, match=r"the answer is over 1 MB: not read further"):
        client(server, max_bytes=1024 * 1024).complete(MESSAGE)
    assert len(server.requests()) == 1
    assert client(server, max_bytes=1024 * 1024).complete(MESSAGE) == "Answer: yes"


def test_429_waits_for_retry_after_and_500_is_retried_by_the_package(server):
    server.add_faults("429", "500")
    assert client(server, max_tries=3).complete(MESSAGE) == "Answer: yes"
    log = server.requests()
    assert [r.answered for r in log] == ["429", "500", "ok"]
    assert log[1].at - log[0].at >= 1.0  # Retry-After: 1
    server.add_faults("500", "500")
    with pytest.raises(RequestFailed, match=r"server error \(HTTP 500\) after 2 tries"):
        client(server, max_tries=2).complete(MESSAGE)


def test_only_loopback_counts_as_local(monkeypatch):
    assert is_local("http://127.0.0.1:8000/v1") and is_local("http://127.8.0.1/v1")
    assert is_local("http://[::1]:9/v1")
    assert not is_local("http://10.0.0.1/v1") and not is_local("https://api.openai.com/v1")
    assert not is_local("http://127.0.0.1.sciver.invalid/v1")  # a name, resolving nowhere

    # A name counts by what it resolves to now (the resolver is outside our code: faked here).
    answers = {"model.example": ["127.0.0.1"], "mixed.example": ["127.0.0.1", "192.0.2.7"]}
    real = socket.getaddrinfo

    def resolver(host, *args, **kwargs):
        if host in answers:
            return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", (a, 0)) for a in answers[host]]
        return real(host, *args, **kwargs)

    monkeypatch.setattr(socket, "getaddrinfo", resolver)
    assert is_local("http://model.example:8000/v1")
    assert not is_local("http://mixed.example:8000/v1")
    answers["evil.localhost"] = ["192.0.2.7"]  # *.localhost is not local by its name alone
    assert not is_local("http://evil.localhost/v1")


def test_a_local_only_client_stops_sending_when_the_name_leaves_this_machine(server, monkeypatch):
    answers = {"model.example": "127.0.0.1"}
    real = socket.getaddrinfo

    def resolver(host, port, *args, **kwargs):
        if host in answers:
            return real(answers[host], port, *args, **kwargs)
        return real(host, port, *args, **kwargs)

    monkeypatch.setattr(socket, "getaddrinfo", resolver)
    endpoint = server.url.replace("127.0.0.1", "model.example")
    guarded = ChatClient(endpoint, "standin-vl", api_key=KEY, local_only=True)
    assert guarded.complete(MESSAGE) == "Answer: yes"  # resolved to loopback: sent
    answers["model.example"] = "192.0.2.7"  # the name now points elsewhere (DNS rebinding)
    with pytest.raises(EndpointError, match="does not resolve only to this machine now"):
        guarded.complete(MESSAGE)
    assert len(server.requests()) == 1


def test_redaction_covers_keys_tokens_and_key_fields():
    text = redact(
        f"Authorization: Bearer {KEY}; x-api-key: abc123; token=Basic dXNlcjpwYXNz; {KEY}", KEY
    )
    assert KEY not in text and "abc123" not in text and "dXNlcjpwYXNz" not in text
    assert text.count("[redacted]") == 4


@pytest.mark.django_db
def test_the_command_refuses_a_redirecting_endpoint_before_any_claim_leaves(
    server, elsewhere, tmp_path, monkeypatch, settings
):
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    settings.EVALUATION_CACHE_DIR = tmp_path / "cache"
    release = write_small_release(tmp_path, hide_test_labels=True, seed=2)
    server.redirect_to = f"{elsewhere.url}/chat/completions"
    server.add_faults("307")
    with pytest.raises(CommandError, match="the endpoint redirects to .*list that URL instead"):
        call_command(
            "evaluate_release",
            str(release),
            "--part",
            "test",  # hidden labels; the listed endpoint is this machine: no question asked
            "--endpoint",
            server.url,
            "--model",
            "standin-vl",
            "--out",
            str(tmp_path / "out.jsonl"),
            "--timeout",
            "2",
        )
    assert elsewhere.log == [] and len(server.requests()) == 1


@pytest.mark.django_db
def test_hidden_claims_leave_this_machine_only_confirmed_and_the_run_records_it(
    server, tmp_path, monkeypatch, settings
):
    from evaluation.models import EvaluationRun

    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    settings.EVALUATION_CACHE_DIR = tmp_path / "cache"
    release = write_small_release(tmp_path, hide_test_labels=True, seed=2)
    # A name that resolves to this machine and to another: not local (the resolver is faked;
    # the connection goes to its first address, the stand-in).
    real = socket.getaddrinfo

    def resolver(host, port, *args, **kwargs):
        if host == "mixed.example":
            return real("127.0.0.1", port, *args, **kwargs) + [
                (socket.AF_INET, socket.SOCK_STREAM, 6, "", ("192.0.2.7", port or 0))
            ]
        return real(host, port, *args, **kwargs)

    monkeypatch.setattr(socket, "getaddrinfo", resolver)
    endpoint = server.url.replace("127.0.0.1", "mixed.example")
    args = ["evaluate_release", str(release), "--part", "test", "--endpoint", endpoint]
    args += ["--model", "standin-vl", "--out", str(tmp_path / "out.jsonl"), "--timeout", "2"]
    with pytest.raises(CommandError, match="contaminate the benchmark.*--yes"):
        call_command(*args)
    assert server.log == []

    out = io.StringIO()
    call_command(*args, "--yes", "--save", stdout=out)
    said = out.getvalue()
    assert f"hidden test claims sent to {endpoint} (not this machine): confirmed by " in said
    assert "(--yes) at " in said
    run = EvaluationRun.objects.get()
    assert run.hidden_confirmed_at is not None and run.hidden_confirmed_by is None
    assert len(server.requests()) == 8
