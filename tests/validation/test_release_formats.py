"""Release export: SciVer field names and types, our richer formats, atomic writes, manifest."""

from __future__ import annotations

import csv
import hashlib
import io
import json
from pathlib import Path

import pytest

from tests.validation.releases import (
    PNG,
    _element,
    _jsonl,
    _pair,
    _release,
    _rewrite,
    _write_jsonl,
)
from validation.release import (
    ReleaseClaim,
    ReleaseError,
    ReleasePaper,
    VisualElement,
    pseudonymise,
    release_paperids,
    write_release,
)
from validation.release_check import check_release, inspect_release

# SCIVER.md, "The public release": field → type, for each shape of record.
COMMON_FIELDS = {
    "request_id": int,
    "paperid": str,
    "paper_path": str,
    "claim_type": str,
    "claim": str,
    "label": bool,
    "origin_statement": str,
    "perturbed_statement": str,
    "perturbed_explanation": str,
    "section": list,
}
ONE_ELEMENT_FIELDS = {"type": str, "item": str, "image_path": str}
TWO_ELEMENT_FIELDS = {f"item{n}{suffix}": str for n in (1, 2) for suffix in ("_type", "", "_path")}


def load_sciver(root: Path, split_file: str) -> list[dict]:
    """A loader written for the public SciVer release, which resolves `./SciVer/…` paths
    against the folder that holds `SciVer/`, and reads table captions from `capture`."""
    records = json.loads((root / "SciVer" / split_file).read_text(encoding="utf-8"))
    examples = []
    for record in records:
        paper = json.loads((root / record["paper_path"]).read_text(encoding="utf-8"))
        context = "\n".join(s["text"] for s in paper["sections"])
        if "item1" in record:
            items = [
                (record[f"item{n}_type"], record[f"item{n}"], record[f"item{n}_path"])
                for n in (1, 2)
            ]
        else:
            items = [(record["type"], record["item"], record["image_path"])]
        captions = [
            paper["tables"][item]["capture"]
            if kind == "table"
            else paper["image_paths"][item]["caption"]
            for kind, item, _ in items
        ]
        images = [(root / path).read_bytes() for _, _, path in items]
        examples.append(
            {
                "claim": record["claim"],
                "label": record.get("label"),
                "context": context,
                "captions": captions,
                "images": images,
            }
        )
    return examples


def test_sciver_records_have_exactly_the_public_field_names_and_types(tmp_path):
    write_release(_release(), tmp_path / "SciVer")
    for split_file in ("valset.json", "testset.json"):
        records = json.loads((tmp_path / "SciVer" / split_file).read_text())
        for record in records:
            extra = (
                ONE_ELEMENT_FIELDS
                if record["claim_type"] in ("direct", "analytical")
                else TWO_ELEMENT_FIELDS
            )
            expected = COMMON_FIELDS | extra
            assert list(record) == list(expected), record["request_id"]
            for name, kind in expected.items():
                assert type(record[name]) is kind, (name, record[name])
            assert all(isinstance(s, str) for s in record["section"])
            assert record["paper_path"] == f"./SciVer/papers/{record['paperid']}.json"
            assert record["claim"] == (
                record["origin_statement"] if record["label"] else record["perturbed_statement"]
            )


def test_golden_validation_file(tmp_path):
    write_release(_release(), tmp_path / "SciVer")
    records = json.loads((tmp_path / "SciVer" / "valset.json").read_text())
    assert records[0] == {
        "request_id": 1,
        "paperid": "2409.00001",
        "paper_path": "./SciVer/papers/2409.00001.json",
        "claim_type": "direct",
        "claim": "Model A beats B on p1.",
        "label": True,
        "origin_statement": "Model A beats B on p1.",
        "perturbed_statement": "Model B beats A on p1.",
        "perturbed_explanation": "Table 2 shows A ahead of B.",
        "section": ["4.1"],
        "type": "table",
        "item": "2",
        "image_path": "./SciVer/images/2409.00001_table_2.png",
    }
    assert records[3] == {
        "request_id": 4,
        "paperid": "2409.00001",
        "paper_path": "./SciVer/papers/2409.00001.json",
        "claim_type": "parallel",
        "claim": "Model B beats A on p2.",
        "label": False,
        "origin_statement": "Model A beats B on p2.",
        "perturbed_statement": "Model B beats A on p2.",
        "perturbed_explanation": "Table 2 shows A ahead of B.",
        "section": ["4.1"],
        "item1_type": "table",
        "item1": "2",
        "item1_path": "./SciVer/images/2409.00001_table_2.png",
        "item2_type": "chart",
        "item2": "3",
        "item2_path": "./SciVer/images/2409.00001_chart_3.png",
    }
    paper = json.loads((tmp_path / "SciVer" / "papers" / "2409.00001.json").read_text())
    assert paper == {
        "sections": [
            {"section_id": "3", "section_name": "Method", "text": "We train on café data."},
            {"section_id": "4.1", "section_name": "Results", "text": "Table 2 shows accuracy."},
        ],
        "image_paths": {"3": {"caption": "Figure 3: loss curves."}},
        "tables": {"2": {"capture": "Table 2: accuracy per model."}},
    }


