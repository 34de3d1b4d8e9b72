"""Per-expert statements compiled once per process. Building the workspace's counts through the
ORM costs more than running them (seven subqueries of eligibility and blindness rules: about
14 ms of Python against 2 ms of SQL at 3,000 waiting claims), and their SQL differs between
experts only in the expert's id and the clock. So each statement is compiled twice, for two
made-up experts at two made-up instants; the parameters where the two compilations differ are
the expert's and the clock's slots, and later requests fill those slots in the stored SQL.

On PostgreSQL a stored statement is prepared on its connection as every statement is that a
connection sends often (`DATABASE_PREPARED_STATEMENTS`: psycopg prepares a statement once it
has been sent five times), so it is planned once per connection, not per request. (A cursor that
prepared these from the first send, built on Django's private cursor API, was measured against
none in the load benchmark, production shape: 1.08× the cycles per second, within the noise and
under the 10 % that would keep it; docs/benchmarks.md.)

A row read under lock (`read_one`: a submission's item with the rows it joins, an autosave's
item) is stored the same way, compiled for two made-up values of its one lookup (an id, a key),
with what the ORM needs to build the instance from a row (its columns' converters, the joined
rows' populators, the annotations' columns): a blind submission's item read through the ORM was
about 4 ms of Python for a statement SQLite runs in a fraction of one, all of it inside the
transaction that holds SQLite's one write lock.

A statement whose two compilations differ anywhere else (its SQL, or a parameter that is
neither the expert's id nor the instant, e.g. a product of the id) is not stored: it is
compiled per request as before. Changed settings (`override_settings` in tests) empty the
store, since a setting (e.g. MIN_PUBLICATIONS) may be a constant of a stored statement.
"""

from __future__ import annotations

import datetime as dt
import threading
from collections.abc import Callable
from dataclasses import dataclass

from django.core.signals import setting_changed
from django.db import connection, connections, router
from django.db.models import Model, QuerySet
from django.db.models.query import get_related_populators

Build = Callable[[int, dt.datetime], tuple[str, tuple | list]]

# Two made-up experts and instants, never a real id or a time this app records.
_PROBES = (
    (-7_391_004_221, dt.datetime(1901, 2, 3, 4, 5, 6, 789012, tzinfo=dt.UTC)),
    (-7_391_004_223, dt.datetime(1902, 3, 4, 5, 6, 7, 890123, tzinfo=dt.UTC)),
)


@dataclass(frozen=True)
class _Template:
    sql: str
    params: tuple
    slots: tuple[tuple[int, str], ...]  # (position, "user" | "now" | "now-adapted")


_UNCACHEABLE = object()
_store: dict[tuple, _Template | object] = {}
_lock = threading.Lock()


def _adapted(value: dt.datetime) -> object:
    return connection.ops.adapt_datetimefield_value(value)


def _template(build: Build) -> _Template | object:
    (user_a, now_a), (user_b, now_b) = _PROBES
    sql_a, params_a = build(user_a, now_a)
    sql_b, params_b = build(user_b, now_b)
    if sql_a != sql_b or len(params_a) != len(params_b):
        return _UNCACHEABLE
    slots = []
    for position, (a, b) in enumerate(zip(params_a, params_b, strict=True)):
        if a == b:
            continue
        if a == user_a and b == user_b:
            slots.append((position, "user"))
        elif a == now_a and b == now_b:
            slots.append((position, "now"))
        elif a == _adapted(now_a) and b == _adapted(now_b):
            slots.append((position, "now-adapted"))
        else:
            return _UNCACHEABLE
    return _Template(sql_a, tuple(params_a), tuple(slots))


def statement(name: str, build: Build, user_id: int, now: dt.datetime) -> tuple[str, list]:
    """`build(user_id, now)`'s (sql, params), from the stored template when it has one."""
    key = (connection.alias, connection.vendor, name)
    template = _store.get(key)
    if template is None:
        with _lock:
            template = _store.get(key)
            if template is None:
                template = _store[key] = _template(build)
    if template is _UNCACHEABLE:
        sql, params = build(user_id, now)
        return sql, list(params)
    params = list(template.params)
    values = {"user": user_id, "now": now}
    for position, slot in template.slots:
        params[position] = _adapted(now) if slot == "now-adapted" else values[slot]
    return template.sql, params


@dataclass(frozen=True)
class _Read:
    """A stored read of one row by one lookup value, and how the ORM builds its instance."""

    sql: str
    params: tuple
    slot: int  # the lookup value's position among the parameters
    model: type[Model]
    init_list: tuple[str, ...]  # the model's own columns' attnames, in select order
    own: slice  # where they are in a row
    populators: tuple  # the joined rows (select_related)
    annotations: tuple[tuple[str, int], ...]  # (name, column)
    converters: tuple[tuple[int, tuple, object], ...]  # (column, converters, expression)
    width: int  # the row's columns that are the query's (no extra select)


# Two made-up lookup values per type, never an id or a key this app makes.
_VALUE_PROBES = {int: (-7_391_004_227, -7_391_004_229), str: ("~probe:a~", "~probe:b~")}


