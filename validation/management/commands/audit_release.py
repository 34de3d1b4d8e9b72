"""`audit_release DIR/SciVer [--labels FILE] [--human ACC] [--json]`, or `audit_release --pool`: the
annotation-artifact audit (`validation.audit`) of a release folder or of the validated pool."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser

from validation.audit import ARTIFACT_MARGIN, audit, report_lines
from validation.audit.pool import pool_records
from validation.audit.text import as_json
from validation.release.formats import SPLIT_FILES
from validation.release.writer import LABELS_FORMAT, labels_path


def release_records(root: Path, labels_file: Path | None = None) -> list[dict[str, Any]]:
    """The records of both parts of a release (with `part`), the subfields of our JSON Lines,
    and the hidden test labels (and statements) of `labels_file` when given."""
    answers: dict[str, Any] = {}
    hidden: dict[str, dict] = {}
    if labels_file is not None:
        try:
            data = json.loads(labels_file.read_text("utf-8"))
        except (OSError, ValueError) as exc:
            raise CommandError(f"{labels_file}: unreadable ({exc})") from exc
        if not isinstance(data, dict) or data.get("format") != LABELS_FORMAT:
            raise CommandError(f"{labels_file}: not a hidden labels file written by export_release")
        answers = dict(data.get("labels") or {})
        hidden = {str(r.get("request_id")): r for r in data.get("records") or []}
    records = []
    for part, (sciver_file, jsonl_file, _) in SPLIT_FILES.items():
        path = root / sciver_file
        if not path.is_file():
            continue
        subfields = {}
        if (root / jsonl_file).is_file():
            for line in (root / jsonl_file).read_text("utf-8").splitlines():
                row = json.loads(line)
                subfields[str(row.get("request_id"))] = row.get("subfield") or ""
        for record in json.loads(path.read_text("utf-8")):
            rid = str(record.get("request_id"))
            row = {**record, "part": part, "subfield": subfields.get(rid, "")}
            if part == "test" and "label" not in record and rid in answers:
                row["label"] = answers[rid]
                for name in ("origin_statement", "perturbed_statement", "subfield"):
                    if hidden.get(rid, {}).get(name):
                        row[name] = hidden[rid][name]
            records.append(row)
    return records


class Command(BaseCommand):
    help = (
        "Audit annotation artifacts: a claim-only baseline (trained on validation, scored on "
        "test; else cross-validated), cue words, rule baselines, negation/antonym-only pairs and "
        "near duplicates, of a release folder or (--pool) of the validated pool."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("dir", nargs="?", help="a release folder (DIR/SciVer)")
        parser.add_argument("--pool", action="store_true", help="audit the validated pool")
        parser.add_argument(
            "--labels", help="the hidden test labels file (DIR/SciVer.labels.json) to score test"
        )
        parser.add_argument(
            "--human", type=float, help="the human baseline's accuracy (0-1), shown beside it"
        )
        parser.add_argument("--json", action="store_true")

    def handle(self, *args, **options) -> None:
        if options["pool"] == bool(options["dir"]):
            raise CommandError("Give a release folder (DIR/SciVer) or --pool, not both.")
        if options["pool"]:
            if options["labels"]:
                raise CommandError("--labels goes with a release folder, not --pool.")
            records = pool_records()
        else:
            root = Path(options["dir"])
            if not (root / "manifest.json").is_file():
                raise CommandError(f"{root} is not a release folder (no manifest.json).")
            labels = Path(options["labels"]) if options["labels"] else None
            if labels is not None and not labels.is_file():
                raise CommandError(f"{labels}: no such file (it is usually {labels_path(root)}).")
            records = release_records(root, labels)
        human = options["human"]
        if human is not None and not 0 <= human <= 1:
            raise CommandError(f"--human is an accuracy between 0 and 1, not {human}.")
        result = audit(records, human=human)
        margin = float(getattr(settings, "ARTIFACT_MARGIN", ARTIFACT_MARGIN))
        if options["json"]:
            data = as_json(result)
            data["margin"] = margin
            data["warn"] = result.beats_chance(margin)
            self.stdout.write(json.dumps(data, indent=2, ensure_ascii=False))
            return
        for line in report_lines(result):
            self.stdout.write(line)
        if result.beats_chance(margin):
            self.stdout.write(
                self.style.WARNING(
                    f"warning: the claim-only baseline's lower bound beats chance by "
                    f"{result.baseline.margin:.1f} points (more than ARTIFACT_MARGIN {margin:g})"
                )
            )
