"""Release fidelity without a database: paper-file section ids a record can reach, a record's
`section` from its evidence, and check_release refusing a release that, read as SciVer's own
code reads it, gives a model the wrong input; the format version; hidden test labels kept in
a file of their own outside the release folder."""

from __future__ import annotations

import dataclasses
import json
import stat

import pytest

from tests.validation.releases import _jsonl, _release, _rewrite, _write_jsonl
from validation.release import PaperSection, ReleaseError, write_release
from validation.release.reading import is_reachable, model_input
from validation.release.sections import (
    SectionNode,
    paper_sections,
    record_sections,
    section_ids,
    slug,
)
from validation.release.writer import FORMAT_VERSION, labels_path
from validation.release_check import check_release, inspect_release, perturbation_problem

# --- Paper-file section ids ---------------------------------------------------------------

# (pk, anchor, number, title, parent, kind) in reading order, as papers/parsing leaves them.
TREE = [
    (1, "abstract", "", "Abstract", None, "abstract"),
    (2, "front", "", "", None, "body"),
    (3, "S1", "1", "Introduction", None, "body"),
    (4, "S4", "4", "Experiments", None, "body"),
    (5, "S4.SS3", "4.3", "Ablations", 4, "body"),
    (6, "S4.SS3.SSS0.Px1", "", "Pretraining.", 5, "body"),
    (7, "S4.SS3.SSS0.Px2", "", "Data size.", 5, "body"),
    (8, "S4.SS4", "4.4", "Errors", 4, "body"),
    (9, "S4.SS4.SSS0.Px1", "", "Typos.", 8, "body"),
    (10, "Sx1", "", "Limitations", None, "body"),
    (11, "Sx1.SS0.SSS0.Px1", "", "Scope.", 10, "body"),
    (12, "Sx2", "", "Limitations", None, "body"),
    (13, "Sx3", "", "Ethics Statement", None, "body"),
    (14, "Sx4", "", "2024 update", None, "body"),
    (15, "Sx5", "", "Überblick", None, "body"),
    (16, "Sx6", "", "", None, "body"),
    (17, "A1", "A", "Proofs", None, "appendix"),
    (18, "A1.SS1", "A.1", "Lemma", 17, "appendix"),
]
NODES = [
    SectionNode(pk, anchor, number, title, parent, order, kind)
    for order, (pk, anchor, number, title, parent, kind) in enumerate(TREE)
]


def test_every_section_gets_an_id_a_record_can_name():
    ids = section_ids(NODES)
    assert ids == {
        1: "abstract",
        2: "front",
        3: "1",
        4: "4",
        5: "4.3",
        6: "4.3.p1",
        7: "4.3.p2",  # \paragraph blocks take their parent's number
        8: "4.4",
        9: "4.4.p1",
        10: "limitations",
        11: "limitations.p1",
        12: "limitations-2",
        13: "ethics-statement",
        14: "section-2024-update",
        15: "uberblick",
        16: "section",
        17: "A",
        18: "A.1",
    }
    assert all(is_reachable(i) for i in ids.values())
    assert len(set(ids.values())) == len(ids)
    # A \paragraph block under 4.3 is reached by a record naming 4.3 (SciVer reads all of 4).
    assert ids[7].split(".")[0] == "4"


def test_ids_do_not_depend_on_the_order_nodes_are_given_in_or_on_curation():
    assert section_ids(reversed(NODES)) == section_ids(NODES)
    assert slug("Limitations & Broader Impact") == "limitations-broader-impact"


def test_the_paper_file_holds_one_entry_per_id_in_reading_order():
    ids = section_ids(NODES)
    titles = {n.pk: n.title for n in NODES}
    blocks = [
        (3, "paragraph", "We study tables."),
        (5, "table", ""),
        (6, "paragraph", "Pretrained: 61."),
        (6, "paragraph", "Not pretrained: 55."),
        (3, "paragraph", "More intro."),
        (10, "paragraph", "Only English."),
    ]
    assert paper_sections(blocks, ids, titles) == (
        PaperSection("1", "Introduction", "We study tables.\nMore intro."),
        PaperSection("4.3", "Ablations", ""),  # holds only a table: an entry without text
        PaperSection("4.3.p1", "Pretraining.", "Pretrained: 61.\nNot pretrained: 55."),
        PaperSection("limitations", "Limitations", "Only English."),
    )


