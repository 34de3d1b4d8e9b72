"""Formatters: release records to SciVer's JSON, our richer JSON Lines, and CSV."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import replace
from typing import Any

from annotation import downloads
from validation.release.records import ReleaseClaim, ReleasePaper

__all__ = [
    "CSV_COLUMNS",
    "HIDDEN_FIELDS",
    "HIDDEN_JSONL_FIELDS",
    "PAIRING_FIELDS",
    "COMMON_FIELDS",
    "ONE_ELEMENT_FIELDS",
    "SCIVER_FIELDS",
    "TWO_ELEMENT_FIELDS",
    "SCIVER_FOLDER",
    "SCIVER_ROOT",
    "SPLIT_FILES",
    "csv_text",
    "hidden_label_record",
    "json_bytes",
    "jsonl_bytes",
    "jsonl_record",
    "pretty_json_bytes",
    "public_test_claims",
    "sciver_paper",
    "sciver_path",
    "sciver_record",
    "synthetic",
]

# The public release's records point into a folder named SciVer next to the reader's code:
# `paper_path` and the image paths resolve only from the parent of a folder with that name.
SCIVER_FOLDER = "SciVer"
SCIVER_ROOT = f"./{SCIVER_FOLDER}"
# split name → (SciVer file, our JSON Lines, our CSV)
SPLIT_FILES = {
    "validation": ("valset.json", "data/validation.jsonl", "data/validation.csv"),
    "test": ("testset.json", "data/test.jsonl", "data/test.csv"),
}
# What --hide-test-labels removes from a record: everything that gives the answer away.
HIDDEN_FIELDS = ("label", "origin_statement", "perturbed_statement", "perturbed_explanation")
# ... and from our fuller records, what ties a test claim to its pair's other claim: a claim
# whose partner is known has its label given away by the partner's text (one of the two is
# entailed). `pair_id` says it outright; `sampled` (the pair's three sampled tables/charts) is
# the same for both claims and rarely for two pairs of one paper; `guideline_versions` starts
# with the pair's writing stage; `revisions` counts a validator's subset or label change on
# both claims of the pair. The paper-level fields (paperid, arxiv_id, venue, licence,
# synthetic) and SciVer's own fields (claim_type, section, the tables/charts) stay, as in
# SciVer's public test set; a subfield stays when it is the paper's (`public_test_claims`).
PAIRING_FIELDS = ("pair_id", "sampled", "guideline_versions", "revisions")
HIDDEN_JSONL_FIELDS = (*HIDDEN_FIELDS, "evidence", "provenance", "annotators", *PAIRING_FIELDS)
# SciVer's record fields in its order, each with its type (`str`, `int`, `bool`, `list[str]`):
# the common ones, then one element's (direct, analytical) or two elements' (parallel,
# sequential). The dataset card's features, the Croissant fields, the Parquet columns, and
# the types check_release holds every record to.
COMMON_FIELDS = (
    ("request_id", "int"),
    ("paperid", "str"),
    ("paper_path", "str"),
    ("claim_type", "str"),
    ("claim", "str"),
    ("label", "bool"),
    ("origin_statement", "str"),
    ("perturbed_statement", "str"),
    ("perturbed_explanation", "str"),
    ("section", "list[str]"),
)
ONE_ELEMENT_FIELDS = (("type", "str"), ("item", "str"), ("image_path", "str"))
TWO_ELEMENT_FIELDS = tuple(
    (f"item{n}{suffix}", "str") for n in (1, 2) for suffix in ("_type", "", "_path")
)
SCIVER_FIELDS = (*COMMON_FIELDS, *ONE_ELEMENT_FIELDS, *TWO_ELEMENT_FIELDS)


def sciver_path(relative: str) -> str:
    """`images/x.png` → `./SciVer/images/x.png`, as the public release writes paths."""
    return f"{SCIVER_ROOT}/{relative}"


def sciver_record(claim: ReleaseClaim, *, hide_label: bool = False) -> dict[str, Any]:
    """A record with exactly the public release's field names and types, in its order."""
    record: dict[str, Any] = {
        "request_id": claim.request_id,
        "paperid": claim.paperid,
        "paper_path": sciver_path(f"papers/{claim.paperid}.json"),
        "claim_type": claim.claim_type,
        "claim": claim.claim,
        "label": claim.label,
        "origin_statement": claim.origin_statement,
        "perturbed_statement": claim.perturbed_statement,
        "perturbed_explanation": claim.perturbed_explanation,
        "section": list(claim.section),
    }
    if len(claim.elements) == 1:
        (element,) = claim.elements
        record |= {
            "type": element.type,
            "item": element.item,
            "image_path": sciver_path(element.image_path),
        }
    else:
        for number, element in enumerate(claim.elements, start=1):
            record |= {
                f"item{number}_type": element.type,
                f"item{number}": element.item,
                f"item{number}_path": sciver_path(element.image_path),
            }
    if hide_label:
        for name in HIDDEN_FIELDS:
            del record[name]
    return record


