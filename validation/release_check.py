"""Verifies a release folder (pure: files in, problems and warnings out): schema of every
record, paths, checksums and sizes, unique paperids and image names, pair integrity, no test
labels when they are hidden, the manifest's format version; that every record, read as
SciVer's own code reads it (`validation.release.reading`), gives a model its claim's evidence
(some text, every evidence paragraph, exactly its tables/charts), that every paper-file
section is one a record can reach, and that no refuted claim differs from its entailed one
only in a reference number or number formatting; that no paper has records in both parts
(unless the split allowed it: then a warning), that no claim of validation is an exact or near
duplicate of a test claim (`validation.release.duplicates`; a warning between two synthetic demo
records), and that no text of a record, a JSON Lines row or a paper file holds raw HTML (tags,
entities). It warns about synthetic (demo) content, a folder whose name breaks the records'
./SciVer/… paths, claims that hold LaTeX (released as typed), and counts the LaTeX in the
records' contexts and the captions (SciVer's data keeps it too)."""

from __future__ import annotations

import hashlib
import json
import re
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from html.entities import html5 as HTML5_ENTITIES
from pathlib import Path
from typing import Any

from annotation.writing.warnings import LATEX_MARKUP, markup_in, perturbation_problem
from papers.licences import allows_redistribution, licence_code, licence_name
from validation.audit import ARTIFACT_MARGIN, artifact_warnings
from validation.release import reading
from validation.release.duplicates import THRESHOLD, near_duplicates
from validation.release.formats import (
    COMMON_FIELDS,
    HIDDEN_FIELDS,
    HIDDEN_JSONL_FIELDS,
    ONE_ELEMENT_FIELDS,
    SCIVER_FOLDER,
    SCIVER_ROOT,
    SPLIT_FILES,
    TWO_ELEMENT_FIELDS,
    sciver_path,
)
from validation.release.hub import hub_problems
from validation.release.records import image_name
from validation.release.writer import FORMAT_VERSION, LABELS_FORMAT

__all__ = [
    "Finding",
    "ReleaseReport",
    "check_release",
    "html_in",
    "inspect_release",
    "perturbation_problem",
    "record_findings",
]

REEXPORT = (
    "export the split again with this SciVer Studio (python manage.py export_release --split "
    "NAME --out DIR --overwrite); should the export refuse the claim, re-open its validation "
    "so that the validator fixes its evidence"
)
REWRITE_PERTURBATION = (
    "re-open the refuted claim's validation (Validation, /manage/validation/) so that the "
    "validator rewrites it with a factual error the evidence contradicts, then export again"
)

PYTHON_TYPES = {"int": int, "str": str, "bool": bool, "list[str]": list}
COMMON = {name: PYTHON_TYPES[kind] for name, kind in COMMON_FIELDS}
ONE = {name: PYTHON_TYPES[kind] for name, kind in ONE_ELEMENT_FIELDS}
TWO = {name: PYTHON_TYPES[kind] for name, kind in TWO_ELEMENT_FIELDS}
GROUPS = {"direct": ONE, "analytical": ONE, "parallel": TWO, "sequential": TWO}
# (type, item, path) field names of the tables/charts a record names.
ELEMENT_FIELDS = {
    "direct": [("type", "item", "image_path")],
    "analytical": [("type", "item", "image_path")],
    "parallel": [(f"item{n}_type", f"item{n}", f"item{n}_path") for n in (1, 2)],
    "sequential": [(f"item{n}_type", f"item{n}", f"item{n}_path") for n in (1, 2)],
}


@dataclass
class ReleaseReport:
    """`problems` make a release unsound; `warnings` (synthetic content, a folder not named
    SciVer) do not."""

    problems: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)


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
    wanted |= GROUPS.get(str(record.get("claim_type")), {})
    if record.get("claim_type") not in GROUPS:
        problems.append(f"{where}: claim_type {record.get('claim_type')!r} is not a SciVer subset")
    for name, kind in wanted.items():
        if name not in record:
            problems.append(f"{where}: missing {name!r}")
        elif not isinstance(record[name], kind) or (kind is int and isinstance(record[name], bool)):
            problems.append(f"{where}: {name!r} should be {kind.__name__}")
    section = record.get("section")
    if isinstance(section, list) and not all(isinstance(s, str) and s for s in section):
        problems.append(
            f"{where}: section {section!r} must list section ids as non-empty strings "
            "(strict loaders of the format refuse it)"
        )
    for name in ("paper_path", "image_path", "item1_path", "item2_path"):
        value = record.get(name)
        if isinstance(value, str) and not _local(root, value).is_file():
            problems.append(f"{where}: {name} {value} does not exist")
    if not hidden and isinstance(record.get("label"), bool):
        expected = record["origin_statement"] if record["label"] else record["perturbed_statement"]
        if record.get("claim") != expected:
            problems.append(f"{where}: claim does not match its label's statement")
    return problems + _naming_problems(where, record)


