"""The registry that holds shared worlds to one build per worker (tests/worlds.py)."""

from __future__ import annotations

import pytest

from tests.worlds import Registry, WorldBuiltTwice


def test_a_world_built_once_passes_and_twice_fails_naming_it():
    registry = Registry()
    registry.built("hostile input")
    registry.built("demo release")
    registry.check()
    registry.built("hostile input")
    with pytest.raises(WorldBuiltTwice, match=r"\{'hostile input': 2\}"):
        registry.check()
