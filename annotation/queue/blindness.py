"""Who may take which role on a claim pair (pure: no database).

Blindness is the rule: a second annotator must not be able to tell which claim of a pair is
the perturbed one. So nobody annotates a claim blind who has seen anything of its pair: not its
writer, not the second annotator of its other claim, not anyone who adjudicated or validated a
claim of it. With SciVer's two or three experts per area the pipeline still moves: once an
expert's blind annotation of one claim is submitted they may adjudicate or validate the pair's
other claim, never a claim they wrote, annotated or adjudicated. Where nobody eligible may take
an item it waits, visibly, for an admin's (recorded) cross-subfield override; a subfield may
allow the old flagged behaviour (both claims to its one free expert), reported apart."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

WRITER = "writer"
EVIDENCE = "evidence"
ADJUDICATOR = "adjudicator"
VALIDATOR = "validator"

BLIND_KIND = "evidence"
JUDGING_KINDS = ("adjudicate", "validate")
_DOING = {EVIDENCE: "annotated", ADJUDICATOR: "adjudicated", VALIDATOR: "validated"}


@dataclass(frozen=True)
class RoleRow:
    """One expert's role on a pair: `claim` None for a pair-wide role (writing)."""

    expert: int
    role: str
    claim: int | None


def refusal(
    kind: str,
    expert: int,
    claim: int | None,
    roles: Iterable[RoleRow],
    pending_blind: Iterable[int] = (),
    *,
    shared: bool = False,
    blind_untaken: bool = False,
) -> str:
    """Why `expert` may not take the `kind` item of `claim`, or "" if they may. `roles` are the
    pair's roles, `pending_blind` the experts holding an unsubmitted blind item on the pair,
    `blind_untaken` whether a claim of the pair still waits for anyone's blind annotation;
    `shared`: the subfield lets its one free expert annotate both claims (flagged)."""
    mine = [r for r in roles if r.expert == expert]
    if kind == BLIND_KIND:
        if not mine:
            return ""
        if any(r.role == WRITER for r in mine):
            return "wrote the pair"
        if any(r.claim == claim for r in mine):
            return f"{_DOING[next(r.role for r in mine if r.claim == claim)]} this claim"
        if shared and all(r.role == EVIDENCE for r in mine):
            return ""
        return "has seen the pair's other claim (would know which one is perturbed)"
    if kind in JUDGING_KINDS:
        if any(r.role == WRITER for r in mine):
            return "wrote the pair"
        on_claim = [r for r in mine if r.claim == claim]
        if on_claim:
            return f"{_DOING[on_claim[0].role]} this claim"
        if expert in set(pending_blind):
            return "has not yet submitted their blind annotation of the pair's other claim"
        if not mine and blind_untaken:
            # Judging first would rule them out of the blind annotation still to do: with two
            # or three experts per area the pair would be stuck.
            return "may still annotate the pair's other claim blind (nobody has taken it)"
        return ""
    # Any other work on a pair (e.g. the human baseline) is for people who never saw it.
    if any(r.role == WRITER for r in mine):
        return "wrote the pair"
    return "holds a role on this pair" if mine else ""
