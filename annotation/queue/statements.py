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
from django.db import connection
from django.db.models import Model

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
