"""Every admin overview and Django admin list runs a fixed number of queries: the same count
after the simulated pipeline has run over three papers and over twelve (pairs written,
annotated, adjudicated, validated, sent back to their writer)."""

from __future__ import annotations

import io

import pytest
from django.core.management import call_command
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from tests.demo import people
from tests.factories import AdminFactory

pytestmark = pytest.mark.django_db

PAGES = [
    "/",
    "/manage/claims/",
    "/manage/review/",
    "/agreement/",
    "/agreement.csv",
    "/manage/validation/",
    "/manage/statistics/",
    "/manage/baseline/",
    "/manage/releases/",
    "/manage/assignments/",
    "/manage/people/",
]


def _counts(client: Client) -> dict[str, int]:
    counts = {}
    for url in PAGES:
        with CaptureQueriesContext(connection) as queries:
            response = client.get(url)
        assert response.status_code == 200, url
        counts[url] = len(queries.captured_queries)
    return counts


def _admin_lists(client: Client) -> dict[str, int]:
    """Queries of every Django admin changelist of a database table (django-rq's dashboard
    has none)."""
    from django.contrib import admin as django_admin
    from django.urls import reverse

    counts = {}
    for model in django_admin.site._registry:
        if not model._meta.managed or model._meta.app_label == "django_rq":
            continue
        url = reverse(f"admin:{model._meta.app_label}_{model._meta.model_name}_changelist")
        with CaptureQueriesContext(connection) as queries:
            response = client.get(url)
        assert response.status_code == 200, url
        counts[url] = len(queries.captured_queries)
    return counts


def test_the_overviews_and_every_admin_list_run_the_same_queries_at_two_data_sizes(settings):
    settings.USE_CHROMIUM = False
    people()
    admin = Client()
    admin.force_login(AdminFactory(username="overseer"))
    call_command("simulate_annotation", "--papers", "3", "--seed", "5", stdout=io.StringIO())
    small, small_lists = _counts(admin), _admin_lists(admin)
    call_command("simulate_annotation", "--papers", "9", "--seed", "6", stdout=io.StringIO())
    large, large_lists = _counts(admin), _admin_lists(admin)
    assert large == small
    assert max(large.values()) <= 30, large
    grown = {url: (small_lists[url], n) for url, n in large_lists.items() if n != small_lists[url]}
    assert not grown, grown