def _naming_problems(where: str, record: dict) -> list[str]:
    """The paper file and image names follow from paperid, type and item: a record whose
    paths say otherwise points at another paper's (or element's) files."""
    paperid = record.get("paperid")
    if not isinstance(paperid, str):
        return []
    problems = []
    paper_path = record.get("paper_path")
    if isinstance(paper_path, str) and paper_path != sciver_path(f"papers/{paperid}.json"):
        problems.append(f"{where}: paper_path {paper_path} is not the file of paper {paperid}")
    for type_field, item_field, path_field in ELEMENT_FIELDS.get(str(record.get("claim_type")), []):
        kind, item, path = (record.get(n) for n in (type_field, item_field, path_field))
        if not (isinstance(kind, str) and isinstance(item, str) and isinstance(path, str)):
            continue
        try:
            expected = sciver_path(image_name(paperid, kind, item))
        except ValueError:
            problems.append(f"{where}: {type_field} {kind!r} is neither table nor chart")
            continue
        if path != expected:
            problems.append(f"{where}: {path_field} {path} should be {expected}")
    return problems


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """json.loads hook: a repeated key would silently keep only its last value."""
    counts = Counter(k for k, _ in pairs)
    repeated = sorted(k for k, n in counts.items() if n > 1)
    if repeated:
        raise ValueError(f"repeated key(s) {', '.join(map(repr, repeated))}")
    return dict(pairs)


def _paper_problems(path: Path) -> tuple[list[str], dict | None]:
    """The paper file's problems, and the file itself when it could be read."""
    try:
        paper = json.loads(path.read_text("utf-8"), object_pairs_hook=_unique_keys)
    except (OSError, ValueError) as exc:
        return [f"papers/{path.name}: unreadable ({exc})"], None
    if not isinstance(paper, dict):
        return [f"papers/{path.name}: not an object"], None
    problems = []
    if not isinstance(paper.get("sections"), list) or any(
        set(s) != {"section_id", "section_name", "text"} for s in paper.get("sections", [])
    ):
        problems.append(f"papers/{path.name}: sections must hold section_id, section_name, text")
    if any(set(v) != {"caption"} for v in paper.get("image_paths", {}).values()):
        problems.append(f"papers/{path.name}: image_paths entries must hold caption")
    if any(set(v) != {"capture"} for v in paper.get("tables", {}).values()):
        problems.append(f"papers/{path.name}: tables entries must hold capture")
    listed = paper.get("sections")
    for section in listed if isinstance(listed, list) else []:
        if isinstance(section, dict) and not reading.is_reachable(section.get("section_id", "")):
            problems.append(
                f"papers/{path.name}: section_id {section.get('section_id')!r} "
                f"({section.get('section_name') or 'untitled'}) is one no record can name, so "
                "SciVer's reading never gives a model its text (an anchor, not a section "
                f"number or a lower-case slug); {REEXPORT.split(';')[0]}"
            )
    return problems, paper


def check_release(root: Path) -> list[str]:
    """Every problem found in the release folder `root` (empty: the release is sound)."""
    return inspect_release(root).problems


