"""The politeness gate: one holder at a time, slots at least `delay` apart, deferral for all."""

from __future__ import annotations

import multiprocessing
import os
import subprocess
import sys
import threading
import time
import uuid
from pathlib import Path

import pytest

from papers.crawl.gate import FileGate, Gate, LocalGate, RedisGate
from tests.services import redis_url_or_skip

DELAY = 0.1


def hammer(gate: Gate, workers: int = 4, slots: int = 3) -> list[tuple[float, float]]:
    """Several threads take slots; returns (start, end) of each slot in wall-clock time."""
    spans: list[tuple[float, float]] = []
    lock = threading.Lock()

    def work() -> None:
        for _ in range(slots):
            with gate.slot():
                start = time.time()
                time.sleep(0.01)  # "the request"
                end = time.time()
            with lock:
                spans.append((start, end))

    threads = [threading.Thread(target=work) for _ in range(workers)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=30)
    return sorted(spans)


def assert_polite(spans: list[tuple[float, float]], delay: float = DELAY) -> None:
    gaps = [b[0] - a[1] for a, b in zip(spans, spans[1:], strict=False)]
    assert min(gaps) >= delay - 0.005, gaps  # never overlapping, never closer than the delay


def test_local_gate_spaces_threads() -> None:
    spans = hammer(LocalGate(delay=DELAY, name=uuid.uuid4().hex))
    assert len(spans) == 12
    assert_polite(spans)


def test_file_gate_spaces_threads(tmp_path: Path) -> None:
    assert_polite(hammer(FileGate(delay=DELAY, path=tmp_path / "gate")))


def _process_slots(path: str, out: multiprocessing.Queue) -> None:
    gate = FileGate(delay=DELAY, path=Path(path))
    for _ in range(3):
        with gate.slot():
            start = time.time()
            time.sleep(0.01)
            out.put((start, time.time()))


def test_file_gate_spaces_processes(tmp_path: Path) -> None:
    ctx = multiprocessing.get_context("spawn")
    out = ctx.Queue()
    procs = [
        ctx.Process(target=_process_slots, args=(str(tmp_path / "gate"), out)) for _ in range(3)
    ]
    for p in procs:
        p.start()
    spans = sorted(out.get(timeout=20) for _ in range(9))
    for p in procs:
        p.join(timeout=10)
    assert_polite(spans)


def test_defer_holds_back_the_next_slot(tmp_path: Path) -> None:
    for gate in (LocalGate(delay=0, name=uuid.uuid4().hex), FileGate(delay=0, path=tmp_path / "g")):
        with gate.slot():
            pass
        gate.defer(0.3)
        started = time.monotonic()
        with gate.slot() as waited:
            pass
        assert time.monotonic() - started >= 0.29
        assert waited >= 0.29


def test_zero_delay_does_not_wait(tmp_path: Path) -> None:
    gate = FileGate(delay=0, path=tmp_path / "gate")
    started = time.monotonic()
    for _ in range(50):
        with gate.slot():
            pass
    assert time.monotonic() - started < 1


@pytest.mark.services
def test_redis_gate_spaces_workers() -> None:
    url = redis_url_or_skip()
    prefix = f"sciver-test:{uuid.uuid4().hex}"
    gates = [RedisGate(delay=DELAY, url=url, prefix=prefix) for _ in range(2)]
    spans: list[tuple[float, float]] = []
    lock = threading.Lock()

    def work(gate: Gate) -> None:
        for _ in range(4):
            with gate.slot():
                start = time.time()
                time.sleep(0.01)
                end = time.time()
            with lock:
                spans.append((start, end))

    threads = [threading.Thread(target=work, args=(g,)) for g in gates]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=30)
    assert len(spans) == 8
    assert_polite(sorted(spans))
    gates[0].defer(0.3)
    started = time.monotonic()
    with gates[1].slot():
        pass
    assert time.monotonic() - started >= 0.29
    gates[0].redis.delete(f"{prefix}:last", f"{prefix}:not_before")


def test_the_gate_key_and_file_are_read_from_the_environment(tmp_path: Path) -> None:
    """`ARXIV_GATE_KEY` (README's configuration table) reaches the settings, and the Redis gate
    built from them, as `ARXIV_GATE_FILE` does; unset, the documented default."""
    root = Path(__file__).resolve().parents[3]
    code = (
        "import django; django.setup(); from django.conf import settings; "
        "from papers.crawl.gate import gate_from_settings; "
        "print(settings.ARXIV_GATE_KEY, settings.ARXIV_GATE_FILE, gate_from_settings().prefix)"
    )
    base = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("SCIVER_", "ARXIV_", "REDIS_", "DJANGO_SETTINGS"))
    }
    # The gate only names its Redis server here: nothing connects to it.
    base |= {
        "SCIVER_DEV": "1",
        "DJANGO_SETTINGS_MODULE": "config.settings",
        "DATABASE_URL": f"sqlite:///{tmp_path / 'db.sqlite3'}",
        "ARXIV_GATE": "redis",
        "REDIS_URL": "redis://127.0.0.1:9/0",
    }

    def settings_under(**env: str) -> list[str]:
        done = subprocess.run(
            [sys.executable, "-c", code],
            cwd=root,
            env=base | env,
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert done.returncode == 0, done.stderr
        return done.stdout.split()[-3:]

    gate_file = str(tmp_path / "gate")
    assert settings_under(ARXIV_GATE_KEY="deploy-b:arxiv-gate", ARXIV_GATE_FILE=gate_file) == [
        "deploy-b:arxiv-gate",
        gate_file,
        "deploy-b:arxiv-gate",
    ]
    key, _, prefix = settings_under()
    assert key == prefix == "sciver:arxiv-gate"
