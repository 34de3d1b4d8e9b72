"""The refuted-claim suggester, on a table of claims and their evidence."""

from __future__ import annotations

import pytest

from annotation.perturbation import EvidenceTable, perturbation_suggestions

RESULTS = EvidenceTable(
    label="Table 2",
    rows=[
        ["Model", "BLEU", "chrF++", "Latency (ms)"],
        ["LoRA", "24.1", "48.3", "12"],
        ["Adapters", "25.0", "49.0", "15"],
        ["RouteAdapt", "27.4", "51.2", "14"],
    ],
)


def texts(claim: str, **kwargs) -> list[str]:
    return [s.text for s in perturbation_suggestions(claim, **kwargs)]


def by_kind(claim: str, kind: str, **kwargs) -> list[str]:
    return [s.text for s in perturbation_suggestions(claim, **kwargs) if s.kind == kind]


@pytest.mark.parametrize(
    ("claim", "kind", "expected"),
    [
        # Numbers that appear in a table become other values of the same column first.
        (
            "RouteAdapt reaches 27.4 BLEU.",
            "number",
            ["RouteAdapt reaches 24.1 BLEU.", "RouteAdapt reaches 25.0 BLEU."],
        ),
        # ... then of the same row.
        (
            "RouteAdapt runs in 14 ms.",
            "number",
            [
                "RouteAdapt runs in 12 ms.",
                "RouteAdapt runs in 15 ms.",
                "RouteAdapt runs in 27.4 ms.",
                "RouteAdapt runs in 51.2 ms.",
            ],
        ),
        # Comparatives and directions flip, keeping case.
        (
            "RouteAdapt outperforms LoRA on BLEU.",
            "direction",
            ["RouteAdapt underperforms LoRA on BLEU."],
        ),
        (
            "Higher rank increases latency.",
            "direction",
            ["Lower rank increases latency.", "Higher rank decreases latency."],
        ),
        ("Accuracy is more than 80% here.", "direction", ["Accuracy is less than 80% here."]),
        # Superlatives swap.
        (
            "RouteAdapt has the best chrF++ of all systems.",
            "superlative",
            ["RouteAdapt has the worst chrF++ of all systems."],
        ),
        ("The Highest score is on Yoruba.", "superlative", ["The Lowest score is on Yoruba."]),
        # Entities swap for others of the same table: row headers, then column headers.
        (
            "Adapters beat LoRA on chrF++.",
            "entity",
            [
                "RouteAdapt beat LoRA on chrF++.",
                "Adapters beat RouteAdapt on chrF++.",
                "Adapters beat LoRA on BLEU.",
                "Adapters beat LoRA on Latency (ms).",
            ],
        ),
    ],
)
def test_suggestions_by_kind(claim: str, kind: str, expected: list[str]):
    assert by_kind(claim, kind, tables=[RESULTS])[: len(expected)] == expected


def test_numbers_without_a_table_change_in_the_same_format():
    got = by_kind("Accuracy rises to 73.2% with 3 layers.", "number")
    assert got[:2] == [
        "Accuracy rises to 58.6% with 3 layers.",
        "Accuracy rises to 91.5% with 3 layers.",
    ]
    assert all("%" in text for text in got)


def test_percentages_stay_at_most_100():
    got = by_kind("Recall is 90%.", "number")
    assert "Recall is 72%." in got
    assert all(float(t.split()[2].rstrip("%.")) <= 100 for t in got)


def test_years_are_not_perturbed():
    assert by_kind("Since 2024 the method works.", "number") == []


def test_every_suggestion_differs_from_the_claim_and_each_other():
    claim = "RouteAdapt outperforms Adapters by 2.4 BLEU, the largest gain in Table 2."
    got = texts(claim, tables=[RESULTS], limit=50)
    normalised = [" ".join(t.split()).casefold() for t in got]
    assert " ".join(claim.split()).casefold() not in normalised
    assert len(normalised) == len(set(normalised))
    assert {"number", "direction", "superlative", "entity"} <= {
        s.kind for s in perturbation_suggestions(claim, tables=[RESULTS], limit=50)
    }


def test_descriptions_say_what_changed():
    first = perturbation_suggestions("RouteAdapt reaches 27.4 BLEU.", tables=[RESULTS])[0]
    assert first.description == "27.4 → 24.1 (Table 2, same column)"