def test_a_records_section_names_its_evidence_paragraphs_else_its_tables_and_charts():
    ids = section_ids(NODES)
    order = ["1", "4.3", "4.3.p1", "4.4", "limitations"]
    evidence = [("table", 5), ("paragraph", 10), ("paragraph", 6), ("paragraph", 6)]
    assert record_sections(evidence, ids, order) == ("4.3.p1", "limitations")
    assert record_sections([("chart", 8), ("table", 5)], ids, order) == ("4.3", "4.4")
    assert record_sections([], ids, order) == ()


def test_a_record_never_has_an_empty_section():
    claim = _release().splits["validation"][0]
    with pytest.raises(ValueError, match="section must be a non-empty list"):
        dataclasses.replace(claim, section=())
    with pytest.raises(ValueError, match="section must be a non-empty list"):
        dataclasses.replace(claim, section=("",))


# --- check_release: what a model is given ---------------------------------------------------


def written(tmp_path, **overrides):
    out = tmp_path / "SciVer"
    write_release(_release(**overrides), out)
    assert check_release(out) == []
    return out


def records(out, name="valset.json") -> list[dict]:
    return json.loads((out / name).read_text())


def test_a_record_whose_section_reaches_no_text_is_refused(tmp_path):
    out = written(tmp_path)
    changed = records(out)
    changed[0]["section"] = []
    changed[1]["section"] = ["S4.SS1"]  # an anchor: SciVer's reading never matches it
    _rewrite(out, "valset.json", json.dumps(changed).encode())
    problems = check_release(out)
    assert problems[0] == (
        "valset.json[0] (request 1, paper 2409.00001): SciVer's reading gives the model no "
        "text: section [] names no section of its paper file; export the split again with this "
        "SciVer Studio (python manage.py export_release --split NAME --out DIR --overwrite); "
        "should the export refuse the claim, re-open its validation so that the validator "
        "fixes its evidence"
    )
    assert any(
        p.startswith(
            "valset.json[1] (request 2, paper 2409.00001): SciVer's reading "
            "gives the model no text: section ['S4.SS1']"
        )
        for p in problems
    )
    # The evidence paragraph is then missing from the context too: said per record.
    assert (
        sum("evidence paragraph 2409.00001/S4.1.p1 is not in the context" in p for p in problems)
        == 2
    )


def test_an_evidence_paragraph_outside_the_records_context_is_refused(tmp_path):
    out = written(tmp_path)
    changed = records(out)
    changed[0]["section"] = ["3"]  # reaches Method, not Results where the evidence is
    _rewrite(out, "valset.json", json.dumps(changed).encode())
    assert check_release(out) == [
        "valset.json[0] (request 1, paper 2409.00001): evidence paragraph 2409.00001/S4.1.p1 "
        "is not in the context SciVer's reading builds from section ['3'] (it reads 3); export "
        "the split again with this SciVer Studio (python manage.py export_release --split NAME "
        "--out DIR --overwrite); should the export refuse the claim, re-open its validation so "
        "that the validator fixes its evidence"
    ]


def test_items_that_are_not_exactly_the_claims_tables_and_charts_are_refused(tmp_path):
    out = written(tmp_path)
    rows = _jsonl(out, "validation")
    # A parallel claim that rests on its table alone, but whose record shows a chart too.
    rows[2]["evidence"] = [p for p in rows[2]["evidence"] if p["kind"] != "chart"]
    _write_jsonl(out, "validation", rows)
    assert check_release(out) == [
        "valset.json[2] (request 3, paper 2409.00001): the record shows the model "
        "images/2409.00001_chart_3.png, images/2409.00001_table_2.png but the claim's "
        "table/chart evidence is images/2409.00001_table_2.png; export the split again with "
        "this SciVer Studio (python manage.py export_release --split NAME --out DIR "
        "--overwrite); should the export refuse the claim, re-open its validation so that the "
        "validator fixes its evidence"
    ]


def test_a_paper_file_section_no_record_can_reach_is_refused(tmp_path):
    release = _release()
    paper = release.papers[0]
    anchored = dataclasses.replace(
        paper, sections=(*paper.sections, PaperSection("S4.SS3.SSS0.Px2", "Ablation.", "61."))
    )
    out = tmp_path / "SciVer"
    write_release(_release(papers=[anchored, release.papers[1]]), out)
    assert check_release(out) == [
        "papers/2409.00001.json: section_id 'S4.SS3.SSS0.Px2' (Ablation.) is one no record can "
        "name, so SciVer's reading never gives a model its text (an anchor, not a section "
        "number or a lower-case slug); export the split again with this SciVer Studio (python "
        "manage.py export_release --split NAME --out DIR --overwrite)"
    ]