def test_a_loader_written_for_the_sciver_release_reads_ours(tmp_path):
    write_release(_release(), tmp_path / "SciVer")
    validation = load_sciver(tmp_path, "valset.json")
    test = load_sciver(tmp_path, "testset.json")
    assert len(validation) == 4 and len(test) == 6
    assert validation[0]["captions"] == ["Table 2: accuracy per model."]
    assert validation[2]["captions"] == ["Table 2: accuracy per model.", "Figure 3: loss curves."]
    assert validation[2]["images"][1] == PNG + b"images/2409.00001_chart_3.png"
    assert "café" in validation[0]["context"]


def test_jsonl_keeps_evidence_provenance_and_licence(tmp_path):
    write_release(_release(), tmp_path / "SciVer")
    lines = (tmp_path / "SciVer" / "data" / "validation.jsonl").read_text().splitlines()
    records = [json.loads(line) for line in lines]
    assert [r["request_id"] for r in records] == [1, 2, 3, 4]
    first = records[0]
    assert first["evidence"] == [
        {
            "kind": "paragraph",
            "anchor": "2409.00001/S4.1.p1",
            "label": "4.1 ¶1",
            "text": "Table 2 shows accuracy.",
            "image_path": None,
        },
        {
            "kind": "table",
            "anchor": "2409.00001/table/2",
            "label": "Table 2",
            "text": "",
            "image_path": "images/2409.00001_table_2.png",
        },
    ]
    assert first["provenance"] == "unanimous" and records[2]["provenance"] == "adjudicated"
    assert first["licence"] == "cc-by-4.0" and first["pair_id"] == "p1"
    assert first["annotators"]["writer"] == pseudonymise(7, salt="s")
    assert first["annotators"]["writer"] != pseudonymise(7, salt="other")


def test_csv_has_one_row_per_claim(tmp_path):
    write_release(_release(), tmp_path / "SciVer")
    rows = list(
        csv.DictReader(io.StringIO((tmp_path / "SciVer" / "data" / "test.csv").read_text()))
    )
    assert [int(r["request_id"]) for r in rows] == list(range(5, 11))
    assert rows[0]["elements"] == "table 2; chart 3" and rows[0]["label"] == "true"
    assert rows[1]["evidence"] == "2410.00002/S4.1.p1; 2410.00002/table/2; 2410.00002/chart/3"
    assert rows[0]["licence"] == "cc0-1.0"


def test_manifest_hashes_and_counts_match_the_files(tmp_path):
    out = tmp_path / "SciVer"
    returned = write_release(_release(), out)
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest == returned
    on_disk = sorted(
        str(p.relative_to(out)) for p in out.rglob("*") if p.is_file() and p.name != "manifest.json"
    )
    assert sorted(manifest["files"]) == on_disk
    for relative, entry in manifest["files"].items():
        data = (out / relative).read_bytes()
        assert entry == {"sha256": hashlib.sha256(data).hexdigest(), "bytes": len(data)}
    assert manifest["counts"]["validation"] == {
        "claims": 4,
        "entailed": 2,
        "refuted": 2,
        "papers": 1,
        "synthetic": 0,
        "by_subset": {
            "direct": {"entailed": 1, "refuted": 1},
            "parallel": {"entailed": 1, "refuted": 1},
        },
    }
    assert manifest["counts"]["test"]["claims"] == 6
    assert manifest["synthetic_papers"] == 0
    assert manifest["licences"] == {"cc-by-4.0": 1, "cc0-1.0": 1}
    assert manifest["papers"] == 2


def test_the_same_release_exported_twice_is_byte_identical(tmp_path):
    write_release(_release(hide_test_labels=True, seed=5), tmp_path / "one" / "SciVer")
    write_release(_release(hide_test_labels=True, seed=5), tmp_path / "two" / "SciVer")
    one, two = tmp_path / "one" / "SciVer", tmp_path / "two" / "SciVer"
    files = sorted(p.relative_to(one) for p in one.rglob("*") if p.is_file())
    assert files == sorted(p.relative_to(two) for p in two.rglob("*") if p.is_file())
    assert all((one / f).read_bytes() == (two / f).read_bytes() for f in files)


