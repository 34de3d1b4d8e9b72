"""Handing out work items with leases, safely under concurrency, with append-only history.

Generic over the kind of work: claim writing, second annotation, adjudication, validation and
the human baseline use it. Every state change is `annotation.lifecycle.move` (the item's
declared transitions, its version and one audit event in the same transaction). "Next item"
walks an index from a point of the expert's own (`shuffled`: every item has a random place,
drawn again when it is handed back) or from the oldest, and takes the first item the expert may
take, with `select_for_update(skip_locked=True)` on PostgreSQL (SQLite serialises writers with
immediate transactions, see config/settings.py): the rows it reads do not grow with the queue.
"""

from __future__ import annotations

import datetime as dt
import functools
import uuid
from collections import defaultdict
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, cast

from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser
from django.db import connection, transaction
from django.db.models import (
    BigIntegerField,
    Count,
    Exists,
    ExpressionWrapper,
    F,
    OuterRef,
    Q,
    QuerySet,
    Subquery,
    Value,
)
from django.db.models.expressions import BaseExpression
from django.db.models.functions import Cast, Coalesce
from django.utils import timezone

from annotation import access, lifecycle
from annotation.errors import AnnotationError, InvalidTransition
from annotation.experts import selectors as expert_selectors
from annotation.models import (
    SHUFFLE_KEY_BITS,
    ClaimPair,
    ExpertProfile,
    PairRole,
    Subfield,
    WorkAction,
    WorkEvent,
    WorkItem,
    WorkKind,
    WorkStatus,
    draw_shuffle_key,
)
from annotation.queue import blindness, statements
from papers.models import Paper


class NothingToDo(AnnotationError):
    """No item the expert may take is free."""


class StaleWork(AnnotationError):
    """The item changed since the page was opened (taken over, submitted, or re-leased)."""

    reason = "stale"


class NotHolder(AnnotationError):
    """The expert does not hold this item."""

    reason = "not_holder"


def lease_duration() -> dt.timedelta:
    return dt.timedelta(minutes=settings.WORK_LEASE_MINUTES)


def record(
    item: WorkItem,
    action: str,
    *,
    actor: AbstractBaseUser | None,
    old: dict[str, Any] | None = None,
    new: dict[str, Any] | None = None,
    note: str = "",
) -> WorkEvent:
    """An item's event that changes no state (e.g. flagged, assigned), in the caller's
    transaction."""
    return lifecycle.record(item, actor=actor, action=action, old=old, new=new, note=note)


def _excluded_by_roles(user: AbstractBaseUser, kind: str) -> Q:
    """The blindness rule (`annotation.queue.blindness.refusal`) in SQL: a blind item is never on a
    pair where the expert holds any role (the subfield's flagged exception goes through an
    assignment by name); an adjudication or validation never on a claim they wrote, annotated or
    adjudicated, nor while their blind annotation of the pair's other claim is unsubmitted."""
    on_pair = PairRole.objects.filter(pair=OuterRef("pair"), expert_id=user.pk)
    if kind == blindness.BLIND_KIND:
        return Q(Exists(on_pair))
    if kind not in blindness.JUDGING_KINDS:  # e.g. the human baseline: nobody who saw the pair
        return Q(Exists(on_pair))
    pending = WorkItem.objects.filter(pair=OuterRef("pair"), kind=blindness.BLIND_KIND).filter(
        Q(status=WorkStatus.LEASED, holder_id=user.pk)
        | Q(status__in=[WorkStatus.OPEN, WorkStatus.LEASED], assignee_id=user.pk)
    )
    untaken = WorkItem.objects.filter(
        pair=OuterRef("pair"),
        kind=blindness.BLIND_KIND,
        status=WorkStatus.OPEN,
        holder__isnull=True,
    )
    return (
        Q(Exists(on_pair.filter(role=blindness.WRITER)))
        | Q(Exists(PairRole.objects.filter(claim=OuterRef("claim"), expert_id=user.pk)))
        | Q(Exists(pending))
        | (~Q(Exists(on_pair)) & Q(Exists(untaken)))
    )


def _waiting(now: dt.datetime) -> Q:
    """Open, or leased with the lease run out."""
    return Q(status=WorkStatus.OPEN) | Q(status=WorkStatus.LEASED, lease_expires_at__lte=now)


