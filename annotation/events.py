"""The shapes of the audit log's payloads: each action (`WorkAction`) declares what its event's
`old` and `new` may hold, key by key with its type, as a TypedDict. `annotation.lifecycle`
writes only payloads that fit their action's shape (`check`, refusing the others when they
are written), and the pages that read the history read through the shapes (`read`), so a key
is named in one place.

Each shape lists every key the action's writers put there (all optional: an action shared by
several stages, such as `submitted`, carries each stage's own fields); a key not listed, or a
value of another type, is refused. Values are as JSON keeps them: ids are ints, times ISO
strings, lists lists, and a dict's keys strings once stored.
"""

from __future__ import annotations

import functools
import types
import typing
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, TypedDict, TypeVar

from annotation.models.work import WorkAction, WorkEvent


class Empty(TypedDict, total=False):
    """Nothing: the action says all it has to say with its from/to states and note."""


class Assignee(TypedDict, total=False):
    """Who alone may take an item (None: any eligible expert)."""

    assignee: int | None


class Override(TypedDict, total=False):
    """An admin's hand-over: the expert named, and their subfields where a stage says them."""

    assignee: int
    expert_subfields: list[str]


class Created(TypedDict, total=False):
    """A work item created (its kind, assignee and subfield) or a pair written (its subset and
    subfield)."""

    kind: str
    assignee: int | None
    subfield: str
    subset: str


class ValidationItem(TypedDict, total=False):
    """The work item a validation is handed out with (before and after it was opened again)."""

    item: int | None


class Holder(TypedDict, total=False):
    """An item's holder and lease, as a lease starts, ends or is renewed."""

    holder: int | None
    version: int
    lease_expires_at: str


class WrittenClaim(TypedDict, total=False):
    """A claim as its writer submitted it."""

    text: str
    evidence: list[int]
    perturbation_kind: str
    suggestion: str
    explanation: str


class PerturbationRecord(TypedDict, total=False):
    """A refuted claim replaced by a new perturbation, or the one that replaces it."""

    claim: int
    text: str
    evidence: list[int]
    perturbation_kind: str
    suggestion: str
    explanation: str


class Revisable(TypedDict, total=False):
    """The fields a validator may revise (`validation.rules.FIELDS`) and the verdict."""

    text: str
    subset: str
    label: str
    evidence: list[int]
    explanation: str
    criteria_failed: list[str]
    outcome: str


class Answer(Revisable, total=False):
    """A second annotation's or an adjudication's answer, as an edit of it changes it."""

    confidence: str
    reason: str
    notes: str
    overrides_both: bool
    final_label: str


class SubmittedOld(Revisable, total=False):
    """What an item held before its submission: the draft, the review's state (adjudication),
    the claim replaced (new perturbation) and the fields a validator revised."""

    draft: dict[str, Any]
    state: str
    refuted: PerturbationRecord


class SubmittedNew(Answer, total=False):
    """What a submission recorded, by stage: a pair (subset, entailed, refuted, reference
    note), a second annotation (label, evidence), an adjudication (decision, label, evidence,
    confidence, reason, notes, overrides_both, state), a new perturbation (claim, text,
    evidence, kind, suggestion, explanation), a validation (the fields changed, criteria
    failed, outcome) and a human baseline's answer (label, explanation)."""

    entailed: WrittenClaim
    refuted: WrittenClaim
    reference_note: str
    decision: str
    state: str
    claim: int
    perturbation_kind: str
    suggestion: str


class Compared(TypedDict, total=False):
    """A second annotation compared with the writer's: the disagreement, the evidence's
    Jaccard score and threshold, and who broke the evidence rule (writer, second annotator)."""

    disagreement: str
    jaccard: float
    threshold: float
    evidence_rule: dict[str, str]


class Adjudicated(TypedDict, total=False):
    decision: str
    label: str


class Validated(TypedDict, total=False):
    outcome: str
    criteria_failed: list[str]


class SentBack(TypedDict, total=False):
    """A pair sent back to its writer: the claim found true, its final label, the writer."""

    claim: int
    final_label: str
    writer: int | None


class PairDropped(TypedDict, total=False):
    """The review states of the pair's claims when it was dropped, by claim id."""

    states: dict[str, str]


@dataclass(frozen=True)
class Shape:
    """What an action's event may hold in `old` and in `new`."""

    old: type
    new: type


