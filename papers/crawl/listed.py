"""What became of each id of a crawl by ids, in words: for the run's page and the command."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from papers.models import CrawlItem, CrawlListedId, CrawlRun

# Outcomes as said on the page and in the command, in the order of their counts.
LABELS = {
    "kept": "kept",
    "kept_below_filter": "kept below the filter",
    "set_aside": "set aside",
    "already_stored": "already stored",
    "no_html": "no HTML",
    "not_found": "not found",
    "withdrawn": "withdrawn",
    "duplicate": "listed twice",
    "failed": "failed",
    "not_stored": "not stored",
    "to_fetch": "to fetch",
    "to_look_up": "to look up",
}


@dataclass(frozen=True)
class ListedRow:
    line: int
    requested: str
    outcome: str  # a key of LABELS
    detail: str  # what arXiv or the run said of it ("1 table, 3 charts", a reason)
    newer: int | None  # the latest version, when it is newer than the one listed

    @property
    def label(self) -> str:
        return LABELS[self.outcome]

    @property
    def text(self) -> str:
        said = f"{self.label}: {self.detail}" if self.detail else self.label
        if self.newer:
            said += f" · newer version available: v{self.newer}"
        return said


def _counts(item: CrawlItem) -> str:
    tables, charts = item.tables or 0, item.charts or 0
    return f"{tables} table{'' if tables == 1 else 's'}, {charts} chart{'' if charts == 1 else 's'}"


def _item_outcome(item: CrawlItem, run: CrawlRun) -> tuple[str, str]:
    paper = item.paper
    match item.outcome:
        case CrawlItem.Outcome.KEPT if item.reason_code == "below_filter":
            return "kept_below_filter", _counts(item)
        case CrawlItem.Outcome.KEPT:
            return "kept", f"{paper.versioned_id}, {_counts(item)}"
        case CrawlItem.Outcome.REJECTED:
            asked = f"at least {run.min_tables} tables and {run.min_charts} charts asked"
            return "set_aside", f"{_counts(item)} ({asked}; a run that keeps all stores it)"
        case CrawlItem.Outcome.SKIPPED if item.reason_code == "other_version_stored":
            return "already_stored", item.reason
        case CrawlItem.Outcome.SKIPPED:
            return "already_stored", f"as {paper.versioned_id} ({paper.status})"
        case CrawlItem.Outcome.NO_HTML:
            return "no_html", item.reason.removeprefix("no HTML version: ")
        case CrawlItem.Outcome.FAILED:
            return "failed", item.reason
        case _:
            return "to_fetch", paper.versioned_id


def listed_rows(run: CrawlRun) -> list[ListedRow]:
    """Every listed line of a crawl by ids, with its outcome (two queries)."""
    rows = []
    listed = run.listed.select_related("item__paper").order_by("line")
    for row in listed:
        newer = None
        if row.version and row.latest_version and row.version < row.latest_version:
            newer = row.latest_version
        if row.outcome == CrawlListedId.Outcome.FOUND and row.item is not None:
            outcome, detail = _item_outcome(row.item, run)
        else:
            outcome = {
                CrawlListedId.Outcome.PENDING: "to_look_up",
                CrawlListedId.Outcome.NOT_FOUND: "not_found",
                CrawlListedId.Outcome.WITHDRAWN: "withdrawn",
                CrawlListedId.Outcome.DUPLICATE: "duplicate",
                CrawlListedId.Outcome.REFUSED: "not_stored",
            }.get(row.outcome, "to_look_up")
            detail = row.detail
        rows.append(ListedRow(row.line, row.requested, outcome, detail, newer))
    return rows


def listed_counts(rows: list[ListedRow]) -> list[tuple[str, int]]:
    """(label, count) for each outcome that occurs, in LABELS' order."""
    counted = Counter(row.outcome for row in rows)
    return [(label, counted[key]) for key, label in LABELS.items() if counted[key]]