def inspect_release(root: Path, *, artifact_margin: float = ARTIFACT_MARGIN) -> ReleaseReport:
    """The problems of the release folder `root`, and warnings that do not make it unsound
    (among them annotation artifacts: a claim-only baseline beating chance by more than
    `artifact_margin` points, `validation.audit`)."""
    root = Path(root)
    manifest_path = root / "manifest.json"
    if not manifest_path.is_file():
        return ReleaseReport([f"{root}: no manifest.json"])
    try:
        manifest = json.loads(manifest_path.read_text("utf-8"))
    except ValueError as exc:
        return ReleaseReport([f"manifest.json: unreadable ({exc})"])
    problems: list[str] = []
    report = ReleaseReport(problems)
    outdated = _format_problems(manifest)
    problems += outdated
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
    folded: dict[str, str] = {}
    for name in sorted(set(listed) | on_disk):
        # One file on macOS and Windows: unzipping there would lose one of them.
        if name.casefold() in folded and folded[name.casefold()] != name:
            problems.append(f"{name}: same name as {folded[name.casefold()]} but for case")
        folded.setdefault(name.casefold(), name)
    hide = bool(manifest.get("hide_test_labels"))
    ours: list[tuple[str, str, dict]] = []  # (where, split, row) of our JSON Lines
    sciver: list[tuple[str, dict]] = []  # (where, record) of the SciVer files
    parts: dict[str, list[tuple[str, dict]]] = defaultdict(list)  # split → its SciVer records
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
            if isinstance(record, dict):
                sciver.append((where, record))
                parts[split].append((where, record))
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
                ours.append((f"{jsonl_file}:{line_no}", split, row))
    for pair_id, rows in sorted(pairs.items(), key=lambda kv: str(kv[0])):
        splits = {s for s, _ in rows}
        if len(rows) != 2:
            problems.append(f"pair {pair_id}: {len(rows)} claim(s), expected 2")
        if len(splits) > 1:
            problems.append(f"pair {pair_id}: its claims are in different splits")
        labels = [r.get("label") for _, r in rows if "label" in r]
        if len(labels) == 2 and sorted(labels, key=repr) != [False, True]:
            problems.append(f"pair {pair_id}: expected one entailed and one refuted claim")
        origins = {r.get("origin_statement") for _, r in rows if "origin_statement" in r}
        if len(origins) > 1:
            problems.append(f"pair {pair_id}: the two claims disagree on origin_statement")
    paper_files: dict[Path, dict] = {}
    for path in sorted((root / "papers").glob("*.json")):
        found, paper = _paper_problems(path)
        problems += found
        if paper is not None:
            paper_files[path] = paper
    fidelity, latex_contexts = _fidelity_problems(root, sciver, ours, paper_files)
    problems += fidelity
    problems += _labels_problems(root, manifest, sciver)
    problems += _identity_problems(ours)
    shared_problems, shared_warnings = _shared_papers(parts, manifest)
    problems += shared_problems
    duplicate_problems, duplicate_warnings = _duplicates_across_parts(parts, ours)
    problems += duplicate_problems
    problems += _html_problems(sciver, ours, paper_files)
    if not outdated:  # an older release has no Hub files: its re-export is the advice
        problems += hub_problems(root)
    report.warnings += _synthetic(ours, manifest, problems)
    report.warnings += _folder_name(root)
    report.warnings += _licence_warnings(ours)
    report.warnings += shared_warnings
    report.warnings += duplicate_warnings
    report.warnings += _markup_warnings(sciver)
    report.warnings += _latex_warnings(latex_contexts, len(sciver), paper_files.values())
    report.warnings += artifact_warnings(
        ({**r, "part": split} for split, rows in parts.items() for _, r in rows),
        margin=artifact_margin,
    )
    return report


def _format_problems(manifest: dict) -> list[str]:
    """A release written before the current format lacks what the checks below rely on."""
    version = manifest.get("format_version")
    if isinstance(version, int) and not isinstance(version, bool) and version == FORMAT_VERSION:
        return []
    if isinstance(version, int) and not isinstance(version, bool) and version > FORMAT_VERSION:
        return [
            f"manifest.json: format_version {version} is newer than this check_release knows "
            f"({FORMAT_VERSION}); check it with the SciVer Studio that wrote it"
        ]
    said = "no format_version" if version is None else f"format_version {version!r}"
    return [
        f"manifest.json: {said}: the release predates format {FORMAT_VERSION} (records that "
        "name exactly their claim's tables/charts and sections SciVer's reading reaches, "
        "hidden test labels kept outside the folder, public test files without the pairing, "
        "the split's papers per part, croissant.json and the card's Hub metadata); export the "
        "split again "
        "(python manage.py export_release --split NAME --out DIR --overwrite)"
    ]


# --- What a model is given: each record read as SciVer's code reads it --------------------


@dataclass(frozen=True)
class Finding:
    """One way a record fails its claim, said without naming the record (the caller does),
    and what fixes it."""

    what: str
    fix: str


def _relative(path: str) -> str:
    prefix = SCIVER_ROOT + "/"
    return path[len(prefix) :] if path.startswith(prefix) else path


