"""The printed tables of an evaluation (pure): accuracy by our reading with its interval, the
unanswered count, SciVer's rule, the human baseline and chance, per breakdown."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from evaluation.scoring import CHANCE, Cell
from evaluation.selectors import HumanBaseline

GROUP_TITLES = {
    "overall": "Overall",
    "subset": "By subset (SciVer Table 3)",
    "subfield": "By subfield",
    "label": "By gold label",
    "evidence": "By number of evidence pieces (SciVer Figure 4)",
}
HEADERS = ("", "n", "ours %", "95 % interval", "no answer", "SciVer rule %", "human %", "chance %")


def percent(value: float | None) -> str:
    return "—" if value is None else f"{100 * value:.1f}"


def _human(human: HumanBaseline | None, cell: Cell) -> str:
    if human is None:
        return "—"
    accuracy = human.accuracy(cell.group, cell.key)
    if accuracy is None:
        return "—"
    return f"{percent(accuracy)} ({human.answers(cell.group, cell.key)})"


def rows(cells: Sequence[Cell], human: HumanBaseline | None) -> list[tuple[str, ...]]:
    return [
        (
            cell.key,
            str(cell.n),
            percent(cell.accuracy),
            "—" if cell.low is None else f"{percent(cell.low)}–{percent(cell.high)}",
            str(cell.unanswered),
            percent(cell.official_accuracy),
            _human(human, cell),
            percent(CHANCE),
        )
        for cell in cells
    ]


def table(title: str, body: Sequence[Sequence[str]]) -> str:
    widths = [max(len(r[i]) for r in (HEADERS, *body)) for i in range(len(HEADERS))]
    line = lambda r: "  ".join(  # noqa: E731
        c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(r, widths, strict=True))
    ).rstrip()
    return "\n".join([title, line(HEADERS), *(line(r) for r in body)])


def report(
    breakdown: Mapping[str, Sequence[Cell]], *, human: HumanBaseline | None, heading: str
) -> str:
    """Every breakdown as a table under `heading`."""
    parts = [heading]
    for group, cells in breakdown.items():
        parts.append(table(GROUP_TITLES.get(group, group), rows(cells, human)))
    parts.append(
        "ours: our reading of each response (no answer counts as wrong); SciVer rule: its "
        'acc_evaluation.py ("yes" anywhere = entailed); human: the baseline study (answers); '
        "chance: a uniform guess. Intervals: percentile bootstrap, seeded."
    )
    return "\n\n".join(parts) + "\n"
