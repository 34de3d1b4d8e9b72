"""`make run`'s request gate and SQLite's writer queue (serving/gate.py): at most `size` inside,
the others let in in the order they came; a wait that runs out leaves the queue; a request
waiting on a model's API steps out of the gate meanwhile; `manage.py runserver` serves through
the gate RUNSERVER_CONCURRENCY sets."""

from __future__ import annotations

import io
import threading
import time

import pytest
from django.core.management import load_command_class
from django.core.management.base import OutputWrapper
from django.db import transaction

from evaluation.client import ChatClient
from serving.gate import FairGate, gated, holding, stepped_out
from tests.evaluation.standin_openai import StandInOpenAI


def _until(condition, what: str) -> None:
    deadline = time.monotonic() + 10
    while not condition():
        assert time.monotonic() < deadline, what
        time.sleep(0.002)


def test_at_most_size_are_inside_and_the_others_enter_in_the_order_they_came():
    gate = FairGate(2)
    assert gate.acquire() and gate.acquire()  # two inside: the gate is full
    entered: list[int] = []
    most = 0
    leave = [threading.Event() for _ in range(5)]

    def visitor(n: int) -> None:
        nonlocal most
        gate.acquire()
        entered.append(n)
        most = max(most, gate.inside())
        leave[n].wait(10)
        gate.release()

    threads = []
    for n in range(5):
        threads.append(threading.Thread(target=visitor, args=(n,)))
        threads[-1].start()
        _until(lambda n=n: gate.waiting() == n + 1, f"visitor {n} never queued")
    for n in range(2):  # each place handed on to the first in line (woken one at a time)
        gate.release()
        _until(lambda n=n: len(entered) == n + 1, "a place was not handed on")
    for n in range(3):  # as each inside leaves, the next in line enters
        leave[n].set()
        _until(lambda n=n: len(entered) == n + 3, "a place was not handed on")
    leave[3].set()
    leave[4].set()
    for thread in threads:
        thread.join(10)
    assert entered == [0, 1, 2, 3, 4] and most == 2
    assert gate.inside() == 0 and gate.waiting() == 0


def test_a_wait_that_runs_out_leaves_the_queue_and_the_next_is_let_in():
    gate = FairGate(1)
    gate.acquire()
    started = time.monotonic()
    assert gate.acquire(timeout=0.05) is False
    assert time.monotonic() - started >= 0.05
    assert gate.waiting() == 0 and gate.inside() == 1
    gate.release()
    assert gate.acquire(timeout=0) is True  # free again: not handed to the one who left
    gate.release()
    with pytest.raises(ValueError):
        FairGate(0)


def test_a_gated_application_runs_one_request_at_a_time_and_sends_the_body_after():
    inside = 0
    most = 0
    lock = threading.Lock()

    def app(environ, start_response):
        nonlocal inside, most
        with lock:
            inside += 1
            most = max(most, inside)
        time.sleep(0.02)
        with lock:
            inside -= 1
        start_response("200 OK", [])
        return iter([b"body"])

    served = gated(app, 1)
    answers: list[list[bytes]] = []

    def request() -> None:
        body = served({}, lambda status, headers: None)
        assert holding() is None  # the place is given back before the body is sent
        answers.append(list(body))

    threads = [threading.Thread(target=request) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(10)
    assert answers == [[b"body"]] * 4 and most == 1
    assert served.gate.inside() == 0


def test_a_request_waiting_on_a_model_steps_out_and_another_is_served_meanwhile():
    """A page that asks a model (ChatClient, here a stand-in that takes 1 s) gives up its
    place for the wait: a second request, through a gate of one, is served before the answer."""
    model = StandInOpenAI(answer=lambda body: "Answer: yes", delay=1.0).start()
    order: list[str] = []

    def app(environ, start_response):
        if environ["PATH_INFO"] == "/ask":
            assert holding() is not None
            client = ChatClient(model.url, "standin", max_tries=1)
            try:
                client.complete([{"type": "text", "text": "Is it?"}], first=True)
            finally:
                client.close()
            assert holding() is not None  # back inside, in turn, for the rest of the page
            order.append("answered")
        else:
            order.append("other served")
        start_response("200 OK", [])
        return [b""]

    served = gated(app, 1)
    try:
        asking = threading.Thread(target=served, args=({"PATH_INFO": "/ask"}, lambda *a: None))
        asking.start()
        _until(lambda: model.log, "the model was never asked")
        served({"PATH_INFO": "/other"}, lambda *a: None)
        asking.join(10)
    finally:
        model.stop()
    assert order == ["other served", "answered"]
    with stepped_out():  # outside a gated request: nothing to give up
        assert holding() is None


@pytest.mark.parametrize("size", [3, 0])
def test_runserver_serves_through_the_gate_the_setting_sets(settings, size):
    settings.RUNSERVER_CONCURRENCY = size
    options = {"use_static_handler": True, "insecure_serving": False}
    command = load_command_class("config", "runserver")
    command.stdout = OutputWrapper(io.StringIO())
    handler = command.get_handler(**options)
    said = command.stdout._out.getvalue()
    if size:
        assert handler.gate.size == size
        assert f"at most {size}, the others served in the order they came" in said
    else:
        assert not hasattr(handler, "gate")  # Django's own, unbounded
        assert "no bound (RUNSERVER_CONCURRENCY=0)" in said


@pytest.mark.django_db(transaction=True)
def test_a_request_inside_a_transaction_keeps_its_place_while_it_waits():
    """A transaction may hold SQLite's write lock: giving up the place would let in requests
    that wait for that lock in every place, and this one could never come back in."""

    def app(environ, start_response):
        with transaction.atomic():
            with stepped_out():
                inside.append(holding())
        return [b""]

    inside: list = []
    served = gated(app, 1)
    served({}, lambda *a: None)
    assert inside == [served.gate] and served.gate.inside() == 0