def record_findings(
    record: Mapping[str, Any],
    row: Mapping[str, Any] | None,
    paper: Mapping[str, Any],
    *,
    seen: reading.ModelInput | None = None,
) -> list[Finding]:
    """What is wrong with the model input SciVer's reading builds for `record` from its
    `paper` file, against our fuller `row` of the same claim (its evidence, statements): no
    text at all, an evidence paragraph left out, images other than the claim's tables/charts,
    a perturbation that changes only a reference number or a number's formatting. A hidden
    test record (no evidence, no statements) is checked for text only. `seen`: the record's
    `reading.model_input`, when the caller has it already."""
    findings = []
    if seen is None:
        seen = reading.model_input(record, paper)
    section = record.get("section")
    if not seen.context:
        findings.append(
            Finding(
                f"SciVer's reading gives the model no text: section {section!r} names no section "
                "of its paper file",
                REEXPORT,
            )
        )
    row = row or {}
    evidence = [p for p in row.get("evidence") or [] if isinstance(p, Mapping)]
    if "evidence" in row:
        reached = ", ".join(seen.section_ids) or "nothing"
        for piece in evidence:
            text = piece.get("text") or ""
            if piece.get("kind") == "paragraph" and text and text not in seen.context:
                findings.append(
                    Finding(
                        f"evidence paragraph {piece.get('anchor')} is not in the context SciVer's "
                        f"reading builds from section {section!r} (it reads {reached})",
                        REEXPORT,
                    )
                )
        named = sorted(_relative(img.path) for img in seen.images)
        wanted = sorted(
            str(p.get("image_path")) for p in evidence if p.get("kind") in ("table", "chart")
        )
        if named != wanted:
            findings.append(
                Finding(
                    f"the record shows the model {', '.join(named) or 'no image'} but the claim's "
                    f"table/chart evidence is {', '.join(wanted) or 'none'}",
                    REEXPORT,
                )
            )
    statements = record if "origin_statement" in record else row
    label = record.get("label", row.get("label"))
    if label is False and "origin_statement" in statements:
        why = perturbation_problem(
            str(statements.get("origin_statement") or ""),
            str(statements.get("perturbed_statement") or ""),
        )
        if why:
            findings.append(Finding(f"the refuted claim {why}", REWRITE_PERTURBATION))
    return findings


def _fidelity_problems(
    root: Path,
    sciver: list[tuple[str, dict]],
    ours: list[tuple[str, str, dict]],
    paper_files: Mapping[Path, dict] | None = None,
) -> tuple[list[str], int]:
    """`record_findings` for every record whose paper file can be read (`paper_files`: those
    read already, by path), and how many records' contexts hold LaTeX."""
    rows = {
        row["request_id"]: row
        for _, _, row in ours
        if isinstance(row.get("request_id"), int) and not isinstance(row["request_id"], bool)
    }
    papers: dict[str, dict | None] = {}
    problems = []
    latex = 0
    for where, record in sciver:
        path = record.get("paper_path")
        if not isinstance(path, str):
            continue
        if path not in papers:
            local = _local(root, path)
            paper = (paper_files or {}).get(local)
            if paper is None:
                try:
                    paper = json.loads(local.read_text("utf-8"))
                except (OSError, ValueError):
                    paper = None  # said by the path and paper checks
            papers[path] = paper if isinstance(paper, dict) else None
        paper = papers[path]
        if paper is None:
            continue
        rid = record.get("request_id")
        named = f"{where} (request {rid}, paper {record.get('paperid')})"
        seen = reading.model_input(record, paper)
        latex += bool(LATEX_MARKUP.search(seen.context))
        for finding in record_findings(record, rows.get(rid), paper, seen=seen):
            problems.append(f"{named}: {finding.what}; {finding.fix}")
    return problems, latex


def _labels_problems(root: Path, manifest: dict, sciver: list[tuple[str, dict]]) -> list[str]:
    """The hidden test labels file is not needed to check the public folder; when it is where
    the manifest says, it must answer for exactly the public test records."""
    said = manifest.get("hidden_labels")
    if not manifest.get("hide_test_labels") or not isinstance(said, dict):
        return []
    path = root / str(said.get("path", ""))
    if not path.is_file():
        return []
    try:
        labels = json.loads(path.read_text("utf-8"))
    except (OSError, ValueError) as exc:
        return [f"{path}: the hidden labels file is unreadable ({exc})"]
    if not isinstance(labels, dict) or labels.get("format") != LABELS_FORMAT:
        return [f"{path}: not a hidden labels file written by export_release"]
    testset = root / SPLIT_FILES["test"][0]
    problems = []
    if testset.is_file() and labels.get("testset_sha256") != _sha256(testset)[0]:
        problems.append(
            f"{path}: written for another testset.json (checksum differs): it would score "
            "other records; export the split again"
        )
    public = {str(r.get("request_id")) for w, r in sciver if w.startswith(SPLIT_FILES["test"][0])}
    answered = set(labels.get("labels") or {})
    if public != answered:
        problems.append(
            f"{path}: answers {len(answered)} request ids, the public test set holds "
            f"{len(public)} ({len(public - answered)} unanswered); export the split again"
        )
    return problems


def _folder_name(root: Path) -> list[str]:
    """The records' paths start with ./SciVer/: a folder named otherwise breaks them for code
    written for SciVer's release (this check reads them from `root` whatever its name)."""
    name = root.resolve().name
    if name == SCIVER_FOLDER:
        return []
    return [
        f"the release folder is named {name!r}, not {SCIVER_FOLDER!r}: paper_path and the image "
        f"paths ({SCIVER_ROOT}/…) resolve only from the parent of a folder named "
        f"{SCIVER_FOLDER}; rename the folder to {SCIVER_FOLDER}"
    ]


