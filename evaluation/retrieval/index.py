"""The index of a release part: every paper's units, indexed once per paper and retriever,
and the top k units for each claim (ties go to the unit earlier in the paper file)."""

from __future__ import annotations

from dataclasses import dataclass, field

from evaluation.release import Item, ReleasePart
from evaluation.retrieval.retrievers import Retriever, Scorer, tokenize
from evaluation.retrieval.units import Unit, paper_units

__all__ = ["PartIndex", "Retrieved"]


@dataclass(frozen=True)
class Retrieved:
    unit: Unit
    score: float
    rank: int  # 1 = best


@dataclass
class PartIndex:
    """Units and scorers of a part's papers, built as claims ask for them."""

    part: ReleasePart
    _units: dict[str, list[Unit]] = field(default_factory=dict, repr=False)
    _scorers: dict[tuple[str, str], Scorer] = field(default_factory=dict, repr=False)

    @staticmethod
    def _paper_key(item: Item) -> str:
        return str(item.record.get("paper_path", ""))

    def units(self, item: Item) -> list[Unit]:
        key = self._paper_key(item)
        if key not in self._units:
            self._units[key] = paper_units(self.part.paper(item))
        return self._units[key]

    def retrieve(self, item: Item, retriever: Retriever, k: int) -> list[Retrieved]:
        """The k best units of the item's paper for its claim (all of them if fewer)."""
        units = self.units(item)
        key = (self._paper_key(item), retriever.name)
        if key not in self._scorers:
            self._scorers[key] = retriever.scorer([tokenize(u.text) for u in units])
        scores = self._scorers[key](tokenize(item.claim))
        order = sorted(range(len(units)), key=lambda i: (-scores[i], i))[: max(k, 0)]
        return [Retrieved(units[i], scores[i], rank) for rank, i in enumerate(order, start=1)]
