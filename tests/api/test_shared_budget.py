"""One request budget across server processes: with CACHE_URL the API's counts live in Redis,
where every worker reads them (without it each process keeps its own, said in docs/api.md);
a CACHE_URL that is not a Redis address stops the server at start, saying so."""

from __future__ import annotations

import os
import pickle
import subprocess
import sys
import uuid
from pathlib import Path

import pytest
import redis
from django.core.cache import caches
from django.test import Client

from api import tokens
from tests.factories import AdminFactory
from tests.services import redis_url_or_skip

ROOT = Path(__file__).resolve().parent.parent.parent
PROBE = "from django.conf import settings; print(settings.CACHES['default']['BACKEND'])"


def _settings_with(cache_url: str) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k != "SCIVER_TESTING"}
    env |= {"SCIVER_DEV": "1", "CACHE_URL": cache_url}
    return subprocess.run(
        [sys.executable, "manage.py", "shell", "-c", PROBE],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_cache_url_names_redis_or_the_server_says_why_it_will_not_start():
    done = _settings_with("redis://127.0.0.1:6379/9")
    assert done.returncode == 0, done.stderr
    assert done.stdout.split()[-1] == "django.core.cache.backends.redis.RedisCache"
    refused = _settings_with("memcached://127.0.0.1:11211")
    assert refused.returncode != 0
    assert "CACHE_URL must be a Redis address" in refused.stderr


@pytest.mark.django_db
def test_the_budget_is_counted_in_redis_for_every_process(settings):
    url = redis_url_or_skip()
    prefix = f"budget-test-{uuid.uuid4().hex}"  # never cleared: other tests share the server
    settings.CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": url,
            "KEY_PREFIX": prefix,
        }
    }
    settings.API_RATE = "3/min"
    row, raw = tokens.issue_token(user=AdminFactory(), name="nightly export")
    try:
        answers = [
            Client().get("/api/people/", headers={"Authorization": f"Bearer {raw}"}).status_code
            for _ in range(4)
        ]
        assert answers == [200, 200, 200, 429]
        # Another connection (as another worker has) reads the three counted requests.
        stored = redis.Redis.from_url(url).get(f"{prefix}:1:throttle_api_token:{row.pk}")
        assert stored is not None and len(pickle.loads(stored)) == 3
    finally:
        caches["default"].delete(f"throttle_api_token:{row.pk}")