def _identity_problems(rows: list[tuple[str, str, dict]]) -> list[str]:
    """One paperid per paper, one image per element (from our records, which say which arXiv
    version each paperid stands for and which element each image shows)."""
    problems = []
    papers: dict[str, set[tuple[str, object]]] = defaultdict(set)
    shown: dict[str, set[str]] = defaultdict(set)
    for _, _, row in rows:
        paperid = row.get("paperid")
        if isinstance(paperid, str) and row.get("arxiv_id"):
            papers[paperid].add((row["arxiv_id"], row.get("arxiv_version")))
        for piece in row.get("evidence") or []:
            if isinstance(piece, dict) and piece.get("image_path"):
                shown[piece["image_path"]].add(str(piece.get("anchor")))
    for paperid, versions in sorted(papers.items()):
        if len(versions) > 1:
            named = ", ".join(f"{a}v{v}" for a, v in sorted(versions, key=str))
            problems.append(
                f"paperid {paperid} stands for {len(versions)} papers ({named}): they share "
                "one paper file and one set of image names"
            )
    by_arxiv: dict[str, set[tuple[str, object]]] = defaultdict(set)
    for paperid, versions in papers.items():
        for arxiv_id, version in versions:
            by_arxiv[arxiv_id].add((paperid, version))
    for arxiv_id, ids in sorted(by_arxiv.items()):
        if len({v for _, v in ids}) > 1:
            for paperid, version in sorted(ids, key=str):
                if paperid != f"{arxiv_id}v{version}":
                    problems.append(
                        f"paperid {paperid}: the release holds several versions of arXiv "
                        f"{arxiv_id}, so each paperid must carry its version ({arxiv_id}v{version})"
                    )
    for path, anchors in sorted(shown.items()):
        if len(anchors) > 1:
            problems.append(
                f"{path} stands for {len(anchors)} elements ({', '.join(sorted(anchors))})"
            )
    return problems


def _synthetic(rows: list[tuple[str, str, dict]], manifest: dict, problems: list[str]) -> list[str]:
    """A warning when any claim is synthetic demo data; a problem when the manifest's counts
    disagree with the records (a release must never understate its synthetic content)."""
    fake = [(split, row) for _, split, row in rows if row.get("synthetic") is True]
    fake_papers = {row.get("paperid") for _, row in fake}
    all_papers = {row.get("paperid") for _, _, row in rows}
    said = manifest.get("synthetic_papers")
    if isinstance(said, int) and said != len(fake_papers):
        problems.append(
            f"manifest.json: synthetic_papers is {said}, the records hold {len(fake_papers)}"
        )
    for split, counts in sorted((manifest.get("counts") or {}).items()):
        n = sum(s == split for s, _ in fake)
        if isinstance(counts, dict) and isinstance(counts.get("synthetic"), int):
            if counts["synthetic"] != n and any(s == split for _, s, _ in rows):
                problems.append(
                    f"manifest.json: {split} has {counts['synthetic']} synthetic claims, "
                    f"the records {n}"
                )
    if not fake and not said:
        return []
    return [
        f"synthetic content: {len(fake_papers)} of {len(all_papers)} papers and {len(fake)} of "
        f"{len(rows)} claims are simulate_annotation's demo data (copies of fixture papers), "
        "not real arXiv papers nor expert annotations; do not publish this release"
    ]


# --- Licence warnings ----------------------------------------------------------------------


def _licence_warnings(rows: list[tuple[str, str, dict]]) -> list[str]:
    """One warning per licence of the release's papers that does not allow redistribution
    with adaptations (a split takes them only when its maker names them), naming the papers."""
    papers: dict[str, set[str]] = defaultdict(set)
    for _, _, row in rows:
        code = licence_code(str(row.get("licence") or ""))
        if not allows_redistribution(code):
            papers[code].add(str(row.get("paperid")))
    return [
        f"licence: {len(ids)} paper(s) under {licence_name(code)} (`{code}`), which does not "
        f"allow redistribution with adaptations: {', '.join(sorted(ids)[:10])}"
        + (f" and {len(ids) - 10} more" if len(ids) > 10 else "")
        + "; publish them only if you may (the split's licence filter named them)"
        for code, ids in sorted(papers.items())
    ]


# --- Papers in both parts ----------------------------------------------------------------


def _named(items: Sequence[str], shown: int = 5) -> str:
    return ", ".join(items[:shown]) + (
        f" and {len(items) - shown} more" if len(items) > shown else ""
    )


