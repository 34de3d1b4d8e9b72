"""Queries the evaluation reads: the human baseline from the baseline studies' answers."""

from __future__ import annotations

from dataclasses import dataclass, field

from validation.models import BaselineAnswer


@dataclass(frozen=True)
class HumanBaseline:
    """Experts' blind answers on sampled validated claims (SciVer: 40 claims, two experts,
    93.8 %): (right, answers) overall, per subset and per gold label."""

    overall: tuple[int, int] = (0, 0)
    by_key: dict[str, dict[str, tuple[int, int]]] = field(default_factory=dict)

    def accuracy(self, group: str, key: str) -> float | None:
        right, n = (
            self.overall if group == "overall" else self.by_key.get(group, {}).get(key, (0, 0))
        )
        return right / n if n else None

    def answers(self, group: str, key: str) -> int:
        if group == "overall":
            return self.overall[1]
        return self.by_key.get(group, {}).get(key, (0, 0))[1]


def human_baseline() -> HumanBaseline:
    """Every baseline study's answers, leaving out claims whose pair was dropped since (they no
    longer have a gold label in the dataset)."""
    rows = BaselineAnswer.objects.exclude(item__claim__pair__review__dropped=True).values_list(
        "label", "item__gold_label", "item__subset"
    )
    by_key: dict[str, dict[str, list[int]]] = {"subset": {}, "label": {}}
    total = [0, 0]
    for label, gold, subset in rows:
        right = int(label == gold)
        total[0] += right
        total[1] += 1
        for group, key in (("subset", subset), ("label", gold)):
            cell = by_key[group].setdefault(key, [0, 0])
            cell[0] += right
            cell[1] += 1
    return HumanBaseline(
        overall=(total[0], total[1]),
        by_key={g: {k: (v[0], v[1]) for k, v in keys.items()} for g, keys in by_key.items()},
    )
