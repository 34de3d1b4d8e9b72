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


def _fields(obj) -> dict:
    return {f.attname: getattr(obj, f.attname) for f in type(obj)._meta.concrete_fields}


def test_a_stored_read_builds_the_item_the_orm_builds_with_its_joined_rows_and_annotations(
    django_assert_num_queries,
):
    """A blind submission's item, read from the stored statement (by key and by id, before and
    after storing), is the ORM's: every column converted alike, the joined rows cached on it
    (pair, task, claim, review; a missing validation as None) and the annotations."""
    from annotation.models import WorkItem
    from annotation.review import services as review

    c = crew("alice", "bob")
    written_pair(c["alice"], c["boss"], seed=1)
    held = review.take_next(user=c["bob"], kind="evidence")
    related = ("pair__task", "claim__review", "claim__validation")
    lock = ("self", "claim__review")
    orm = (
        WorkItem.objects.select_related(*related).annotate(**review._blind_reads()).get(pk=held.pk)
    )
    statements.forget()
    work.queue(c["alice"])  # a stored statement of the other kind beside the reads
    for where in ({"key": held.key}, {"pk": held.pk}, {"key": held.key}):
        item = work._lock(where, related, lock, review._blind_reads, "a blind item, tested")
        assert _fields(item) == _fields(orm)
        assert isinstance(item.draft, dict) and timezone.is_aware(item.leased_at)
        assert _fields(item.pair) == _fields(orm.pair)
        assert _fields(item.pair.task) == _fields(orm.pair.task)
        assert _fields(item.claim) == _fields(orm.claim)
        assert _fields(item.claim.review) == _fields(orm.claim.review)
        with django_assert_num_queries(0):  # joined and absent: no query to find out
            assert not hasattr(item.claim, "validation")
        assert item.pair_has_validator is orm.pair_has_validator is False
        assert item.kinds_and_cited == orm.kinds_and_cited and ":table:" in item.kinds_and_cited
    assert statements.read_stored("a blind item, tested (by key)", str)
    assert statements.read_stored("a blind item, tested (by pk)", int)
    with pytest.raises(work.NotHolder, match="does not exist"):
        work._lock(
            {"key": "no-such-key"}, related, lock, review._blind_reads, "a blind item, tested"
        )


def test_a_stored_read_costs_one_query_and_builds_nothing_of_the_orms(django_assert_num_queries):
    """Stored, the read is one statement and the queryset is not even built (the ORM's
    building and compiling was most of a submission's time under SQLite's write lock)."""
    from annotation.models import WorkItem

    c = crew("alice", "bob")
    pair = written_pair(c["alice"], c["boss"], seed=1)
    item = pair.work_items.filter(kind="evidence").first()
    built = []

    def build(value):
        built.append(value)
        return WorkItem.objects.select_for_update().filter(pk=value).order_by()

    statements.forget()
    assert statements.read_one("counted", WorkItem, build, item.pk).pk == item.pk
    assert len(built) == 2  # the two probes, never a real id
    with django_assert_num_queries(1):
        again = statements.read_one("counted", WorkItem, build, item.pk)
    assert len(built) == 2 and _fields(again) == _fields(WorkItem.objects.get(pk=item.pk))
    assert statements.read_one("counted", WorkItem, build, -1) is None


def test_a_read_whose_compilations_differ_elsewhere_goes_through_the_orm_every_time():
    """A build that puts its value in two places is not stored, and still reads right."""
    from annotation.models import WorkItem

    c = crew("alice", "bob")
    pair = written_pair(c["alice"], c["boss"], seed=1)
    item = pair.work_items.filter(kind="evidence").first()

    def build(value):
        return WorkItem.objects.filter(pk=value, id__gte=value).order_by()

    statements.forget()
    for _ in range(2):
        assert statements.read_one("twice", WorkItem, build, item.pk).pk == item.pk
    assert not statements.read_stored("twice", int)
