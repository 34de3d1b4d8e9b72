"""Agreement statistics from the database: a fixed number of queries builds AgreementItems for
the pure maths in annotation.review.agreement, plus adjudication rate, reasons and progress."""

from __future__ import annotations

import datetime as dt
from collections import Counter, defaultdict
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.db.models import Count
from django.db.models.functions import TruncDate

from annotation import events
from annotation.assignment import selectors as assignment_selectors
from annotation.models import (
    Adjudication,
    AdjudicationReason,
    Claim,
    ClaimReview,
    EvidenceAnnotation,
    ReviewState,
    WorkAction,
    WorkEvent,
    WorkItem,
    WorkKind,
)
from annotation.review.agreement import (
    AgreementItem,
    GroupReport,
    agreement_report,
    annotator_pair_key,
)
from papers.models import Paper

GROUPS = ("subset", "subfield", "annotator_pair", "blindness")
# Pairs whose subfield allowed one second annotator for both claims are not blind: reported apart.
BLIND, FLAGGED = "blind", "flagged: one second annotator for both claims"


def agreement_items() -> list[AgreementItem]:
    """One item per written claim of a pair not dropped: rater A is the writer, rater B the
    second annotator (None until they have annotated: an incomplete item)."""
    claims = list(
        Claim.objects.current()
        .exclude(review__state=ReviewState.DROPPED)
        .filter(pair__paper__archived_at__isnull=True)  # archived papers are left out
        .values_list(
            "id",
            "label",
            "pair__subset",
            "pair__paper_id",
            "pair__writer__username",
            "pair__review__same_second_annotator",
        )
        .order_by("id")
    )
    written: dict[int, set[int]] = defaultdict(set)
    for claim_id, element_id in Claim.evidence.through.objects.filter(
        claim__pair__paper__archived_at__isnull=True
    ).values_list("claim_id", "element_id"):
        written[claim_id].add(element_id)
    seconds = {
        claim_id: (pk, label, name)
        for pk, claim_id, label, name in EvidenceAnnotation.objects.filter(
            claim__pair__paper__archived_at__isnull=True
        ).values_list("id", "claim_id", "label", "annotator__username")
    }
    seconded: dict[int, set[int]] = defaultdict(set)
    for annotation_id, element_id in EvidenceAnnotation.evidence.through.objects.filter(
        evidenceannotation__claim__pair__paper__archived_at__isnull=True
    ).values_list("evidenceannotation_id", "element_id"):
        seconded[annotation_id].add(element_id)
    # Agreement is the first submission's: an answer edited later counts as first submitted
    # (the first edit's `old`), so an edit never changes agreement.
    for claim_id, old in (
        WorkEvent.objects.filter(
            action=WorkAction.ANSWER_EDITED,
            item__kind=WorkKind.BLIND,
            machine=WorkEvent.Machine.ITEM,
        )
        .order_by("-at", "-id")
        .values_list("item__claim_id", "old")
    ):
        if claim_id in seconds:  # newest first: the first edit's `old` is set last
            first = events.read(events.Answer, old)
            pk, _, name = seconds[claim_id]
            seconds[claim_id] = (pk, first["label"], name)
            seconded[pk] = set(first["evidence"])
    codes = assignment_selectors.paper_subfield_codes({paper for _, _, _, paper, _, _ in claims})
    items = []
    for claim_id, label, subset, paper_id, writer, flagged in claims:
        second = seconds.get(claim_id)
        items.append(
            AgreementItem(
                item_id=claim_id,
                label_a=label,
                label_b=second[1] if second else None,
                evidence_a=frozenset(written[claim_id]),
                evidence_b=frozenset(seconded[second[0]]) if second else None,
                groups={
                    "subset": subset,
                    "subfield": codes.get(paper_id) or "—",
                    "annotator_pair": annotator_pair_key(writer, second[2]) if second else None,
                    "blindness": FLAGGED if flagged else BLIND,
                },
            )
        )
    return items


