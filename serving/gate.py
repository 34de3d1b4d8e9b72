"""A fair gate: at most `size` holders at once, the others admitted in the order they came, each
handed its place directly by the holder who leaves (one thread woken, not every waiter).

Two uses in the embedded default's one process:
- **SQLite's writers** (config/sqlite, size 1): a transaction waits here before BEGIN IMMEDIATE, so
  the next writer starts the moment the one before commits.
- **`make run`'s requests** (`gated`, size RUNSERVER_CONCURRENCY): runserver starts a thread per
  connection and runs them all at once. With 16 annotators who never pause, the page views ran
  at once while the submissions queued for SQLite's one writer, so a submission's p95 was 8–10×
  a page view's. Through the gate every request waits its turn in one queue, in arrival order:
  a submission waits as long as a page view (1.1×), at the same throughput. The write lock is
  held no shorter (issue 49, docs/benchmarks.md, round three).

A request that waits on something other than this process (a model's API) steps out of the gate
for the wait (`stepped_out`), so that it does not keep others waiting for nothing."""

from __future__ import annotations

import contextlib
import threading
from collections import deque
from collections.abc import Callable, Iterable, Iterator

from django.db import connections


class FairGate:
    def __init__(self, size: int) -> None:
        if size < 1:
            raise ValueError(f"a gate holds at least one: {size}")
        self.size = size
        self._lock = threading.Lock()
        self._free = size
        self._waiting: deque[threading.Lock] = deque()

    def acquire(self, timeout: float | None = None) -> bool:
        """Enter (True), or give up after `timeout` seconds and leave the queue (False)."""
        with self._lock:
            if self._free and not self._waiting:
                self._free -= 1
                return True
            ticket = threading.Lock()
            ticket.acquire()
            self._waiting.append(ticket)
        if ticket.acquire(timeout=-1 if timeout is None else max(timeout, 0)):
            return True  # handed over by `release`
        with self._lock:
            if ticket in self._waiting:
                self._waiting.remove(ticket)
                return False
        # Handed over as the wait ran out: the place is this thread's.
        ticket.acquire()
        return True

    def release(self) -> None:
        with self._lock:
            if self._waiting:
                self._waiting.popleft().release()  # the place goes to the first in line
            else:
                self._free += 1

    def waiting(self) -> int:
        """How many are queued."""
        return len(self._waiting)

    def inside(self) -> int:
        """How many hold a place."""
        with self._lock:
            return self.size - self._free


_held = threading.local()


def gated(app: Callable, size: int) -> Callable:
    """The WSGI application `app` with at most `size` requests in it at once, in arrival order
    (its `gate` attribute). The place is held while the application runs; a response's body is
    sent after it is released (a download's bytes keep no one waiting)."""
    gate = FairGate(size)

    def application(environ: dict, start_response: Callable) -> Iterable[bytes]:
        gate.acquire()
        _held.gate = gate
        try:
            return app(environ, start_response)
        finally:
            _held.gate = None
            gate.release()

    application.gate = gate  # type: ignore[attr-defined]
    return application


@contextlib.contextmanager
def stepped_out() -> Iterator[None]:
    """Around a wait on something outside the process (a model's API): the request's place in the
    gate is given up for the wait and taken again after it, in turn. Nothing outside a gated
    request, nor inside a transaction: one may hold SQLite's write lock, which the requests let
    in meanwhile would wait for, keeping every place while this one waited for a place."""
    gate: FairGate | None = getattr(_held, "gate", None)
    if gate is None or any(c.in_atomic_block for c in connections.all(initialized_only=True)):
        yield
        return
    _held.gate = None
    gate.release()
    try:
        yield
    finally:
        gate.acquire()
        _held.gate = gate


def holding() -> FairGate | None:
    """The gate this thread holds a place in, if any (for tests)."""
    return getattr(_held, "gate", None)