def test_hidden_test_labels_are_gone_and_pairs_not_adjacent(tmp_path):
    write_release(_release(hide_test_labels=True, seed=1), tmp_path / "SciVer")
    records = json.loads((tmp_path / "SciVer" / "testset.json").read_text())
    for record in records:
        assert {
            "label",
            "origin_statement",
            "perturbed_statement",
            "perturbed_explanation",
        }.isdisjoint(record)
        assert isinstance(record["claim"], str)
    rich = [
        json.loads(line)
        for line in (tmp_path / "SciVer" / "data" / "test.jsonl").read_text().splitlines()
    ]
    assert all("evidence" not in r and "provenance" not in r and "label" not in r for r in rich)
    # Nor which claims form a pair: that stays with the organisers' labels file.
    assert all("pair_id" not in r and "sampled" not in r for r in rich)
    labels = json.loads((tmp_path / "SciVer.labels.json").read_text())
    pair_of = {r["request_id"]: r["pair_id"] for r in labels["records"]}
    pairs = [pair_of[r["request_id"]] for r in rich]
    assert all(a != b for a, b in zip(pairs, pairs[1:], strict=False))
    assert load_sciver(tmp_path, "testset.json")[0]["label"] is None
    # The validation set keeps its labels.
    assert "label" in json.loads((tmp_path / "SciVer" / "valset.json").read_text())[0]


def test_a_failure_mid_write_leaves_no_folder_behind(tmp_path):
    release = _release()
    images = dict(release.images)
    images["images/2410.00002_table_2.png"] = tmp_path / "vanished.png"  # copied after JSON files
    out = tmp_path / "releases" / "SciVer"
    with pytest.raises(FileNotFoundError):
        write_release(_release(images=images), out)
    assert not out.exists()
    assert list((tmp_path / "releases").iterdir()) == []  # no staging folder left either


def test_a_failed_overwrite_keeps_the_old_release(tmp_path):
    out = tmp_path / "SciVer"
    write_release(_release(), out)
    before = {p: p.read_bytes() for p in out.rglob("*") if p.is_file()}
    images = dict(_release().images)
    images["images/2410.00002_table_2.png"] = tmp_path / "vanished.png"
    with pytest.raises(FileNotFoundError):
        write_release(_release(images=images, readme="new"), out, overwrite=True)
    assert {p: p.read_bytes() for p in out.rglob("*") if p.is_file()} == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["SciVer"]
    with pytest.raises(ReleaseError, match="already exists"):
        write_release(_release(), out)
    write_release(_release(readme="# v2\n"), out, overwrite=True)
    # The card, between the Hub's front matter and the section on loading it.
    assert "\n---\n\n# v2\n\n## Loading\n" in (out / "README.md").read_text()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["SciVer"]


def test_overwrite_never_deletes_what_is_not_a_release(tmp_path):
    plain = tmp_path / "notes.txt"
    plain.write_text("mine")
    folder = tmp_path / "thesis"
    folder.mkdir()
    (folder / "manifest.json").write_text('{"name": "not ours"}')  # a manifest, not a release's
    for target in (plain, folder):
        with pytest.raises(ReleaseError, match="only replaces a"):
            write_release(_release(), target, overwrite=True)
    assert plain.read_text() == "mine" and (folder / "manifest.json").is_file()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["notes.txt", "thesis"]


def test_the_release_folder_follows_the_umask_and_progress_counts_every_file(tmp_path):
    import os

    seen: list[tuple[int, int, str]] = []
    old = os.umask(0o022)
    try:
        manifest = write_release(
            _release(progress=lambda *args: seen.append(args)), tmp_path / "SciVer"
        )
    finally:
        os.umask(old)
    assert (tmp_path / "SciVer").stat().st_mode & 0o777 == 0o755
    files = len(manifest["files"])
    assert seen == [(done, files, "writing files") for done in range(files + 1)]


