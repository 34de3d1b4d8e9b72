"""Retrieval over a release part, as SciVer §4.4 does it: each paper's paragraphs and its
tables/charts are separate units (`units`), a retriever ranks them for a claim (`retrievers`,
`index`), and recall@k says how much of the claim's gold evidence the top k hold (`recall`)."""

from evaluation.retrieval.index import PartIndex, Retrieved
from evaluation.retrieval.recall import SCIVER_RECALL, ClaimRecall, RecallReport, recall_report
from evaluation.retrieval.retrievers import RETRIEVERS, Retriever, get_retriever, tokenize
from evaluation.retrieval.units import GoldPiece, Unit, gold_pieces, paper_units

__all__ = [
    "RETRIEVERS",
    "SCIVER_RECALL",
    "ClaimRecall",
    "GoldPiece",
    "PartIndex",
    "RecallReport",
    "Retrieved",
    "Retriever",
    "Unit",
    "get_retriever",
    "gold_pieces",
    "paper_units",
    "recall_report",
    "tokenize",
]
