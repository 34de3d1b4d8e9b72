"""Availability of PostgreSQL, Redis and Chromium for tests: skip with a reason, or fail.

With REQUIRE_SERVICES=1 (CI), a missing service fails the test instead of skipping it.
"""

from __future__ import annotations

import os

import pytest


def require(available: bool, reason: str) -> None:
    if available:
        return
    if os.environ.get("REQUIRE_SERVICES") == "1":
        pytest.fail(f"REQUIRE_SERVICES=1 but {reason}", pytrace=False)
    pytest.skip(reason)


def chromium_or_skip() -> str:
    from django.conf import settings

    from papers.render.chromium import find_chromium

    path = find_chromium(getattr(settings, "CHROMIUM_PATH", ""))
    require(path is not None, "Chromium is not installed (apt-get install chromium)")
    return path or ""


def redis_url_or_skip() -> str:
    url = os.environ.get("REDIS_URL", "")
    require(bool(url), "REDIS_URL is not set: Redis-backed tests need a Redis server")
    import redis

    try:
        redis.Redis.from_url(url, socket_connect_timeout=2).ping()
    except redis.RedisError as exc:
        require(False, f"Redis at {url} does not answer: {exc}")
    return url


def postgres_or_skip() -> None:
    from django.db import connection

    require(
        connection.vendor == "postgresql",
        "DATABASE_URL does not point at PostgreSQL: this test needs PostgreSQL",
    )
