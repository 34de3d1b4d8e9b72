"""`retrieval_report DIR/SciVer --part validation [--k 5] [--retrievers bm25,tfidf]`: recall@k
of each retriever on the part's claims, overall and per subset, beside SciVer's Table 4."""

from __future__ import annotations

import json
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError, CommandParser

from evaluation.release import PARTS, EvaluationError, load_part
from evaluation.retrieval import RETRIEVERS, get_retriever, recall_report


class Command(BaseCommand):
    help = (
        "Recall@k of retrievers (BM25, TF-IDF) over each paper's paragraphs and tables/charts "
        "for the claims of one part of a release, against the claims' gold evidence."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("dir", help="the release folder (DIR/SciVer)")
        parser.add_argument("--part", required=True, choices=PARTS)
        parser.add_argument("--k", type=int, default=5, help="units retrieved per claim (5)")
        parser.add_argument(
            "--retrievers",
            default=",".join(RETRIEVERS),
            help="comma-separated, of: " + ", ".join(RETRIEVERS),
        )
        parser.add_argument(
            "--labels",
            type=Path,
            help="the hidden test labels file (default: the one the manifest names)",
        )
        parser.add_argument("--json", type=Path, help="also write the figures as JSON")

    def handle(self, *args, **options) -> None:
        try:
            names = [n for n in options["retrievers"].split(",") if n.strip()]
            retrievers = [get_retriever(n) for n in names]
            if len({r.name for r in retrievers}) != len(retrievers):
                raise EvaluationError("a retriever is named twice")
            part = load_part(Path(options["dir"]), options["part"], labels=options["labels"])
            report = recall_report(part, retrievers, options["k"])
        except EvaluationError as exc:
            raise CommandError(str(exc)) from exc
        self.stdout.write(report.table(), ending="")
        if options["json"]:
            options["json"].write_text(json.dumps(report.as_dict(), indent=2) + "\n")
