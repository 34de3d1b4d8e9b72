"""The validated pool as the audit's records (Django): both claims of every pair that may enter
a split (`selectors.complete_pair_ids`), with its subset, subfield and writer."""

from __future__ import annotations

import hashlib
import json
from typing import Any

from django.conf import settings
from django.core.cache import cache

from validation import selectors
from validation.audit.core import ARTIFACT_MARGIN, ArtifactAudit, audit

__all__ = ["artifact_margin", "pool_audit", "pool_records"]

AUDIT_CACHE_SECONDS = 7 * 24 * 3600


def pool_records() -> list[dict[str, Any]]:
    """One record per validated claim of a complete pair (label True = entailed)."""
    ok, _ = selectors.complete_pair_ids()
    claims = (
        selectors.validated_claims()
        .filter(pair_id__in=ok)
        .select_related("pair__writer")
        .order_by("pair_id", "label")
    )
    by_pair: dict[int, dict[str, Any]] = {}
    for claim in claims:
        by_pair.setdefault(claim.pair_id, {})[claim.label] = claim
    records = []
    for pair_id, both in sorted(by_pair.items()):
        if set(both) != {"entailed", "refuted"}:
            continue
        entailed, refuted = both["entailed"], both["refuted"]
        pair = entailed.pair
        for claim in (entailed, refuted):
            records.append(
                {
                    "id": claim.pk,
                    "claim": claim.text,
                    "label": claim.label == "entailed",
                    "claim_type": pair.subset,
                    "subfield": pair.subfield_code,
                    "origin_statement": entailed.text,
                    "perturbed_statement": refuted.text,
                    "part": "pool",
                    "pair": pair_id,
                    "writer": pair.writer.get_username(),
                }
            )
    return records


def pool_audit(*, human: float | None = None) -> ArtifactAudit:
    """The audit of the validated pool (`human`: the human baseline's accuracy, when known).

    Kept in the cache under a digest of the records it reads: the audit costs about 3 s at
    SciVer's scale (five model fits), reading the records 0.2 s, so the statistics page pays
    for it once per change of the pool, and a changed pool can never show a stale audit."""
    records = pool_records()
    digest = hashlib.sha256(
        json.dumps([records, human], sort_keys=True, default=str).encode()
    ).hexdigest()
    key = f"artifact-audit:{digest}"
    found = cache.get(key)
    if found is None:
        found = audit(records, human=human)
        cache.set(key, found, timeout=AUDIT_CACHE_SECONDS)
    return found


def artifact_margin() -> float:
    """`ARTIFACT_MARGIN` (points above chance the claim-only baseline's lower bound may reach)."""
    return float(getattr(settings, "ARTIFACT_MARGIN", ARTIFACT_MARGIN))
