"""Fixtures of the papers tests: a stand-in arXiv on loopback and settings pointing at it."""

from __future__ import annotations

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
    standin.point_crawler(settings, tmp_path)
    settings.ARXIV_MAX_RETRY_AFTER = 2.0
    settings.ARXIV_PAGE_SIZE = 3
    settings.ARXIV_SEARCH_CHUNK_DAYS = 31
    return settings
