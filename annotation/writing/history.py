"""A claim pair's history in words, as its writer reads it on the pair's page: who by role ("The
second annotator", "The adjudicator", "A validator", "An admin"), never another person's name,
and what each step recorded (labels, evidence by name, the fields a validator revised), never
the audit log's raw values. Admins read the same lines with each person's name beside the
role. The steps that only move work along (a lease taken, an item opened) are left out."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from annotation import events
from annotation.models import (
    AdjudicationReason,
    Machine,
    PerturbationKind,
    WorkAction,
    WorkEvent,
    WorkKind,
)

ROLE: dict[str, str] = {
    WorkKind.WRITE: "The writer",
    WorkKind.REPERTURB: "The writer",
    WorkKind.BLIND: "The second annotator",
    WorkKind.ADJUDICATE: "The adjudicator",
    WorkKind.VALIDATE: "A validator",
    WorkKind.BASELINE: "A baseline participant",
}
ADMIN, NOBODY = "An admin", "—"
STEP: dict[str, str] = {
    WorkKind.WRITE: "writing",
    WorkKind.REPERTURB: "new perturbation",
    WorkKind.BLIND: "second annotation",
    WorkKind.ADJUDICATE: "adjudication",
    WorkKind.VALIDATE: "validation",
    WorkKind.BASELINE: "human-baseline answer",
}
REVISED = ("text", "subset", "label", "evidence", "explanation")
# Actions whose note is written for the writer (a reason); others' notes are the admins' alone.
NOTES_FOR_WRITER = {WorkAction.PAIR_DROPPED, WorkAction.REOPENED}


@dataclass(frozen=True)
class HistoryLine:
    at: dt.datetime
    who: str
    what: str
    note: str = ""


def evidence_words(ids: Iterable[int], labels: Mapping[int, str]) -> str:
    """ "2 evidence elements: Table 1, Figure 2" (each named as the pages name it)."""
    names = [labels.get(pk, "an element no longer in the paper") for pk in ids]
    if not names:
        return "no evidence"
    return f"{len(names)} evidence element{'s' if len(names) != 1 else ''}: {', '.join(names)}"


def _claim(event: WorkEvent) -> str:
    return f"the {event.claim.label} claim" if event.claim is not None else "the claim"


def _kind(event: WorkEvent) -> str:
    """The kind of the event's work item ("" when it has none)."""
    return event.item.kind if event.item is not None else ""


def _submitted(event: WorkEvent, new: Mapping[str, Any], labels: Mapping[int, str]) -> str:
    kind, claim = _kind(event), _claim(event)
    if kind == WorkKind.WRITE:
        entailed, refuted = new.get("entailed") or {}, new.get("refuted") or {}
        how = PerturbationKind(refuted.get("perturbation_kind") or "other").label
        return (
            f"submitted the pair ({new.get('subset', '')}): the entailed claim "
            f"“{entailed.get('text', '')}” with "
            f"{evidence_words(entailed.get('evidence', []), labels)}; the refuted claim "
            f"“{refuted.get('text', '')}” ({how}) with "
            f"{evidence_words(refuted.get('evidence', []), labels)}."
        )
    if kind == WorkKind.BLIND:
        evidence = evidence_words(new.get("evidence", []), labels)
        return f"labelled {claim} {new.get('label', '')} with {evidence}."
    if kind == WorkKind.ADJUDICATE:
        why = AdjudicationReason(new["reason"]).label if new.get("reason") else "no reason"
        notes = f" Notes: “{new['notes']}”" if new.get("notes") else ""
        if new.get("decision") == "unresolved":
            return f"left {claim} unresolved (reason: {why}).{notes}"
        evidence = evidence_words(new.get("evidence", []), labels)
        return (
            f"decided {claim} is {new.get('label', '')} with {evidence} (reason: {why}; "
            f"confidence {new.get('confidence', '')}).{notes}"
        )
    if kind == WorkKind.VALIDATE:
        return _validated(claim, new)
    if kind == WorkKind.REPERTURB:
        return f"wrote a new perturbation: “{new.get('text', '')}”."
    return f"submitted the {STEP.get(kind, kind)} of {claim}."


