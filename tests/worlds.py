"""Worlds built once: a registry that every fixture building shared test data reports to.

A world fixture scoped to a module or the session calls `built(name)` when it builds. At the end
of the session (tests/conftest.py) `REGISTRY.check()` fails the run if any world was built more
than once in this process: with pytest-xdist each worker is a process of its own, so the count
is per worker, and each worker builds a world at most once."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TypeVar

T = TypeVar("T")


class WorldBuiltTwice(AssertionError):
    pass


class Registry:
    def __init__(self) -> None:
        self.builds: Counter[str] = Counter()

    def built(self, name: str) -> None:
        self.builds[name] += 1

    def check(self) -> None:
        twice = {name: n for name, n in self.builds.items() if n > 1}
        if twice:
            raise WorldBuiltTwice(
                "worlds built more than once in one worker (a fixture's scope is wrong, or a "
                f"test rebuilt one): {dict(sorted(twice.items()))}"
            )


REGISTRY = Registry()


def built(name: str) -> None:
    """Count a build of the world `name` in this process."""
    REGISTRY.built(name)


def build_once(
    name: str,
    build: Callable[[], T],
    *,
    django_db_blocker,
    media_root: Path,
    **settings: object,
) -> Iterator[T]:
    """The body of a module- or session-scoped world fixture (`yield from build_once(...)`):
    `build()` runs once, counted, inside a transaction that is rolled back when the fixture
    ends, so the world never reaches another module's tests. Its files go to `media_root`
    (tests that read them set MEDIA_ROOT there), and `settings` hold while it is built.
    The tests that use it keep pytest-django's `db`: each runs in a savepoint of this
    transaction, so what a test writes is gone before the next one."""
    from django.db import transaction
    from django.test import override_settings

    with django_db_blocker.unblock(), override_settings(MEDIA_ROOT=media_root, **settings):
        with transaction.atomic():
            built(name)
            world = build()
            try:
                yield world
            finally:
                transaction.set_rollback(True)
