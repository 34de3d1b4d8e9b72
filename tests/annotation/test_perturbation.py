"""The refuted-claim suggester, on tables and charts of a claim's evidence: every new value is
one the evidence states, and each suggestion says where it comes from."""

from __future__ import annotations

import pytest

from annotation.writing.perturbation import (
    EvidenceChart,
    EvidenceTable,
    Source,
    perturbation_suggestions,
)

RESULTS = EvidenceTable(
    label="Table 2",
    rows=[
        ["Model", "BLEU", "chrF++", "Latency (ms)"],
        ["LoRA", "24.1", "48.3", "12"],
        ["Adapters", "25.0", "49.0", "15"],
        ["RouteAdapt", "27.4", "51.2", "14"],
    ],
)
RECALL = EvidenceChart(
    label="Figure 3",
    caption="Recall against the number of retrieved passages.",
    paragraphs=[
        "Figure 3 shows recall rising from 61.2% at 5 passages to 74.8% at 20 passages, while "
        "the baseline stays at 58.0% (Table 2)."
    ],
)


def texts(claim: str, **kwargs) -> list[str]:
    return [s.text for s in perturbation_suggestions(claim, **kwargs)]


def by_kind(claim: str, kind: str, **kwargs) -> list[str]:
    return [s.text for s in perturbation_suggestions(claim, **kwargs) if s.kind == kind]


