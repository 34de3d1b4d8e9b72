"""Papers the stand-in arXiv serves in the crawl tests: dates in October 2024, small synthetic
papers."""

from __future__ import annotations

from datetime import UTC, datetime

from tests.standin import StandInPaper, synthetic_paper

OCT = datetime(2024, 10, 1, 12, 0, tzinfo=UTC)


def day(n: int, hour: int = 12) -> datetime:
    """A submission time in the test window: day n of October 2024."""
    return OCT.replace(day=n, hour=hour)


def paper(arxiv_id: str, *, tables: int = 2, charts: int = 2, **fields: object) -> StandInPaper:
    fields.setdefault("published", day(2))
    fields.setdefault("title", f"Paper {arxiv_id}")
    return synthetic_paper(arxiv_id, tables=tables, charts=charts, **fields)