SHAPES: dict[str, Shape] = {
    WorkAction.CREATED: Shape(Empty, Created),
    WorkAction.OPENED: Shape(ValidationItem, ValidationItem),
    WorkAction.CLAIMED: Shape(Holder, Holder),
    WorkAction.LEASE_RENEWED: Shape(Empty, Holder),
    WorkAction.LEASE_EXPIRED: Shape(Holder, Empty),
    WorkAction.RELEASED: Shape(Holder, Holder),
    WorkAction.SUBMITTED: Shape(SubmittedOld, SubmittedNew),
    WorkAction.CANCELLED: Shape(Empty, Empty),
    WorkAction.OVERRIDE: Shape(Assignee, Override),
    WorkAction.FLAGGED: Shape(Empty, Assignee),
    WorkAction.ASSIGNED: Shape(Assignee, Assignee),
    WorkAction.ASSIGNED_TO_ADJUDICATOR: Shape(Assignee, Assignee),
    WorkAction.COMPARED: Shape(Empty, Compared),
    WorkAction.ADJUDICATED: Shape(Empty, Adjudicated),
    WorkAction.REOPENED: Shape(ValidationItem, ValidationItem),
    WorkAction.VALIDATED: Shape(Empty, Validated),
    WorkAction.SENT_BACK: Shape(Empty, SentBack),
    WorkAction.PERTURBATION_REPLACED: Shape(PerturbationRecord, PerturbationRecord),
    WorkAction.REPERTURB_WITHDRAWN: Shape(Empty, Empty),
    WorkAction.PAIR_DROPPED: Shape(PairDropped, Empty),
    WorkAction.ANSWER_EDITED: Shape(Answer, Answer),
}

T = TypeVar("T")


class PayloadError(ValueError):
    """An event's payload that does not fit its action's shape (a wiring fault: refused when
    written, nothing is saved)."""


@functools.cache
def _fields(shape: type) -> dict[str, Any]:
    return typing.get_type_hints(shape)


def _fits(value: Any, hint: Any) -> bool:
    """Whether a JSON value fits a type hint (the few kinds the shapes use)."""
    if hint is Any:
        return True
    if hint is type(None):
        return value is None
    if typing.is_typeddict(hint):
        return isinstance(value, Mapping) and not problems(hint, value)
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin in (typing.Union, types.UnionType):
        return any(_fits(value, arg) for arg in args)
    if origin is list:
        return isinstance(value, list | tuple) and all(_fits(v, args[0]) for v in value)
    if origin is dict:
        return isinstance(value, Mapping) and all(_fits(v, args[1]) for v in value.values())
    if hint is bool:
        return isinstance(value, bool)
    if hint is int:
        return isinstance(value, int) and not isinstance(value, bool)
    if hint is float:
        return isinstance(value, int | float) and not isinstance(value, bool)
    return isinstance(value, hint)


def problems(shape: type, payload: Mapping[str, Any]) -> list[str]:
    """What does not fit `shape` in `payload`: keys it does not declare, values of another
    type (empty when it fits)."""
    fields = _fields(shape)
    found = []
    for key, value in payload.items():
        if key not in fields:
            found.append(f"{key!r} is not one of its keys ({', '.join(fields) or 'none'})")
        elif not _fits(value, fields[key]):
            found.append(f"{key!r} is {value!r}, not {fields[key]}")
    return found


def shape_of(action: str) -> Shape:
    """The action's shape; an action without one is a fault (PayloadError)."""
    try:
        return SHAPES[action]
    except KeyError:
        raise PayloadError(f"The action {action!r} declares no payload shape.") from None


def check(action: str, old: Mapping[str, Any], new: Mapping[str, Any]) -> None:
    """Refuse (PayloadError) an event whose `old` or `new` does not fit its action's shape."""
    shape = shape_of(action)
    for side, payload, declared in (("old", old, shape.old), ("new", new, shape.new)):
        if found := problems(declared, payload):
            raise PayloadError(
                f"The {action!r} event's {side} does not fit {declared.__name__}: "
                + "; ".join(found)
            )


def read(shape: type[T], payload: object) -> T:
    """A stored payload as `shape` declares it, for a reader: only the shape's keys (a row
    written before a key was dropped keeps no stray one), and {} for a payload that is not a
    dict."""
    if not isinstance(payload, Mapping):
        return typing.cast(T, {})
    fields = _fields(typing.cast(type, shape))
    return typing.cast(T, {k: v for k, v in payload.items() if k in fields})


def old_of(event: WorkEvent) -> Mapping[str, Any]:
    """An event's `old`, read through its action's shape (an action unknown here: {})."""
    shape = SHAPES.get(event.action)
    return read(shape.old, event.old) if shape else {}


def new_of(event: WorkEvent) -> Mapping[str, Any]:
    """An event's `new`, read through its action's shape (an action unknown here: {})."""
    shape = SHAPES.get(event.action)
    return read(shape.new, event.new) if shape else {}