@pytest.mark.parametrize(
    ("origin", "perturbed", "why"),
    [
        (
            "Ours reaches 73.2 in Table 2.",
            "Ours reaches 73.2 in Table 3.",
            "differs from its entailed claim only in a reference number",
        ),
        (
            "As Fig. 3 shows, loss falls.",
            "As Fig. 4 shows, loss falls.",
            "differs from its entailed claim only in a reference number",
        ),
        (
            "TABLE II gives 45.2 F1.",
            "TABLE IV gives 45.2 F1.",
            "differs from its entailed claim only in a reference number",
        ),
        (
            "Eq. (3) and Algorithm 1 give 9 steps.",
            "Eq. (5) and Algorithm 2 give 9 steps.",
            "differs from its entailed claim only in a reference number",
        ),
        (
            "Ours reaches 45.2 F1.",
            "Ours reaches 45.20 F1.",
            "differs from its entailed claim only in number formatting",
        ),
        (
            "It has 1,000 rows.",
            "It has 1000 rows.",
            "differs from its entailed claim only in number formatting",
        ),
        (
            "Recall is 70% here.",
            "Recall is 70.0 % here.",
            "differs from its entailed claim only in number formatting",
        ),
        (
            "As Eq 2 shows, loss falls.",
            "As Eq 3 shows, loss falls.",
            "differs from its entailed claim only in a reference number",
        ),
        (
            "Section 3.2 reports 45.2.",
            "Section 4.1 reports 45.20.",
            "differs from its entailed claim only in a reference number and number formatting",
        ),
        ("Ours reaches 45.2 F1.", "Ours reaches  45.2 F1.", "is its entailed claim itself"),
        ("Ours reaches 45.2 F1.", "Ours reaches 54.2 F1.", ""),
        ("Table 2 gives Ours 73.2.", "Table 2 gives Ours 68.9.", ""),
        ("Ours beats the Baseline.", "The Baseline beats Ours.", ""),
    ],
)
def test_perturbations_that_change_no_fact(origin, perturbed, why):
    assert perturbation_problem(origin, perturbed) == why


def test_a_refuted_claim_differing_only_in_a_reference_number_is_refused(tmp_path):
    release = _release()
    first, second = release.splits["validation"][:2]
    origin = "Ours reaches 73.2 in Table 2."
    pair = [
        dataclasses.replace(c, origin_statement=origin, perturbed_statement=origin[:-2] + "3.")
        for c in (first, second)
    ]
    out = tmp_path / "SciVer"
    splits = {
        "validation": pair + list(release.splits["validation"][2:]),
        "test": release.splits["test"],
    }
    write_release(_release(splits=splits), out)
    # Said once per pair: on its refuted record (request 2).
    assert check_release(out) == [
        "valset.json[1] (request 2, paper 2409.00001): the refuted claim differs from its "
        "entailed claim only in a reference number; re-open the refuted claim's validation "
        "(Validation, /manage/validation/) so that the validator rewrites it with a factual "
        "error the evidence contradicts, then export again"
    ]


# --- The format version -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("version", "said"),
    [(None, "no format_version"), (1, "format_version 1"), (2, "format_version 2")],
)
def test_a_release_that_predates_the_format_version_is_refused_with_advice(tmp_path, version, said):
    out = written(tmp_path)
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["format_version"] == FORMAT_VERSION == 3
    if version is None:
        del manifest["format_version"]
    else:
        manifest["format_version"] = version
    (out / "manifest.json").write_text(json.dumps(manifest))
    problems = check_release(out)
    assert problems == [
        f"manifest.json: {said}: the release predates format 3 (records that name exactly "
        "their claim's tables/charts and sections SciVer's reading reaches, hidden test labels "
        "kept outside the folder, public test files without the pairing, the split's papers "
        "per part, croissant.json and the card's Hub metadata); export the split again "
        "(python manage.py export_release --split NAME --out DIR --overwrite)"
    ]


# --- Hidden test labels -------------------------------------------------------------------------