def _may_take(user: AbstractBaseUser, kind: str) -> Q:
    """The rules of `available_to` but the item's status: who the item is for and the
    blindness rule, on items of `kind`."""
    did_before = WorkItem.objects.filter(
        claim=OuterRef("claim"), kind=kind, done_by_id=user.pk
    )  # a reopened claim goes to someone else
    return (
        Q(kind=kind)
        & (
            Q(assignee_id=user.pk)
            | Q(
                assignee__isnull=True,
                subfield_code__in=expert_selectors.eligible_codes_query(user.pk),
            )
        )
        # An item assigned to an expert by name is theirs: the service that assigned it checked
        # the rule (e.g. both claims to a subfield's only free expert, where it allows that).
        & ~(_excluded_by_roles(user, kind) & ~Q(assignee_id=user.pk))
        & ~(Q(claim__isnull=False) & Q(Exists(did_before)))
        # Archived papers' work waits, untouched, until the paper is un-archived.
        & _live_paper()
    )


def _free(user: AbstractBaseUser, kind: str, now: dt.datetime) -> Q:
    """`available_to` as a condition on work items of `kind` (for one aggregate over kinds)."""
    return _waiting(now) & _may_take(user, kind)


def _live_paper() -> Q:
    """Work on a paper that is not archived, as "not among the archived papers" (a few, read
    once per statement) rather than a join to every candidate's paper: a lease over 3,000 free
    claims probed the papers table once per claim."""
    return ~Q(paper_id__in=Paper.objects.filter(archived_at__isnull=False).values("pk"))


def available_to(user: AbstractBaseUser, kind: str, now: dt.datetime) -> QuerySet[WorkItem]:
    """Items `user` may take now: open or with an expired lease; assigned to them, or unassigned
    in a subfield they are eligible for; never one the blindness rule keeps from them."""
    return WorkItem.objects.filter(_free(user, kind, now))


@dataclass(frozen=True)
class Queue:
    """One expert's work at every stage, in three queries: the items they hold (the oldest
    lease of each kind), how many they finished, and how many they may take."""

    held: dict[str, WorkItem]
    done: dict[str, int]
    available: dict[str, int]


# The workspace counts what an expert may take up to this many; past it the page says "100+".
# Counting every free item runs each one's eligibility and blindness rule (31 ms of SQL at
# 3,000 waiting claims); a capped count stops at the cap.
AVAILABLE_CAP = 100


def _read_at_most() -> int:
    return 2 * (AVAILABLE_CAP + 1)


def _capped_count(condition: Q, label: str, field: str) -> tuple[str, list]:
    """SQL of one row (label, distinct `field` values among the first rows meeting `condition`,
    rows read) for a UNION ALL: at most 2·(cap + 1) rows are read, so a distinct count past the
    cap is reported as past it (two claims of a pair share its `pair_id`)."""
    rows = (
        WorkItem.objects.filter(condition)
        .order_by()
        .annotate(counted=F(field))
        .values("counted")[: _read_at_most()]
    )
    sql, params = rows.query.sql_with_params()
    # The label is a literal (a kind's value): a prepared statement cannot type a parameter
    # that is only selected.
    if not label.replace("_", "").isalnum():
        raise ValueError(f"Not a label: {label!r}")
    return (
        f"SELECT '{label}' AS label, COUNT(DISTINCT s.counted) AS n, COUNT(*) AS seen "
        f"FROM ({sql}) s",
        list(params),
    )


def _counts(user_id: int, now: dt.datetime) -> tuple[str, list]:
    """One statement, one capped count per kind, each its own subquery (planned on the kind's
    index: a single scan with a FILTER per kind evaluated every kind's rule on every free
    item)."""
    user = _Someone(user_id)
    parts = []
    for kind in WorkKind.values:
        free = _free(user, kind, now)
        if kind in (WorkKind.BLIND, WorkKind.ADJUDICATE):
            free &= ~Q(holder_id=user.pk)  # a held item is counted as held
        if kind == WorkKind.BLIND:
            # The two unassigned claims of a pair go to two different people: taking one leaves
            # the other to someone else, so they count once. Claims assigned by name all count.
            parts.append(_capped_count(free & Q(assignee_id=user.pk), "mine", "id"))
            parts.append(_capped_count(free & Q(assignee__isnull=True), kind, "pair_id"))
        else:
            parts.append(_capped_count(free, kind, "id"))
    return " UNION ALL ".join(sql for sql, _ in parts), [p for _, ps in parts for p in ps]


