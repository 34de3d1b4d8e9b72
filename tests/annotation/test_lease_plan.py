"""The lease does not grow with the queue (issue 49), on PostgreSQL's own account of it: with the
claims an expert may take spread at random among the waiting ones, EXPLAIN (ANALYZE) of the
lease's statement at 2,000 and at 20,000 waiting claims walks the lease index and reads about
as many rows (those the rules passed over, "removed by filter", included) at both sizes."""

from __future__ import annotations

import functools
import json
import random

import pytest
from django.db import connection
from django.utils import timezone

from annotation.models import WorkItem
from annotation.queue import work
from annotation.review import services as review
from tests.annotation.factories import make_expert, make_paper
from tests.services import postgres_or_skip

pytestmark = [pytest.mark.services, pytest.mark.django_db]

INDEX = "workitem_lease_walk"
EXPERTS = 12  # rows read summed over several experts' starting points: a steady figure


def _wait(paper, count: int, rng: random.Random) -> None:
    """`count` more open blind items, a quarter of them in a subfield nobody here may take, in
    random places of the shuffle (keys drawn as the model draws them)."""
    WorkItem.objects.bulk_create(
        [
            WorkItem(
                kind="evidence",
                paper=paper,
                subfield_code="math.AG" if rng.random() < 0.25 else "cs.CL",
            )
            for _ in range(count)
        ],
        batch_size=5000,
    )
    with connection.cursor() as cursor:
        cursor.execute(f"ANALYZE {WorkItem._meta.db_table}")


def _walks(plan: dict) -> list[dict]:
    """Every node of the plan, depth first."""
    found = [plan]
    for child in plan.get("Plans", []):
        found += _walks(child)
    return found


def _lease_plan(expert) -> tuple[set[str], int]:
    """The indexes the lease's statement scans on the work items, and the rows its walks on the
    lease index read (returned or removed by a filter, over all their loops)."""
    order = functools.partial(review.queue_order, "evidence")
    sql, params = work._lease_candidate(expert.pk, timezone.now(), "evidence", order)
    with connection.cursor() as cursor:
        cursor.execute(f"EXPLAIN (ANALYZE, FORMAT JSON) {sql}", params)
        raw = cursor.fetchone()[0]
    plan = (json.loads(raw) if isinstance(raw, str) else raw)[0]["Plan"]
    nodes = _walks(plan)
    indexes = {n["Index Name"] for n in nodes if n.get("Relation Name") == "annotation_workitem"}
    read = sum(
        (n["Actual Rows"] + n.get("Rows Removed by Filter", 0)) * n["Actual Loops"]
        for n in nodes
        if n.get("Index Name") == INDEX
    )
    return indexes, read


def test_the_lease_reads_as_few_rows_at_twenty_thousand_waiting_claims_as_at_two_thousand():
    postgres_or_skip()
    experts = [make_expert(f"expert-{n}", ("cs.CL",)) for n in range(EXPERTS)]
    paper = make_paper()
    rng = random.Random(49)
    read = {}
    for size in (2_000, 20_000):
        _wait(paper, size - WorkItem.objects.count(), rng)
        assert WorkItem.objects.filter(status="open").count() == size
        read[size] = 0
        for expert in experts:
            indexes, rows = _lease_plan(expert)
            assert INDEX in indexes, (size, indexes)
            read[size] += rows
    small, large = read[2_000], read[20_000]
    assert small > 0 and large <= 2 * small and small <= 2 * large, read
    # The statement explained is the one the lease runs: it hands out a claim the expert may take.
    order = functools.partial(review.queue_order, "evidence")
    taken = work.next_item(user=experts[0], kind="evidence", order=order)
    assert taken.subfield_code == "cs.CL" and taken.holder_id == experts[0].pk
