"""Worlds built once: a registry that every fixture building shared test data reports to.

A world fixture scoped to a module or the session calls `built(name)` when it builds. At the end
of the session (tests/conftest.py) `check_built()` fails the run if any world was built more
than once in this process: with pytest-xdist each worker is a process of its own, so the count
is per worker, and each worker builds a world at most once."""

from __future__ import annotations

from collections import Counter


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


def check_built() -> None:
    REGISTRY.check()
