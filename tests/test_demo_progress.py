"""Issue 44: the demo's progress counts every paper (it jumped from 6/24 to 24/24): one step per
paper imported, then one per paper taken through the workflow or left for people."""

from __future__ import annotations

import re

import pytest

from tests.demo import people, simulate

pytestmark = pytest.mark.django_db


def test_the_demo_progress_advances_paper_by_paper(settings):
    settings.USE_CHROMIUM = False
    people()
    out = simulate("--papers", "3", "--seed", "3")
    steps = re.findall(r"\[(\d+)/(\d+)\] (\S+)", out)
    imported = [(int(d), int(t)) for d, t, what in steps if what == "imported"]
    assert imported == [(1, 3), (2, 3), (3, 3)]
    counted = [(int(d), int(t)) for d, t, what in steps if what != "imported"]
    assert sorted({d for d, _ in counted}) == [1, 2, 3] and {t for _, t in counted} == {3}
    assert [d for d, _ in counted] == sorted(d for d, _ in counted)  # never backwards
