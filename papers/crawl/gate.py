"""The politeness gate: one request to arXiv at a time, at least ARXIV_DELAY_SECONDS apart."""

from __future__ import annotations

import fcntl
import os
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from django.conf import settings


class GateError(Exception):
    """The gate could not be passed (lock not obtained in time, Redis down)."""


class Gate:
    """Serialises requests across every worker that shares the gate's state.

    `slot()` waits until the previous request ended at least `delay` seconds ago (and any
    Retry-After deferral has passed), holds the gate while the caller makes one request,
    and records when it ended. `defer()` pushes the next slot back for everyone.
    """

    def __init__(self, *, delay: float, wait_timeout: float = 900.0):
        self.delay = max(0.0, delay)
        self.wait_timeout = wait_timeout

    @contextmanager
    def slot(self) -> Iterator[float]:
        """Hold the gate for one request; yields the seconds spent waiting for it."""
        started = time.monotonic()
        while True:
            self._acquire(started)
            try:
                last, not_before = self._read()
                now = self._now()
                ready_at = max(last + self.delay, not_before)
            except BaseException:
                self._release()
                raise
            if now >= ready_at:
                break
            # Sleep without holding the gate: another worker whose turn it is may go first.
            self._release()
            if time.monotonic() - started > self.wait_timeout:
                raise GateError(f"waited over {self.wait_timeout:.0f} s for the arXiv gate")
            time.sleep(min(ready_at - now, 5.0))
        try:
            yield time.monotonic() - started
        finally:
            try:
                self._write_last(self._now())
            finally:
                self._release()

    def defer(self, seconds: float) -> None:
        """No request through this gate before `seconds` from now (a Retry-After)."""
        if seconds > 0:
            self._write_not_before(self._now() + seconds)

    # Storage of the shared state, per backend.
    def _acquire(self, started: float) -> None:
        raise NotImplementedError

    def _release(self) -> None:
        raise NotImplementedError

    def _now(self) -> float:
        raise NotImplementedError

    def _read(self) -> tuple[float, float]:
        raise NotImplementedError

    def _write_last(self, value: float) -> None:
        raise NotImplementedError

    def _write_not_before(self, value: float) -> None:
        raise NotImplementedError


class _LocalState:
    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.last = float("-inf")
        self.not_before = float("-inf")


_LOCAL_STATES: dict[str, _LocalState] = {}
_LOCAL_STATES_LOCK = threading.Lock()


class LocalGate(Gate):
    """Coordinates the threads of one process (state shared per `name`)."""

    def __init__(self, *, delay: float, name: str = "arxiv", wait_timeout: float = 900.0):
        super().__init__(delay=delay, wait_timeout=wait_timeout)
        with _LOCAL_STATES_LOCK:
            self._state = _LOCAL_STATES.setdefault(name, _LocalState())

    def _acquire(self, started: float) -> None:
        remaining = self.wait_timeout - (time.monotonic() - started)
        if remaining <= 0 or not self._state.lock.acquire(timeout=remaining):
            raise GateError(f"waited over {self.wait_timeout:.0f} s for the arXiv gate")

    def _release(self) -> None:
        self._state.lock.release()

    def _now(self) -> float:
        return time.monotonic()

    def _read(self) -> tuple[float, float]:
        return self._state.last, self._state.not_before

    def _write_last(self, value: float) -> None:
        self._state.last = value

    def _write_not_before(self, value: float) -> None:
        self._state.not_before = max(self._state.not_before, value)


class FileGate(Gate):
    """Coordinates every process on one machine through an flock'ed state file."""

    def __init__(self, *, delay: float, path: Path, wait_timeout: float = 900.0):
        super().__init__(delay=delay, wait_timeout=wait_timeout)
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._held = threading.local()  # one gate object may serve several threads

    @property
    def _fd(self) -> int | None:
        return getattr(self._held, "fd", None)

    @_fd.setter
    def _fd(self, value: int | None) -> None:
        self._held.fd = value

    def _acquire(self, started: float) -> None:
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() - started > self.wait_timeout:
                    os.close(fd)
                    raise GateError(
                        f"waited over {self.wait_timeout:.0f} s for the arXiv gate"
                    ) from None
                time.sleep(0.01)
        self._fd = fd

    def _release(self) -> None:
        if self._fd is not None:
            fd, self._fd = self._fd, None
            fcntl.flock(fd, fcntl.LOCK_UN)
            os.close(fd)

    def _now(self) -> float:
        return time.time()

    def _read(self) -> tuple[float, float]:
        assert self._fd is not None
        os.lseek(self._fd, 0, os.SEEK_SET)
        raw = os.read(self._fd, 200).decode("ascii", "replace").split()
        try:
            return float(raw[0]), float(raw[1])
        except (IndexError, ValueError):
            return float("-inf"), float("-inf")

    def _store(self, last: float, not_before: float) -> None:
        assert self._fd is not None
        os.lseek(self._fd, 0, os.SEEK_SET)
        os.ftruncate(self._fd, 0)
        os.write(self._fd, f"{last!r} {not_before!r}\n".encode("ascii"))

    def _write_last(self, value: float) -> None:
        _, not_before = self._read()
        self._store(value, not_before)

    def _write_not_before(self, value: float) -> None:
        # Deferral comes from inside a slot (the gate is held) or from outside: take the lock.
        held = self._fd is not None
        if not held:
            self._acquire(time.monotonic())
        try:
            last, not_before = self._read()
            self._store(last, max(not_before, value))
        finally:
            if not held:
                self._release()