def test_limit_and_empty_claim():
    assert (
        len(
            perturbation_suggestions(
                "A is higher and better and faster than B at 1, 2, 3.", limit=3
            )
        )
        == 3
    )
    assert perturbation_suggestions("   ") == []


def test_table_cells_with_markup_still_match():
    table = EvidenceTable(label="Table 1", rows=[["M", "Acc"], ["A", "$81.5$"], ["B", "**84.0**"]])
    assert by_kind("B reaches 84.0 accuracy.", "number", tables=[table])[0] == (
        "B reaches 81.5 accuracy."
    )


def test_spanned_cells_keep_values_in_their_own_column():
    from annotation.writing.selectors import _aligned_rows

    def cell(text: str, rowspan: int = 1, colspan: int = 1) -> dict:
        return {"text": text, "rowspan": rowspan, "colspan": colspan, "header": False}

    # As stored from the page: the second RouteAdapt row has no first cell (it is spanned).
    stored = [
        [cell("Method", rowspan=2), cell("k", rowspan=2), cell("Trainable (%)", rowspan=2),
         cell("chrF++", colspan=2)],
        [cell("African"), cell("Asian")],
        [cell("RouteAdapt (ours)", rowspan=2), cell("2"), cell("1.2"), cell("45.9"), cell("51.0")],
        [cell("4"), cell("3.4"), cell("47.1"), cell("52.3")],
        [cell("Full fine-tuning"), cell("-"), cell("100.0"), cell("44.0"), cell("50.2")],
    ]  # fmt: skip
    rows = _aligned_rows(stored)
    assert rows[3] == ["RouteAdapt (ours)", "4", "3.4", "47.1", "52.3"]
    assert rows[0][3:] == ["chrF++", "chrF++"] and rows[1][:3] == ["Method", "k", "Trainable (%)"]
    table = EvidenceTable(label="Table 1", rows=rows)
    suggested = perturbation_suggestions("RouteAdapt with k=4 reaches 47.1 chrF++.", tables=[table])
    found = {
        s.description
        for s in suggested
        if s.kind == "number" and s.description.startswith("47.1") and "(Table 1" in s.description
    }
    assert not any(s.description.startswith("4 →") for s in suggested)  # k=4 is a setting
    assert found == {
        "47.1 → 45.9 (Table 1, same column)",
        "47.1 → 44.0 (Table 1, same column)",
        "47.1 → 4 (Table 1, same row)",
        "47.1 → 3.4 (Table 1, same row)",
        "47.1 → 52.3 (Table 1, same row)",
    }


@pytest.mark.parametrize(
    ("claim", "kept"),
    [
        ("In Table 3, RouteAdapt reaches 45.9.", ["45.9"]),
        ("Tables 1 and 2 show 45.9 against 44.0.", ["45.9", "44.0"]),
        ("Fig. 2(b) peaks at 12% after Section 4.1's 3 runs.", ["12", "3"]),
        ("As in [12], GPT-4 with k=2 reaches 80.1 (Eq. (3)).", ["80.1"]),
    ],
)
def test_numbers_that_name_a_table_figure_section_citation_setting_or_model_are_never_changed(
    claim, kept
):
    table = EvidenceTable(label="Table 1", rows=[["m", "a"], ["x", "3"], ["y", "4"], ["z", "12"]])
    for suggestion in perturbation_suggestions(claim, tables=[table], limit=50):
        if suggestion.kind == "number":
            written = suggestion.description.split(" → ")[0]
            assert written in kept, (suggestion.text, suggestion.description)
    changed = {
        s.description.split(" → ")[0]
        for s in perturbation_suggestions(claim, tables=[table], limit=50)
        if s.kind == "number"
    }
    assert changed == set(kept)


def test_a_table_with_spans_no_browser_lays_out_is_read_as_written():
    """A 6 KB table of rowspan=1000 colspan=1000 cells (issue 16) would cost seconds and
    gigabytes to lay out: the writer's suggestions read its rows as stored instead."""
    from annotation.writing.selectors import _aligned_rows

    stored = [[{"text": f"v{r}{c}", "rowspan": 1000, "colspan": 1000} for c in range(10)]
              for r in range(10)]  # fmt: skip
    rows = _aligned_rows(stored)
    assert rows == [[f"v{r}{c}" for c in range(10)] for r in range(10)]
