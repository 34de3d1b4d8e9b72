"""Time per work item and per expert, read from the work items' history (`WorkEvent`).

What the history records of a person's work on an item: the lease (`claimed`), its renewals
(`lease renewed`), and how the lease ended: `submitted`, `released` (handed back), `lease
expired`, `cancelled`. Draft saves renew a lease without an event, and nothing records
keystrokes, so *active time* is defined as: the time from claiming an item to submitting it,
summed over the stretches between two recorded events of that lease, each stretch counted up to
a cap (`ACTIVE_TIME_CAP_MINUTES`, default `WORK_LEASE_MINUTES`: a stretch longer than a lease
means the person was away). Leases that ended without a submission are counted apart, as
*handed back* (released, expired or cancelled), the same way.
"""

from __future__ import annotations

import datetime as dt
import statistics
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from django.conf import settings
from django.utils.dateparse import parse_datetime

from annotation import events as audit
from annotation.models import Machine, WorkAction, WorkEvent, WorkItem

ACTIONS = (
    WorkAction.CLAIMED,
    WorkAction.LEASE_RENEWED,
    WorkAction.SUBMITTED,
    WorkAction.RELEASED,
    WorkAction.LEASE_EXPIRED,
    WorkAction.CANCELLED,
)
ENDS = {
    WorkAction.SUBMITTED: "submitted",
    WorkAction.RELEASED: "released",
    WorkAction.LEASE_EXPIRED: "expired",
    WorkAction.CANCELLED: "cancelled",
}


def gap_cap_minutes() -> int:
    return int(
        getattr(settings, "ACTIVE_TIME_CAP_MINUTES", 0)
        or getattr(settings, "WORK_LEASE_MINUTES", 60)
    )


@dataclass(frozen=True)
class Event:
    """One event of an item's history, as the timing reads it."""

    item_id: int
    action: str
    actor_id: int | None
    at: dt.datetime
    old: dict = field(default_factory=dict)


@dataclass(frozen=True)
class Lease:
    """One lease of an item by one expert: from claiming it to how it ended."""

    item_id: int
    expert_id: int
    started: dt.datetime
    ended: dt.datetime
    outcome: str  # submitted, released, expired, cancelled, open (still held)
    active_seconds: float


def leases(events: Iterable[Event], *, cap: dt.timedelta) -> list[Lease]:
    """The leases in `events` (sorted by item, then time), each with its active time: the sum
    of the stretches between its recorded events, each at most `cap`. A lease still held is
    counted up to its last event, as `open`. Pure: no database."""
    found: list[Lease] = []
    current: dict[int, tuple[int, dt.datetime, dt.datetime, float]] = {}  # item → lease so far

    def stretch(last: dt.datetime, at: dt.datetime) -> float:
        return max(0.0, min((at - last).total_seconds(), cap.total_seconds()))

    for event in events:
        open_lease = current.get(event.item_id)
        if event.action == WorkAction.CLAIMED:
            if open_lease is not None:  # claimed again without an end: the old one ended here
                expert, started, last, seconds = open_lease
                found.append(Lease(event.item_id, expert, started, last, "expired", seconds))
            if event.actor_id is not None:
                current[event.item_id] = (event.actor_id, event.at, event.at, 0.0)
            continue
        if open_lease is None:
            continue
        expert, started, last, seconds = open_lease
        at = event.at
        if event.action == WorkAction.LEASE_EXPIRED:
            # Recorded when someone next asks for work; the lease ran out earlier.
            ended = audit.read(audit.Holder, event.old).get("lease_expires_at")
            expired = parse_datetime(str(ended or ""))
            if expired is not None and expired < at:
                at = expired
        seconds += stretch(last, at)
        if event.action == WorkAction.LEASE_RENEWED:
            current[event.item_id] = (expert, started, at, seconds)
            continue
        found.append(Lease(event.item_id, expert, started, at, ENDS[event.action], seconds))
        del current[event.item_id]
    for item_id, (expert, started, last, seconds) in current.items():
        found.append(Lease(item_id, expert, started, last, "open", seconds))
    return found


@dataclass
class ExpertTime:
    """An expert's time, for the People page."""

    items: int = 0  # items submitted
    active_seconds: float = 0.0  # on the submitted items
    handed_back_seconds: float = 0.0  # on leases that ended without a submission
    per_item: list[float] = field(default_factory=list)

    @property
    def median_seconds(self) -> float | None:
        return statistics.median(self.per_item) if self.per_item else None

    @property
    def active(self) -> str:
        return format_duration(self.active_seconds)

    @property
    def median(self) -> str:
        return format_duration(self.median_seconds)

    @property
    def handed_back(self) -> str:
        return format_duration(self.handed_back_seconds)