def test_image_sources_on_disk_are_copied(tmp_path):
    source = tmp_path / "chart.png"
    source.write_bytes(PNG * 3)
    images = dict(_release().images) | {"images/2409.00001_chart_3.png": source}
    manifest = write_release(_release(images=images), tmp_path / "SciVer")
    assert (tmp_path / "SciVer" / "images" / "2409.00001_chart_3.png").read_bytes() == PNG * 3
    assert manifest["files"]["images/2409.00001_chart_3.png"]["bytes"] == len(PNG) * 3


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda r: {"images": {}}, "image images/2409.00001_table_2.png is missing"),
        (lambda r: {"papers": r.papers[:1]}, "paper 2410.00002 is missing"),
        (lambda r: {"papers": [*r.papers, r.papers[0]]}, "appears twice"),
        (lambda r: {"splits": {**r.splits, "train": []}}, "unknown split"),
        (
            lambda r: {
                "splits": {"validation": r.splits["validation"], "test": r.splits["validation"]}
            },
            "request_id 1 is used twice",
        ),
        (lambda r: {"images": {**r.images, "../escape.png": PNG}}, "must be images/<file>"),
    ],
)
def test_bad_releases_are_refused_before_anything_is_written(tmp_path, change, message):
    release = _release()
    with pytest.raises(ReleaseError, match=message):
        write_release(_release(**change(release)), tmp_path / "SciVer")
    assert list(tmp_path.iterdir()) == []


def test_records_check_their_shape():
    element = _element("2409.00001", "table", "2")
    good = _pair(1, "p", "2409.00001", "direct", (element,))[0]
    with pytest.raises(ValueError, match="parallel claim names 2"):
        _pair(1, "p", "2409.00001", "parallel", (element,))
    with pytest.raises(ValueError, match="unresolved items never reach a release"):
        ReleaseClaim(**{**good.__dict__, "provenance": "unresolved"})
    with pytest.raises(ValueError, match="label must be a bool"):
        ReleaseClaim(**{**good.__dict__, "label": 1})
    with pytest.raises(ValueError, match="chart or table"):
        VisualElement("figure", "3", "images/x.png")
    with pytest.raises(ValueError, match="salt"):
        pseudonymise(7, salt="")


# --- Paper ids, image names and synthetic content ---------------------------------------------


def test_paperids_carry_a_version_only_when_a_release_holds_two_versions():
    ids = release_paperids(
        [(1, "2409.00001", 1), (2, "2410.00002", 1), (3, "2410.00002", 3), (4, "2411.00003", 2)]
    )
    assert ids == {1: "2409.00001", 2: "2410.00002v1", 3: "2410.00002v3", 4: "2411.00003"}
    assert release_paperids([]) == {}


def test_papers_that_differ_only_in_case_are_refused(tmp_path):
    release = _release()
    upper = ReleasePaper(**{**release.papers[0].__dict__, "paperid": "2409.0000A"})
    lower = ReleasePaper(**{**release.papers[0].__dict__, "paperid": "2409.0000a"})
    with pytest.raises(ReleaseError, match=r"2409.0000a appears twice \(as 2409.0000A too\)"):
        write_release(_release(papers=[*release.papers, upper, lower]), tmp_path / "SciVer")
    images = dict(release.images) | {"images/2409.00001_TABLE_2.png": PNG}
    with pytest.raises(ReleaseError, match="differ only in case"):
        write_release(_release(images=images), tmp_path / "SciVer")
    assert list(tmp_path.iterdir()) == []


def test_our_records_say_which_arxiv_version_and_whether_synthetic(tmp_path):
    release = _release()
    versioned = ReleasePaper(
        **{**release.papers[1].__dict__, "arxiv_id": "2410.00002", "version": 2, "synthetic": True}
    )
    out = tmp_path / "SciVer"
    manifest = write_release(_release(papers=[release.papers[0], versioned]), out)
    validation, test = _jsonl(out, "validation"), _jsonl(out, "test")
    # Without arxiv_id the paperid is taken as the arXiv id.
    assert validation[0]["arxiv_id"] == "2409.00001" and validation[0]["arxiv_version"] is None
    assert {(r["arxiv_id"], r["arxiv_version"], r["synthetic"]) for r in test} == {
        ("2410.00002", 2, True)
    }
    assert not any(r["synthetic"] for r in validation)
    rows = list(csv.DictReader(io.StringIO((out / "data" / "test.csv").read_text())))
    assert {r["synthetic"] for r in rows} == {"true"}
    # The SciVer files keep exactly the public release's keys.
    for record in json.loads((out / "testset.json").read_text()):
        assert "synthetic" not in record and "arxiv_id" not in record
    assert set(json.loads((out / "papers" / "2410.00002.json").read_text())) == {
        "sections",
        "image_paths",
        "tables",
    }
    assert manifest["synthetic_papers"] == 1
    assert manifest["counts"]["test"]["synthetic"] == 6
    assert manifest["counts"]["validation"]["synthetic"] == 0


def test_check_release_accepts_a_sound_release_without_warnings(tmp_path):
    write_release(_release(hide_test_labels=True, seed=3), tmp_path / "SciVer")
    report = inspect_release(tmp_path / "SciVer")
    assert report.problems == [] and report.warnings == []


