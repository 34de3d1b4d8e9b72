"""The stored statements (`annotation.queue.statements`): a statement filled in from its template is
the statement the ORM compiles for that expert and instant, and the workspace's counts are
served from one."""

from __future__ import annotations

import datetime as dt

import pytest
from django.test import override_settings
from django.utils import timezone

from annotation.queue import statements, work
from tests.annotation.review_factories import crew, written_pair

pytestmark = pytest.mark.django_db


def test_a_filled_in_template_is_what_the_orm_compiles_for_that_expert_and_instant():
    c = crew("alice", "bob")
    written_pair(c["alice"], c["boss"], seed=1)
    statements.forget()
    name = f"workspace counts, cap {work.AVAILABLE_CAP}"
    for user in (c["alice"], c["bob"], c["boss"]):
        for now in (timezone.now(), timezone.now() - dt.timedelta(days=400)):
            filled = statements.statement(name, work._counts, user.pk, now)
            sql, params = work._counts(user.pk, now)
            assert filled == (sql, list(params))
    assert statements.stored(name)
    assert work.queue(c["bob"]).available["evidence"] == 1  # one pair's two blind claims


def test_a_statement_that_differs_elsewhere_is_compiled_every_time():
    calls = []

    def build(user_id: int, now: dt.datetime):
        calls.append(user_id)
        return "SELECT %s, %s", [user_id * 3, now]  # a product of the id: no slot for it

    statements.forget()
    now = timezone.now()
    assert statements.statement("product", build, 5, now) == ("SELECT %s, %s", [15, now])
    assert statements.statement("product", build, 6, now) == ("SELECT %s, %s", [18, now])
    assert not statements.stored("product")
    assert calls[-2:] == [5, 6]


def test_changed_settings_empty_the_store():
    c = crew("alice", "bob")
    work.queue(c["bob"])
    name = f"workspace counts, cap {work.AVAILABLE_CAP}"
    assert statements.stored(name)
    with override_settings(MIN_PUBLICATIONS=5):
        assert not statements.stored(name)
        work.queue(c["bob"])  # compiled with the new constant
        sql, params = work._counts(c["bob"].pk, timezone.now())
        assert 5 in params
    assert not statements.stored(name)


def test_the_lease_is_served_from_a_stored_statement_and_the_shuffle_is_the_experts():
    """Two experts get the blind claims in their own shuffled orders, from stored statements."""
    from annotation.review import services as review

    c = crew("alice", "bob", "carol")
    for seed in range(1, 5):
        written_pair(c["alice"], c["boss"], seed=seed)
    statements.forget()
    bob = review.take_next(user=c["bob"], kind="evidence")
    carol = review.take_next(user=c["carol"], kind="evidence")
    assert statements.stored(
        "lease evidence by annotation.review.services.queue_order('evidence',)[]"
    )
    assert bob.pk != carol.pk
    assert review.take_next(user=c["bob"], kind="evidence").pk == bob.pk  # the held one
    # Each expert's first pick is the head of their own order over the free items.
    for expert, item in ((c["bob"], bob), (c["carol"], carol)):
        free = work.available_to(expert, "evidence", timezone.now()).exclude(
            pk__in=[bob.pk, carol.pk]
        )
        assert item.pk not in set(free.values_list("pk", flat=True))
        start = free.annotate(start=work.shuffle_start(expert)).values("start")[:1][0]["start"]
        keys = dict(
            work.WorkItem.objects.filter(
                pk__in=[*free.values_list("pk", flat=True), item.pk]
            ).values_list("pk", "shuffle_key")
        )
        assert min(keys, key=lambda pk: (keys[pk] < start, keys[pk])) == item.pk


def test_a_leased_item_reads_as_the_orm_reads_it_and_postgresql_prepares_the_statements():
    """PostgreSQL prepares a statement once a connection has sent it five times (psycopg's
    `prepare_threshold`): the workspace's counts, asked for six times, are prepared."""
    from django.db import connection

    from annotation.models import WorkItem
    from annotation.review import services as review

    c = crew("alice", "bob")
    written_pair(c["alice"], c["boss"], seed=1)
    item = review.take_next(user=c["bob"], kind="evidence")
    fresh = WorkItem.objects.get(pk=item.pk)
    for field in WorkItem._meta.concrete_fields:
        assert getattr(item, field.attname) == getattr(fresh, field.attname), field.name
    assert isinstance(item.draft, dict) and timezone.is_aware(item.lease_expires_at)
    for _ in range(6):
        work.queue(c["bob"])
    if connection.vendor == "postgresql":  # CI's database; SQLite caches statements itself
        with connection.cursor() as cursor:
            cursor.execute("SELECT statement FROM pg_prepared_statements")
            prepared = [row[0] for row in cursor.fetchall()]
        assert any("COUNT(DISTINCT s.counted)" in text for text in prepared), prepared


def test_an_order_without_a_name_of_its_own_is_refused():
    """Stored statements are named after their order: a lambda could share another's."""
    c = crew("alice")
    with pytest.raises(TypeError, match="module-level function"):
        work.next_item(user=c["alice"], kind="write", order=lambda who: ("id",))