@dataclass
class AgreementSummary:
    reports: dict[str, dict[str, GroupReport]]
    threshold: float
    states: dict[str, int]
    adjudicated_claims: int
    compared_claims: int
    reasons: list[tuple[str, str, int]]  # (code, label, count)
    progress: list[
        tuple[dt.date, int, int, int]
    ]  # day, written, annotated, adjudicated (cumulative)
    archived_papers: int = 0  # left out of everything above

    @property
    def adjudication_rate(self) -> float | None:
        return self.adjudicated_claims / self.compared_claims if self.compared_claims else None

    @property
    def overall(self) -> GroupReport:
        return self.reports["overall"]["all"]

    def as_dict(self) -> dict[str, Any]:
        return {
            "threshold": self.threshold,
            "overall": self.overall.as_dict(),
            "groups": {
                group: [r.as_dict() for r in self.reports[group].values()] for group in GROUPS
            },
            "states": self.states,
            "adjudication": {
                "compared_claims": self.compared_claims,
                "sent_to_adjudication": self.adjudicated_claims,
                "rate": self.adjudication_rate,
                "reasons": {code: n for code, _, n in self.reasons},
            },
            "progress": [
                {"day": d.isoformat(), "written": w, "annotated": a, "adjudicated": j}
                for d, w, a, j in self.progress
            ],
        }


def _per_day(rows) -> Counter:
    return Counter({day: n for day, n in rows})


def agreement_summary() -> AgreementSummary:
    threshold = settings.EVIDENCE_JACCARD_THRESHOLD
    reports = agreement_report(agreement_items(), group_by=GROUPS, jaccard_threshold=threshold)
    states = dict.fromkeys(ReviewState.values, 0)
    live = {"claim__pair__paper__archived_at__isnull": True}
    for state, n in ClaimReview.objects.filter(**live).values_list("state").annotate(n=Count("id")):
        states[state] = n
    annotations = EvidenceAnnotation.objects.filter(**live)
    compared = annotations.exclude(claim__review__state=ReviewState.DROPPED)
    sent = compared.exclude(claim__review__disagreement="").count()
    adjudications = Adjudication.objects.filter(**live)
    reason_counts = dict(
        adjudications.values_list("reason").annotate(n=Count("id")).values_list("reason", "n")
    )
    written = _per_day(
        WorkItem.objects.filter(
            kind=WorkKind.WRITE, done_at__isnull=False, paper__archived_at__isnull=True
        )
        .annotate(day=TruncDate("done_at"))
        .values_list("day")
        .annotate(n=Count("id"))
    )
    annotated = _per_day(
        annotations.annotate(day=TruncDate("created_at")).values_list("day").annotate(n=Count("id"))
    )
    adjudicated = _per_day(
        adjudications.annotate(day=TruncDate("created_at"))
        .values_list("day")
        .annotate(n=Count("id"))
    )
    progress, totals = [], [0, 0, 0]
    for day in sorted(set(written) | set(annotated) | set(adjudicated)):
        for index, counter in enumerate((written, annotated, adjudicated)):
            totals[index] += counter[day]
        progress.append((day, *totals))
    return AgreementSummary(
        reports=reports,
        threshold=threshold,
        states=states,
        adjudicated_claims=sent,
        compared_claims=compared.count(),
        reasons=[(c, label, reason_counts.get(c, 0)) for c, label in AdjudicationReason.choices],
        progress=progress,
        archived_papers=Paper.objects.filter(archived_at__isnull=False).count(),
    )


def csv_rows(summary: AgreementSummary) -> tuple[list[str], list[dict[str, Any]]]:
    """Every group report as one flat row (overall first), for the CSV download."""
    rows = [summary.overall.as_dict()]
    for group in GROUPS:
        rows += [r.as_dict() for r in summary.reports[group].values()]
    return list(rows[0]), rows
