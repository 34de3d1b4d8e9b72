"""A blind submission that goes on to the next claim records and leases in one transaction
(issue 49): SQLite's write lock is taken once, and a failure can leave no half of it."""

from __future__ import annotations

import re
import uuid

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from annotation.models import EvidenceAnnotation, WorkItem
from tests.annotation.review_factories import crew, written_pair

pytestmark = pytest.mark.django_db


def test_a_submission_that_goes_on_records_and_leases_in_one_transaction():
    """Inside the test's own transaction each of the request's transactions is a savepoint: one
    outermost savepoint holds every write (the annotation, the item done, the next item leased),
    where today's two transactions were two savepoints one after the other."""
    c = crew("alice", "bob", "carol", "dave")
    for seed in range(1, 4):
        written_pair(c["alice"], c["boss"], seed=seed)
    bob = Client()
    bob.force_login(c["bob"])
    url = bob.post("/review/annotate/next/").url
    page = bob.get(url).content.decode()
    item = WorkItem.objects.select_related("claim").get(key=url.rstrip("/").rsplit("/", 1)[1])
    data = {
        "label": item.claim.label,
        "evidence": list(item.claim.evidence.values_list("pk", flat=True)),
        "version": re.search(r'name="version" value="(\d+)"', page).group(1),
        "token": str(uuid.uuid4()),
    }
    with CaptureQueriesContext(connection) as queries:
        response = bob.post(url, data)
    assert response.status_code == 302 and response.url.startswith("/review/annotate/")
    assert response.url != url  # went on to the next claim
    statements = [q["sql"] for q in queries.captured_queries]
    writes = [
        n for n, s in enumerate(statements) if s.lstrip().upper().startswith(("INSERT", "UPDATE"))
    ]
    outermost = []  # (opened at, released at) of each savepoint not nested in another
    depth, opened = 0, 0
    for n, sql in enumerate(statements):
        if sql.startswith("SAVEPOINT"):
            depth, opened = depth + 1, (n if depth == 0 else opened)
        elif sql.startswith(("RELEASE SAVEPOINT", "ROLLBACK TO SAVEPOINT")):
            if sql.startswith("RELEASE"):
                depth -= 1
                if depth == 0:
                    outermost.append((opened, n))
    assert len(outermost) == 1, statements
    first, last = outermost[0]
    assert writes and all(first < n < last for n in writes), statements
    # Both halves happened: bob's annotation is recorded and the next claim is his.
    assert EvidenceAnnotation.objects.filter(item=item, annotator=c["bob"]).exists()
    onward = WorkItem.objects.get(key=response.url.rstrip("/").rsplit("/", 1)[1])
    assert onward.status == "leased" and onward.holder_id == c["bob"].pk