def _read_template(build: Callable[[object], QuerySet], kind: type) -> _Read | object:
    value_a, value_b = _VALUE_PROBES[kind]
    query_a, query_b = build(value_a), build(value_b)
    compiler = query_a.query.get_compiler(using=query_a.db)
    sql_a, params_a = compiler.as_sql()  # sets the compiler's select, klass_info, annotations
    sql_b, params_b = query_b.query.get_compiler(using=query_b.db).as_sql()
    if sql_a != sql_b or len(params_a) != len(params_b):
        return _UNCACHEABLE
    differ = [i for i, (a, b) in enumerate(zip(params_a, params_b, strict=True)) if a != b]
    if len(differ) != 1 or (params_a[differ[0]], params_b[differ[0]]) != (value_a, value_b):
        return _UNCACHEABLE
    if query_a._known_related_objects or query_a._prefetch_related_lookups:
        return _UNCACHEABLE  # not read through a row alone
    select, klass_info = compiler.select, compiler.klass_info
    own = klass_info["select_fields"]
    fields = [column[0] for column in select[: compiler.col_count]]
    return _Read(
        sql=sql_a,
        params=tuple(params_a),
        slot=differ[0],
        model=klass_info["model"],
        init_list=tuple(column[0].target.attname for column in select[own[0] : own[-1] + 1]),
        own=slice(own[0], own[-1] + 1),
        populators=tuple(get_related_populators(klass_info, select, query_a.db)),
        annotations=tuple(compiler.annotation_col_map.items()),
        converters=tuple(
            (position, tuple(converters), expression)
            for position, (converters, expression) in compiler.get_converters(fields).items()
        ),
        width=compiler.col_count if compiler.has_extra_select else len(select),
    )


def read_one(
    name: str, model: type[Model], build: Callable[[object], QuerySet], value: int | str
) -> Model | None:
    """The one row of `model` that `build(value)` reads (a queryset filtered on one unique
    lookup, read for writing: under lock), as the ORM would build it (with its select_related
    rows and annotations), or None; from the stored statement when `build`'s compilations
    differ only in the value, else through the ORM. `name` names the statement's shape: one
    `build` per name (the queryset is not even built when the statement is stored)."""
    db = router.db_for_write(model)
    key = (db, connections[db].vendor, "read", name, type(value))
    template = _store.get(key)
    if template is None:
        with _lock:
            template = _store.get(key)
            if template is None:
                template = _store[key] = _read_template(build, type(value))
    if template is _UNCACHEABLE:
        found = list(build(value)[:2])
        if len(found) > 1:
            raise model.MultipleObjectsReturned(f"{name}: more than one row")
        return found[0] if found else None
    assert isinstance(template, _Read)
    params = list(template.params)
    params[template.slot] = value
    database = connections[db]
    with database.cursor() as cursor:
        cursor.execute(template.sql, params)
        rows = cursor.fetchmany(2)
    if len(rows) > 1:
        raise template.model.MultipleObjectsReturned(f"{name}: more than one row")
    if not rows:
        return None
    row = list(rows[0][: template.width])
    for position, converters, expression in template.converters:
        cell = row[position]
        for convert in converters:
            cell = convert(cell, expression, database)
        row[position] = cell
    obj = template.model.from_db(db, list(template.init_list), row[template.own])
    for populator in template.populators:
        populator.populate(row, obj)
    for attribute, position in template.annotations:
        setattr(obj, attribute, row[position])
    return obj


def read_stored(name: str, kind: type = int) -> bool:
    """Whether the read `name` (by a value of `kind`) is served from a stored statement."""
    template = _store.get((connection.alias, connection.vendor, "read", name, kind))
    return template is not None and template is not _UNCACHEABLE


def execute(sql: str, params: list) -> tuple[list[str], list[tuple]]:
    """Run a statement from `statement`: (column names, rows), through Django's cursor."""
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return [column[0] for column in cursor.description], cursor.fetchall()


def instance(model: type[Model], columns: list[str], row: tuple) -> Model:
    """A model instance from a row of `execute`, its values converted as the ORM converts them
    (SQLite's datetimes made aware, JSON decoded)."""
    values = []
    for name, value in zip(columns, row, strict=True):
        field = model._meta.get_field(name)
        column = field.get_col(model._meta.db_table)
        for convert in connection.ops.get_db_converters(column) + field.get_db_converters(
            connection
        ):
            value = convert(value, column, connection)
        values.append(value)
    return model.from_db(
        connection.alias, [model._meta.get_field(c).attname for c in columns], values
    )


def stored(name: str) -> bool:
    """Whether `name` is served from a stored template on this connection (for tests)."""
    template = _store.get((connection.alias, connection.vendor, name))
    return template is not None and template is not _UNCACHEABLE


def forget(**_kwargs: object) -> None:
    with _lock:
        _store.clear()


setting_changed.connect(forget, dispatch_uid="annotation.queue.statements.forget")