def _shared_papers(
    parts: Mapping[str, list[tuple[str, dict]]], manifest: dict
) -> tuple[list[str], list[str]]:
    """(problems, warnings): a paper with records in both parts is a problem (SciVer's parts
    share no paper: a model tested on it has read its context and claims in validation), a
    warning when the manifest's "split" says the split allowed shared papers; the manifest's
    split facts must agree with the records. A manifest without "split" (an older release):
    the records alone are checked."""
    papers = {
        split: {r["paperid"] for _, r in records if isinstance(r.get("paperid"), str)}
        for split, records in parts.items()
    }
    shared = sorted(papers.get("validation", set()) & papers.get("test", set()))
    said_split = manifest.get("split")
    facts: dict = said_split if isinstance(said_split, dict) else {}
    problems = []
    said = facts.get("shared_papers")
    if isinstance(said, int) and not isinstance(said, bool) and said != len(shared):
        problems.append(
            f"manifest.json: split.shared_papers is {said}, the records share {len(shared)} "
            "paper(s) between the parts"
        )
    disjoint = facts.get("paper_disjoint")
    if isinstance(disjoint, bool) and disjoint != (not shared):
        problems.append(
            f"manifest.json: split.paper_disjoint is {str(disjoint).lower()}, but the records "
            f"{'share' if shared else 'share no'} paper(s) between the parts"
        )
    said_papers = facts.get("papers")
    counts: dict = said_papers if isinstance(said_papers, dict) else {}
    for split, ids in sorted(papers.items()):
        n = counts.get(split)
        if isinstance(n, int) and not isinstance(n, bool) and n != len(ids):
            problems.append(f"manifest.json: split.papers says {split} {n}, the records {len(ids)}")
    if not shared:
        return problems, []
    what = (
        f"{len(shared)} paper(s) have records in both {SPLIT_FILES['validation'][0]} and "
        f"{SPLIT_FILES['test'][0]} ({_named(shared)})"
    )
    if facts.get("shared_papers_allowed") is True:
        return problems, [
            f"papers in both parts: {what}; the split allowed shared papers "
            "(manifest.json split.shared_papers_allowed), whereas SciVer's parts share none"
        ]
    return problems + [
        f"papers in both parts: {what}: a model tested on them has read their context and "
        "claims in validation, and SciVer's two parts share no paper; make a new split whose "
        "parts share no paper and export it (where no paper-disjoint draw exists, a split made "
        "with --allow-shared-papers makes this a warning)"
    ], []


# --- Claims repeated across parts -------------------------------------------------------------

# The record fields whose texts are compared across parts (a hidden test record has `claim`).
CLAIM_FIELDS = ("claim", "origin_statement", "perturbed_statement")


def _snippet(text: str, width: int = 60) -> str:
    text = " ".join(text.split())
    return text if len(text) <= width else text[: width - 1] + "…"


def _claim_texts(
    records: list[tuple[str, dict]],
) -> tuple[list[str], list[tuple[str, dict, str]]]:
    """Each record's distinct claim texts, and for each its (where, record, field names)."""
    texts, owners = [], []
    for where, record in records:
        fields: dict[str, list[str]] = defaultdict(list)
        for name in CLAIM_FIELDS:
            value = record.get(name)
            if isinstance(value, str) and value.strip():
                fields[value].append(name)
        for text, names in fields.items():
            texts.append(text)
            owners.append((where, record, "/".join(names)))
    return texts, owners


def _duplicates_across_parts(
    parts: Mapping[str, list[tuple[str, dict]]], ours: list[tuple[str, str, dict]]
) -> tuple[list[str], list[str]]:
    """(problems, warnings): a claim of validation (its claim, origin or perturbed statement) that
    is an exact or near duplicate of one of test is a problem naming both records, unless both
    records are synthetic demo data (whose copied fixture papers repeat claims by construction):
    then one warning counts them. The two claims of a pair are near duplicates by construction,
    but always in one part."""
    left, left_owners = _claim_texts(parts.get("validation", []))
    right, right_owners = _claim_texts(parts.get("test", []))
    if not left or not right:
        return [], []
    synthetic = {
        row.get("request_id"): row.get("synthetic") is True
        for _, _, row in ours
        if isinstance(row.get("request_id"), int)
    }
    best: dict[tuple[str, str], tuple[float, bool, int, int]] = {}
    for match in near_duplicates(left, right):
        key = (left_owners[match.i][0], right_owners[match.j][0])
        score = (match.similarity, match.exact, match.i, match.j)
        if key not in best or score[:2] > best[key][:2]:
            best[key] = score
    problems, demo = [], 0
    for similarity, exact, i, j in best.values():
        (v_where, v_record, v_fields), (t_where, t_record, t_fields) = (
            left_owners[i],
            right_owners[j],
        )
        v_id, t_id = v_record.get("request_id"), t_record.get("request_id")
        if synthetic.get(v_id) and synthetic.get(t_id):
            demo += 1
            continue
        how = (
            "the same text but for case, spacing and punctuation"
            if exact
            else f"near duplicates (similarity {similarity:.2f} ≥ {THRESHOLD})"
        )
        problems.append(
            f"claims repeated across parts: {v_where} (request {v_id}, paper "
            f"{v_record.get('paperid')}, {v_fields} “{_snippet(left[i])}”) and {t_where} (request "
            f"{t_id}, paper {t_record.get('paperid')}, {t_fields} “{_snippet(right[j])}”) are "
            f"{how}: a model tested on the one has seen the other in validation; re-open one "
            "claim's validation (Validation, /manage/validation/) so that the validator rewrites "
            "it, or make a new split that puts both in one part, then export again"
        )
    warnings = []
    if demo:
        warnings.append(
            f"claims repeated across parts: {demo} validation/test record pair(s) share a claim "
            f"text exactly or nearly (similarity ≥ {THRESHOLD}), all of them synthetic demo "
            "data: the demo's copied fixtures repeat texts; a release of real claims has none"
        )
    return problems, warnings