@dataclass(frozen=True)
class _Someone:
    """An expert by id alone: what the rules in SQL read of them."""

    pk: int


def queue(user: AbstractBaseUser, now: dt.datetime | None = None) -> Queue:
    now = now or timezone.now()
    held: dict[str, WorkItem] = {}
    for item in (
        WorkItem.objects.filter(_live_paper(), status=WorkStatus.LEASED, holder_id=user.pk)
        .select_related("task", "paper")
        .only(
            "id",
            "key",
            "kind",
            "version",
            "pair_id",
            "task__subset",
            "paper__arxiv_id",
            "paper__version",
            "paper__title",
        )
        .order_by("leased_at", "id")
    ):
        held.setdefault(item.kind, item)
    done: dict[str, int] = defaultdict(int)
    for kind, n in (
        WorkItem.objects.filter(status=WorkStatus.DONE, done_by_id=user.pk)
        .order_by()
        .values("kind")
        .annotate(n=Count("id"))
        .values_list("kind", "n")
    ):
        done[kind] = n
    available = dict.fromkeys(WorkKind.values, 0)
    sql, params = statements.statement(
        f"workspace counts, cap {AVAILABLE_CAP}", _counts, user.pk, now
    )
    for label, n, seen in statements.execute(sql, params)[1]:
        if seen >= _read_at_most():
            n = AVAILABLE_CAP + 1
        kind = WorkKind.BLIND if label == "mine" else label
        available[kind] = min(available[kind] + n, AVAILABLE_CAP + 1)
    return Queue(held=held, done=dict(done), available=available)


def pair_roles(pair_ids) -> tuple[dict[int, list[blindness.RoleRow]], dict[int, set[int]]]:
    """Per pair: its roles, and the experts holding an unsubmitted blind item on it (key
    `UNTAKEN` in that set: a blind item of the pair nobody has taken)."""
    pair_ids = {p for p in pair_ids if p}
    roles: dict[int, list[blindness.RoleRow]] = defaultdict(list)
    for pair_id, expert_id, role, claim_id in PairRole.objects.filter(
        pair_id__in=pair_ids
    ).values_list("pair_id", "expert_id", "role", "claim_id"):
        roles[pair_id].append(blindness.RoleRow(expert_id, role, claim_id))
    pending: dict[int, set[int]] = defaultdict(set)
    for pair_id, holder, assignee, status in WorkItem.objects.filter(
        pair_id__in=pair_ids,
        kind=blindness.BLIND_KIND,
        status__in=[WorkStatus.OPEN, WorkStatus.LEASED],
    ).values_list("pair_id", "holder_id", "assignee_id", "status"):
        if status == WorkStatus.LEASED and holder:
            pending[pair_id].add(holder)
        if assignee:
            pending[pair_id].add(assignee)
        if status == WorkStatus.OPEN and not holder:
            pending[pair_id].add(UNTAKEN)
    return roles, pending


UNTAKEN = -1  # in pair_roles' pending set: the pair has a blind item nobody has taken


def _refusal(item: WorkItem, expert_id: int, roles, pending: set[int], shared: bool) -> str:
    return blindness.refusal(
        item.kind,
        expert_id,
        item.claim_id,
        roles,
        pending - {UNTAKEN},
        shared=shared,
        blind_untaken=UNTAKEN in pending,
    )


def refusal_for(item: WorkItem, expert_id: int) -> str:
    """Why the blindness rule keeps `expert_id` from `item` ("" if it does not)."""
    if not item.pair_id:
        return ""
    roles, pending = pair_roles([item.pair_id])
    shared = Subfield.objects.filter(code=item.subfield_code, shared_second_annotator=True).exists()
    return _refusal(item, expert_id, roles[item.pair_id], pending[item.pair_id], shared)


def _handed_back() -> dict[str, Any]:
    """What changes when an item goes back to the queue: a new place in the shuffle (it comes
    round at a new place in every expert's walk, not first again for whoever passed it)."""
    return {"shuffle_key": draw_shuffle_key()}


def _lease_fields(now: dt.datetime) -> dict[str, Any]:
    return {"leased_at": now, "lease_expires_at": now + lease_duration()}


