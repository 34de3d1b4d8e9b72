"""Fixtures of the papers tests: a stand-in arXiv on loopback and settings pointing at it."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.standin import StandInArxiv


@pytest.fixture
def standin() -> Iterator[StandInArxiv]:
    server = StandInArxiv().start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def arxiv_settings(settings, standin: StandInArxiv, tmp_path: Path):
    """Point the crawler at the stand-in, with short timeouts and no politeness delay."""
    for key, value in standin.settings().items():
        setattr(settings, key, value)
    settings.ARXIV_DELAY_SECONDS = 0.0
    settings.ARXIV_GATE_FILE = str(tmp_path / "arxiv-gate")
    settings.ARXIV_GATE_KEY = f"sciver-test:{uuid.uuid4().hex}"
    settings.ARXIV_BACKOFF_SECONDS = 0.02
    settings.ARXIV_CONNECT_TIMEOUT = 2.0
    settings.ARXIV_READ_TIMEOUT = 0.5
    settings.ARXIV_REQUEST_DEADLINE = 5.0
    settings.ARXIV_MAX_TRIES = 3
    settings.ARXIV_MAX_RETRY_AFTER = 2.0
    settings.ARXIV_PAGE_SIZE = 3
    settings.ARXIV_SEARCH_CHUNK_DAYS = 31
    settings.MIN_TABLES = 2
    settings.MIN_CHARTS = 2
    return settings
