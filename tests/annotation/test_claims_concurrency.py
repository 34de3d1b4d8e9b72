"""Twenty experts pressing "next" and submitting at once on PostgreSQL: every one of 200 claim
tasks is claimed exactly once and none is lost."""

from __future__ import annotations

import threading
import time
from collections import Counter

import pytest
from django.db import connection, connections

from annotation.models import ClaimPair, WorkEvent, WorkItem
from annotation.queue import work
from annotation.writing import services as writing
from tests.annotation.claim_factories import curated_paper, submit
from tests.annotation.factories import make_expert
from tests.factories import AdminFactory
from tests.services import postgres_or_skip

pytestmark = [pytest.mark.services, pytest.mark.django_db(transaction=True)]
THREADS, TASKS = 20, 200


def test_twenty_experts_claim_and_submit_two_hundred_tasks():
    postgres_or_skip()
    assert connection.vendor == "postgresql"
    experts = [make_expert(f"expert{n:02d}") for n in range(THREADS)]
    paper, _ = curated_paper(AdminFactory())  # no writer assignment: open to every expert
    writing.create_claim_tasks(paper=paper, by=None, count=100, seed=1)
    writing.create_claim_tasks(paper=paper, by=None, count=100, seed=101)
    assert WorkItem.objects.filter(status="open", assignee=None).count() == TASKS

    barrier = threading.Barrier(THREADS)
    done: dict[int, list[int]] = {}
    failures: list[BaseException] = []

    def expert_at_work(user) -> None:
        mine: list[int] = []
        try:
            barrier.wait(timeout=20)
            while True:
                try:
                    item = work.next_item(user=user, kind="write")
                except work.NothingToDo:
                    break
                submit(item, user)
                mine.append(item.pk)
        except BaseException as exc:  # reported below
            failures.append(exc)
        finally:
            done[user.pk] = mine
            connections.close_all()

    started = time.monotonic()
    threads = [threading.Thread(target=expert_at_work, args=(u,)) for u in experts]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert not failures, failures[:3]
    claimed = [pk for items in done.values() for pk in items]
    assert len(claimed) == len(set(claimed)) == TASKS  # each claimed once, none lost
    assert WorkItem.objects.filter(status="done").count() == TASKS
    assert ClaimPair.objects.count() == TASKS
    per_item = Counter(WorkEvent.objects.filter(action="claimed").values_list("item_id", flat=True))
    assert set(per_item.values()) == {1} and len(per_item) == TASKS
    assert sum(1 for items in done.values() if items) > 1  # the work was really shared
    assert time.monotonic() - started < 20
