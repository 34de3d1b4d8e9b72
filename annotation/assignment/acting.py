"""What the assignment page's form (`PaperSelectionForm`) asks of the selected papers, done:
choose their subfield, unassign them, assign them to one expert or spread them over several.
The page and the API call it with the form's cleaned values; each says the outcome its own way."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractBaseUser

from annotation.assignment import services
from annotation.experts import selectors as expert_selectors
from annotation.models import Assignment, Subfield
from papers.models import Paper

User = get_user_model()


def expert_choices() -> list[tuple[int, str]]:
    """The experts the assignment form may name: active accounts with an active, not archived
    profile (the services refuse anyone else too)."""
    return [(u.pk, u.get_username()) for u in expert_selectors.experts(active_only=True)]


@dataclass
class PapersActed:
    """The outcome of one action: which papers, and what became of them."""

    action: str
    papers: list[Paper]
    subfield: Subfield | None = None
    subfield_set: int = 0
    unassigned: list[Assignment] = field(default_factory=list)
    chosen: Sequence[AbstractBaseUser] = field(default_factory=list)
    assigned: services.AssignmentResult | None = None


def act_on_papers(data: Mapping[str, Any], *, by: AbstractBaseUser) -> PapersActed:
    """Do what a valid PaperSelectionForm's cleaned values ask; AnnotationError (nothing
    changed) when the services refuse it."""
    papers = list(data["papers"])
    action = data["action"]
    if action == "subfield":
        n = services.set_paper_subfield(papers=papers, subfield=data["subfield"], changed_by=by)
        return PapersActed(action, papers, subfield=data["subfield"], subfield_set=n)
    if action == "unassign":
        closed = services.unassign(papers=papers, by=by, note=data["note"])
        return PapersActed(action, papers, unassigned=closed)
    ids = [data["expert"]] if action == "assign" else data["experts"]
    chosen = list(User.objects.filter(pk__in=ids).order_by("username"))
    result = services.assign_papers(
        papers=papers,
        experts=chosen,
        assigned_by=by,
        per_expert=data["per_expert"],
        reassign=data["reassign"],
        note=data["note"],
    )
    return PapersActed(action, papers, chosen=chosen, assigned=result)
