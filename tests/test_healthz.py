"""`/healthz`: the trivial view of bench/pages.py and load balancers' liveness check."""

from __future__ import annotations

import pytest


@pytest.mark.django_db
def test_healthz_answers_ok_without_the_database(client, django_assert_num_queries):
    with django_assert_num_queries(0):
        response = client.get("/healthz")
    assert (response.status_code, response.content) == (200, b"ok")
    assert response["Content-Type"].startswith("text/plain")