def test_check_release_warns_about_synthetic_content_without_failing(tmp_path):
    release = _release()
    fake = ReleasePaper(**{**release.papers[1].__dict__, "synthetic": True})
    out = tmp_path / "SciVer"
    write_release(_release(papers=[release.papers[0], fake]), out)
    report = inspect_release(out)
    assert report.problems == []
    assert report.warnings == [
        "synthetic content: 1 of 2 papers and 6 of 10 claims are simulate_annotation's demo "
        "data (copies of fixture papers), not real arXiv papers nor expert annotations; do not "
        "publish this release"
    ]
    # A manifest that understates the synthetic content is a problem, not a warning.
    manifest = json.loads((out / "manifest.json").read_text())
    manifest["synthetic_papers"] = 0
    manifest["counts"]["test"]["synthetic"] = 0
    (out / "manifest.json").write_text(json.dumps(manifest))
    problems = check_release(out)
    assert "manifest.json: synthetic_papers is 0, the records hold 1" in problems
    assert "manifest.json: test has 0 synthetic claims, the records 6" in problems


def test_check_release_finds_two_versions_sharing_one_paperid(tmp_path):
    out = tmp_path / "SciVer"
    release = _release()
    paper = ReleasePaper(**{**release.papers[1].__dict__, "arxiv_id": "2410.00002", "version": 1})
    write_release(_release(papers=[release.papers[0], paper]), out)
    assert check_release(out) == []
    # What an exporter that drops versions writes for pairs on v1 and v2 of one arXiv id.
    rows = _jsonl(out, "test")
    rows[-1]["arxiv_version"] = rows[-2]["arxiv_version"] = 2
    _write_jsonl(out, "test", rows)
    assert check_release(out) == [
        "paperid 2410.00002 stands for 2 papers (2410.00002v1, 2410.00002v2): they share one "
        "paper file and one set of image names",
        "paperid 2410.00002: the release holds several versions of arXiv 2410.00002, so each "
        "paperid must carry its version (2410.00002v1)",
        "paperid 2410.00002: the release holds several versions of arXiv 2410.00002, so each "
        "paperid must carry its version (2410.00002v2)",
    ]


def test_check_release_finds_an_image_name_shared_by_two_elements(tmp_path):
    out = tmp_path / "SciVer"
    write_release(_release(), out)
    rows = _jsonl(out, "validation")
    rows[0]["evidence"][1]["anchor"] = "2409.00001/appendix/table/2"
    _write_jsonl(out, "validation", rows)
    assert check_release(out) == [
        "images/2409.00001_table_2.png stands for 2 elements (2409.00001/appendix/table/2, "
        "2409.00001/table/2)"
    ]


def test_check_release_finds_paths_that_do_not_follow_from_paperid_and_item(tmp_path):
    out = tmp_path / "SciVer"
    write_release(_release(), out)
    records = json.loads((out / "valset.json").read_text())
    records[0]["image_path"] = "./SciVer/images/2409.00001_chart_3.png"  # exists, wrong element
    records[2]["paper_path"] = "./SciVer/papers/2410.00002.json"  # exists, another paper
    _rewrite(out, "valset.json", json.dumps(records).encode())
    assert check_release(out) == [
        "valset.json[0]: image_path ./SciVer/images/2409.00001_chart_3.png should be "
        "./SciVer/images/2409.00001_table_2.png",
        "valset.json[2]: paper_path ./SciVer/papers/2410.00002.json is not the file of paper "
        "2409.00001",
        # Read as SciVer's code reads it, the first record now shows the wrong image.
        "valset.json[0] (request 1, paper 2409.00001): the record shows the model "
        "images/2409.00001_chart_3.png but the claim's table/chart evidence is "
        "images/2409.00001_table_2.png; export the split again with this SciVer Studio "
        "(python manage.py export_release --split NAME --out DIR --overwrite); should the export "
        "refuse the claim, re-open its validation so that the validator fixes its evidence",
    ]


def test_check_release_finds_repeated_items_and_names_differing_only_in_case(tmp_path):
    out = tmp_path / "SciVer"
    write_release(_release(), out)
    paper = (out / "papers" / "2409.00001.json").read_text()
    repeated = paper.replace('"tables": {', '"tables": {"2": {"capture": "Table 2 (appendix)"}, ')
    _rewrite(out, "papers/2409.00001.json", repeated.encode())
    _rewrite(out, "images/2409.00001_Table_2.png", PNG)
    problems = check_release(out)
    assert problems == [
        "images/2409.00001_table_2.png: same name as images/2409.00001_Table_2.png but for case",
        "papers/2409.00001.json: unreadable (repeated key(s) '2')",
    ]
