"""Issue 44: the licence is an SPDX string (PEP 639), so setuptools prints no deprecation."""

from __future__ import annotations

import tomllib
from pathlib import Path

PYPROJECT = Path(__file__).resolve().parents[1] / "pyproject.toml"


def test_the_licence_is_an_spdx_string_with_a_setuptools_that_reads_it():
    data = tomllib.loads(PYPROJECT.read_text())
    assert data["project"]["license"] == "MIT"
    requires = data["build-system"]["requires"]
    setuptools = next(r for r in requires if r.startswith("setuptools"))
    minimum = setuptools.split(">=")[1].split(",")[0]
    assert tuple(int(p) for p in minimum.split(".")) >= (77,)
