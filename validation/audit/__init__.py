"""The annotation-artifact audit: how far a claim alone gives its label away (claim-only
baseline, cue words, rule baselines, negation/antonym-only pairs, near duplicates). Pure
modules; `validation.audit.pool` reads the validated pool (Django)."""

from validation.audit.core import (
    ARTIFACT_MARGIN,
    ArtifactAudit,
    Baseline,
    Cue,
    PairShare,
    Score,
    audit,
    wilson,
)
from validation.audit.text import artifact_warnings, card_lines, report_lines

__all__ = [
    "ARTIFACT_MARGIN",
    "ArtifactAudit",
    "Baseline",
    "Cue",
    "PairShare",
    "Score",
    "artifact_warnings",
    "audit",
    "card_lines",
    "report_lines",
    "wilson",
]
