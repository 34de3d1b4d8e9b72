"""Verifies a release folder (pure: files in, problems and warnings out): schema of every
record, paths, checksums and sizes, unique paperids and image names, pair integrity, no test
labels when they are hidden, the manifest's format version; that every record, read as
SciVer's own code reads it (`validation.release.reading`), gives a model its claim's evidence
(some text, every evidence paragraph, exactly its tables/charts), that every paper-file
section is one a record can reach, and that no refuted claim differs from its entailed one
only in a reference number or number formatting. It warns about synthetic (demo) content, a
folder whose name breaks the records' ./SciVer/… paths, and claims that hold HTML or LaTeX
markup (released as typed)."""

from __future__ import annotations

import hashlib
import json
from collections import Counter, defaultdict
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from annotation.writing.warnings import markup_in, perturbation_problem
from papers.licences import allows_redistribution, licence_code, licence_name
from validation.release import reading
from validation.release.formats import (
    HIDDEN_FIELDS,
    HIDDEN_JSONL_FIELDS,
    SCIVER_FOLDER,
    SCIVER_ROOT,
    sciver_path,
)
from validation.release.records import image_name
from validation.release.writer import FORMAT_VERSION, LABELS_FORMAT, SPLIT_FILES

__all__ = [
    "Finding",
    "ReleaseReport",
    "check_release",
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

COMMON = {
    "request_id": int,
    "paperid": str,
    "paper_path": str,
    "claim_type": str,
    "claim": str,
    "label": bool,
    "origin_statement": str,
    "perturbed_statement": str,
    "perturbed_explanation": str,
    "section": list,
}
ONE = {"type": str, "item": str, "image_path": str}
TWO = {f"item{n}{s}": str for n in (1, 2) for s in ("_type", "", "_path")}
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


def _paper_problems(path: Path) -> list[str]:
    try:
        paper = json.loads(path.read_text("utf-8"), object_pairs_hook=_unique_keys)
    except (OSError, ValueError) as exc:
        return [f"papers/{path.name}: unreadable ({exc})"]
    problems = []
    if not isinstance(paper.get("sections"), list) or any(
        set(s) != {"section_id", "section_name", "text"} for s in paper.get("sections", [])
    ):
        problems.append(f"papers/{path.name}: sections must hold section_id, section_name, text")
    if any(set(v) != {"caption"} for v in paper.get("image_paths", {}).values()):
        problems.append(f"papers/{path.name}: image_paths entries must hold caption")
    if any(set(v) != {"capture"} for v in paper.get("tables", {}).values()):
        problems.append(f"papers/{path.name}: tables entries must hold capture")
    for section in paper.get("sections") if isinstance(paper.get("sections"), list) else []:
        if isinstance(section, dict) and not reading.is_reachable(section.get("section_id", "")):
            problems.append(
                f"papers/{path.name}: section_id {section.get('section_id')!r} "
                f"({section.get('section_name') or 'untitled'}) is one no record can name, so "
                "SciVer's reading never gives a model its text (an anchor, not a section "
                f"number or a lower-case slug); {REEXPORT.split(';')[0]}"
            )
    return problems


def check_release(root: Path) -> list[str]:
    """Every problem found in the release folder `root` (empty: the release is sound)."""
    return inspect_release(root).problems


def inspect_release(root: Path) -> ReleaseReport:
    """The problems of the release folder `root`, and warnings that do not make it unsound."""
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
    problems += _format_problems(manifest)
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
    for path in sorted((root / "papers").glob("*.json")):
        problems += _paper_problems(path)
    problems += _fidelity_problems(root, sciver, ours)
    problems += _labels_problems(root, manifest, sciver)
    problems += _identity_problems(ours)
    report.warnings += _synthetic(ours, manifest, problems)
    report.warnings += _folder_name(root)
    report.warnings += _licence_warnings(ours)
    report.warnings += _markup_warnings(sciver)
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
        "hidden test labels kept outside the folder); export the split again "
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
    root: Path, sciver: list[tuple[str, dict]], ours: list[tuple[str, str, dict]]
) -> list[str]:
    """`record_findings` for every record whose paper file can be read."""
    rows = {
        row["request_id"]: row
        for _, _, row in ours
        if isinstance(row.get("request_id"), int) and not isinstance(row["request_id"], bool)
    }
    papers: dict[str, dict | None] = {}
    problems = []
    for where, record in sciver:
        path = record.get("paper_path")
        if not isinstance(path, str):
            continue
        if path not in papers:
            try:
                paper = json.loads(_local(root, path).read_text("utf-8"))
            except (OSError, ValueError):
                paper = None  # said by the path and paper checks
            papers[path] = paper if isinstance(paper, dict) else None
        paper = papers[path]
        if paper is None:
            continue
        rid = record.get("request_id")
        named = f"{where} (request {rid}, paper {record.get('paperid')})"
        for finding in record_findings(record, rows.get(rid), paper):
            problems.append(f"{named}: {finding.what}; {finding.fix}")
    return problems


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


# --- Markup in claims ------------------------------------------------------------------------

MARKUP_KINDS = {"html": "HTML markup", "latex": "LaTeX"}


def _markup_warnings(records: list[tuple[str, dict]]) -> list[str]:
    """One warning per kind of markup (HTML, LaTeX) found in the records' claims, naming them: a
    claim is released exactly as typed, so a reader or a model sees `<script>` or `$70\\%$`."""
    found: dict[str, list[str]] = defaultdict(list)
    for where, record in records:
        claim = record.get("claim")
        if not isinstance(claim, str):
            continue
        for kind, spans in markup_in(claim).items():
            shown = spans[0] if len(spans[0]) <= 40 else spans[0][:39] + "…"
            found[kind].append(f"{where} “{shown}”")
    return [
        f"markup in claims: {len(places)} claim(s) hold {MARKUP_KINDS[kind]}, released as typed "
        f"and never rendered: {', '.join(places[:10])}"
        + (f" and {len(places) - 10} more" if len(places) > 10 else "")
        + "; re-open their validation (Validation, /manage/validation/) so that the validator "
        "writes them as plain text, then export again"
        for kind, places in sorted(found.items())
    ]
