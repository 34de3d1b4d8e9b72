"""Statistics: Table 2 figures, evidence breakdown, counts, SVG plots, the dataset_stats command."""

from __future__ import annotations

import io
import json

import pytest
from django.core.management import call_command

from tests.validation.factories import Team, validated_pairs
from validation import selectors, stats
from validation.release.reading import model_input

R = stats.StatRecord


def records() -> list[stats.StatRecord]:
    # ..., words SciVer's reading gives a model, words in the whole curated context
    return [
        R("p1", "direct", "cs.CL", "entailed", 10, 1, 1, 0, (4,), (), 100, 900),
        R("p1", "direct", "cs.CL", "refuted", 12, 2, 1, 1, (4,), (6,), 100, 900),
        R("p2", "parallel", "cs.CV", "entailed", 20, 3, 0, 2, (), (5, 7), 300, 1500),
        R("p2", "parallel", "cs.CV", "refuted", 22, 5, 1, 2, (2,), (5, 7), 300, 1500),
    ]


def test_table2_figures():
    table = stats.table2(records())
    assert table["claims"] == 4 and table["papers"] == 2
    assert table["entailed"] == 2 and table["refuted"] == 2
    assert table["claim length"] == 16.0
    assert table["words in paragraphs"] == 200.0  # what a model reads
    assert table["words in the curated context"] == 1200.0  # shown apart
    assert table["tables per example"] == 0.75 and table["charts per example"] == 1.25
    assert table["table caption length"] == 3.33 and table["chart caption length"] == 6.0
    assert table["evidence pieces"] == 2.75


def test_evidence_breakdown_and_counts():
    assert stats.evidence_breakdown(records()) == {
        "one": 1,
        "two": 1,
        "three": 1,
        "more than three": 1,
    }
    assert stats.count_by(records(), "subfield") == {
        "cs.CL": {"entailed": 1, "refuted": 1, "total": 2},
        "cs.CV": {"entailed": 1, "refuted": 1, "total": 2},
    }
    assert stats.table2([])["claim length"] == 0.0


def test_plots_are_inline_svg_with_escaped_labels():
    svg = stats.bar_chart([("<b>x</b>", 3), ("y", 0)], title="T & U")
    assert svg.startswith("<svg") and "<script" not in svg
    assert "&lt;b&gt;x&lt;/b&gt;" in svg and "T &amp; U" in svg
    assert "refuted" in stats.stacked_pairs_chart(stats.count_by(records(), "subset"), title="S")


@pytest.mark.django_db
def test_dataset_stats_command_on_the_pool_and_a_split():
    team = Team()
    validated_pairs(team, 4)
    out = io.StringIO()
    call_command("dataset_stats", stdout=out)
    text = out.getvalue()
    assert "claims validated 8" in text and "validated pool" in text and "claim length" in text
    call_command(
        "make_split",
        "--validation",
        "2",
        "--test",
        "6",
        "--seed",
        "1",
        "--name",
        "v1",
        stdout=io.StringIO(),
    )
    out = io.StringIO()
    call_command("dataset_stats", "--split", "v1", "--json", stdout=out)
    result = json.loads(out.getvalue())
    assert result["parts"]["validation"]["table2"]["claims"] == 2
    assert result["parts"]["test"]["table2"]["claims"] == 6


@pytest.mark.django_db
def test_words_in_paragraphs_are_what_sciver_reading_gives_a_model(tmp_path):
    """Table 2's words in paragraphs, for a split, equal the mean words of the context SciVer's
    reading builds from each exported record; the curated context is counted apart."""
    validated_pairs(Team(), 4)
    call_command(
        "make_split",
        "--validation",
        "4",
        "--test",
        "4",
        "--seed",
        "1",
        "--name",
        "v1",
        stdout=io.StringIO(),
    )
    out = tmp_path / "SciVer"
    call_command(
        "export_release",
        "--split",
        "v1",
        "--out",
        str(out),
        stdout=io.StringIO(),
        stderr=io.StringIO(),
    )
    result = selectors.dataset_statistics("v1")
    for part, split_file in (("validation", "valset.json"), ("test", "testset.json")):
        counts = []
        for record in json.loads((out / split_file).read_text()):
            paper = json.loads((tmp_path / record["paper_path"]).read_text())
            counts.append(stats.words(model_input(record, paper).context))
        table = result["parts"][part]["table2"]
        assert table["words in paragraphs"] == round(sum(counts) / len(counts), 2)
        assert table["words in the curated context"] > table["words in paragraphs"] > 0
    assert "SciVer's own code builds from each record" in result["words_note"]
    text = io.StringIO()
    call_command("dataset_stats", "--split", "v1", stdout=text)
    assert "words in the curated context" in text.getvalue()
    assert "what a model reads" in text.getvalue()


@pytest.mark.django_db
def test_stat_records_run_a_fixed_number_of_queries(django_assert_num_queries):
    team = Team()
    validated_pairs(team, 1)
    with django_assert_num_queries(4) as one:  # claims, their evidence, contexts, sections
        assert len(selectors.stat_records(selectors.validated_claims())) == 2
    validated_pairs(team, 2)
    with django_assert_num_queries(len(one.captured_queries)):
        assert len(selectors.stat_records(selectors.validated_claims())) == 6
