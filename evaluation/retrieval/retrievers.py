"""Retrievers behind one interface: given the token lists of a paper's units, a scorer that
gives every unit a score for a claim's tokens. BM25 comes from `bm25s` (Lucene's variant,
k1 1.5, b 0.75); TF-IDF is our own, small (cosine of smoothed-idf, l2-normalised vectors). Both
read the same tokens, so the table compares ranking, not tokenising. Another retriever is a
subclass and a line in RETRIEVERS."""

from __future__ import annotations

import logging
import math
import re
from abc import ABC, abstractmethod
from collections import Counter
from collections.abc import Callable, Sequence
from typing import ClassVar

import bm25s
from bm25s.stopwords import STOPWORDS_EN

from evaluation.release import EvaluationError

__all__ = ["RETRIEVERS", "BM25", "Retriever", "Scorer", "TfIdf", "get_retriever", "tokenize"]

Scorer = Callable[[list[str]], list[float]]
# bm25s's own default: words of two or more letters or digits, lower-cased, English stopwords out.
TOKEN = re.compile(r"(?u)\b\w\w+\b")
STOPWORDS = frozenset(STOPWORDS_EN)


def tokenize(text: str) -> list[str]:
    return [t for t in TOKEN.findall(text.lower()) if t not in STOPWORDS]


class Retriever(ABC):
    """Ranks one paper's units for a claim: `scorer(documents)` indexes the units' tokens
    once, and the scorer it returns scores them for a query's tokens (higher is better)."""

    name: ClassVar[str]
    title: ClassVar[str]

    @abstractmethod
    def scorer(self, documents: Sequence[list[str]]) -> Scorer: ...


class BM25(Retriever):
    name = "bm25"
    title = "BM25"

    def __init__(self, k1: float = 1.5, b: float = 0.75):
        self.k1, self.b = k1, b

    def scorer(self, documents: Sequence[list[str]]) -> Scorer:
        index = bm25s.BM25(k1=self.k1, b=self.b, method="lucene")
        index.index(list(documents), show_progress=False)

        def score(query: list[str]) -> list[float]:
            if not query:  # bm25s refuses an empty query
                return [0.0] * len(documents)
            return [float(s) for s in index.get_scores(query)]

        return score


class TfIdf(Retriever):
    """Term counts times idf = ln((1 + N) / (1 + df)) + 1 (scikit-learn's smoothed idf), each
    vector l2-normalised; the score is the cosine of the claim's vector and the unit's."""

    name = "tfidf"
    title = "TF-IDF"

    def scorer(self, documents: Sequence[list[str]]) -> Scorer:
        n = len(documents)
        df = Counter(t for doc in documents for t in set(doc))
        idf = {t: math.log((1 + n) / (1 + d)) + 1 for t, d in df.items()}

        def vector(tokens: list[str]) -> dict[str, float]:
            weights = {t: c * idf[t] for t, c in Counter(tokens).items() if t in idf}
            norm = math.sqrt(sum(w * w for w in weights.values()))
            return {t: w / norm for t, w in weights.items()} if norm else {}

        vectors = [vector(doc) for doc in documents]

        def score(query: list[str]) -> list[float]:
            q = vector(query)
            return [sum(w * v.get(t, 0.0) for t, w in q.items()) for v in vectors]

        return score


RETRIEVERS: dict[str, type[Retriever]] = {BM25.name: BM25, TfIdf.name: TfIdf}

logging.getLogger("bm25s").setLevel(logging.WARNING)


def get_retriever(name: str) -> Retriever:
    try:
        return RETRIEVERS[name.strip().lower()]()
    except KeyError:
        raise EvaluationError(
            f"no retriever {name!r}; retrievers: {', '.join(RETRIEVERS)}"
        ) from None
