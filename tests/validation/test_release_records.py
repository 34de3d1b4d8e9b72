"""A record is its claim's evidence: the export names exactly the claim's final tables/charts,
never an empty `section`, paper-file section ids that SciVer's reading reaches (a `\\paragraph`
block under its parent's number, an unnumbered section by its slug), and refuses a split whose
claims' evidence breaks the evidence rule, naming the claims and what to do."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from annotation.models import ClaimReview
from papers.models import Element, Section
from tests.validation.factories import Team, validated_pairs
from validation.release.reading import is_reachable, model_input
from validation.release_check import check_release

pytestmark = pytest.mark.django_db


def run(*args) -> str:
    out = io.StringIO()
    call_command(*args, stdout=out, stderr=io.StringIO())
    return out.getvalue()


@pytest.fixture
def pairs():
    return validated_pairs(Team(), 4)


def read_back(out: Path) -> list[tuple[dict, dict, dict]]:
    """(SciVer record, our JSONL row, paper file) of every claim in the release."""
    rows = {}
    for name in ("validation", "test"):
        for line in (out / "data" / f"{name}.jsonl").read_text().splitlines():
            row = json.loads(line)
            rows[row["request_id"]] = row
    found = []
    for name in ("valset.json", "testset.json"):
        for record in json.loads((out / name).read_text()):
            paper = json.loads((out.parent / record["paper_path"]).read_text())
            found.append((record, rows[record["request_id"]], paper))
    return found


def test_the_export_refuses_claims_whose_evidence_breaks_the_rule(pairs, tmp_path):
    run("make_split", "--validation", "4", "--test", "4", "--seed", "13", "--name", "v1")
    pair = pairs[1]
    review = ClaimReview.objects.select_related("claim").get(
        claim__pair=pair, claim__label="entailed"
    )
    have = set(review.final_evidence.values_list("pk", flat=True))
    extra = (
        Element.objects.filter(paper=pair.paper, kind__in=["table", "chart"], section__kind="body")
        .exclude(pk__in=have)
        .first()
    )
    review.final_evidence.add(extra)  # one table/chart more than the subset rests on
    out = tmp_path / "SciVer"
    with pytest.raises(CommandError) as failure:
        run("export_release", "--split", "v1", "--out", str(out))
    message = str(failure.value)
    assert message.startswith(
        "split v1: 1 claim(s) rest on final evidence that breaks the evidence rule"
    )
    assert (
        f"claim {review.claim.key} (entailed, {pair.subset}, pair {pair.key}, paper "
        f"{pair.paper.versioned_id}): " in message
    )
    assert f"{pair.subset} claim rests on exactly" in message  # annotation.evidence's words
    assert extra.label in message  # what to untick, by name
    assert "Re-open their validation" in message and "make a new split" in message
    assert not out.exists() and list(tmp_path.iterdir()) == []


def test_records_name_exactly_their_evidence_and_reach_it_through_sciver_reading(pairs, tmp_path):
    paper = pairs[0].paper
    # The paper's Method becomes a \\paragraph block under the Introduction, its Conclusion an
    # unnumbered "Limitations" (as LaTeXML leaves them: no number, an anchor).
    method = Section.objects.get(paper=paper, title="Method")
    intro = Section.objects.get(paper=paper, title="Introduction")
    Section.objects.filter(pk=method.pk).update(number="", title="Setup.", parent=intro)
    conclusion = Section.objects.get(paper=paper, title="Conclusion")
    Section.objects.filter(pk=conclusion.pk).update(number="", title="Limitations")
    # Both claims of the first pair also rest on the Limitations paragraph.
    paragraph = Element.objects.get(section=conclusion, kind="paragraph")
    for review in ClaimReview.objects.filter(claim__pair=pairs[0]):
        review.final_evidence.add(paragraph)
    run("make_split", "--validation", "4", "--test", "4", "--seed", "13", "--name", "v1")
    out = tmp_path / "SciVer"
    run("export_release", "--split", "v1", "--out", str(out))
    assert check_release(out) == []

    paper_file = json.loads((out / "papers" / f"{paper.arxiv_id}.json").read_text())
    ids = [s["section_id"] for s in paper_file["sections"]]
    assert ids == ["abstract", "2", "2.p1", "6", "limitations"]
    assert [s["section_name"] for s in paper_file["sections"]][2:] == [
        "Setup.",
        "Experiments",
        "Limitations",
    ]
    for path in (out / "papers").glob("*.json"):
        assert all(is_reachable(s["section_id"]) for s in json.loads(path.read_text())["sections"])

    method_table = Element.objects.get(section=method, kind="table")
    seen_limitations = False
    for record, row, paper_json in read_back(out):
        seen = model_input(record, paper_json)
        assert record["section"] and seen.context
        paragraphs = [p for p in row["evidence"] if p["kind"] == "paragraph"]
        for piece in paragraphs:
            assert piece["text"] in seen.context
        visuals = sorted(p["image_path"] for p in row["evidence"] if p["kind"] != "paragraph")
        assert sorted(i.path.removeprefix("./SciVer/") for i in seen.images) == visuals
        assert len(visuals) == (2 if record["claim_type"] in ("parallel", "sequential") else 1)
        if row["pair_id"] == pairs[0].pk:
            assert record["section"] == ["limitations"]  # its paragraph's section only
            assert seen.context.startswith("Limitations:\n")
            seen_limitations = True
        elif not paragraphs:
            # No paragraph evidence: the sections holding its tables and charts.
            anchors = {p["anchor"] for p in row["evidence"]}
            if row["paperid"] == paper.arxiv_id and method_table.anchor in anchors:
                assert "2.p1" in record["section"]
    assert seen_limitations


def test_the_export_refuses_a_perturbation_that_changes_only_a_reference(pairs, tmp_path):
    from annotation.models import Claim

    run("make_split", "--validation", "4", "--test", "4", "--seed", "13", "--name", "v1")
    pair = pairs[2]
    entailed = Claim.objects.get(pair=pair, label="entailed")
    refuted = Claim.objects.get(pair=pair, label="refuted")
    Claim.objects.filter(pk=entailed.pk).update(text="Table 1 gives Ours a BLEU of 73.2.")
    Claim.objects.filter(pk=refuted.pk).update(text="Table 2 gives Ours a BLEU of 73.20.")
    out = tmp_path / "SciVer"
    with pytest.raises(CommandError) as failure:
        run("export_release", "--split", "v1", "--out", str(out))
    message = str(failure.value)
    assert message.startswith(
        "split v1: 1 record(s), read as SciVer's own code reads a release, would not give a "
        f"model what their claims need: claim {refuted.key} (refuted, pair {pair.key}, paper "
        f"{pair.paper.versioned_id}): the refuted claim differs from its entailed claim only in "
        "a reference number and number formatting. Nothing was written. To fix: Re-open the "
        "refuted claim's validation"
    )
    assert not out.exists() and list(tmp_path.iterdir()) == []
