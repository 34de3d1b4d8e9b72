"""One part of a release folder as the evaluation needs it (pure: files in, items out): each
record with its gold label (from the record, or from the organisers' labels file the manifest
names when the test labels are hidden), its subset, subfield and number of evidence pieces
(from our JSON Lines where the release has them), and what SciVer's reading gives a model."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from validation.release import reading
from validation.release.formats import SCIVER_ROOT
from validation.release.writer import LABELS_FORMAT, SPLIT_FILES

__all__ = ["EvaluationError", "Item", "ReleasePart", "evidence_bucket", "load_part"]

PARTS = tuple(SPLIT_FILES)  # validation, test
EVIDENCE_BUCKETS = ("one", "two", "three", "more than three")
UNKNOWN = "unknown"


class EvaluationError(ValueError):
    """An evaluation that cannot run as asked; the message says what to do."""


def evidence_bucket(pieces: int | None) -> str:
    """SciVer's Figure 4 groups: one, two, three, more than three evidence pieces."""
    if pieces is None:
        return UNKNOWN
    if pieces <= 3:
        return EVIDENCE_BUCKETS[max(pieces, 1) - 1]
    return EVIDENCE_BUCKETS[3]


@dataclass(frozen=True)
class Item:
    """One record of the part, with its answer."""

    request_id: int
    claim_type: str
    label: bool
    claim: str
    subfield: str = UNKNOWN
    evidence: int | None = None  # pieces of annotated evidence; None: the release has no list
    record: Mapping[str, Any] = field(default_factory=dict, compare=False, repr=False)
    # The evidence list itself (our JSON Lines' `evidence`, or the labels file's for hidden
    # test records); None: the release has no list (SciVer's own release).
    evidence_pieces: tuple[Mapping[str, Any], ...] | None = field(
        default=None, compare=False, repr=False
    )

    @property
    def gold(self) -> str:
        return "entailed" if self.label else "refuted"


@dataclass
class ReleasePart:
    """The records of one part of a release folder, in the file's order."""

    root: Path
    part: str
    name: str
    items: list[Item]
    hidden: bool  # the public records carry no labels (they came from the labels file)
    labels_file: Path | None = None
    _papers: dict[str, Any] = field(default_factory=dict, repr=False)

    def local(self, path: str) -> Path:
        """`./SciVer/images/x.png` → `<root>/images/x.png`, whatever the folder is named."""
        prefix = SCIVER_ROOT + "/"
        return self.root / (path[len(prefix) :] if path.startswith(prefix) else path)

    def paper(self, item: Item) -> Mapping[str, Any]:
        path = str(item.record.get("paper_path", ""))
        if path not in self._papers:
            try:
                self._papers[path] = json.loads(self.local(path).read_text("utf-8"))
            except (OSError, ValueError) as exc:
                raise EvaluationError(
                    f"request {item.request_id}: its paper file {path} cannot be read ({exc}); "
                    "check the release with python manage.py check_release DIR"
                ) from exc
        return self._papers[path]

    def model_input(self, item: Item) -> reading.ModelInput:
        """The context and images SciVer's own code gives a model for the record."""
        return reading.model_input(item.record, self.paper(item))


def _json(path: Path, what: str) -> Any:
    try:
        return json.loads(path.read_text("utf-8"))
    except OSError as exc:
        raise EvaluationError(f"{what} {path} cannot be read ({exc.strerror or exc})") from exc
    except ValueError as exc:
        raise EvaluationError(f"{what} {path} is not valid JSON ({exc})") from exc


def _hidden_labels(root: Path, manifest: Mapping[str, Any], testset: Path, given: Path | None):
    """request_id → (label, hidden record) from the organisers' labels file."""
    said = manifest.get("hidden_labels") if isinstance(manifest.get("hidden_labels"), dict) else {}
    path = given or (root / str(said.get("path", "")) if said.get("path") else None)
    if path is None or not Path(path).is_file():
        raise EvaluationError(
            f"the test labels of {root} are hidden and the labels file "
            f"{path or '(the manifest names none)'} is not there: score with the organisers' "
            "file (--labels FILE, or put SciVer.labels.json beside the release folder)"
        )
    labels = _json(Path(path), "the labels file")
    if not isinstance(labels, dict) or labels.get("format") != LABELS_FORMAT:
        raise EvaluationError(f"{path} is not a hidden-labels file written by export_release")
    if labels.get("testset_sha256") != hashlib.sha256(testset.read_bytes()).hexdigest():
        raise EvaluationError(
            f"{path} was written for another testset.json (its checksum differs): it would "
            "score other records; use the labels file exported with this release"
        )
    records = {r.get("request_id"): r for r in labels.get("records") or [] if isinstance(r, dict)}
    return {int(k): (v, records.get(int(k), {})) for k, v in (labels.get("labels") or {}).items()}


def load_part(root: Path, part: str, *, labels: Path | None = None) -> ReleasePart:
    """The part (`validation` or `test`) of the release folder `root`."""
    root = Path(root)
    if part not in PARTS:
        raise EvaluationError(f"part must be one of {', '.join(PARTS)}, got {part!r}")
    sciver_file, jsonl_file, _ = SPLIT_FILES[part]
    if not root.is_dir():
        raise EvaluationError(f"{root} is not a release folder")
    manifest_path = root / "manifest.json"
    manifest = _json(manifest_path, "the manifest") if manifest_path.is_file() else {}
    if not (root / sciver_file).is_file():
        raise EvaluationError(f"{root} has no {sciver_file}: the release holds no {part} part")
    records = _json(root / sciver_file, "the records file")
    if not isinstance(records, list):
        raise EvaluationError(f"{root / sciver_file} is not a list of records")
    rows: dict[int, dict] = {}
    if (root / jsonl_file).is_file():
        for line in (root / jsonl_file).read_text("utf-8").splitlines():
            if line.strip():
                row = json.loads(line)
                rows[row.get("request_id")] = row
    hidden = any(isinstance(r, dict) and "label" not in r for r in records)
    answers = _hidden_labels(root, manifest, root / sciver_file, labels) if hidden else {}
    items = []
    for index, record in enumerate(records):
        if not isinstance(record, dict) or not isinstance(record.get("request_id"), int):
            raise EvaluationError(f"{sciver_file}[{index}] is not a record with a request_id")
        rid = record["request_id"]
        row = rows.get(rid, {})
        if hidden:
            if rid not in answers:
                raise EvaluationError(f"the labels file does not answer request {rid}")
            label, secret = answers[rid]
        else:
            label, secret = record.get("label"), row
        if not isinstance(label, bool):
            raise EvaluationError(f"{sciver_file}[{index}]: label {label!r} is not true/false")
        evidence = secret.get("evidence") if isinstance(secret, dict) else None
        items.append(
            Item(
                request_id=rid,
                claim_type=str(record.get("claim_type", "")),
                label=label,
                claim=str(record.get("claim", "")),
                subfield=str(row.get("subfield") or UNKNOWN),
                evidence=len(evidence) if isinstance(evidence, list) else None,
                record=record,
                evidence_pieces=tuple(e for e in evidence if isinstance(e, Mapping))
                if isinstance(evidence, list)
                else None,
            )
        )
    seen: set[int] = set()
    for item in items:
        if item.request_id in seen:
            raise EvaluationError(f"request_id {item.request_id} appears twice in {sciver_file}")
        seen.add(item.request_id)
    name = str(manifest.get("name") or root.name)
    return ReleasePart(root, part, name, items, hidden, labels if hidden else None)