# --- Raw HTML in any text ---------------------------------------------------------------------

# HTML and MathML elements whose tags are recognised. `s` is left out: `<s>` and `</s>` are
# the sentence boundary tokens NLP papers write about.
HTML_ELEMENTS = frozenset(
    """a abbr address article aside audio b bdi bdo blockquote body br button canvas caption
    center cite code col colgroup data dd del details dfn dialog div dl dt em embed fieldset
    figcaption figure font footer form h1 h2 h3 h4 h5 h6 head header hr html i iframe img input
    ins kbd label legend li link main mark meta meter nav noscript object ol optgroup option
    output p param picture pre progress rp rt ruby samp script section select small source span
    strike strong style sub summary sup svg table tbody td template textarea tfoot th thead time
    title tr tt u ul var video wbr math mi mn mo ms mtext mrow msub msup msubsup mfrac msqrt
    mroot mstyle mspace mtable mtr mtd mover munder munderover semantics annotation
    annotation-xml""".split()
)
_ELEMENT = "|".join(sorted(HTML_ELEMENTS, key=lambda e: (-len(e), e)))
_VALUE = r"""(?:"[^"]*"|'[^']*'|[^\s"'<>=`]+)"""
HTML_TAG = re.compile(
    rf"</(?:{_ELEMENT})\s*>"  # a closing tag: </div>, </span >
    # a whole tag of an element: <br>, <br/>, <td>, <span class="x">, <img src=x alt=y />
    rf"|<(?:{_ELEMENT})(?:\s+[A-Za-z_:][\w:.-]*\s*=\s*{_VALUE}"
    rf"|\s+[A-Za-z_:][\w:.-]*(?=[^<>]{0, 200}=))*\s*/?>"
    # an element's opening tag cut short: <img …, <table …, <math, <a href
    rf"|<(?:{_ELEMENT})\s+[A-Za-z_:][\w:.-]*\s*=\s*{_VALUE}"
    r"|<(?:img|table|math|span|div|script|iframe|svg|style|tbody|thead|figure|figcaption)"
    r"(?![\w-])|<a\s+(?:href|name|id|class|title|target|rel)\b",
    re.IGNORECASE,
)
# An entity: named (only the names HTML defines: "AT&T;" is no entity), decimal or hexadecimal.
_ENTITY = re.compile(r"&(?:#\d{1,7}|#[xX][0-9A-Fa-f]{1,6}|([A-Za-z][A-Za-z0-9]{1,31}));")


def html_in(text: str) -> list[str]:
    """The HTML tags and entities in `text`, as written: tags of HTML (and MathML) elements,
    `</…>` closing tags, and entities (`&amp;`, `&nbsp;`, `&#123;`, `&#x1F;`). Comparisons and
    arrows (`x < 5 and y > 3`, `a<b`, `<0.5%`, `->`, `<=`) are not HTML, nor is `a<b and c>d`
    (no attribute with a value)."""
    found = [m.group(0) for m in HTML_TAG.finditer(text)] if "<" in text else []
    found += [
        m.group(0)
        for m in (_ENTITY.finditer(text) if "&" in text else ())
        if m.group(1) is None or f"{m.group(1)};" in HTML5_ENTITIES
    ]
    return found


CLAIM_TEXT_FIX = (
    "re-open the claim's validation (Validation, /manage/validation/) so that the validator "
    "writes it as plain text, then export again"
)
PAPER_TEXT_FIX = (
    "the paper's stored text kept markup of its arXiv HTML: correct the text (or the parser, "
    "papers/parsing) and export again"
)
_CLAIM_WRITTEN = {*CLAIM_FIELDS, "perturbed_explanation", "explanation"}


