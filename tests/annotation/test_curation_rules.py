"""The rules of saving a curated context (no database): a page opened before someone saved,
decisions about what is not the paper's, and the context the decisions make."""

from __future__ import annotations

import pytest

from annotation.curation.rules import (
    Decisions,
    check_decisions,
    check_latest_seen,
    plan_context,
)
from annotation.errors import InvalidCuration, StaleContext

SECTIONS = [(1, None, "introduction"), (2, 1, "body"), (3, None, "references")]
ELEMENTS = [(10, 1, "paragraph"), (11, 2, "table"), (12, 2, "chart"), (13, 3, "chart")]


def decisions(sections=(1, 2), elements=(10, 11, 12, 13), not_charts=()) -> Decisions:
    return Decisions(frozenset(sections), frozenset(elements), frozenset(not_charts))


def test_a_save_from_a_page_opened_before_the_latest_version_is_refused():
    check_latest_seen(latest=3, saved_by="ann", latest_seen=3)
    check_latest_seen(latest=None, saved_by=None, latest_seen=None)
    with pytest.raises(StaleContext) as stale:
        check_latest_seen(latest=3, saved_by="ann", latest_seen=2)
    assert str(stale.value).startswith("Version 3 of this context was saved by ann since you")
    assert "keep them as version 4, or take version 3." in str(stale.value)
    with pytest.raises(StaleContext, match="saved by someone"):
        check_latest_seen(latest=3, saved_by=None, latest_seen=None)
    with pytest.raises(StaleContext, match="changed since you opened the page; reload"):
        check_latest_seen(latest=None, saved_by=None, latest_seen=1)


def test_decisions_only_about_the_papers_sections_and_figures():
    kinds = {pk: kind for pk, _, kind in ELEMENTS}
    check_decisions(decisions(not_charts=(12,)), section_ids={1, 2, 3}, element_kinds=kinds)
    with pytest.raises(InvalidCuration, match=r"Items \[9, 99\] are not part of this paper"):
        check_decisions(decisions((1, 9), (99,)), section_ids={1, 2, 3}, element_kinds=kinds)
    with pytest.raises(InvalidCuration, match=r"Only figures .* \(got \[11\]\)"):
        check_decisions(decisions(not_charts=(11,)), section_ids={1, 2, 3}, element_kinds=kinds)


def test_the_context_keeps_elements_kept_in_sections_kept():
    plan = plan_context(decisions(not_charts=(12,)), sections=SECTIONS, elements=ELEMENTS)
    assert plan.live_sections == {1, 2}
    assert plan.in_context == {10: True, 11: True, 12: True, 13: False}
    assert (plan.counts.tables, plan.counts.charts, plan.counts.not_charts) == (1, 0, 1)
    assert plan.counts.paragraphs == 1 and plan.removed_sections == 1
    orphaned = plan_context(decisions(sections=(2,)), sections=SECTIONS, elements=ELEMENTS)
    assert orphaned.live_sections == set() and orphaned.removed_sections == 3
