"""`python manage.py agreement_report [--json]`: agreement between writers and blind second
annotators, overall and per subset, subfield and annotator pair, with adjudication figures."""

from __future__ import annotations

import json
from typing import Any

from django.core.management.base import BaseCommand

from annotation.review import stats


def _f(value: float | None) -> str:
    return "—" if value is None else f"{value:.3f}"


class Command(BaseCommand):
    help = "Inter-annotator agreement (label: percent, Cohen's kappa; evidence: Jaccard)."

    def add_arguments(self, parser) -> None:
        parser.add_argument("--json", action="store_true", help="print JSON instead of text")

    def handle(self, *args: Any, **options: Any) -> None:
        summary = stats.agreement_summary()
        if options["json"]:
            self.stdout.write(json.dumps(summary.as_dict(), indent=2, ensure_ascii=False))
            return
        header = (
            f"{'group':<15} {'value':<24} {'items':>5} {'compl':>5} {'incom':>5} "
            f"{'label%':>7} {'kappa':>7} {'jacc':>7} {'exact':>7}"
        )
        self.stdout.write(
            f"Agreement: writer vs blind second annotator "
            f"(evidence Jaccard threshold {summary.threshold})"
        )
        self.stdout.write(header)
        rows = [summary.overall]
        for group in stats.GROUPS:
            rows += list(summary.reports[group].values())
        for r in rows:
            self.stdout.write(
                f"{r.group:<15} {r.value[:24]:<24} {r.items:>5} {r.label.complete:>5} "
                f"{r.label.incomplete:>5} {_f(r.label.percent):>7} {_f(r.label.kappa):>7} "
                f"{_f(r.evidence.mean_jaccard):>7} {_f(r.evidence.exact_match_rate):>7}"
            )
        self.stdout.write(
            f"Adjudication: {summary.adjudicated_claims} of {summary.compared_claims} compared "
            f"claims (rate {_f(summary.adjudication_rate)})"
        )
        self.stdout.write(
            "Reasons: " + ", ".join(f"{label} {n}" for _, label, n in summary.reasons)
        )
        self.stdout.write(
            "Claims: " + ", ".join(f"{state} {n}" for state, n in summary.states.items())
        )