Order = Sequence[str | BaseExpression]
# One walk of a lease through the open items: the items it may take (beyond `_may_take`), in
# which order. A queue order is the walks tried one after the other (the first that finds an
# item wins); each is `LIMIT 1` over an index that holds its order, so a walk reads the items
# it passes over (ones the rules keep from the expert), not the queue.
Walk = tuple[Q, Order]


def _lease_candidate(user_id: int, now: dt.datetime, kind: str, order: Callable) -> tuple:
    """One statement: the expert's own leased item if any (its oldest lease), else a free one:
    one whose lease ran out (the earliest to run out), else the first open one that the walks of
    `order(expert)` find. Each candidate is a `LIMIT 1` sub-select, tried in turn (COALESCE:
    a later one runs only when the ones before found nothing). PostgreSQL locks the free one
    with SKIP LOCKED inside its sub-select, so concurrent leases pass each other; SQLite holds
    the immediate transaction's write lock."""
    user = _Someone(user_id)
    skip_locked = connection.features.has_select_for_update_skip_locked
    held = WorkItem.objects.filter(
        _live_paper(), kind=kind, status=WorkStatus.LEASED, holder_id=user_id
    ).order_by("leased_at", "id")
    if skip_locked:
        held = held.select_for_update(of=("self",))
    may_take = _may_take(user, kind)
    expired = WorkItem.objects.filter(
        may_take, status=WorkStatus.LEASED, lease_expires_at__lte=now
    ).order_by("lease_expires_at", "id")
    free = [expired] + [
        WorkItem.objects.filter(may_take, where, status=WorkStatus.OPEN).order_by(*by)
        for where, by in order(user)
    ]
    if skip_locked:
        free = [q.select_for_update(skip_locked=True, of=("self",)) for q in free]
    candidates = [Subquery(q.values("pk")[:1]) for q in [held, *free]]
    # `id = COALESCE(…)`: an index probe, not a scan of every item.
    return (
        WorkItem.objects.filter(pk=Coalesce(*candidates, output_field=BigIntegerField()))
        .order_by()
        .query.sql_with_params()
    )


def _oldest_first(user: object) -> list[Walk]:
    """The oldest open item first (the index on kind, status and created_at holds the order)."""
    return [(Q(), ("created_at", "id"))]


def shuffle_start(user: object) -> BaseExpression:
    """Where the expert's walk through the shuffled queue starts: a point of the key space of
    their own (Knuth's multiplicative hash of their id, in SQL so that a stored statement fills
    in only the id), so two experts start far apart and rarely reach for the same item."""

    def big(n: int) -> Value:  # bound as a 64-bit integer (PostgreSQL binds on the server)
        return Value(n, output_field=BigIntegerField())

    expert = Cast(Value(user.pk), BigIntegerField())
    hashed = (expert * big(_KNUTH)).bitand(big(2**32 - 1))
    return ExpressionWrapper(
        hashed * big(2 ** (SHUFFLE_KEY_BITS - 32)), output_field=BigIntegerField()
    )


_KNUTH = 2654435761  # ⌊2³² / φ⌋: consecutive ids land far apart


def shuffled(user: object) -> list[Walk]:
    """The expert's own shuffle of the open items: those assigned to them by name first (nobody
    else may take them), then the rest from the expert's starting point up the item's random
    key, wrapping round to the lowest keys. An item handed back draws a new key, so it comes
    round at a new place."""
    start = shuffle_start(user)
    return [
        (Q(assignee_id=user.pk), ("shuffle_key",)),  # its own index, from the assignee
        (Q(shuffle_key__gte=start), ("shuffle_key",)),
        (Q(shuffle_key__lt=start), ("shuffle_key",)),
    ]


def _order_key(order: Callable[[object], list[Walk]]) -> str:
    """A stored statement's name for an order: the function's own name (a partial's function
    and arguments), so two orders can never share one statement. A lambda has no name that
    tells two apart: it is refused."""
    if isinstance(order, functools.partial):
        return f"{_order_key(order.func)}{order.args!r}{sorted(order.keywords.items())!r}"
    name = f"{order.__module__}.{order.__qualname__}"
    if "<lambda>" in name or "<locals>" in name:
        raise TypeError(
            f"next_item's order must be a module-level function or a partial of one: {name}"
        )
    return name


