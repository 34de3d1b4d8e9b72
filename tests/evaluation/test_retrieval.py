"""Retrieval on a release: recall@k against a hand count on a hand-built release (every
claim's words pick out two units), the gold evidence → unit mapping, BM25 and TF-IDF scores
against their formulas, a stored description indexed, and `retrieval_report`'s output and
errors."""

from __future__ import annotations

import json
import math

import pytest
from django.core.management import CommandError, call_command

from evaluation.release import load_part
from evaluation.retrieval import get_retriever, paper_units, recall_report
from evaluation.retrieval.retrievers import BM25, TfIdf, tokenize
from tests.evaluation.builders import HAND, RETRIEVAL_CLAIMS, write_retrieval_release

# Both claims of a pair have the same recall: overall (1 + 2/3 + 2/5 + 1/3) / 4 = 0.6.
OVERALL = (1 + 2 / 3 + 2 / 5 + 1 / 3) / 4


@pytest.fixture
def release(tmp_path):
    return write_retrieval_release(tmp_path, hide_test_labels=True, seed=2)


def test_recall_at_2_matches_the_hand_count(release, tmp_path, capsys):
    figures = tmp_path / "recall.json"
    call_command(
        "retrieval_report", str(release), "--part", "validation", "--k", "2", "--json", str(figures)
    )
    data = json.loads(figures.read_text())
    assert data["claims"] == 8 and data["k"] == 2 and data["without_evidence"] == 0
    for name in ("bm25", "tfidf"):
        recall = data["recall"][name]
        assert recall["all"] == pytest.approx(OVERALL)
        for subset, (_, (found, gold)) in HAND.items():
            assert recall[subset] == pytest.approx(found / gold), (name, subset)
    assert data["sciver"] == {"bm25": 0.743, "tfidf": None}
    printed = capsys.readouterr().out
    rows = {line.split()[0]: line.split()[1:] for line in printed.splitlines()[3:9]}
    assert rows["all"] == ["8", "60.0", "60.0"]
    assert rows["parallel"] == ["2", "66.7", "66.7"] and rows["analytical"] == ["2", "33.3", "33.3"]
    # 26 pieces: 14 paragraphs, 8 found (2 + 2 + 2 + 2); 12 tables/charts, 6 found (2 + 2 + 2).
    assert "26 gold pieces, 2 of them no unit of their paper file" in printed
    assert "paragraph pieces      14    57.1      57.1" in printed
    assert "table/chart pieces    12    50.0      50.0" in printed
    assert "SciVer Table 4      1000    74.3         —" in printed
    assert "recall@2 of a claim: the share of its gold evidence pieces" in printed


def test_each_claim_retrieves_its_two_units_and_its_gold_maps_to_units(release):
    part = load_part(release, "validation")
    report = recall_report(part, [get_retriever("bm25"), get_retriever("TFIDF")], 2)
    for name in ("bm25", "tfidf"):
        claims = report.claims[name]
        assert len(claims) == 8
        for claim in claims:
            top, (found, gold) = HAND[claim.claim_type]
            assert set(claim.retrieved) == top
            assert (claim.found, claim.gold) == (found, gold)
            assert claim.unmatched == RETRIEVAL_CLAIMS[claim.claim_type][3]


def test_the_hidden_test_part_reads_its_evidence_from_the_labels_file(release, capsys):
    call_command("retrieval_report", str(release), "--part", "test", "--retrievers", "bm25")
    printed = capsys.readouterr().out
    assert "recall@5 of 8 claims with gold evidence (0 without an evidence list)" in printed
    assert "TF-IDF" not in printed.split("\n\n")[1]


def test_bm25_and_tfidf_score_by_their_formulas():
    documents = [["cat", "sat", "mat"], ["dog", "sat"], ["cat", "cat", "fish"]]
    n, average = 3, 8 / 3
    idf = math.log(1 + (n - 2 + 0.5) / (2 + 0.5))  # "cat" is in two of three

    def lucene(tf: int, length: int) -> float:  # bm25s's Lucene variant (no k1 + 1 factor)
        return idf * tf / (tf + 1.5 * (1 - 0.75 + 0.75 * length / average))

    scores = BM25().scorer(documents)(["cat"])
    assert scores == pytest.approx([lucene(1, 3), 0.0, lucene(2, 3)], rel=1e-5)
    smooth = {t: math.log(4 / (1 + d)) + 1 for t, d in {"cat": 2, "fish": 1, "sat": 2}.items()}
    third = [2 * smooth["cat"], smooth["fish"]]
    cosine = third[0] / math.hypot(*third)  # the query "cat" is the unit vector on "cat"
    tfidf = TfIdf().scorer(documents)(["cat", "zebra"])  # an unknown word counts for nothing
    assert tfidf[2] == pytest.approx(cosine) and tfidf[1] == 0.0
    assert BM25().scorer(documents)([]) == [0.0, 0.0, 0.0]
    assert tokenize("The BM25 of a claim, e.g. 45.2%") == ["bm25", "claim", "45"]


def test_a_stored_description_is_indexed_beside_the_caption():
    paper = {
        "sections": [{"section_id": "2", "section_name": "Setup", "text": "One.\n\nTwo."}],
        "image_paths": {"4": {"caption": "Figure 4: results.", "description": "A rising curve."}},
        "tables": {"1": {"capture": "Table 1: data."}},
    }
    units = paper_units(paper)
    assert [u.id for u in units] == ["2/p1", "2/p2", "table/1", "chart/4"]
    assert units[3].text == "Figure 4: results.\nA rising curve." and units[3].caption == (
        "Figure 4: results."
    )
    scores = BM25().scorer([tokenize(u.text) for u in units])(tokenize("a rising curve"))
    assert max(range(4), key=scores.__getitem__) == 3


def test_the_command_says_what_is_wrong(release, tmp_path):
    with pytest.raises(CommandError, match="no retriever 'contriever'; retrievers: bm25, tfidf"):
        call_command(
            "retrieval_report",
            str(release),
            "--part",
            "validation",
            "--retrievers",
            "bm25,contriever",
        )
    with pytest.raises(CommandError, match="k must be at least 1"):
        call_command("retrieval_report", str(release), "--part", "validation", "--k", "0")
    (release / "data" / "validation.jsonl").unlink()  # as SciVer's own release: no evidence
    with pytest.raises(
        CommandError,
        match="no record of the validation part has a gold "
        "evidence list: SciVer's public release drops it",
    ):
        call_command("retrieval_report", str(release), "--part", "validation")
