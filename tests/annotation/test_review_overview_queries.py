"""The review overview counts claims by state in the database (one aggregate query, a row per
state), not by reading every current claim's state into Python; its queries do not grow with
the claims, and the numbers are those of every current claim (superseded ones are history)."""

from __future__ import annotations

from collections import Counter

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from annotation.models import Claim, ClaimReview, ReviewState
from annotation.models.review import FINAL_STATES
from annotation.review import selectors
from tests.annotation.review_factories import crew, written_pair

pytestmark = pytest.mark.django_db


def _add_pairs(c: dict, n: int) -> None:
    """n written pairs (two claims each), their claims spread over the states in turn, and
    the last claim superseded (the overview leaves it out)."""
    made = ClaimReview.objects.count()
    for _ in range(n):
        pair = written_pair(c["wendy"], c["boss"], seed=made + 1)
        for claim in pair.claims.all():
            state = ReviewState.values[made % len(ReviewState.values)]
            made += 1
            final = {"final_label": claim.label} if state in FINAL_STATES else {}
            ClaimReview.objects.filter(claim=claim).update(state=state, **final)
    Claim.objects.filter(pk=pair.claims.latest("pk").pk).update(superseded_at=timezone.now())


def _expected() -> dict[str, int]:
    """Every current claim's state, tallied here."""
    current = ClaimReview.objects.filter(claim__superseded_at__isnull=True)
    tally = Counter(current.values_list("state", flat=True))
    return {state: tally[state] for state in ReviewState.values}


def _overview() -> tuple[selectors.ReviewOverview, list[str]]:
    with CaptureQueriesContext(connection) as queries:
        ov = selectors.review_overview()
    return ov, [q["sql"] for q in queries.captured_queries]


def _state_queries(sql: list[str]) -> list[str]:
    """Queries filtering reviews on current claims: the state counts (the unresolved list
    reads superseded_at but does not filter on it)."""
    return [
        s for s in sql if 'FROM "annotation_claimreview"' in s and '"superseded_at" IS NULL' in s
    ]


def test_review_overview_counts_states_in_one_aggregate_query():
    c = crew("wendy")
    _add_pairs(c, 3)
    small, small_sql = _overview()
    assert small.states == _expected()
    _add_pairs(c, 5)
    large, large_sql = _overview()
    expected = _expected()
    assert large.states == expected and list(large.states) == ReviewState.values
    assert sum(expected.values()) == Claim.objects.current().count() == 14
    assert all(expected.values())  # every state has claims: each is counted, not only some
    assert len(large_sql) == len(small_sql)
    # The states are counted by the database: one query, COUNT … GROUP BY state.
    (states_sql,) = _state_queries(large_sql)
    assert "COUNT(" in states_sql and "GROUP BY" in states_sql, states_sql


def test_review_overview_page_shows_the_counts():
    c = crew("wendy")
    _add_pairs(c, 3)
    admin = Client()
    admin.force_login(c["boss"])
    html = admin.get("/manage/review/").content.decode()
    for state, n in _expected().items():
        label = ReviewState(state).label
        assert f'<span class="n">{n}</span> {label}</div>' in html, (label, n)
