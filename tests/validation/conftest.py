"""Fixtures of the release tests: `datasets`, offline, as a Hub user loads a release."""

from __future__ import annotations

import pytest


@pytest.fixture(scope="module")
def hf(tmp_path_factory):
    """`datasets`, offline, caching under the test's folder (its settings are read when it is
    first imported, and the Hub's client is told again in case it was imported before)."""
    home = tmp_path_factory.mktemp("hf")
    with pytest.MonkeyPatch.context() as patch:
        for name, value in {
            "HF_HOME": str(home),
            "HF_DATASETS_CACHE": str(home / "datasets"),
            "HF_HUB_OFFLINE": "1",
            "HF_DATASETS_OFFLINE": "1",
            "HF_HUB_DISABLE_TELEMETRY": "1",
        }.items():
            patch.setenv(name, value)
        import datasets
        import huggingface_hub.constants

        patch.setattr(datasets.config, "HF_HUB_OFFLINE", True)
        patch.setattr(huggingface_hub.constants, "HF_HUB_OFFLINE", True)
        yield datasets