class RedisGate(Gate):
    """Coordinates every worker that shares a Redis server (RQ workers on any machine)."""

    def __init__(
        self,
        *,
        delay: float,
        url: str,
        prefix: str = "sciver:arxiv-gate",
        lock_ttl: float = 300.0,
        wait_timeout: float = 900.0,
    ):
        import redis  # noqa: PLC0415 - only with REDIS_URL set

        super().__init__(delay=delay, wait_timeout=wait_timeout)
        self.redis = redis.Redis.from_url(url, socket_timeout=10, socket_connect_timeout=5)
        self.prefix = prefix
        self.lock_ttl = lock_ttl
        self._held = threading.local()

    def _acquire(self, started: float) -> None:
        import redis  # noqa: PLC0415 - only with REDIS_URL set

        # The lock outlives the longest request (the client's deadline) by a margin, and
        # frees itself if its holder is killed.
        lock = self.redis.lock(f"{self.prefix}:lock", timeout=self.lock_ttl, sleep=0.01)
        remaining = self.wait_timeout - (time.monotonic() - started)
        try:
            ok = remaining > 0 and lock.acquire(blocking_timeout=remaining)
        except redis.RedisError as exc:
            raise GateError(f"Redis gate unavailable: {exc}") from exc
        if not ok:
            raise GateError(f"waited over {self.wait_timeout:.0f} s for the arXiv gate")
        self._held.lock = lock

    def _release(self) -> None:
        import redis  # noqa: PLC0415 - only with REDIS_URL set

        lock = getattr(self._held, "lock", None)
        if lock is None:
            return
        self._held.lock = None
        try:
            lock.release()
        except redis.exceptions.LockError:
            pass  # expired while held: the next holder already has it

    def _now(self) -> float:
        seconds, micros = self.redis.time()  # one clock for every machine
        return seconds + micros / 1e6

    def _read(self) -> tuple[float, float]:
        last, not_before = self.redis.mget(f"{self.prefix}:last", f"{self.prefix}:not_before")
        return (
            float(last) if last is not None else float("-inf"),
            float(not_before) if not_before is not None else float("-inf"),
        )

    def _write_last(self, value: float) -> None:
        self.redis.set(f"{self.prefix}:last", repr(value), ex=86400)

    def _write_not_before(self, value: float) -> None:
        key = f"{self.prefix}:not_before"
        current = self.redis.get(key)
        if current is None or float(current) < value:
            self.redis.set(key, repr(value), ex=86400)


def gate_from_settings(*, delay: float | None = None) -> Gate:
    """The gate every arXiv request of this deployment goes through.

    Redis when REDIS_URL is set (all workers on all machines), else a state file under
    var/ (all processes on this machine: the web server's threads and `crawl_arxiv`).
    ARXIV_GATE="local" keeps it inside the process.
    """
    if delay is None:
        delay = float(getattr(settings, "ARXIV_DELAY_SECONDS", 3.0))
    kind = getattr(settings, "ARXIV_GATE", "") or ("redis" if settings.REDIS_URL else "file")
    if kind == "redis":
        return RedisGate(
            delay=delay,
            url=settings.REDIS_URL,
            prefix=getattr(settings, "ARXIV_GATE_KEY", "sciver:arxiv-gate"),
        )
    if kind == "local":
        return LocalGate(delay=delay)
    path = getattr(settings, "ARXIV_GATE_FILE", "") or Path(settings.VAR_DIR) / "arxiv-gate"
    return FileGate(delay=delay, path=Path(path))