def _strings(value: Any, path: str = "") -> Iterable[tuple[str, str]]:
    """(field path, text) of every string in a JSON value: `evidence[2].text`."""
    if isinstance(value, str):
        yield path, value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from _strings(item, f"{path}.{key}" if path else str(key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _strings(item, f"{path}[{index}]")


def _html_finding(place: str, field_path: str, text: str, spans: list[str], fix: str) -> str:
    first = spans[0]
    at = text.find(first)
    start, end = max(0, at - 25), min(len(text), at + len(first) + 25)
    shown = (
        ("…" if start else "")
        + " ".join(text[start:end].split())
        + ("…" if end < len(text) else "")
    )
    more = f" and {len(spans) - 1} more" if len(spans) > 1 else ""
    return (
        f"{place}: raw HTML in {field_path} ({first!r}{more}): “{shown}”; it is released as "
        f"typed and never rendered, so a reader and a model see the markup; {fix}"
    )


def _html_problems(
    sciver: list[tuple[str, dict]],
    ours: list[tuple[str, str, dict]],
    paper_files: Mapping[Path, dict],
) -> list[str]:
    """A problem for every string field holding HTML tags or entities: the SciVer records, our
    JSON Lines rows and the paper files (section names and text, captions)."""
    problems = []
    records = [(w, r, True) for w, r in sciver] + [(w, r, False) for w, _, r in ours]
    for where, record, is_sciver in records:
        place = f"{where} (request {record.get('request_id')}, paper {record.get('paperid')})"
        for field_path, text in _strings(record):
            spans = html_in(text)
            if not spans:
                continue
            top = re.split(r"[.\[]", field_path, maxsplit=1)[0]
            if top in _CLAIM_WRITTEN:
                fix = CLAIM_TEXT_FIX
            elif top == "evidence" and not is_sciver:
                fix = PAPER_TEXT_FIX
            else:
                fix = REEXPORT.split(";")[0]
            problems.append(_html_finding(place, field_path, text, spans, fix))
    for path, paper in sorted(paper_files.items()):
        listed = paper.get("sections")
        sections: list = listed if isinstance(listed, list) else []
        for field_path, text in _strings(paper):
            spans = html_in(text)
            if not spans:
                continue
            named = field_path
            index = re.match(r"sections\[(\d+)\]", field_path)
            if index and isinstance(sections[int(index.group(1))], dict):
                named += f" (section {sections[int(index.group(1))].get('section_id')!r})"
            place = f"papers/{path.name} (paper {path.stem})"
            problems.append(_html_finding(place, named, text, spans, PAPER_TEXT_FIX))
    return problems


# --- LaTeX -----------------------------------------------------------------------------------


def _latex_warnings(contexts: int, records: int, papers: Iterable[Mapping[str, Any]]) -> list[str]:
    """One warning counting LaTeX (`$…$` math, commands such as `\\alpha` or `\\textbf{`, escapes
    such as `\\%`, braced sub- and superscripts) in what a model reads: the records whose
    context (`reading.model_input`, the paper-file sections SciVer's reading reaches) holds
    some, and the captions of the paper files (tables' `capture`, charts' `caption`). Not a
    problem: SciVer's own release keeps the LaTeX of its papers too."""
    captions = with_latex = 0
    for paper in papers:
        for key, name in (("image_paths", "caption"), ("tables", "capture")):
            entries = paper.get(key)
            for entry in entries.values() if isinstance(entries, dict) else []:
                text = entry.get(name) if isinstance(entry, dict) else None
                if isinstance(text, str):
                    captions += 1
                    with_latex += bool(LATEX_MARKUP.search(text))
    if not contexts and not with_latex:
        return []
    return [
        f"LaTeX in {contexts:,} of {records:,} records' contexts (the sections SciVer's reading "
        f"gives a model) and {with_latex:,} of {captions:,} captions (tables' capture, charts' "
        "caption): released as typed, as SciVer's own data keeps LaTeX too; a model reads "
        "`$\\alpha$` rather than α"
    ]


# --- Markup in claims ------------------------------------------------------------------------


def _markup_warnings(records: list[tuple[str, dict]]) -> list[str]:
    """A warning naming the records whose claims hold LaTeX: a claim is released exactly as
    typed, so a reader or a model sees `$70\\%$`. (HTML in a claim is a problem, said by
    `_html_problems`.)"""
    places = []
    for where, record in records:
        claim = record.get("claim")
        if not isinstance(claim, str):
            continue
        spans = markup_in(claim).get("latex")
        if spans:
            shown = spans[0] if len(spans[0]) <= 40 else spans[0][:39] + "…"
            places.append(f"{where} “{shown}”")
    if not places:
        return []
    return [
        f"markup in claims: {len(places)} claim(s) hold LaTeX, released as typed and never "
        f"rendered: {', '.join(places[:10])}"
        + (f" and {len(places) - 10} more" if len(places) > 10 else "")
        + "; re-open their validation (Validation, /manage/validation/) so that the validator "
        "writes them as plain text, then export again"
    ]
