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
    PairState,
    PerturbationKind,
    Subset,
)
from annotation.models.curation import CuratedContext, CuratedElement, CuratedSection
from annotation.models.experts import (
    ArchiveAction,
    ArchiveEvent,
    ExpertProfile,
    Publication,
    Subfield,
    Training,
)
from annotation.models.review import (
    Adjudication,
    AdjudicationDecision,
    AdjudicationReason,
    ClaimReview,
    Confidence,
    Disagreement,
    EvidenceAnnotation,
    PairReview,
    ReviewState,
)
from annotation.models.sessions import SessionLink
from annotation.models.work import (
    Machine,
    WorkAction,
    WorkEvent,
    WorkItem,
    WorkKind,
    WorkStatus,
)

__all__ = [
    "SessionLink",
    "ArchiveAction",
    "ArchiveEvent",
    "Adjudication",
    "AdjudicationDecision",
    "AdjudicationReason",
    "ClaimReview",
    "Confidence",
    "Disagreement",
    "EvidenceAnnotation",
    "PairReview",
    "ReviewState",
    "Claim",
    "ClaimLabel",
    "ClaimPair",
    "ClaimTask",
    "Machine",
    "PairRole",
    "PairState",
    "WorkAction",
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
