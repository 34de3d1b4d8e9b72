"""Shared fixtures: media in a temporary folder, and service/browser availability."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck
from hypothesis import settings as hypothesis_settings

from tests.services import chromium_or_skip

hypothesis_settings.register_profile(
    "sciver",
    deadline=None,
    max_examples=int(os.environ.get("HYPOTHESIS_MAX_EXAMPLES", "60")),
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
hypothesis_settings.load_profile("sciver")

CORPUS = Path(__file__).resolve().parent.parent / "papers" / "corpus"


@pytest.fixture(autouse=True)
def _media_root(settings, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Every test writes images into its own folder, never into var/media."""
    root = tmp_path_factory.mktemp("media")
    settings.MEDIA_ROOT = root
    return root


@pytest.fixture(scope="session")
def chromium_path() -> str:
    return chromium_or_skip()


@pytest.fixture
def corpus() -> Path:
    return CORPUS
