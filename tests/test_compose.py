"""docker-compose.yml is valid against the compose specification (no Docker engine runs here)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent


def test_compose_file_matches_the_compose_spec_schema():
    exe = shutil.which("check-jsonschema") or str(Path(sys.executable).parent / "check-jsonschema")
    result = subprocess.run(
        [exe, "--builtin-schema", "vendor.compose-spec", str(ROOT / "docker-compose.yml")],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_compose_runs_the_stack_the_readme_describes():
    compose = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
    services = compose["services"]
    assert set(services) == {"db", "redis", "web", "worker"}
    assert services["worker"]["command"][:3] == ["python", "manage.py", "rqworker"]
    assert {"crawl", "render", "default"} <= set(services["worker"]["command"][3:])
    env = services["web"]["environment"]
    assert env["DATABASE_URL"].startswith("postgres://")
    assert env["REDIS_URL"].startswith("redis://")
