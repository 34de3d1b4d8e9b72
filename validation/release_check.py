"""Verifies a release folder (pure: files in, problems out): schema of every record, paths,
checksums and sizes, pair integrity, and no test labels when they are hidden."""

from __future__ import annotations

import hashlib
import json
from collections import defaultdict
from pathlib import Path
from typing import Any

from validation.release.formats import HIDDEN_FIELDS, HIDDEN_JSONL_FIELDS, SCIVER_ROOT
from validation.release.writer import SPLIT_FILES

COMMON = {
    "request_id": int, "paperid": str, "paper_path": str, "claim_type": str, "claim": str,
    "label": bool, "origin_statement": str, "perturbed_statement": str,
    "perturbed_explanation": str, "section": list,
}  # fmt: skip
ONE = {"type": str, "item": str, "image_path": str}
TWO = {f"item{n}{s}": str for n in (1, 2) for s in ("_type", "", "_path")}
GROUPS = {"direct": ONE, "analytical": ONE, "parallel": TWO, "sequential": TWO}


def _local(root: Path, path: str) -> Path:
    """`./SciVer/images/x.png` → `<root>/images/x.png` whatever the folder's name."""
    prefix = SCIVER_ROOT + "/"
    return root / (path[len(prefix) :] if path.startswith(prefix) else path)


def _sha256(path: Path) -> tuple[str, int]:
    digest, size = hashlib.sha256(), 0
    with open(path, "rb") as handle:
        while chunk := handle.read(1 << 20):
            digest.update(chunk)
            size += len(chunk)
    return digest.hexdigest(), size


def _record_problems(where: str, record: Any, hidden: bool, root: Path) -> list[str]:
    if not isinstance(record, dict):
        return [f"{where}: not an object"]
    problems = []
    wanted = dict(COMMON)
    if hidden:
        for name in HIDDEN_FIELDS:
            wanted.pop(name)
            if name in record:
                problems.append(f"{where}: test labels are hidden but it has {name!r}")
    wanted |= GROUPS.get(record.get("claim_type"), {})
    if record.get("claim_type") not in GROUPS:
        problems.append(f"{where}: claim_type {record.get('claim_type')!r} is not a SciVer subset")
    for name, kind in wanted.items():
        if name not in record:
            problems.append(f"{where}: missing {name!r}")
        elif not isinstance(record[name], kind) or (kind is int and isinstance(record[name], bool)):
            problems.append(f"{where}: {name!r} should be {kind.__name__}")
    for name in ("paper_path", "image_path", "item1_path", "item2_path"):
        value = record.get(name)
        if isinstance(value, str) and not _local(root, value).is_file():
            problems.append(f"{where}: {name} {value} does not exist")
    if not hidden and isinstance(record.get("label"), bool):
        expected = record["origin_statement"] if record["label"] else record["perturbed_statement"]
        if record.get("claim") != expected:
            problems.append(f"{where}: claim does not match its label's statement")
    return problems


def _paper_problems(path: Path) -> list[str]:
    try:
        paper = json.loads(path.read_text("utf-8"))
    except (OSError, ValueError) as exc:
        return [f"{path.name}: unreadable ({exc})"]
    problems = []
    if not isinstance(paper.get("sections"), list) or any(
        set(s) != {"section_id", "section_name", "text"} for s in paper.get("sections", [])
    ):
        problems.append(f"papers/{path.name}: sections must hold section_id, section_name, text")
    if any(set(v) != {"caption"} for v in paper.get("image_paths", {}).values()):
        problems.append(f"papers/{path.name}: image_paths entries must hold caption")
    if any(set(v) != {"capture"} for v in paper.get("tables", {}).values()):
        problems.append(f"papers/{path.name}: tables entries must hold capture")
    return problems


def check_release(root: Path) -> list[str]:
    """Every problem found in the release folder `root` (empty: the release is sound)."""
    root = Path(root)
    manifest_path = root / "manifest.json"
    if not manifest_path.is_file():
        return [f"{root}: no manifest.json"]
    manifest = json.loads(manifest_path.read_text("utf-8"))
    problems: list[str] = []
    listed = manifest.get("files", {})
    for name, entry in sorted(listed.items()):
        path = root / name
        if not path.is_file():
            problems.append(f"{name}: listed in the manifest but missing")
            continue
        sha256, size = _sha256(path)
        if sha256 != entry.get("sha256"):
            problems.append(f"{name}: checksum differs from the manifest")
        if size != entry.get("bytes"):
            problems.append(f"{name}: {size} bytes, the manifest says {entry.get('bytes')}")
    on_disk = {p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file()}
    for name in sorted(on_disk - set(listed) - {"manifest.json"}):
        problems.append(f"{name}: not in the manifest")
    hide = bool(manifest.get("hide_test_labels"))
    ids: dict[int, str] = {}
    pairs: dict[object, list[tuple[str, dict]]] = defaultdict(list)
    for split, (sciver_file, jsonl_file, _) in SPLIT_FILES.items():
        if not (root / sciver_file).exists():
            continue
        hidden = hide and split == "test"
        records = json.loads((root / sciver_file).read_text("utf-8"))
        if not isinstance(records, list):
            problems.append(f"{sciver_file}: not a list")
            continue
        for index, record in enumerate(records):
            where = f"{sciver_file}[{index}]"
            problems += _record_problems(where, record, hidden, root)
            rid = record.get("request_id") if isinstance(record, dict) else None
            if isinstance(rid, int):
                if rid in ids:
                    problems.append(f"{where}: request_id {rid} also in {ids[rid]}")
                ids[rid] = where
        if (root / jsonl_file).exists():
            for line_no, line in enumerate((root / jsonl_file).read_text("utf-8").splitlines(), 1):
                row = json.loads(line)
                if hidden:
                    leaked = [n for n in HIDDEN_JSONL_FIELDS if n in row]
                    if leaked:
                        problems.append(f"{jsonl_file}:{line_no}: hidden fields present {leaked}")
                if row.get("pair_id") is not None:
                    pairs[row["pair_id"]].append((split, row))
    for pair_id, rows in sorted(pairs.items(), key=lambda kv: str(kv[0])):
        splits = {s for s, _ in rows}
        if len(rows) != 2:
            problems.append(f"pair {pair_id}: {len(rows)} claim(s), expected 2")
        if len(splits) > 1:
            problems.append(f"pair {pair_id}: its claims are in different splits")
        labels = [r.get("label") for _, r in rows if "label" in r]
        if len(labels) == 2 and sorted(labels) != [False, True]:
            problems.append(f"pair {pair_id}: expected one entailed and one refuted claim")
        origins = {r.get("origin_statement") for _, r in rows if "origin_statement" in r}
        if len(origins) > 1:
            problems.append(f"pair {pair_id}: the two claims disagree on origin_statement")
    for path in sorted((root / "papers").glob("*.json")):
        problems += _paper_problems(path)
    return problems