def _validated(claim: str, new: Mapping[str, Any]) -> str:
    changed = [field for field in REVISED if field in new]
    if not changed:
        return f"passed {claim}."
    failed = ", ".join(new.get("criteria_failed", [])) or "none"
    text = f" The text now reads “{new['text']}”" if "text" in new else ""
    return f"revised the {', '.join(changed)} of {claim} (criteria failed: {failed}).{text}"


def _compared(event: WorkEvent, new: Mapping[str, Any]) -> str:
    claim = _claim(event).capitalize()
    if not new.get("disagreement"):
        return f"{claim}: the two annotations agreed; it is final."
    if new["disagreement"] == "label":
        return f"{claim}: the two annotations disagreed on the label; it goes to an adjudicator."
    overlap = round(100 * float(new.get("jaccard", 0)))
    return (
        f"{claim}: the two annotations differ in evidence only ({overlap}% shared); it goes "
        "to an adjudicator."
    )


def _what(event: WorkEvent, labels: Mapping[int, str]) -> tuple[str, str] | None:
    """(who, what) of one event, the who as a role; None for the steps left out."""
    action, new = event.action, events.new_of(event)
    kind = _kind(event)
    role = ROLE.get(kind, NOBODY)
    if action == WorkAction.SUBMITTED and event.item is not None:
        return role, _submitted(event, new, labels)
    if action == WorkAction.COMPARED:
        return NOBODY, _compared(event, new)
    if action == WorkAction.ANSWER_EDITED:
        changed = ", ".join(sorted(new)) or "nothing"
        return role, f"edited their answer on {_claim(event)} ({changed})."
    if action == WorkAction.REOPENED and event.machine == Machine.REVIEW:
        return ADMIN, f"reopened {_claim(event)} for another adjudicator."
    if action == WorkAction.REOPENED and event.machine == Machine.VALIDATION:
        return ADMIN, f"sent {_claim(event)} back to validation."
    if action == WorkAction.SENT_BACK:
        return NOBODY, (
            f"{_claim(event).capitalize()} turned out true: the pair went back to the writer "
            "for a new perturbation."
        )
    if action == WorkAction.PERTURBATION_REPLACED:
        return NOBODY, "The refuted claim was replaced by the new perturbation."
    if action == WorkAction.REPERTURB_WITHDRAWN:
        return NOBODY, "The new perturbation was withdrawn."
    if action == WorkAction.PAIR_DROPPED and event.machine == Machine.PAIR:
        return ADMIN, "dropped the pair: it is left out of every release."
    if action == WorkAction.OVERRIDE:
        return ADMIN, f"let another expert take the {STEP.get(kind, kind)} of {_claim(event)}."
    return None


def history_lines(
    history: Iterable[WorkEvent],
    *,
    viewer_id: int | None,
    names: bool,
    labels: Mapping[int, str],
) -> list[HistoryLine]:
    """The pair's history (`selectors.pair_history`: actors, items and claims selected) in
    words, for `viewer_id`: their own steps are "You"'s. `names`: each person's username beside
    the role and every note (an admin's view); else only the notes written as reasons."""
    lines = []
    for event in history:
        found = _what(event, labels)
        if found is None:
            continue
        who, what = found
        if event.actor_id is not None and event.actor_id == viewer_id and who != NOBODY:
            who = "You"
        elif names and event.actor is not None and who != NOBODY:
            who = f"{who} ({event.actor.get_username()})"
        if who == NOBODY:
            who = ""
        shown = event.note if names or event.action in NOTES_FOR_WRITER else ""
        lines.append(HistoryLine(at=event.at, who=who, what=what, note=shown))
    return lines
