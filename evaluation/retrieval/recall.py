"""Recall@k of retrievers on a release part (pure but for reading the release's files): for
each claim with a gold evidence list, the share of its pieces among the top k units retrieved
from its paper for its text; averaged over claims, overall and per subset, beside SciVer's
Table 4 figure."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from evaluation.release import EvaluationError, ReleasePart
from evaluation.report import percent
from evaluation.retrieval.index import PartIndex
from evaluation.retrieval.retrievers import Retriever
from evaluation.retrieval.units import gold_pieces
from evaluation.scoring import SUBSETS

__all__ = ["DEFINITION", "SCIVER_RECALL", "ClaimRecall", "RecallReport", "recall_report"]

# SciVer Table 4 (validation, 1,000 claims, top 5; tables/charts as caption + GPT-4o
# description): the retrievers we have a figure for, by our name.
SCIVER_RECALL = {"bm25": 0.743}
SCIVER_OTHERS = "Contriever 70.7, text-embedding-3-large 81.0"
DEFINITION = (
    "recall@{k} of a claim: the share of its gold evidence pieces (paragraphs, tables, charts) "
    "among the {k} units retrieved from its paper for the claim's text; averaged over claims. "
    "Units: each paragraph of the paper file, and each table/chart as its caption (plus the "
    "description the paper file stores, if any)."
)


@dataclass(frozen=True)
class ClaimRecall:
    request_id: int
    claim_type: str
    gold: int  # pieces of gold evidence
    found: int  # of them among the top k
    unmatched: int  # pieces that are no unit of the paper file (never found)
    kinds: tuple[tuple[str, bool], ...]  # (kind, found) per piece
    retrieved: tuple[str, ...]  # unit ids, best first

    @property
    def recall(self) -> float:
        return self.found / self.gold


@dataclass
class RecallReport:
    name: str
    part: str
    k: int
    retrievers: list[Retriever]
    claims: dict[str, list[ClaimRecall]] = field(default_factory=dict)  # retriever → claims
    without_evidence: int = 0

    def _claims(self) -> list[ClaimRecall]:
        return self.claims[self.retrievers[0].name]

    def mean(self, retriever: str, subset: str = "all") -> float | None:
        chosen = [c for c in self.claims[retriever] if subset in ("all", c.claim_type)]
        return sum(c.recall for c in chosen) / len(chosen) if chosen else None

    def count(self, subset: str = "all") -> int:
        return sum(subset in ("all", c.claim_type) for c in self._claims())

    def by_kind(self, retriever: str, kinds: tuple[str, ...]) -> tuple[int, int]:
        """(pieces found, pieces) of these kinds, over all claims."""
        pieces = [f for c in self.claims[retriever] for kind, f in c.kinds if kind in kinds]
        return sum(pieces), len(pieces)

    def as_dict(self) -> dict:
        keys = ("all", *SUBSETS)
        return {
            "release": self.name,
            "part": self.part,
            "k": self.k,
            "claims": self.count(),
            "without_evidence": self.without_evidence,
            "recall": {
                r.name: {key: self.mean(r.name, key) for key in keys} for r in self.retrievers
            },
            "sciver": {r.name: SCIVER_RECALL.get(r.name) for r in self.retrievers},
        }

    def table(self) -> str:
        claims = self._claims()
        pieces = sum(c.gold for c in claims)
        unmatched = sum(c.unmatched for c in claims)
        names = [r.name for r in self.retrievers]
        header = ("", "n", *(f"{r.title} %" for r in self.retrievers))
        body = [
            (key, str(self.count(key)), *(percent(self.mean(n, key)) for n in names))
            for key in ("all", *SUBSETS)
        ]
        for title, kinds in (
            ("paragraph pieces", ("paragraph",)),
            ("table/chart pieces", ("table", "chart")),
        ):
            counts = [self.by_kind(n, kinds) for n in names]
            body.append(
                (title, str(counts[0][1]), *(percent(f / t if t else None) for f, t in counts))
            )
        body.append(("SciVer Table 4", "1000", *(percent(SCIVER_RECALL.get(n)) for n in names)))
        widths = [max(len(row[i]) for row in (header, *body)) for i in range(len(header))]

        def line(row: Sequence[str]) -> str:
            cells = (
                c.ljust(w) if i == 0 else c.rjust(w)
                for i, (c, w) in enumerate(zip(row, widths, strict=True))
            )
            return "  ".join(cells).rstrip()

        heading = (
            f"{self.name}, {self.part}: recall@{self.k} of {len(claims)} claims with gold "
            f"evidence ({self.without_evidence} without an evidence list); {pieces} gold pieces, "
            f"{unmatched} of them no unit of their paper file"
        )
        notes = (
            DEFINITION.format(k=self.k) + " n: claims; in the piece rows, pieces, and the share "
            "of them found (over pieces, not claims). SciVer Table 4: BM25 74.3 on its validation set (1,000 "
            f"claims, top 5; also {SCIVER_OTHERS}), tables/charts indexed by caption plus a "
            "GPT-4o-generated description."
        )
        return "\n".join([heading, "", line(header), *(line(r) for r in body), "", notes]) + "\n"


def recall_report(part: ReleasePart, retrievers: Sequence[Retriever], k: int) -> RecallReport:
    """Recall@k of each retriever on every claim of the part that has gold evidence."""
    if k < 1:
        raise EvaluationError("k must be at least 1")
    if not retrievers:
        raise EvaluationError("name at least one retriever")
    index = PartIndex(part)
    report = RecallReport(part.name, part.part, k, list(retrievers))
    report.claims = {r.name: [] for r in retrievers}
    for item in part.items:
        if not item.evidence_pieces:
            report.without_evidence += 1
            continue
        units = index.units(item)
        gold = gold_pieces(item.evidence_pieces, item.record, units)
        for retriever in retrievers:
            ranked = [r.unit.id for r in index.retrieve(item, retriever, k)]
            top = set(ranked)
            found = [bool(piece.units & top) for piece in gold]
            report.claims[retriever.name].append(
                ClaimRecall(
                    request_id=item.request_id,
                    claim_type=item.claim_type,
                    gold=len(gold),
                    found=sum(found),
                    unmatched=sum(not piece.units for piece in gold),
                    kinds=tuple((p.kind, f) for p, f in zip(gold, found, strict=True)),
                    retrieved=tuple(ranked),
                )
            )
    if not report.claims[retrievers[0].name]:
        raise EvaluationError(
            f"no record of the {part.part} part has a gold evidence list: SciVer's public "
            "release drops it; recall needs our data/*.jsonl (or, for hidden test labels, the "
            "labels file) beside the records"
        )
    return report