@transaction.atomic
def next_item(
    *,
    user: AbstractBaseUser,
    kind: str,
    order: Callable[[object], list[Walk]] = _oldest_first,
    on_lease: Callable[[WorkItem], None] | None = None,
) -> WorkItem:
    """The item the expert works on next: the one they hold, else a free one they may take: one
    whose lease ran out, else the first open one in `order(expert)`'s walks (default: the
    oldest; `shuffled`: the expert's own shuffle), leased to them. Two
    experts asking at once never get the same item. `on_lease(item)` runs in the same
    transaction (e.g. recording the role)."""
    now = timezone.now()
    sql, params = statements.statement(
        f"lease {kind} by {_order_key(order)}",
        lambda user_id, at: _lease_candidate(user_id, at, kind, order),
        user.pk,
        now,
    )
    # Read under lock, so `move` need not read the row again.
    columns, rows = statements.execute(sql, params)
    item = statements.instance(WorkItem, columns, rows[0]) if rows else None
    if item is None:
        raise NothingToDo("Nothing to do for you right now: no free items you may take.")
    if item.held_by(user):
        if item.lease_expires_at <= now:  # nobody took it meanwhile: the lease is renewed
            item.lease_expires_at = now + lease_duration()
            item.save(update_fields=["lease_expires_at"])
            record(
                item,
                WorkAction.LEASE_RENEWED,
                actor=user,
                new={"lease_expires_at": item.lease_expires_at.isoformat()},
            )
        if on_lease is not None:
            on_lease(item)
        return item
    previous_holder = item.holder_id
    state = (item.status, item.version)
    if item.status == WorkStatus.LEASED:
        lifecycle.move(
            item,
            WorkStatus.OPEN,
            actor=None,
            action=WorkAction.LEASE_EXPIRED,
            changes={"holder": None, "lease_expires_at": None, **_handed_back()},
            old={"holder": previous_holder, "lease_expires_at": item.lease_expires_at.isoformat()},
            note="the draft is kept",
            locked=state,
        )
        state = (item.status, item.version)
    lease = _lease_fields(now)
    lifecycle.move(
        item,
        WorkStatus.LEASED,
        actor=user,
        action=WorkAction.CLAIMED,
        changes={"holder": user, **lease},
        old={"holder": previous_holder},
        new={
            "holder": user.pk,
            "version": item.version + 1,
            "lease_expires_at": lease["lease_expires_at"].isoformat(),
        },
        locked=state,
    )
    if on_lease is not None:
        on_lease(item)
    return item


def _lock(
    where: Mapping[str, Any],
    related: Sequence[str] = (),
    lock: Sequence[str] = ("self",),
    annotate: Callable[[], Mapping[str, Any]] | None = None,
    name: str | None = None,
) -> WorkItem:
    """The item `where` names (one lookup: its id or its key), locked with the `lock` rows, with
    the `related` rows joined and `annotate()`'s values. Read through a stored statement
    (`statements.read_one`) when the read is plain or the caller names its shape; `NotHolder`
    for an item that does not exist."""
    ((field, value),) = where.items()

    def build(looked_up: object) -> QuerySet[WorkItem]:
        rows = WorkItem.objects.select_for_update(of=tuple(lock)).select_related(*related)
        # A row locked with the item is joined INNER (PostgreSQL locks no outer join's side).
        rows = rows.filter(**{f"{joined}__isnull": False for joined in lock if joined != "self"})
        if annotate is not None:
            rows = rows.annotate(**annotate())
        return rows.filter(**{field: looked_up}).order_by()

    plain = not related and tuple(lock) == ("self",) and annotate is None
    if name is None and plain:
        name = "lock an item"
    if name is None:
        item = build(value).first()
    else:
        item = statements.read_one(f"{name} (by {field})", WorkItem, build, value)
    if item is None:
        raise NotHolder("This item does not exist.")
    return cast(WorkItem, item)


