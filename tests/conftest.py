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

# Django's default hasher (PBKDF2, a million rounds) costs 0.2–0.6 s a password, and every
# factory user and sign-in pays it: the suite hashes with MD5 instead, set here at
# configuration time so that fixtures built once per module or session (outside a test's
# `settings`) get it too. Where hashing is the subject, a test sets Django's default back
# (tests/annotation/test_accounts.py::test_the_real_hasher_stores_pbkdf2_and_signs_in).
FAST_PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


def pytest_configure(config: pytest.Config) -> None:
    from django.conf import settings

    settings.PASSWORD_HASHERS = FAST_PASSWORD_HASHERS
    _redis_database_per_worker(settings)


def _redis_database_per_worker(settings) -> None:
    """Under pytest-xdist, worker N uses Redis database base + N (gw0 the base one), as
    pytest-django gives it a database of its own: one worker's queues and keys are never
    another's. (Django read REDIS_URL before this ran, so the settings follow it here.)"""
    from urllib.parse import urlsplit, urlunsplit

    worker, url = os.environ.get("PYTEST_XDIST_WORKER", ""), os.environ.get("REDIS_URL", "")
    if not (worker.startswith("gw") and worker[2:].isascii() and worker[2:].isdecimal() and url):
        return
    parts = urlsplit(url)
    base = int(parts.path.strip("/") or 0)
    url = urlunsplit(parts._replace(path=f"/{base + int(worker[2:])}"))
    os.environ["REDIS_URL"] = url
    settings.REDIS_URL = url
    settings.RQ_QUEUES = {name: {**queue, "URL": url} for name, queue in settings.RQ_QUEUES.items()}


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


@pytest.hookimpl(trylast=True)
def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """Each shared world (tests/worlds.py) was built at most once in this worker."""
    from tests.worlds import REGISTRY, WorldBuiltTwice

    try:
        REGISTRY.check()
    except WorldBuiltTwice as exc:
        session.exitstatus = pytest.ExitCode.TESTS_FAILED
        terminal = session.config.pluginmanager.get_plugin("terminalreporter")
        if terminal is not None:
            terminal.write_line(f"FAILED at session end: {exc}", red=True)
        else:
            raise


@pytest.fixture
def writer(client):
    """Alice, signed in, holds the writing item of a curated paper's one claim task (the
    writing pages' tests and the security tests use it): (client, item)."""
    from annotation.assignment import services as assignment_services
    from annotation.models import WorkKind
    from annotation.queue import work
    from annotation.writing import services as writing
    from tests.annotation.claim_factories import curated_paper
    from tests.annotation.factories import make_expert
    from tests.factories import AdminFactory

    alice, admin = make_expert("alice"), AdminFactory(username="boss")
    paper, _ = curated_paper(admin)
    assignment_services.assign_papers(papers=[paper], experts=[alice], assigned_by=admin)
    writing.create_claim_tasks(paper=paper, by=alice, count=1, seed=7)
    item = work.next_item(user=alice, kind=WorkKind.WRITE)
    client.force_login(alice)
    return client, item
