"""A small release for the evaluation tests, built with the release tests' own builders: four
pairs per part over two subfields, with one, two, three and five evidence pieces."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from tests.validation.releases import PNG, _element, _pair, _paper
from validation.release import EvidencePiece, Release, write_release

A, B = "2409.00001", "2410.00002"


def _with(claims, *, subfield: str, paragraphs: int, first_id: int | None = None):
    """The pair's claims with their subfield and `paragraphs` evidence paragraphs (0: only its
    tables/charts), keeping the evidence the release writer and check_release expect."""
    changed = []
    for claim in claims:
        visuals = tuple(e for e in claim.evidence if e.kind != "paragraph")
        text = tuple(
            EvidencePiece(
                "paragraph",
                f"{claim.paperid}/S4.1.p{n}",
                f"4.1 ¶{n}",
                text="Table 2 shows accuracy.",
            )
            for n in range(1, paragraphs + 1)
        )
        changed.append(dataclasses.replace(claim, subfield=subfield, evidence=text + visuals))
    return changed


def part_claims(paperid: str, first_id: int, prefix: str) -> list:
    table, chart = _element(paperid, "table", "2"), _element(paperid, "chart", "3")
    n = first_id
    return (
        # direct, cs.CL, 1 piece (its table); parallel, cs.CV, 3; sequential, cs.CV, 5;
        # analytical, cs.CL, 2.
        _with(_pair(n, f"{prefix}1", paperid, "direct", (table,)), subfield="cs.CL", paragraphs=0)
        + _with(
            _pair(n + 2, f"{prefix}2", paperid, "parallel", (table, chart)),
            subfield="cs.CV",
            paragraphs=1,
        )
        + _with(
            _pair(n + 4, f"{prefix}3", paperid, "sequential", (table, chart)),
            subfield="cs.CV",
            paragraphs=3,
        )
        + _with(
            _pair(n + 6, f"{prefix}4", paperid, "analytical", (chart,)),
            subfield="cs.CL",
            paragraphs=1,
        )
    )


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


# --- A release for retrieval: one paper whose units a claim's words pick out by hand ----------

# Paper A's units, in the paper file's order (ids as evaluation.retrieval.units gives them).
RETRIEVAL_PARAGRAPHS = {
    "3/p1": "We pretrain the encoder on scanned invoices from twelve banks.",
    "3/p2": "The decoder uses beam search with width four.",
    "4.1/p1": "Accuracy rises with more invoices in pretraining.",
    "4.1/p2": "Latency stays below forty milliseconds on one GPU.",
}
RETRIEVAL_CAPTIONS = {
    "table/2": "Table 2: Accuracy of each encoder on the invoice benchmark.",
    "table/5": "Table 5: Hyperparameters.",  # the release holds no image of it
    "chart/3": "Figure 3: Latency against beam width.",
}
# subset → (entailed claim, refuted claim, gold evidence units, pieces that are no unit). Each
# claim's words (stopwords out) occur in exactly two units, so with k = 2 those two are its top
# two for BM25 and TF-IDF alike: the recall is a hand count.
RETRIEVAL_CLAIMS = {
    # top 2: 4.1/p1, table/2 → 2 of 2
    "direct": (
        "Accuracy rises on the invoice benchmark.",
        "Accuracy falls on the invoice benchmark.",
        ("4.1/p1", "table/2"),
        0,
    ),
    # top 2: 4.1/p2, chart/3 → 2 of 3
    "parallel": (
        "Latency stays below forty milliseconds.",
        "Latency stays below ninety milliseconds.",
        ("table/2", "chart/3", "4.1/p2"),
        0,
    ),
    # top 2: 3/p2, chart/3 → 2 of 5
    "sequential": (
        "The decoder uses beam search with width four.",
        "The decoder uses beam search with width 8.",
        ("3/p2", "chart/3", "table/2", "3/p1", "4.1/p1"),
        0,
    ),
    # top 2: 3/p1, 4.1/p1 → 1 of 3 (one piece is a paragraph the paper file does not hold)
    "analytical": (
        "Scanned invoices from twelve banks were pretrained.",
        "Scanned invoices from thirteen banks were pretrained.",
        ("chart/3", "3/p1"),
        1,
    ),
}
ELEMENTS = {
    "direct": ("table/2",),
    "parallel": ("table/2", "chart/3"),
    "sequential": ("table/2", "chart/3"),
    "analytical": ("chart/3",),
}


def _retrieval_paper():
    from validation.release import PaperSection, ReleasePaper

    text = lambda prefix: "\n".join(  # noqa: E731
        t for unit, t in RETRIEVAL_PARAGRAPHS.items() if unit.startswith(prefix)
    )
    return ReleasePaper(
        paperid=A,
        sections=(
            PaperSection("3", "Method", text("3/")),
            PaperSection("4.1", "Results", text("4.1/")),
        ),
        chart_captions={"3": RETRIEVAL_CAPTIONS["chart/3"]},
        table_captions={"2": RETRIEVAL_CAPTIONS["table/2"], "5": RETRIEVAL_CAPTIONS["table/5"]},
        licence="cc-by-4.0",
    )


def _piece(unit: str) -> EvidencePiece:
    if unit in RETRIEVAL_PARAGRAPHS:
        section, n = unit.split("/p")
        return EvidencePiece(
            "paragraph", f"{A}/S{section}.p{n}", f"{section} ¶{n}", text=RETRIEVAL_PARAGRAPHS[unit]
        )
    kind, item = unit.split("/")
    element = _element(A, kind, item)
    return EvidencePiece(
        kind, f"{A}/{unit}", f"{kind.title()} {item}", image_path=element.image_path
    )


def retrieval_claims() -> list:
    claims = []
    for n, (subset, (entailed, refuted, gold, missing)) in enumerate(RETRIEVAL_CLAIMS.items()):
        elements = tuple(_element(A, *unit.split("/")) for unit in ELEMENTS[subset])
        evidence = tuple(_piece(u) for u in gold) + tuple(
            EvidencePiece("paragraph", f"{A}/S9.p1", "9 ¶1", text="A paragraph curated away.")
            for _ in range(missing)
        )
        for claim in _pair(1 + 2 * n, f"r{n + 1}", A, subset, elements):
            claims.append(
                dataclasses.replace(
                    claim,
                    origin_statement=entailed,
                    perturbed_statement=refuted,
                    evidence=evidence,
                    section=("4.1",),
                )
            )
    return claims


def write_retrieval_release(root: Path, **overrides) -> Path:
    """Validation: the eight claims above on paper A; test: the small release's on paper B."""
    from tests.validation.releases import _paper as paper

    elements = [
        _element(A, "table", "2"),
        _element(A, "chart", "3"),
        _element(B, "table", "2"),
        _element(B, "chart", "3"),
    ]
    fields = dict(
        name="retrieval-small",
        splits={"validation": retrieval_claims(), "test": part_claims(B, 11, "t")},
        papers=[_retrieval_paper(), paper(B, "cc0-1.0")],
        images={e.image_path: PNG + e.image_path.encode() for e in elements},
    )
    fields.update(overrides)
    out = root / "SciVer"
    write_release(Release(**fields), out)
    return out


# The hand count for k = 2 (builders.RETRIEVAL_CLAIMS): subset → (top two, found of gold).
HAND = {
    "direct": ({"4.1/p1", "table/2"}, (2, 2)),
    "parallel": ({"4.1/p2", "chart/3"}, (2, 3)),
    "sequential": ({"3/p2", "chart/3"}, (2, 5)),
    "analytical": ({"3/p1", "4.1/p1"}, (1, 3)),
}
