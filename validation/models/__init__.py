"""The validation app's models: validations and revisions, baseline studies, splits, releases."""

from validation.models.baseline import BaselineAnswer, BaselineItem, BaselineStudy
from validation.models.release import ReleaseExport, SplitMember, SplitPart, SplitVersion
from validation.models.validation import (
    CRITERIA,
    Validation,
    ValidationRevision,
    ValidationStatus,
)

__all__ = [
    "CRITERIA",
    "BaselineAnswer",
    "BaselineItem",
    "BaselineStudy",
    "ReleaseExport",
    "SplitMember",
    "SplitPart",
    "SplitVersion",
    "Validation",
    "ValidationRevision",
    "ValidationStatus",
]