def _events(item_filter: dict) -> list[Event]:
    rows = (
        WorkEvent.objects.filter(machine=Machine.ITEM, action__in=ACTIONS, **item_filter)
        .order_by("item_id", "at", "id")
        .values_list("item_id", "action", "actor_id", "at", "old")
    )
    return [Event(*row) for row in rows]


def _per_item(found: Sequence[Lease]) -> dict[tuple[int, int], float]:
    """Active seconds per (item, expert) over the leases that the expert ended by submitting
    (an earlier lease of the same expert on the same item that they handed back is counted as
    handed back, not here)."""
    done: dict[tuple[int, int], float] = defaultdict(float)
    for lease in found:
        if lease.outcome == "submitted":
            done[(lease.item_id, lease.expert_id)] += lease.active_seconds
    return done


def time_by_expert(user_ids: Sequence[int]) -> dict[int, ExpertTime]:
    """Per expert: items submitted, active time on them (total and median per item), and time
    on leases handed back (every paper, archived ones too: this is time worked)."""
    if not user_ids:
        return {}
    touched = WorkEvent.objects.filter(
        machine=Machine.ITEM, action=WorkAction.CLAIMED, actor_id__in=list(user_ids)
    ).values("item_id")
    found = leases(_events({"item_id__in": touched}), cap=_cap())
    result: dict[int, ExpertTime] = {}
    wanted = set(user_ids)
    for lease in found:
        if lease.expert_id not in wanted:
            continue
        row = result.setdefault(lease.expert_id, ExpertTime())
        if lease.outcome != "submitted":
            row.handed_back_seconds += lease.active_seconds
    for (_, expert_id), seconds in _per_item(found).items():
        if expert_id in wanted:
            row = result.setdefault(expert_id, ExpertTime())
            row.items += 1
            row.active_seconds += seconds
            row.per_item.append(seconds)
    return result


def _cap() -> dt.timedelta:
    return dt.timedelta(minutes=gap_cap_minutes())


CSV_FIELDS = [
    "item",
    "kind",
    "paper",
    "archived_paper",
    "expert",
    "first_claimed",
    "submitted",
    "active_seconds",
    "leases",
    "handed_back_seconds",
    "cap_minutes",
]


def item_rows() -> Iterable[list]:
    """One CSV row per submitted item: who submitted it, its active time (the definition
    above), how many leases it took them, and their time on leases of it they handed back."""
    found = leases(_events({"item__status": WorkItem.Status.DONE}), cap=_cap())
    by_item: dict[tuple[int, int], list[Lease]] = defaultdict(list)
    for lease in found:
        by_item[(lease.item_id, lease.expert_id)].append(lease)
    items = {
        i.pk: i
        for i in WorkItem.objects.filter(status=WorkItem.Status.DONE)
        .select_related("paper", "done_by")
        .only(
            "id",
            "key",
            "kind",
            "done_by_id",
            "done_by__username",
            "done_at",
            "paper__arxiv_id",
            "paper__version",
            "paper__archived_at",
        )
    }
    cap = gap_cap_minutes()
    for item_id, item in sorted(items.items()):
        mine = by_item.get((item_id, item.done_by_id), [])
        submitted = [lease for lease in mine if lease.outcome == "submitted"]
        yield [
            item.key,
            item.kind,
            item.paper.versioned_id,
            "yes" if item.paper.archived_at else "no",
            item.done_by.get_username() if item.done_by else "",
            mine[0].started.isoformat() if mine else "",
            item.done_at.isoformat() if item.done_at else "",
            round(sum(lease.active_seconds for lease in submitted)),
            len(mine),
            round(sum(lease.active_seconds for lease in mine if lease.outcome != "submitted")),
            cap,
        ]


def format_duration(seconds: float | None) -> str:
    """1 h 05 min, 12 min, 40 s."""
    if seconds is None:
        return "—"
    seconds = round(seconds)
    if seconds < 60:
        return f"{seconds} s"
    minutes = seconds // 60
    if minutes < 60:
        return f"{minutes} min"
    return f"{minutes // 60} h {minutes % 60:02d} min"
