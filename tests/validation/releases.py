"""Releases for the tests: built in code (records, papers, elements), written and read back as code
written for the public SciVer release reads them."""

from __future__ import annotations

import hashlib
import io
import json
from pathlib import Path

from django.core.management import call_command

from validation.release import (
    EvidencePiece,
    PaperSection,
    Release,
    ReleaseClaim,
    ReleasePaper,
    VisualElement,
    image_name,
    pseudonymise,
)


def load_sciver(parent: Path, split_file: str) -> list[dict]:
    """What code written for the public SciVer release does: read the split, follow
    `paper_path` and the image paths relative to the release's parent folder."""
    records = json.loads((parent / "SciVer" / split_file).read_text())
    for record in records:
        paper = json.loads((parent / record["paper_path"]).read_text())
        assert {"sections", "image_paths", "tables"} <= set(paper)
        for table in paper["tables"].values():
            assert "capture" in table
        for key in ("image_path", "item1_path", "item2_path"):
            if key in record:
                assert (parent / record[key]).is_file(), record[key]
        record["_paper"] = paper
    return records


def run(*args) -> str:
    out = io.StringIO()
    call_command(*args, stdout=out)
    return out.getvalue()


PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 16  # bytes are all the writer cares about


def _paper(paperid: str, licence: str) -> ReleasePaper:
    return ReleasePaper(
        paperid=paperid,
        sections=(
            PaperSection("3", "Method", "We train on café data."),
            PaperSection("4.1", "Results", "Table 2 shows accuracy."),
        ),
        chart_captions={"3": "Figure 3: loss curves."},
        table_captions={"2": "Table 2: accuracy per model."},
        licence=licence,
    )


def _pair(
    first_id: int, pair_id: str, paperid: str, claim_type: str, elements: tuple[VisualElement, ...]
) -> list[ReleaseClaim]:
    common = dict(
        paperid=paperid,
        claim_type=claim_type,
        origin_statement=f"Model A beats B on {pair_id}.",
        perturbed_statement=f"Model B beats A on {pair_id}.",
        perturbed_explanation="Table 2 shows A ahead of B.",
        section=("4.1",),
        elements=elements,
        # The claim's evidence: a paragraph and exactly the tables/charts its record names.
        evidence=(
            EvidencePiece(
                "paragraph", f"{paperid}/S4.1.p1", "4.1 ¶1", text="Table 2 shows accuracy."
            ),
            *(
                EvidencePiece(
                    e.type,
                    f"{paperid}/{e.type}/{e.item}",
                    f"{e.type.title()} {e.item}",
                    image_path=e.image_path,
                )
                for e in elements
            ),
        ),
        provenance="unanimous" if first_id % 4 == 1 else "adjudicated",
        annotators={"writer": pseudonymise(7, salt="s"), "second": pseudonymise(9, salt="s")},
        pair_id=pair_id,
        subfield="cs.CL",
        sampled=("table/2", "chart/3", "table/5"),
    )
    return [
        ReleaseClaim(request_id=first_id, label=True, **common),
        ReleaseClaim(request_id=first_id + 1, label=False, **common),
    ]


def _element(paperid: str, kind: str, item: str) -> VisualElement:
    return VisualElement(kind, item, image_name(paperid, kind, item))


def _release(**overrides) -> Release:
    a, b = "2409.00001", "2410.00002"
    table_a, chart_a = _element(a, "table", "2"), _element(a, "chart", "3")
    table_b, chart_b = _element(b, "table", "2"), _element(b, "chart", "3")
    validation = _pair(1, "p1", a, "direct", (table_a,)) + _pair(
        3, "p2", a, "parallel", (table_a, chart_a)
    )
    test = (
        _pair(5, "p3", b, "sequential", (table_b, chart_b))
        + _pair(7, "p4", b, "analytical", (table_b,))
        + _pair(9, "p5", b, "direct", (table_b,))
    )
    images = {
        e.image_path: PNG + e.image_path.encode() for e in (table_a, chart_a, table_b, chart_b)
    }
    fields = dict(
        name="sciver-studio-v1",
        splits={"validation": validation, "test": test},
        papers=[_paper(a, "cc-by-4.0"), _paper(b, "cc0-1.0")],
        images=images,
        readme="# SciVer Studio release\n",
    )
    fields.update(overrides)
    return Release(**fields)


def _rewrite(out: Path, relative: str, data: bytes) -> None:
    """Change a file and its manifest entry (and its checksum in croissant.json), so that only
    the change itself is wrong."""
    (out / relative).parent.mkdir(parents=True, exist_ok=True)
    (out / relative).write_bytes(data)
    manifest = json.loads((out / "manifest.json").read_text())
    manifest["files"][relative] = {"sha256": hashlib.sha256(data).hexdigest(), "bytes": len(data)}
    croissant = out / "croissant.json"
    if croissant.is_file() and relative != "croissant.json":
        metadata = json.loads(croissant.read_text())
        for entry in metadata.get("distribution", []):
            if entry.get("contentUrl") == relative and "sha256" in entry:
                entry["sha256"] = hashlib.sha256(data).hexdigest()
        text = json.dumps(metadata, indent=2).encode()
        croissant.write_bytes(text)
        manifest["files"]["croissant.json"] = {
            "sha256": hashlib.sha256(text).hexdigest(),
            "bytes": len(text),
        }
    (out / "manifest.json").write_text(json.dumps(manifest))


def _jsonl(out: Path, name: str) -> list[dict]:
    return [json.loads(x) for x in (out / "data" / f"{name}.jsonl").read_text().splitlines()]


def _write_jsonl(out: Path, name: str, rows: list[dict]) -> None:
    data = "".join(json.dumps(r) + "\n" for r in rows).encode()
    _rewrite(out, f"data/{name}.jsonl", data)
