"""Two admins (or two tabs) at once, on PostgreSQL: row locks and constraints keep it right."""

from __future__ import annotations

import threading
from collections.abc import Callable

import pytest
from django.db import connection, connections

from annotation.assignment import services as assignment_services
from annotation.curation import services as curation_services
from annotation.errors import AlreadyAssigned, StaleContext
from annotation.models import Assignment, CuratedContext
from tests.annotation.factories import all_ids, make_expert, make_paper
from tests.services import postgres_or_skip

pytestmark = [pytest.mark.services, pytest.mark.django_db(transaction=True)]


def race(*actions: Callable[[], object]) -> list[object]:
    """Run the actions in threads released together; return each result or exception."""
    barrier = threading.Barrier(len(actions))
    results: list[object] = [None] * len(actions)

    def run(index: int, action: Callable[[], object]) -> None:
        try:
            barrier.wait(timeout=10)
            results[index] = action()
        except Exception as exc:  # the outcome under test
            results[index] = exc
        finally:
            connections.close_all()

    threads = [threading.Thread(target=run, args=(i, a)) for i, a in enumerate(actions)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    return results


def test_two_admins_assigning_the_same_paper_one_wins():
    postgres_or_skip()
    alice, bob = make_expert("alice"), make_expert("bob")
    papers = [make_paper() for _ in range(3)]
    results = race(
        lambda: assignment_services.assign_papers(papers=papers, experts=[alice], assigned_by=None),
        lambda: assignment_services.assign_papers(
            papers=papers[::-1], experts=[bob], assigned_by=None
        ),
    )
    errors = [r for r in results if isinstance(r, Exception)]
    assert len(errors) == 1 and isinstance(errors[0], AlreadyAssigned), results
    assert Assignment.objects.filter(status="assigned").count() == 3
    assert Assignment.objects.values("expert").distinct().count() == 1


def test_two_tabs_saving_the_same_version_one_is_told_to_reload():
    postgres_or_skip()
    alice = make_expert("alice")
    paper = make_paper()
    assignment_services.assign_papers(papers=[paper], experts=[alice], assigned_by=None)
    sections, elements = all_ids(paper)

    def save() -> CuratedContext:
        return curation_services.save_curated_context(
            paper=paper,
            user=alice,
            kept_section_ids=sections,
            kept_element_ids=elements,
            not_chart_ids=(),
            latest_seen=None,
        )

    results = race(save, save)
    assert sorted(type(r).__name__ for r in results) == ["CuratedContext", "StaleContext"]
    assert isinstance(next(r for r in results if isinstance(r, Exception)), StaleContext)
    assert CuratedContext.objects.get().number == 1
    assert connection.vendor == "postgresql"