def check_holder(item: WorkItem, user: AbstractBaseUser, version: int | None) -> None:
    """Refuse a write from a page opened before the item's last state change, or by someone
    who does not hold it."""
    if item.status == WorkStatus.DONE:
        raise StaleWork(
            "This item was already submitted"
            + (" by you" if item.done_by_id == user.pk else "")
            + ". Nothing was overwritten; your text stays in this browser's draft.",
            reason="submitted",
        )
    if item.status == WorkStatus.CANCELLED:
        raise NotHolder(
            "This item was cancelled (its pair was dropped, or its claim replaced): nothing was "
            "recorded.",
            reason="cancelled",
        )
    if version is not None and version != item.version:
        raise StaleWork(
            "This item changed since you opened the page (it was handed out again). Nothing was "
            "overwritten; reload to continue — your text stays in this browser's draft."
        )
    if not item.held_by(user):
        raise NotHolder("You do not hold this item; press Next to take one.")


@transaction.atomic
def save_draft(
    *, item: WorkItem, user: AbstractBaseUser, version: int | None, draft: dict[str, Any]
) -> WorkItem:
    """Keep the holder's unfinished work on the item (it survives reloads, expired leases and
    other browsers) and renew the lease. Drafts are not state changes: no history row."""
    item = _lock({"pk": item.pk})
    check_holder(item, user, version)
    now = timezone.now()
    item.draft = draft
    item.draft_saved_at = now
    item.lease_expires_at = now + lease_duration()
    item.save(update_fields=["draft", "draft_saved_at", "lease_expires_at"])
    return item


@transaction.atomic
def release_item(*, item: WorkItem, user: AbstractBaseUser, version: int | None) -> WorkItem:
    """Hand a held item back: it is open again for anyone who may take it (the holder too, with
    "next"), with its draft kept on it, and a history row saying who released it."""
    item = _lock({"pk": item.pk})
    check_holder(item, user, version)
    old = {"holder": item.holder_id, "lease_expires_at": item.lease_expires_at.isoformat()}
    lifecycle.move(
        item,
        WorkStatus.OPEN,
        actor=user,
        action=WorkAction.RELEASED,
        changes={"holder": None, "lease_expires_at": None, **_handed_back()},
        old=old,
        new={"holder": None, "version": item.version + 1},
        note="handed back; the draft is kept",
    )
    return item


def begin_submission(
    *,
    item: WorkItem | None = None,
    key: str | None = None,
    user: AbstractBaseUser,
    version: int | None,
    token: uuid.UUID,
    related: Sequence[str] = (),
    lock: Sequence[str] = ("self",),
    annotate: Callable[[], Mapping[str, Any]] | None = None,
    name: str | None = None,
) -> tuple[WorkItem, bool]:
    """Lock the item for a submission (call inside a transaction), with the `related` rows the
    submission reads (joined; locked too where named in `lock`, e.g. "claim__review") and any
    `annotate()` expressions, in one statement (stored once compiled, when `name` names its
    shape: one shape per name, see `statements.read_one`). The item is `item`, or the one named by `key` (a
    view that has not read it: a key that names none is refused as `NotHolder`). Returns
    (item, replay): replay is true when this very submission (same token, same person) was
    already recorded; anyone else's is refused as the holder check refuses it."""
    where = {"pk": item.pk} if item is not None else {"key": key}
    item = _lock(where, related, lock, annotate, name)
    if item.submit_token == token and item.done_by_id == user.pk:  # only one's own is replayed
        return item, True
    check_holder(item, user, version)
    return item, False


def finish_submission(
    item: WorkItem,
    *,
    user: AbstractBaseUser,
    token: uuid.UUID,
    pair: ClaimPair | None,
    old: dict[str, Any] | None = None,
    new: dict[str, Any],
) -> WorkItem:
    """Mark an item locked by `begin_submission` done with what was submitted, and write its
    history row."""
    changes: dict[str, Any] = {
        "done_by": user,
        "done_at": timezone.now(),
        "submit_token": token,
        "lease_expires_at": None,
    }
    if pair is not None:
        changes["pair"] = pair
    return lifecycle.move(
        item,
        WorkStatus.DONE,
        actor=user,
        action=WorkAction.SUBMITTED,
        changes=changes,
        old=old,
        new=new,
        locked=(item.status, item.version),
    )


def cancel_items(items: QuerySet[WorkItem], *, actor: AbstractBaseUser | None, note: str) -> int:
    """Cancel the open or leased ones of `items` (inside the caller's transaction), each with
    its history row; a page opened on one is then refused. Returns how many."""
    cancelled = 0
    for item in items.select_for_update().filter(status__in=[WorkStatus.OPEN, WorkStatus.LEASED]):
        lifecycle.move(
            item,
            WorkStatus.CANCELLED,
            actor=actor,
            action=WorkAction.CANCELLED,
            changes={"lease_expires_at": None},
            note=note,
        )
        cancelled += 1
    return cancelled


