"""The annotation app's models: experts, assignment of papers, curated contexts, claims and work."""

from annotation.models.assignment import (
    Assignment,
    AssignmentEvent,
    AssignmentStatus,
    PaperSubfield,
    Role,
)
from annotation.models.claims import (
    Claim,
    ClaimLabel,
    ClaimPair,
    ClaimTask,
    PairRole,
    PerturbationKind,
    Subset,
    WorkEvent,
    WorkItem,
    WorkKind,
    WorkStatus,
)
from annotation.models.curation import CuratedContext, CuratedElement, CuratedSection
from annotation.models.experts import ExpertProfile, Publication, Subfield, Training

__all__ = [
    "Claim",
    "ClaimLabel",
    "ClaimPair",
    "ClaimTask",
    "PairRole",
    "PerturbationKind",
    "Subset",
    "WorkEvent",
    "WorkItem",
    "WorkKind",
    "WorkStatus",
    "Assignment",
    "AssignmentEvent",
    "AssignmentStatus",
    "CuratedContext",
    "CuratedElement",
    "CuratedSection",
    "ExpertProfile",
    "PaperSubfield",
    "Publication",
    "Role",
    "Subfield",
    "Training",
]
