"""A baseline study's report: accuracy per expert, per subset and averaged, the disagreements,
and the claims that no longer count (their pair dropped, or their paper archived) with why."""

from __future__ import annotations

from dataclasses import dataclass

from annotation.models import ArchiveAction, ArchiveEvent, ClaimPair
from validation.models import BaselineItem, BaselineStudy


@dataclass(frozen=True)
class ArchivedClaims:
    """A study's claims on papers archived in one go: when, by whom, why."""

    claims: int
    at: object  # the datetime of the archiving
    by: str
    note: str


def archived_claims(entries: list[BaselineItem]) -> list[ArchivedClaims]:
    """The entries on archived papers, grouped by the archiving that put their paper away (its
    latest `ArchiveEvent`): one query."""
    papers: dict[int, int] = {}
    for entry in entries:
        if entry.claim.pair.paper.archived_at is not None:
            paper_id = entry.claim.pair.paper_id
            papers[paper_id] = papers.get(paper_id, 0) + 1
    if not papers:
        return []
    latest: dict[int, tuple] = {}
    for paper_id, at, by, note in (
        ArchiveEvent.objects.filter(paper_id__in=papers, action=ArchiveAction.ARCHIVED)
        .order_by("at", "id")
        .values_list("paper_id", "at", "actor__username", "note")
    ):
        latest[paper_id] = (at.date(), by or "a script", note)
    groups: dict[tuple, int] = {}
    for paper_id, n in papers.items():
        key = latest.get(paper_id, (None, "someone", ""))
        groups[key] = groups.get(key, 0) + n
    return [
        ArchivedClaims(n, at, by, note)
        for (at, by, note), n in sorted(groups.items(), key=lambda g: str(g[0][0]))
    ]


def study_report(study: BaselineStudy) -> dict:
    """Accuracy per expert, per subset and averaged, and the disagreements, over the claims
    that still count: a pair dropped after the study began no longer has a gold label, and an
    archived paper is out of every statistic (both said, with the progress counting them)."""
    experts = list(study.experts.order_by("username"))
    everything = list(
        BaselineItem.objects.filter(study=study)
        .select_related("claim__pair__paper")
        .prefetch_related("answers__expert")
    )
    dropped = set(
        ClaimPair.objects.filter(
            pk__in={e.claim.pair_id for e in everything}, review__dropped=True
        ).values_list("pk", flat=True)
    )
    archived = archived_claims(everything)
    items = [
        e
        for e in everything
        if e.claim.pair_id not in dropped and e.claim.pair.paper.archived_at is None
    ]
    per_expert = {e.pk: [0, 0] for e in experts}
    per_subset: dict[str, list[int]] = {}
    rows = []
    for entry in items:
        answers = {a.expert_id: a for a in entry.answers.all()}
        for expert_id, answer in answers.items():
            per_expert.setdefault(expert_id, [0, 0])
            per_expert[expert_id][0] += answer.label == entry.gold_label
            per_expert[expert_id][1] += 1
            bucket = per_subset.setdefault(entry.subset, [0, 0])
            bucket[0] += answer.label == entry.gold_label
            bucket[1] += 1
        labels = {a.label for a in answers.values()}
        disagree = len(labels) > 1 or (labels and entry.gold_label not in labels)
        rows.append((entry, [answers.get(e.pk) for e in experts], disagree))

    def pct(pair: list[int]) -> float | None:
        return round(100 * pair[0] / pair[1], 1) if pair[1] else None

    total = [sum(p[0] for p in per_expert.values()), sum(p[1] for p in per_expert.values())]
    return {
        "experts": [(e, pct(per_expert[e.pk]), per_expert[e.pk][1]) for e in experts],
        "subsets": sorted((s, pct(p), p[1]) for s, p in per_subset.items()),
        "average": pct(total),
        "answered": total[1],
        "expected": 2 * len(items),
        "answered_all": sum(len(e.answers.all()) for e in everything),
        "expected_all": 2 * len(everything),
        "rows": rows,
        "disagreements": [r for r in rows if r[2]],
        "dropped": sum(1 for e in everything if e.claim.pair_id in dropped),
        "archived": archived,
        "archived_total": sum(a.claims for a in archived),
    }


def latest_human_accuracy() -> float | None:
    """The newest human-baseline study's average accuracy (0-1), when anyone answered."""
    study = BaselineStudy.objects.order_by("-pk").first()
    if study is None:
        return None
    average = study_report(study)["average"]
    return None if average is None else average / 100