def create_item(
    *, kind: str, paper_id: int, subfield_code: str, actor: AbstractBaseUser | None, **links: Any
) -> WorkItem:
    """A new open item (inside the caller's transaction), with its 'created' history row."""
    item = WorkItem.objects.create(
        kind=kind, paper_id=paper_id, subfield_code=subfield_code, **links
    )
    lifecycle.opened(
        item,
        actor=actor,
        action=WorkAction.CREATED,
        new={"kind": kind, "assignee": item.assignee_id, "subfield": subfield_code},
    )
    return item


def assign(
    item: WorkItem,
    expert_id: int,
    *,
    actor: AbstractBaseUser | None,
    action: str = WorkAction.ASSIGNED,
    note: str = "",
    new: dict[str, Any] | None = None,
) -> WorkItem:
    """Name the only expert who may take an item (a page opened on it before is refused)."""
    return lifecycle.change(
        item,
        actor=actor,
        action=action,
        changes={"assignee_id": expert_id},
        old={"assignee": item.assignee_id},
        new=new or {"assignee": expert_id},
        note=note,
    )


@transaction.atomic
def reassign(
    item: WorkItem,
    expert: AbstractBaseUser,
    *,
    by: AbstractBaseUser,
    kinds: Collection[str],
    wrong_kind: str,
    admit: Callable[[WorkItem, ExpertProfile], dict[str, Any] | None],
    note: str = "",
) -> WorkItem:
    """An admin hands a waiting item to `expert` by name, recorded as an override: the one
    path for it at every stage (an admin's `allow_expert` in review and validation, the
    new-perturbation hand-over). Refused, in this order, unless `by` is staff; the item (read
    under lock) is one of `kinds` (else the refusal says `wrong_kind`); it is waiting (open, or
    leased with its lease run out); the expert is an active user with an active expert
    profile. Then `admit(item, profile)`, the stage's own rule, refuses with an
    AnnotationError, may record what taking the item makes the expert (a writer role), and
    returns what else the history row says of them (or None). The note is stripped."""
    access.require_staff(by)
    item = WorkItem.objects.select_for_update().get(pk=item.pk)
    if item.kind not in kinds:
        raise AnnotationError(wrong_kind)
    if item.status not in (WorkStatus.OPEN, WorkStatus.LEASED) or item.lease_live(timezone.now()):
        raise InvalidTransition("This item is not waiting (it is taken, done or cancelled).")
    profile = ExpertProfile.objects.filter(
        user_id=expert.pk, active=True, user__is_active=True
    ).first()
    if profile is None:
        raise AnnotationError(f"{expert.get_username()} has no active expert profile.")
    said = admit(item, profile) or {}
    return assign(
        item,
        expert.pk,
        actor=by,
        action=WorkAction.OVERRIDE,
        note=note.strip(),
        new={"assignee": expert.pk, **said},
    )


# --- Who may open an item ------------------------------------------------------------------


def lost_reason(item: WorkItem, user: AbstractBaseUser) -> str | None:
    """Why `user`, who does not hold `item` now, may not work on it; None when they never held
    it nor were named for it (the caller answers exactly as for an item that does not exist, so
    nothing follows from which neighbouring items exist). The reason names what happened to
    their hold, never anything about the claim."""
    found = lost(item, user)
    return found[1] if found else None


