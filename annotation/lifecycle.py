"""The workflow's state machines, in one place: every state change of a work item, a claim's
review, a validation and a claim pair is `move()`, which locks the row, checks the model's
declared `TRANSITIONS`, saves, bumps `version` and writes one audit event (`WorkEvent`) in one
transaction (its `old` and `new` must fit the action's shape, `annotation.events`); then it
hands the work on that the new state makes due (`on_enter`).

A model takes part by declaring `MACHINE` (its `WorkEvent.Machine` value), `STATE_FIELD`,
`TRANSITIONS` (state → the states it may become), a `version` field and `audit_subjects()` (the
item, claim and pair an event about it names). Later stages register what becomes due when an
earlier stage's row enters a state (validation: a claim that becomes final is validated), so
that this stage never imports them and the handoff still happens in the same transaction.
A handoff that is an event rather than a state (a pair written, a claim replaced) goes the same
way: the earlier stage calls `hand_on(event, …)`, the later one registers `on_handoff(event, …)`;
both kinds of handoff are kept in one registry, by the moment they become due.
A later stage that only keeps a value on the row (guidelines: the version an item was done
under) registers `on_enter_set` instead: `move()` writes that value in the UPDATE it runs
anyway, one statement less than a handler writing it, on every change into the state.
"""

from __future__ import annotations

import contextlib
import functools
import threading
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Any, TypeVar

from django.contrib.auth.models import AbstractBaseUser
from django.db import models, transaction

from annotation import events
from annotation.errors import InvalidTransition
from annotation.models import WorkAction, WorkEvent, WorkItem

M = TypeVar("M", bound=models.Model)
Handler = Callable[..., None]
Provider = Callable[[models.Model], Mapping[str, Any]]

# What a later stage takes on, by the moment it becomes due: an event (`hand_on`) or a row
# entering a state (`move()`, keyed (model, state)). One registry for both kinds of handoff.
_handlers: dict[object, list[Handler]] = defaultdict(list)
_on_enter_set: dict[tuple[type[models.Model], str], list[Provider]] = defaultdict(list)
_batch = threading.local()  # `.events`: the events `batched()` holds back, in order

# Handoffs that are events, not states: what the writing stage hands to blind review.
PAIR_WRITTEN = "pair written"  # the pair: both claims go to blind second annotation
CLAIM_REPLACED = "claim replaced"  # a new perturbation: it goes to blind second annotation


def _register(moment: object, handler: Handler) -> None:
    if handler not in _handlers[moment]:
        _handlers[moment].append(handler)


def on_handoff(event: str, handler: Handler) -> None:
    """Register the stage that takes the work on when `event` happens (once, at start-up):
    `handler(obj, actor=…)`, called in the transaction of whoever hands it on."""
    _register(event, handler)


def hand_on(event: str, obj: models.Model, *, actor: AbstractBaseUser | None) -> None:
    """Hand `obj` to the stage registered for `event`, in the caller's transaction. No stage
    registered is a wiring fault, refused loudly: the work would otherwise wait unseen."""
    handlers = _handlers.get(event)
    if not handlers:
        raise RuntimeError(f"No stage takes {event!r} on: its app registers it in ready().")
    for handler in handlers:
        handler(obj, actor=actor)


@contextlib.contextmanager
def batched() -> Iterator[None]:
    """Inside a transaction, write the events of the block in one INSERT when it ends (a
    submission that finishes an item, compares and opens the next stage: four events, one
    statement). Nothing inside may read the history it writes; an error drops them with the
    transaction. Nested blocks join the outer one."""
    if getattr(_batch, "events", None) is not None:
        yield
        return
    if not transaction.get_connection().in_atomic_block:
        raise RuntimeError("lifecycle.batched() must run inside a transaction")
    _batch.events = []
    try:
        yield
        events, _batch.events = _batch.events, None
        WorkEvent.objects.bulk_create(events)
    finally:
        _batch.events = None


def on_enter(model: type[models.Model], states: Iterable[str], handler: Handler) -> None:
    """Call `handler(obj, actor=…)` inside `move()`'s transaction whenever a `model` row enters
    one of `states` (registered once, at start-up, by the stage the work is handed to)."""
    for state in states:
        _register((model, str(state)), handler)


def on_enter_set(model: type[models.Model], states: Iterable[str], provider: Provider) -> None:
    """Have `move()` write `provider(obj)` (field attnames to values, e.g. `guideline_id`) in
    the same UPDATE as the state whenever a `model` row enters one of `states` (registered once,
    at start-up, by the stage that owns the value). A value may be a query expression, so the
    database computes it in that statement: a handler that wrote it would cost one more."""
    for state in states:
        if provider not in _on_enter_set[(model, str(state))]:
            _on_enter_set[(model, str(state))].append(provider)


def _label(model: type[models.Model], state: str) -> str:
    field = model._meta.get_field(model.STATE_FIELD)
    return str(dict(field.flatchoices).get(state, state or "new"))


def can_move(model: type[models.Model], current: str, to: str) -> bool:
    return str(to) in {str(s) for s in model.TRANSITIONS.get(current, ())}


def _event(
    obj: models.Model,
    *,
    action: str,
    actor: AbstractBaseUser | None,
    from_status: str = "",
    to_status: str = "",
    old: Mapping[str, Any] | None = None,
    new: Mapping[str, Any] | None = None,
    note: str = "",
    item: WorkItem | None = None,
) -> WorkEvent:
    old, new = dict(old or {}), dict(new or {})
    events.check(action, old, new)  # a payload that does not fit its action is never written
    subjects = obj.audit_subjects()
    if item is not None:
        subjects["item_id"] = item.pk
    event = WorkEvent(
        machine=type(obj).MACHINE,
        action=WorkAction(action),
        from_status=str(from_status),
        to_status=str(to_status),
        actor=actor,
        old=old,
        new=new,
        note=note,
        **subjects,
    )
    pending = getattr(_batch, "events", None)
    if pending is not None:
        pending.append(event)
    else:
        event.save(force_insert=True)
    return event


