"""Pure rules of assigning papers: which selections are refused, who may take each paper, and
why a chosen expert was given none (already-read papers, experts and eligibility in, no
database)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Protocol

from django.contrib.auth.models import AbstractBaseUser

from annotation.errors import AlreadyAssigned, IneligibleExpert
from annotation.experts.eligibility import Eligibility
from annotation.models import Assignment
from papers.models import Paper

EligibilityTable = Mapping[int, Mapping[str, Eligibility]]


class AssignablePaper(Protocol):
    """A paper as the rules read it: locked with its subfield (`papers_with_subfield`)."""

    pk: int
    status: str
    archived_at: datetime | None
    subfield_code: str | None

    @property
    def versioned_id(self) -> str: ...


def check_selection(papers: Sequence[AssignablePaper], experts: Sequence[AbstractBaseUser]) -> None:
    """Refuse an empty choice of papers or experts, or a paper listed twice."""
    if not papers:
        raise IneligibleExpert("Select at least one paper.")
    if not experts:
        raise IneligibleExpert("Choose at least one expert.")
    if len({p.pk for p in papers}) != len(papers):
        raise IneligibleExpert("A paper is listed twice.")


def check_assignable(papers: Sequence[AssignablePaper]) -> None:
    """Refuse papers not parsed, or archived: nobody may be handed them."""
    not_parsed = [p.versioned_id for p in papers if p.status != Paper.Status.PARSED]
    if not_parsed:
        raise IneligibleExpert(
            f"Only parsed papers can be assigned; not parsed: {', '.join(not_parsed)}."
        )
    archived = [p.versioned_id for p in papers if p.archived_at is not None]
    if archived:
        raise IneligibleExpert(
            f"Archived papers cannot be assigned (un-archive them first on Papers): "
            f"{', '.join(archived)}."
        )


def check_not_taken(
    papers: Sequence[AssignablePaper], current: Mapping[int, Assignment], *, reassign: bool
) -> None:
    """Refuse papers that have an open assignment (`current`, by paper) unless `reassign`."""
    if current and not reassign:
        taken = ", ".join(
            f"{p.versioned_id} ({current[p.pk].expert.get_username()})"
            for p in papers
            if p.pk in current
        )
        raise AlreadyAssigned(f"Already assigned: {taken}. Tick 'reassign' to move them.")


def eligible_by_paper(
    papers: Sequence[AssignablePaper],
    experts: Sequence[AbstractBaseUser],
    eligibility: EligibilityTable,
    current: Mapping[int, Assignment],
) -> dict[int, list[AbstractBaseUser]]:
    """Each paper's candidates: the chosen experts eligible for its subfield, less the one who
    holds it now."""
    return {
        p.pk: [
            e
            for e in experts
            if eligibility[e.pk][p.subfield_code or ""].eligible
            and not (p.pk in current and current[p.pk].expert_id == e.pk)
        ]
        for p in papers
    }


def check_single_expert(
    expert: AbstractBaseUser,
    papers: Sequence[AssignablePaper],
    eligible: Mapping[int, Sequence[AbstractBaseUser]],
    eligibility: EligibilityTable,
    current: Mapping[int, Assignment],
) -> None:
    """Refuse handing one expert papers they cannot take, naming why for the first."""
    refused = [p for p in papers if not eligible[p.pk]]
    if not refused:
        return
    first = refused[0]
    why = eligibility[expert.pk][first.subfield_code or ""].explain()
    if first.pk in current and current[first.pk].expert_id == expert.pk:
        why = "it is already assigned to them"
    raise IneligibleExpert(
        f"{expert.get_username()} cannot take {len(refused)} of the selected papers "
        f"({', '.join(p.versioned_id for p in refused)}): for "
        f"{first.versioned_id} ({first.subfield_code or 'no subfield'}): {why}."
    )


def check_left_over(left_over: Sequence[AssignablePaper]) -> None:
    """Refuse a spread that leaves papers nobody chosen can take (or has room for)."""
    if not left_over:
        return
    names = ", ".join(p.versioned_id for p in left_over[:10])
    subject = {p.subfield_code or "no subfield" for p in left_over}
    raise IneligibleExpert(
        f"No chosen expert is eligible (or has room) for {len(left_over)} paper(s): "
        f"{names} (subfield {', '.join(sorted(subject))})."
    )


def given_none(
    experts: Sequence[AbstractBaseUser],
    eligible: Mapping[int, Sequence[AbstractBaseUser]],
    eligibility: EligibilityTable,
    codes: Sequence[str],
) -> list[tuple[str, str]]:
    """The chosen experts eligible for none of the papers (username, why), so given none."""
    out = []
    for expert in experts:
        if not any(expert in candidates for candidates in eligible.values()):
            judged = [eligibility[expert.pk][code] for code in codes]
            why = (
                "; ".join(
                    f"{code or 'no subfield'}: {e.explain()}"
                    for code, e in zip(codes, judged, strict=True)
                    if not e.eligible
                )
                or "the papers are already theirs"
            )
            out.append((expert.get_username(), why))
    return out
