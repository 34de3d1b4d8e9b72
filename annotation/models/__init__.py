"""The annotation app's models: experts, assignment of papers, and curated contexts."""

from annotation.models.assignment import (
    Assignment,
    AssignmentEvent,
    AssignmentStatus,
    PaperSubfield,
    Role,
)
from annotation.models.curation import CuratedContext, CuratedElement, CuratedSection
from annotation.models.experts import ExpertProfile, Publication, Subfield, Training

__all__ = [
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