@pytest.mark.parametrize(
    ("claim", "kind", "expected"),
    [
        # A number of a table becomes another value of its column, nearest first.
        (
            "RouteAdapt reaches 27.4 BLEU.",
            "number",
            ["RouteAdapt reaches 25.0 BLEU.", "RouteAdapt reaches 24.1 BLEU."],
        ),
        # ... never another quantity of its row: a latency is no BLEU score.
        (
            "RouteAdapt runs in 14 ms.",
            "number",
            ["RouteAdapt runs in 15 ms.", "RouteAdapt runs in 12 ms."],
        ),
        # Comparatives and directions flip, keeping case (after the comparison flipped).
        (
            "RouteAdapt outperforms LoRA on BLEU.",
            "direction",
            ["LoRA outperforms RouteAdapt on BLEU.", "RouteAdapt underperforms LoRA on BLEU."],
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
        # An entity the claim gives a number of becomes another whose row holds another value.
        (
            "Adapters reach 49.0 chrF++.",
            "entity",
            ["LoRA reach 49.0 chrF++.", "RouteAdapt reach 49.0 chrF++."],
        ),
    ],
)
def test_suggestions_by_kind(claim: str, kind: str, expected: list[str]):
    assert by_kind(claim, kind, tables=[RESULTS])[: len(expected)] == expected


def test_a_number_the_evidence_does_not_state_is_never_changed():
    """No ×0.8 or ×1.25 of a value nobody can read off a chart: without a table cell, caption
    or paragraph stating the number, the suggester offers only changes of words."""
    assert by_kind("Accuracy rises to 73.2% with 3 layers.", "number") == []
    assert by_kind("Accuracy rises to 73.2% with 3 layers.", "number", charts=[RECALL]) == []
    assert by_kind("LoRA reaches 33.3 BLEU.", "number", tables=[RESULTS]) == []


def test_chart_numbers_come_from_its_caption_and_the_paragraphs_citing_it():
    suggested = [
        s
        for s in perturbation_suggestions("Recall reaches 74.8% with 20 passages.", charts=[RECALL])
        if s.kind == "number"
    ]
    assert [s.text for s in suggested] == [
        "Recall reaches 61.2% with 20 passages.",  # the same unit, nearest in value
        "Recall reaches 74.8% with 5 passages.",  # a number of passages for one of passages
        "Recall reaches 58.0% with 20 passages.",
    ]
    source = suggested[0].source
    assert source.kind == "paragraph" and source.element == "Figure 3"
    assert "61.2%" in source.excerpt
    assert str(source).startswith("a paragraph citing Figure 3: “Figure 3 shows recall rising")
    caption = EvidenceChart("Fig. 2", "Hit ratio with caches of 5% and 10% of the catalogue.")
    (only,) = by_kind("Fig. 2 shows a cache of 10% of the catalogue.", "number", charts=[caption])
    assert only == "Fig. 2 shows a cache of 5% of the catalogue."


def test_each_suggestion_says_where_its_value_comes_from():
    first = perturbation_suggestions("RouteAdapt reaches 27.4 BLEU.", tables=[RESULTS])[0]
    assert first.description == "27.4 → 25.0"
    assert first.source == Source("cell", "Table 2", row="Adapters", column="BLEU")
    assert str(first.source) == "Table 2, row “Adapters”, column “BLEU”"
    (direction,) = [
        s
        for s in perturbation_suggestions("RouteAdapt outperforms LoRA on BLEU.", tables=[RESULTS])
        if s.description == "outperforms → underperforms"
    ]
    assert direction.source.kind == "change" and str(direction.source) == (
        "no new value: direction flipped"
    )
    mixed = perturbation_suggestions(
        "RouteAdapt outperforms Adapters with 27.4 against 25.0 BLEU, the best of Table 2.",
        tables=[RESULTS],
    )
    # 27.4 has no other BLEU above 25.0; 25.0 may become LoRA's 24.1, still below 27.4.
    assert [(s.description, str(s.source)) for s in mixed if s.kind == "number"] == [
        ("25.0 → 24.1", "Table 2, row “LoRA”, column “BLEU”")
    ]


@pytest.mark.parametrize(
    ("claim", "kept"),
    [
        ("In Table 3, RouteAdapt reaches 27.4 BLEU.", {"27.4"}),
        ("Tables 1 and 2 show 27.4 against 24.1 BLEU.", {"27.4", "24.1"}),
        ("Fig. 2(b) shows LoRA at 12 ms after Section 4.1's 3 runs.", {"12"}),
        ("As in [12], GPT-4 with k=2 reaches 27.4 BLEU (Eq. (3)).", {"27.4"}),
        ("Eq 2 and Sec 4 give LoRA 12 ms, as §3 says.", {"12"}),
        ("On TREC DL'19 and Touché-2020 in 2024, RouteAdapt reaches 27.4 BLEU@4.", {"27.4"}),
        ("The RouteAdapt-14 model of Listing 15 reaches 27.4 BLEU.", {"27.4"}),
    ],
)
def test_numbers_that_name_a_reference_citation_setting_year_or_model_are_never_changed(
    claim, kept
):
    """Every number of the claims sits in Table 2 (or is a year, a citation, a setting, a
    model's name): only the values are ever changed."""
    table = EvidenceTable(
        label="Table 2",
        rows=[*RESULTS.rows, ["Small", "3", "2", "4"], ["Tiny", "1", "15", "19"]],
    )
    changed = {
        s.description.split(" → ")[0]
        for s in perturbation_suggestions(claim, tables=[table], limit=50)
        if s.kind == "number"
    }
    assert changed == kept


@pytest.mark.parametrize(
    ("claim", "expected"),
    [
        # 27.4 may not become 24.1 (not higher than 25.0) nor 25.0 (equal): false from the
        # claim alone, without the evidence. 25.0 may become 24.1, still below 27.4.
        (
            "RouteAdapt reaches 27.4 BLEU, higher than the 25.0 of Adapters.",
            ["RouteAdapt reaches 27.4 BLEU, higher than the 24.1 of Adapters."],
        ),
        # "From 14 ms to 12 ms": 14 may become 15 (still above 12), 12 neither 15 nor 14.
        (
            "RouteAdapt lowers latency from 14 ms to 12 ms.",
            ["RouteAdapt lowers latency from 15 ms to 12 ms."],
        ),
    ],
)
def test_a_new_value_keeps_the_claims_own_comparisons(claim, expected):
    assert by_kind(claim, "number", tables=[RESULTS], limit=50) == expected


def test_a_stated_percent_change_is_kept():
    chart = EvidenceChart(
        "Figure 1",
        paragraphs=["AbsRel drops from 0.187 to 0.151, a 19% reduction, and from 0.241 to 0.192."],
    )
    got = by_kind("AbsRel drops from 0.187 to 0.151, a 19% reduction.", "number", charts=[chart])
    # 0.192 → 0.151 is a 21% reduction (near enough); 0.241 → 0.151 would be 37%.
    assert got == ["AbsRel drops from 0.192 to 0.151, a 19% reduction."]


def test_flips_are_left_out_when_the_claims_numbers_state_the_direction():
    claim = "RouteAdapt lowers latency from 15 ms to 14 ms."
    assert by_kind(claim, "direction", tables=[RESULTS]) == []
    assert by_kind("RouteAdapt lowers latency.", "direction") == ["RouteAdapt raises latency."]


def test_every_suggestion_differs_from_the_claim_and_each_other():
    claim = "RouteAdapt outperforms Adapters with 27.4 BLEU, the largest score in Table 2."
    got = texts(claim, tables=[RESULTS], limit=50)
    normalised = [" ".join(t.split()).casefold() for t in got]
    assert " ".join(claim.split()).casefold() not in normalised
    assert len(normalised) == len(set(normalised))
    suggested = perturbation_suggestions(claim, tables=[RESULTS], limit=50)
    assert {"number", "direction", "superlative", "entity"} <= {s.kind for s in suggested}
    assert any(s.source.change.startswith("comparison flipped") for s in suggested)


def test_two_entities_the_claim_compares_are_exchanged():
    (flip,) = [
        s
        for s in perturbation_suggestions("RouteAdapt outperforms LoRA on BLEU.", tables=[RESULTS])
        if s.source.change.startswith("comparison")
    ]
    assert flip.text == "LoRA outperforms RouteAdapt on BLEU."
    assert flip.kind == "direction"  # a kind a refuted claim records: comparative flipped
    assert flip.description == "RouteAdapt ⇄ LoRA"
    assert str(flip.source) == "no new value: comparison flipped (Table 2)"
    # "the baseline" and a proper name exchanged would read "the GateDepth".
    table = EvidenceTable(
        "Table 1", [["Method", "RMSE"], ["Baseline", "6.612"], ["GateDepth", "6.204"]]
    )
    assert not [
        s
        for s in perturbation_suggestions(
            "GateDepth lowers RMSE below the baseline.", tables=[table]
        )
        if s.source.change.startswith("comparison")
    ]


def test_limit_and_empty_claim():
    claim = "RouteAdapt is higher and better and faster than LoRA, the best in Table 2."
    assert len(perturbation_suggestions(claim, tables=[RESULTS], limit=3)) == 3
    assert perturbation_suggestions("   ") == []


def test_table_cells_with_markup_and_signs_still_match():
    table = EvidenceTable(label="Table 1", rows=[["M", "Acc"], ["A", "$81.5$"], ["B", "**84.0**"]])
    assert by_kind("B reaches 84.0 accuracy.", "number", tables=[table])[0] == (
        "B reaches 81.5 accuracy."
    )
    ablation = EvidenceTable(
        "Table 4",
        [
            ["Variant", "chrF++", "$\\Delta$"],
            ["Full", "45.9", "–"],
            ["w/o loss", "44.7", "$-1.2$"],
            ["pool of 4", "44.2", "$-1.7$"],
        ],
    )
    # "costing 1.7" is the Δ of −1.7 without its sign: another Δ, written the claim's way.
    assert by_kind("A pool of 4 adapters costs 1.7 chrF++.", "number", tables=[ablation]) == [
        "A pool of 4 adapters costs 1.2 chrF++."
    ]


def test_a_model_named_by_its_size_becomes_another_model_of_the_table():
    table = EvidenceTable(
        "Table 1",
        [
            ["Triager", "F1", "Latency"],
            ["Rules", "0.71", "2 ms"],
            ["125M", "0.83", "18 ms"],
            ["350M", "0.89", "40 ms"],
            ["1.3B", "0.90", "121 ms"],
        ],
    )
    got = perturbation_suggestions("The 350M model reaches an F1 of 0.89.", tables=[table])
    assert got[0].text == "The 125M model reaches an F1 of 0.89."
    assert str(got[0].source) == "Table 1, row header “125M”"
    assert not any("1.3M" in s.text or "0.89M" in s.text or "Rules model" in s.text for s in got)


def test_spanned_cells_keep_values_in_their_own_column():
    from annotation.writing.selectors import _aligned_rows

    def cell(text: str, rowspan: int = 1, colspan: int = 1) -> dict:
        return {"text": text, "rowspan": rowspan, "colspan": colspan, "header": False}

    # As stored from the page: the second RouteAdapt row has no first cell (it is spanned).
    stored = [
        [
            cell("Method", rowspan=2),
            cell("k", rowspan=2),
            cell("Trainable (%)", rowspan=2),
            cell("chrF++", colspan=2),
        ],
        [cell("African"), cell("Asian")],
        [cell("RouteAdapt (ours)", rowspan=2), cell("2"), cell("1.2"), cell("45.9"), cell("51.0")],
        [cell("4"), cell("3.4"), cell("47.1"), cell("52.3")],
        [cell("Full fine-tuning"), cell("-"), cell("100.0"), cell("44.0"), cell("50.2")],
    ]
    rows = _aligned_rows(stored)
    assert rows[3] == ["RouteAdapt (ours)", "4", "3.4", "47.1", "52.3"]
    assert rows[0][3:] == ["chrF++", "chrF++"] and rows[1][:3] == ["Method", "k", "Trainable (%)"]
    table = EvidenceTable(label="Table 1", rows=rows)
    suggested = perturbation_suggestions("RouteAdapt with k=4 reaches 47.1 chrF++.", tables=[table])
    assert not any(s.description.startswith("4 →") for s in suggested)  # k=4 is a setting
    # Its column's other entity (the other RouteAdapt row is the same entity with k=2, whose
    # 45.9 would leave "RouteAdapt reaches 45.9" true of it); never the k, the share of
    # parameters or a value of another column.
    assert {s.description for s in suggested if s.kind == "number"} == {"47.1 → 44.0"}
    assert suggested[0].source == Source(
        "cell", "Table 1", row="Full fine-tuning", column="chrF++ African"
    )


def test_a_table_with_spans_no_browser_lays_out_is_read_as_written():
    """A 6 KB table of rowspan=1000 colspan=1000 cells (issue 16) would cost seconds and
    gigabytes to lay out: the writer's suggestions read its rows as stored instead."""
    from annotation.writing.selectors import _aligned_rows

    stored = [
        [{"text": f"v{r}{c}", "rowspan": 1000, "colspan": 1000} for c in range(10)]
        for r in range(10)
    ]
    rows = _aligned_rows(stored)
    assert rows == [[f"v{r}{c}" for c in range(10)] for r in range(10)]


# --- The validity filter (issue 43): negation-only rewrites marked and listed last ---------


def test_value_entity_and_comparison_changes_come_before_flipped_words():
    found = perturbation_suggestions(
        "RouteAdapt outperforms LoRA and reaches the best BLEU, 27.4.", tables=[RESULTS]
    )
    ranks = [s.rank for s in found]
    assert ranks == sorted(ranks) and ranks[0] == 0 and 1 in ranks
    kinds = [s.kind for s in found if s.rank == 0]
    assert "number" in kinds and "direction" in kinds  # the comparison "LoRA ⇄ RouteAdapt"
    assert [s.description for s in found if s.rank == 1][:1] == ["best → worst"]
    assert not any(s.negation_only for s in found)


def test_a_negation_only_rewrite_is_marked_kept_and_listed_last():
    from annotation.writing.perturbation import Suggestion, _Collector, ordered

    claim = "RouteAdapt reaches 27.4 BLEU in Table 2."
    collector = _Collector(claim=claim, limit=5)
    collector.add(
        "RouteAdapt does not reach 27.4 BLEU in Table 2.", "direction", "negated", Source("change")
    )
    collector.add(
        "RouteAdapt reaches the worst BLEU in Table 2.", "superlative", "x", Source("change")
    )
    collector.add(
        "RouteAdapt reaches 25.0 BLEU in Table 2.", "number", "27.4 → 25.0", Source("cell")
    )
    negated, flipped, number = collector.out
    assert negated.negation_only and negated.rank == 2
    assert not flipped.negation_only and flipped.rank == 1
    assert not number.negation_only and number.rank == 0
    assert ordered(collector.out) == [number, flipped, negated]
    # An antonym is a real change of meaning: not marked.
    collector.add(
        "RouteAdapt underperforms on BLEU in Table 2.", "direction", "y", Source("change")
    )
    assert not collector.out[-1].negation_only
    assert Suggestion("x", "number", "y").negation_only is False  # the default


def test_the_writing_page_shows_the_mark():
    from django.template.loader import render_to_string

    from annotation.writing.perturbation import Suggestion

    suggestions = [
        Suggestion("RouteAdapt reaches 25.0 BLEU.", "number", "27.4 → 25.0", Source("cell")),
        Suggestion(
            "RouteAdapt does not reach 27.4 BLEU.", "direction", "negated", Source("change"), True
        ),
    ]
    html = render_to_string(
        "annotation/claims/_suggestions.html",
        {"suggestions": suggestions, "claim": "RouteAdapt reaches 27.4 BLEU."},
    )
    assert html.count("negation only — prefer a changed value") == 1
    assert html.index("negation only") > html.index("does not reach")
