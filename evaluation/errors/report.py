"""What the admin's pages and downloads show of error analyses: progress, κ per error type,
cases per type by model and subset, one row per tag and per case, and the card's table."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import asdict

from evaluation.errors import rules
from evaluation.errors.models import ErrorAnalysis, ErrorCase, ErrorTag
from evaluation.errors.plots import Row, category_bars
from evaluation.scoring import SUBSETS

TAG_COLUMNS = (
    "analysis",
    "run",
    "model",
    "case",
    "request_id",
    "subset",
    "subfield",
    "claim",
    "gold",
    "model_verdict",
    "tagger",
    "submitted_at",
    *rules.CODES,
    "note",
)
CASE_COLUMNS = (
    "analysis",
    "run",
    "model",
    "case",
    "request_id",
    "subset",
    "subfield",
    "claim",
    "gold",
    "model_verdict",
    "taggers",
    "tagged",
    "for_agreement",
    "majority",
    "union",
)


def _cases(analyses: Iterable[ErrorAnalysis]) -> list[ErrorCase]:
    return list(
        ErrorCase.objects.filter(analysis__in=list(analyses))
        .select_related("analysis__run", "outcome")
        .prefetch_related("tags__tagger")
        .order_by("analysis", "subset", "outcome__request_id")
    )


def _submitted(case: ErrorCase) -> list[ErrorTag]:
    return [t for t in case.tags.all() if t.submitted]


def _case_row(case: ErrorCase) -> dict:
    tags = [t.categories for t in _submitted(case)]
    assigned = len(case.tags.all())
    return {
        "analysis": case.analysis_id,
        "run": case.analysis.run_id,
        "model": case.analysis.run.model,
        "case": case.pk,
        "request_id": case.outcome.request_id,
        "subset": case.subset,
        "subfield": case.subfield_code,
        "claim": case.claim_id,
        "gold": case.outcome.gold,
        "model_verdict": case.outcome.parsed or "no answer",
        "taggers": assigned,
        "tagged": len(tags),
        "for_agreement": "complete"
        if len(tags) >= 2
        else (
            "one tagger only"
            if assigned == 1
            else ("waiting" if assigned else "no eligible expert")
        ),
        "majority": "; ".join(rules.majority(tags)) if tags else "",
        "union": "; ".join(rules.union(tags)) if tags else "",
    }


def tag_rows(analyses: Iterable[ErrorAnalysis]) -> list[dict]:
    """One row per submitted tag (CSV/JSON downloads, admins only)."""
    rows = []
    for case in _cases(analyses):
        base = _case_row(case)
        for tag in _submitted(case):
            rows.append(
                {k: base[k] for k in TAG_COLUMNS if k in base}
                | {
                    "tagger": tag.tagger.get_username(),
                    "submitted_at": tag.submitted_at.isoformat() if tag.submitted_at else "",
                    "note": tag.note,
                }
                | {code: int(code in tag.categories) for code in rules.CODES}
            )
    return rows


def case_rows(analyses: Iterable[ErrorAnalysis]) -> list[dict]:
    return [_case_row(case) for case in _cases(analyses)]


def _chart_rows(cases: list[ErrorCase]) -> list[Row]:
    by_model: dict[str, list[tuple[str, list[list[str]]]]] = {}
    for case in cases:
        by_model.setdefault(case.analysis.run.model, []).append(
            (case.subset, [t.categories for t in _submitted(case)])
        )
    rows: list[Row] = []
    for model, items in sorted(by_model.items()):
        counts = rules.category_counts(items)
        for key in (*SUBSETS, "all"):
            if key in counts:
                n, per = counts[key]
                rows.append((f"{model} · {key}", n, dict(per)))
    return rows


def summary(analysis: ErrorAnalysis) -> dict:
    """The analysis page's and the JSON's report: progress, κ per type, counts, the table."""
    cases = _cases([analysis])
    tags = [[t.categories for t in _submitted(c)] for c in cases]
    agreement = rules.agreement_by_category(tags)
    counts = rules.category_counts([(c.subset, t) for c, t in zip(cases, tags, strict=True)])
    assigned = sum(len(c.tags.all()) for c in cases)
    return {
        "cases": len(cases),
        "tags_submitted": sum(len(t) for t in tags),
        "tags_assigned": assigned,
        "cases_tagged": sum(bool(t) for t in tags),
        "waiting": [c for c in cases if not c.tags.all()],
        "one_tagger": sum(len(c.tags.all()) == 1 for c in cases),
        "agreement": agreement,
        "counts": {
            k: {"n": n, **{c: per[c] for c in rules.CODES}} for k, (n, per) in counts.items()
        },
        "markdown": rules.markdown_table(
            counts, {a.code: a.kappa for a in agreement}, model=analysis.run.model
        ),
        "chart": category_bars(_chart_rows(cases)),
    }


def summary_json(analysis: ErrorAnalysis) -> dict:
    data = summary(analysis)
    return {
        "analysis": {
            "id": analysis.pk,
            "run": analysis.run_id,
            "model": analysis.run.model,
            "release": analysis.run.release_name,
            "part": analysis.run.part,
            "sample_size_per_subset": analysis.sample_size,
            "seed": analysis.seed,
            "created_at": analysis.created_at.isoformat(),
        },
        "categories": [asdict(c) for c in rules.CATEGORIES],
        "progress": {
            k: data[k] for k in ("cases", "cases_tagged", "tags_assigned", "tags_submitted")
        },
        "agreement": [asdict(a) for a in data["agreement"]],
        "counts": data["counts"],
        "markdown_table": data["markdown"],
        "cases": case_rows([analysis]),
        "tags": tag_rows([analysis]),
    }


def overview_chart(analyses: Iterable[ErrorAnalysis]) -> str:
    """Every analysis's cases, grouped by model and subset (the models side by side)."""
    return category_bars(_chart_rows(_cases(analyses)))