def _save(obj: models.Model, fields: Iterable[str]) -> None:
    names = set(fields)
    names |= {
        f.name for f in obj._meta.concrete_fields if getattr(f, "auto_now", False)
    }  # e.g. updated_at
    obj.save(update_fields=sorted(names))


def _forget_computed(obj: models.Model, values: Mapping[str, Any]) -> None:
    """Drop from `obj` the values the database computed in the save (query expressions): left
    there, a read would get the expression, not the value; gone, the field is deferred and a
    read loads it from the row (the ORM's deferred-field path)."""
    for name, value in values.items():
        if hasattr(value, "resolve_expression"):
            obj.__dict__.pop(obj._meta.get_field(name).attname, None)


def _in_transaction(fn: Callable[..., M]) -> Callable[..., M]:
    """Run `fn` in the caller's transaction, or in a new one if there is none: no savepoint of
    its own (two round trips on the hot path). A refusal is raised before anything is written,
    so a caller may catch it and go on; any later error fails the caller's transaction."""

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> M:
        if transaction.get_connection().in_atomic_block:
            return fn(*args, **kwargs)
        with transaction.atomic():
            return fn(*args, **kwargs)

    return wrapper


@_in_transaction
def move(
    obj: M,
    to: str,
    *,
    actor: AbstractBaseUser | None,
    action: str,
    changes: Mapping[str, Any] | None = None,
    old: Mapping[str, Any] | None = None,
    new: Mapping[str, Any] | None = None,
    note: str = "",
    item: WorkItem | None = None,
    refusal: str = "",
    locked: tuple[str, int] | None = None,
) -> M:
    """Move `obj` to state `to` (with the other field `changes` that go with it, and the values
    later stages set on entering it: `on_enter_set`), or raise InvalidTransition (`refusal` is
    the message for the person, else a generic one). The state checked is the locked row's, not
    the possibly stale one in memory: `locked` is its state and version when the caller read the
    row under lock in this same transaction (one query less)."""
    model = type(obj)
    field = model.STATE_FIELD
    if locked is not None:
        current, version = locked
    else:
        current, version = (
            model.objects.select_for_update().filter(pk=obj.pk).values_list(field, "version").get()
        )
    if not can_move(model, current, to):
        raise InvalidTransition(
            refusal
            or f"This {model._meta.verbose_name} is {_label(model, current)}: it cannot become "
            f"{_label(model, to)}."
        )
    changes = dict(changes or {})
    for provider in _on_enter_set.get((model, str(to)), ()):
        changes.update(provider(obj))
    setattr(obj, field, to)
    obj.version = version + 1
    for name, value in changes.items():
        setattr(obj, name, value)
    _save(obj, [field, "version", *changes])
    _forget_computed(obj, changes)
    _event(
        obj,
        action=action,
        actor=actor,
        from_status=current,
        to_status=to,
        old=old,
        new=new,
        note=note,
        item=item,
    )
    for handler in _handlers.get((model, str(to)), ()):
        handler(obj, actor=actor)
    return obj


@_in_transaction
def change(
    obj: M,
    *,
    actor: AbstractBaseUser | None,
    action: str,
    changes: Mapping[str, Any],
    old: Mapping[str, Any] | None = None,
    new: Mapping[str, Any] | None = None,
    note: str = "",
) -> M:
    """A change that is not a move but that a page opened before it must not overwrite (e.g.
    naming who may take an item): saved, `version` bumped, one event (from and to the current
    state)."""
    model = type(obj)
    field = model.STATE_FIELD
    current, version = (
        model.objects.select_for_update().filter(pk=obj.pk).values_list(field, "version").get()
    )
    setattr(obj, field, current)
    obj.version = version + 1
    for name, value in changes.items():
        setattr(obj, name, value)
    _save(obj, ["version", *changes])
    _forget_computed(obj, changes)
    _event(
        obj,
        action=action,
        actor=actor,
        from_status=current,
        to_status=current,
        old=old,
        new=new,
        note=note,
    )
    return obj


def opened(
    obj: models.Model,
    *,
    actor: AbstractBaseUser | None,
    action: str = WorkAction.CREATED,
    new: Mapping[str, Any] | None = None,
    note: str = "",
    item: WorkItem | None = None,
) -> WorkEvent:
    """The first event of a row just created in its initial state (call in its transaction)."""
    state = getattr(obj, type(obj).STATE_FIELD)
    return _event(obj, action=action, actor=actor, to_status=state, new=new, note=note, item=item)


def record(
    obj: models.Model,
    *,
    actor: AbstractBaseUser | None,
    action: str,
    old: Mapping[str, Any] | None = None,
    new: Mapping[str, Any] | None = None,
    note: str = "",
    item: WorkItem | None = None,
) -> WorkEvent:
    """An event that changes no state (a lease renewed, a pair flagged): from and to the
    current state (call in the transaction of what it records)."""
    state = getattr(obj, type(obj).STATE_FIELD)
    return _event(
        obj,
        action=action,
        actor=actor,
        from_status=state,
        to_status=state,
        old=old,
        new=new,
        note=note,
        item=item,
    )