def lost(item: WorkItem, user: AbstractBaseUser) -> tuple[str, str] | None:
    """`lost_reason` with its code for a page's script: (reason, message), the reason one of
    "waiting", "submitted" (by them, or by someone else after their lease ran out),
    "cancelled", "handed_on", "released", "lease_expired" or "not_holder"."""
    if item.assignee_id == user.pk and item.status in (WorkStatus.OPEN, WorkStatus.LEASED):
        return "waiting", "This item is waiting for you: press Next on your workspace to take it."
    events = list(
        WorkEvent.objects.filter(item_id=item.pk)
        .order_by("at", "id")
        .values_list("action", "actor_id")
    )
    claimed = [
        i
        for i, (action, actor) in enumerate(events)
        if action == WorkAction.CLAIMED and actor == user.pk
    ]
    if not claimed and item.done_by_id != user.pk:
        return None
    after = [action for action, _ in events[claimed[-1] + 1 :]] if claimed else []
    if item.status == WorkStatus.CANCELLED:
        return (
            "cancelled",
            "You no longer hold this item: it was withdrawn. Press Next to take other work.",
        )
    if item.status == WorkStatus.DONE and item.done_by_id == user.pk:
        return "submitted", "You submitted this item already, in another tab or browser."
    if WorkAction.OVERRIDE in after or WorkAction.ASSIGNED in after:
        return "handed_on", "You no longer hold this item: an admin handed it to someone else."
    if WorkAction.RELEASED in after:
        return "released", "You handed this item back. Press Next to take work."
    if WorkAction.LEASE_EXPIRED in after or item.status == WorkStatus.OPEN:
        if item.status == WorkStatus.DONE:
            return (
                "submitted",
                "You no longer hold this item: your lease ran out and someone else submitted it.",
            )
        return (
            "lease_expired",
            "You no longer hold this item: your lease ran out. Press Next to take work.",
        )
    return "not_holder", "You no longer hold this item. Press Next to take work."


# --- Queries -------------------------------------------------------------------------------


OVERRIDE_ACTION = WorkAction.OVERRIDE


@dataclass
class WaitingItem:
    item: WorkItem
    reason: str


def waiting_items(kind: str | None = None, limit: int = 50) -> tuple[int, list[WaitingItem]]:
    """Free items that no eligible expert can take, with the reason (a fixed number of queries:
    one per subfield in use). Returns the total and the first `limit`."""
    now = timezone.now()
    free = WorkItem.objects.filter(
        Q(status=WorkStatus.OPEN) | Q(status=WorkStatus.LEASED, lease_expires_at__lte=now),
        paper__archived_at__isnull=True,
    ).select_related("paper", "assignee")
    if kind:
        free = free.filter(kind=kind)
    items = list(
        free.only(
            "id",
            "key",
            "kind",
            "status",
            "subfield_code",
            "pair_id",
            "claim_id",
            "created_at",
            "paper__arxiv_id",
            "paper__version",
            "assignee__username",
            "assignee__is_active",
        ).order_by("created_at", "id")
    )
    codes = sorted({i.subfield_code for i in items})
    eligible = {
        code: {u.pk: u.get_username() for u in expert_selectors.eligible_experts(code)}
        for code in codes
    }
    roles, pending = pair_roles(i.pair_id for i in items)
    shared = set(
        Subfield.objects.filter(shared_second_annotator=True).values_list("code", flat=True)
    )
    overridden = set(
        WorkEvent.objects.filter(
            item_id__in=[i.pk for i in items if i.assignee_id], action=OVERRIDE_ACTION
        ).values_list("item_id", "new__assignee")
    )
    waiting = []
    for item in items:
        people = eligible[item.subfield_code]
        if (item.pk, item.assignee_id) in overridden:
            continue  # an admin allowed this expert of another subfield for it
        if item.assignee_id is not None:
            if item.assignee_id not in people:
                waiting.append(
                    WaitingItem(
                        item,
                        f"assigned to {item.assignee.get_username()}, "
                        f"who is not (or no longer) eligible for {item.subfield_code}",
                    )
                )
            continue
        if not people:
            waiting.append(WaitingItem(item, f"nobody is eligible for {item.subfield_code}"))
            continue
        if not item.pair_id:
            continue
        why = {
            e: _refusal(
                item, e, roles[item.pair_id], pending[item.pair_id], item.subfield_code in shared
            )
            for e in people
        }
        if all(why.values()):
            names = "; ".join(f"{people[e]} {why[e]}" for e in sorted(people, key=people.get))
            waiting.append(
                WaitingItem(item, f"nobody eligible for {item.subfield_code} may take it ({names})")
            )
    return len(waiting), waiting[:limit]


def status_counts(kind: str) -> dict[str, int]:
    now = timezone.now()
    live = WorkItem.objects.filter(kind=kind, paper__archived_at__isnull=True)
    rows = live.values("status").annotate(n=Count("id"))
    counts = {s: 0 for s in WorkStatus.values} | {r["status"]: r["n"] for r in rows}
    counts["expired"] = live.filter(status=WorkStatus.LEASED, lease_expires_at__lte=now).count()
    return counts