def sciver_paper(paper: ReleasePaper) -> dict[str, Any]:
    """The paper file; `capture` (sic) is the key the public release uses for table captions."""
    return {
        "sections": [
            {"section_id": s.section_id, "section_name": s.section_name, "text": s.text}
            for s in paper.sections
        ],
        "image_paths": {item: {"caption": c} for item, c in paper.chart_captions.items()},
        "tables": {item: {"capture": c} for item, c in paper.table_captions.items()},
    }


def synthetic(claim: ReleaseClaim, paper: ReleasePaper) -> bool:
    """Whether a claim is synthetic demo data: marked so itself, or written on a synthetic paper."""
    return claim.synthetic or paper.synthetic


def jsonl_record(
    claim: ReleaseClaim, paper: ReleasePaper, *, hide_label: bool = False
) -> dict[str, Any]:
    """Our fuller record: SciVer's fields plus evidence, provenance, licence and the rest."""
    record = sciver_record(claim)
    record |= {
        "pair_id": claim.pair_id,
        # What the paperid stands for: it carries a version only when the release holds two
        # versions of one arXiv id (`records.release_paperids`).
        "arxiv_id": paper.arxiv_id or claim.paperid,
        "arxiv_version": paper.version,
        "subfield": claim.subfield,
        "venue": claim.venue,
        "licence": paper.licence,
        "synthetic": synthetic(claim, paper),
        "elements": [
            {"type": e.type, "item": e.item, "image_path": e.image_path} for e in claim.elements
        ],
        "sampled": list(claim.sampled),
        "evidence": [
            {
                "kind": e.kind,
                "anchor": e.anchor,
                "label": e.label,
                "text": e.text,
                "image_path": e.image_path,
            }
            for e in claim.evidence
        ],
        "provenance": claim.provenance,
        "revisions": claim.revisions,
        "annotators": dict(sorted(claim.annotators.items())),
        "guideline_versions": dict(sorted(claim.guideline_versions.items())),
    }
    if hide_label:
        for name in HIDDEN_JSONL_FIELDS:
            del record[name]
    return record


# What the organisers keep of each hidden test record (the labels file outside the release
# folder): the label and everything removed from the public records (the pairing too), keyed
# by request_id, with the claim's own subfield.
HIDDEN_LABEL_FIELDS = ("request_id", "paperid", "claim_type", "subfield", *HIDDEN_JSONL_FIELDS)


def hidden_label_record(claim: ReleaseClaim, paper: ReleasePaper) -> dict[str, Any]:
    """One test record's answer and what was hidden with it (for scoring and audit)."""
    record = jsonl_record(claim, paper)
    return {name: record[name] for name in HIDDEN_LABEL_FIELDS}


def public_test_claims(claims: Iterable[ReleaseClaim]) -> list[ReleaseClaim]:
    """Hidden test claims as the public files give them: a claim's `subfield` is the one its
    pair was written in, so where the claims of one paper disagree on it (the paper's subfield
    changed between two pairs) it would tell those pairs apart; these claims give none ("",
    read as unknown). The labels file keeps every claim's own."""
    claims = list(claims)
    subfields: dict[str, set[str]] = {}
    for claim in claims:
        subfields.setdefault(claim.paperid, set()).add(claim.subfield)
    return [
        claim if len(subfields[claim.paperid]) == 1 else replace(claim, subfield="")
        for claim in claims
    ]