def test_hidden_labels_go_to_a_file_outside_the_folder_that_can_still_be_scored(tmp_path):
    out = tmp_path / "SciVer"
    public = _release(hide_test_labels=True, seed=3)
    manifest = write_release(public, out)
    labels_file = tmp_path / "SciVer.labels.json"
    assert labels_path(out) == labels_file and labels_file.is_file()
    assert stat.S_IMODE(labels_file.stat().st_mode) == 0o600
    assert not any(p.name.endswith(".labels.json") for p in out.rglob("*"))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["SciVer", "SciVer.labels.json"]
    assert manifest["hidden_labels"] == {
        "path": "../SciVer.labels.json",
        "records": 6,
        "kept_private": "outside the release folder; never publish it",
    }
    assert "sha256" not in json.dumps(manifest["hidden_labels"])  # no way to confirm a guess
    labels = json.loads(labels_file.read_text())
    truth = {str(c.request_id): c.label for c in public.splits["test"]}
    assert labels["labels"] == truth
    assert {r["request_id"] for r in labels["records"]} == {int(k) for k in truth}
    first = labels["records"][0]
    assert set(first) == {
        "request_id",
        "paperid",
        "claim_type",
        "subfield",
        "label",
        "origin_statement",
        "perturbed_statement",
        "perturbed_explanation",
        "evidence",
        "provenance",
        "annotators",
        # What ties a claim to its pair, which the public files leave out.
        "pair_id",
        "sampled",
        "guideline_versions",
        "revisions",
    }
    assert '"yes"' in labels["scoring"]
    # Scoring the public test set with it, as SciVer's acc_evaluation does.
    answers = {
        r["request_id"]: "Yes, entailed." if r["label"] else "No." for r in labels["records"]
    }
    test = records(out, "testset.json")
    correct = sum(
        ("yes" in answers[r["request_id"]].lower()) == labels["labels"][str(r["request_id"])]
        for r in test
    )
    assert correct == len(test) == 6
    # check_release passes on the public folder, with or without the labels file beside it.
    assert inspect_release(out).problems == []
    labels_file.rename(tmp_path / "elsewhere.json")
    assert inspect_release(out).problems == []


def test_a_labels_file_for_another_testset_is_said_when_present(tmp_path):
    out = tmp_path / "SciVer"
    write_release(_release(hide_test_labels=True, seed=3), out)
    labels_file = labels_path(out)
    labels = json.loads(labels_file.read_text())
    labels["testset_sha256"] = "0" * 64
    labels["labels"].pop(next(iter(labels["labels"])))
    labels_file.write_text(json.dumps(labels))
    problems = check_release(out)
    assert problems == [
        f"{out / '../SciVer.labels.json'}: written for another testset.json (checksum "
        "differs): it would score other records; export the split again",
        f"{out / '../SciVer.labels.json'}: answers 5 request ids, the public test set holds 6 "
        "(1 unanswered); export the split again",
    ]


def test_a_labels_file_is_replaced_only_with_overwrite_and_never_when_not_ours(tmp_path):
    out = tmp_path / "SciVer"
    write_release(_release(hide_test_labels=True, seed=3), out)
    labels_file = labels_path(out)
    # A new destination beside a stale labels file: refused, nothing written.
    other = tmp_path / "again" / "SciVer"
    other.parent.mkdir()
    labels_path(other).write_text(labels_file.read_text())
    with pytest.raises(ReleaseError, match="already exists .* pass --overwrite"):
        write_release(_release(hide_test_labels=True, seed=3), other)
    assert not other.exists()
    # Not ours: never replaced, even with overwrite.
    labels_file.write_text("my notes")
    with pytest.raises(ReleaseError, match="is not a hidden-labels file"):
        write_release(_release(hide_test_labels=True, seed=4), out, overwrite=True)
    assert labels_file.read_text() == "my notes"
    # Ours, replaced with the release; a re-export without hidden labels removes it.
    labels_file.unlink()
    write_release(_release(hide_test_labels=True, seed=3), out, overwrite=True)
    assert json.loads(labels_file.read_text())["format"] == "sciver-studio-hidden-labels/1"
    write_release(_release(), out, overwrite=True)
    assert not labels_file.exists() and "hidden_labels" not in json.loads(
        (out / "manifest.json").read_text()
    )


def test_the_model_input_of_every_record_holds_its_evidence(tmp_path):
    """The fixture release, read record by record as SciVer's code reads it."""
    out = written(tmp_path)
    for split, name in (("valset.json", "validation"), ("testset.json", "test")):
        rows = {r["request_id"]: r for r in _jsonl(out, name)}
        for record in records(out, split):
            paper = json.loads((tmp_path / record["paper_path"]).read_text())
            seen = model_input(record, paper)
            row = rows[record["request_id"]]
            for piece in row["evidence"]:
                if piece["kind"] == "paragraph":
                    assert piece["text"] in seen.context
            assert sorted(i.path for i in seen.images) == sorted(
                f"./SciVer/{p['image_path']}" for p in row["evidence"] if p["kind"] != "paragraph"
            )
