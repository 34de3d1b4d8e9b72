"""A small release for the evaluation tests, built with the release tests' own builders: four
pairs per part over two subfields, with one, two, three and five evidence pieces."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from tests.validation.test_release_formats import PNG, _element, _pair, _paper
from validation.release import EvidencePiece, Release, write_release

A, B = "2409.00001", "2410.00002"


def _with(claims, *, subfield: str, paragraphs: int, first_id: int | None = None):
    """The pair's claims with their subfield and `paragraphs` evidence paragraphs (0: only its
    tables/charts), keeping the evidence the release writer and check_release expect."""
    changed = []
    for claim in claims:
        visuals = tuple(e for e in claim.evidence if e.kind != "paragraph")
        text = tuple(
            EvidencePiece("paragraph", f"{claim.paperid}/S4.1.p{n}", f"4.1 ¶{n}",
                          text="Table 2 shows accuracy.")
            for n in range(1, paragraphs + 1)
        )  # fmt: skip
        changed.append(dataclasses.replace(claim, subfield=subfield, evidence=text + visuals))
    return changed


def part_claims(paperid: str, first_id: int, prefix: str) -> list:
    table, chart = _element(paperid, "table", "2"), _element(paperid, "chart", "3")
    n = first_id
    return (
        # direct, cs.CL, 1 piece (its table); parallel, cs.CV, 3; sequential, cs.CV, 5;
        # analytical, cs.CL, 2.
        _with(_pair(n, f"{prefix}1", paperid, "direct", (table,)), subfield="cs.CL", paragraphs=0)
        + _with(_pair(n + 2, f"{prefix}2", paperid, "parallel", (table, chart)),
                subfield="cs.CV", paragraphs=1)
        + _with(_pair(n + 4, f"{prefix}3", paperid, "sequential", (table, chart)),
                subfield="cs.CV", paragraphs=3)
        + _with(_pair(n + 6, f"{prefix}4", paperid, "analytical", (chart,)),
                subfield="cs.CL", paragraphs=1)
    )  # fmt: skip


def small_release(**overrides) -> Release:
    elements = [_element(p, k, i) for p in (A, B) for k, i in (("table", "2"), ("chart", "3"))]
    fields = dict(
        name="eval-small",
        splits={"validation": part_claims(A, 1, "v"), "test": part_claims(B, 11, "t")},
        papers=[_paper(A, "cc-by-4.0"), _paper(B, "cc0-1.0")],
        images={e.image_path: PNG + e.image_path.encode() for e in elements},
    )
    fields.update(overrides)
    return Release(**fields)


def write_small_release(root: Path, **overrides) -> Path:
    out = root / "SciVer"
    write_release(small_release(**overrides), out)
    return out