CSV_COLUMNS = (
    "request_id",
    "pair_id",
    "paperid",
    "claim_type",
    "subfield",
    "claim",
    "label",
    "origin_statement",
    "perturbed_statement",
    "perturbed_explanation",
    "section",
    "elements",
    "evidence",
    "provenance",
    "revisions",
    "licence",
    "synthetic",
)


def csv_text(
    claims: Iterable[ReleaseClaim], papers: Mapping[str, ReleasePaper], *, hide_label: bool = False
) -> str:
    """One row per claim; lists are joined with `; ` (sections, `table 2`, evidence anchors).
    Written by the application's one CSV writer (`annotation.downloads`): a text that would start
    a spreadsheet formula gets a leading apostrophe; the JSON files hold every text as written."""
    hidden = set(HIDDEN_JSONL_FIELDS) if hide_label else set()
    columns = [c for c in CSV_COLUMNS if c not in hidden]
    return downloads.csv_text(columns, (_csv_row(claim, papers) for claim in claims))


def _csv_row(claim: ReleaseClaim, papers: Mapping[str, ReleasePaper]) -> dict[str, Any]:
    return {
        "request_id": claim.request_id,
        "pair_id": "" if claim.pair_id is None else claim.pair_id,
        "paperid": claim.paperid,
        "claim_type": claim.claim_type,
        "subfield": claim.subfield,
        "claim": claim.claim,
        "label": "true" if claim.label else "false",
        "origin_statement": claim.origin_statement,
        "perturbed_statement": claim.perturbed_statement,
        "perturbed_explanation": claim.perturbed_explanation,
        "section": "; ".join(claim.section),
        "elements": "; ".join(f"{e.type} {e.item}" for e in claim.elements),
        "evidence": "; ".join(e.anchor for e in claim.evidence),
        "provenance": claim.provenance,
        "revisions": claim.revisions,
        "licence": papers[claim.paperid].licence,
        "synthetic": "true" if synthetic(claim, papers[claim.paperid]) else "false",
    }


def json_bytes(value: Any) -> bytes:
    """Stable JSON: the same value always gives the same bytes (byte-identical re-exports).

    Laid out for reading line by line: the top object's entries each on a line, a list's items
    each on a line down to a list inside the top object (a record of valset.json, a section of
    a paper file), everything below that on the item's line. Written by the json module's C
    encoder: `indent` would send every value through its pure-Python encoder, three times the
    time of a whole release's other encoding."""
    return (_laid_out(value, 0) + "\n").encode("utf-8")


def pretty_json_bytes(value: Any) -> bytes:
    """Fully indented JSON, for the small files people read whole (the manifest, the labels)."""
    return (json.dumps(value, ensure_ascii=False, indent=2) + "\n").encode("utf-8")


def _laid_out(value: Any, level: int) -> str:
    if isinstance(value, dict) and value and level == 0:
        entries = [
            f"  {json.dumps(_key(key), ensure_ascii=False)}: {_laid_out(item, 1)}"
            for key, item in value.items()
        ]
        return "{\n" + ",\n".join(entries) + "\n}"
    if isinstance(value, list | tuple) and value and level <= 1:
        inner = "  " * (level + 1)
        entries = [inner + json.dumps(item, ensure_ascii=False) for item in value]
        return "[\n" + ",\n".join(entries) + "\n" + "  " * level + "]"
    return json.dumps(value, ensure_ascii=False)


def _key(key: Any) -> str:
    """A dict key as json.dumps writes it (numbers and booleans become strings)."""
    if isinstance(key, str):
        return key
    return json.dumps(key) if isinstance(key, bool | int | float) or key is None else str(key)


def jsonl_bytes(records: Iterable[Mapping[str, Any]]) -> bytes:
    return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records).encode("utf-8")
