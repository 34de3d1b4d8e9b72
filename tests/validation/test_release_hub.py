"""A release as the Hugging Face Hub and Croissant read it: the card's front matter and
`datasets.load_dataset` on the folder (SciVer's fields, both parts, hidden labels), the Parquet
files with their images, croissant.json through mlcroissant, no pairing in hidden public test
files, and `hub_problems` refusing files that disagree with valset.json and testset.json.

Everything is read offline, with the `datasets` cache in the test's own folder."""

from __future__ import annotations

import csv
import dataclasses
import hashlib
import io
import json
import shlex
import sys
from pathlib import Path

import pytest
import yaml
from django.core.management import call_command, load_command_class
from django.core.management.base import CommandError
from PIL import Image

from tests.validation.releases import _element, _pair, _release
from validation.export.card import dataset_card
from validation.models import SplitVersion
from validation.release import ReleaseError, write_release
from validation.release.formats import (
    HIDDEN_FIELDS,
    PAIRING_FIELDS,
    SCIVER_FIELDS,
    public_test_claims,
)
from validation.release.hub import (
    LICENCE_HEADING,
    PARQUET_FILES,
    heading_anchor,
    hub_licence,
    hub_problems,
    size_category,
    write_parquet,
)

FIELDS = [name for name, _ in SCIVER_FIELDS]
# mlcroissant reads JSON-LD with rdflib, which warns about its own deprecated graph class.
pytestmark = pytest.mark.filterwarnings("ignore:ConjunctiveGraph is deprecated:DeprecationWarning")


def load(hf, folder: Path, tmp_path: Path, **kwargs):
    return hf.load_dataset(str(folder), cache_dir=str(tmp_path / "cache"), **kwargs)


def png(shade: int) -> bytes:
    """A real PNG (Croissant and `datasets` decode the images), different for each shade."""
    out = io.BytesIO()
    Image.new("RGB", (10 + shade, 6), (40 * shade % 256, 90, 160)).save(out, "PNG")
    return out.getvalue()


def real_images(release):
    return {path: png(n) for n, path in enumerate(sorted(release.images))}


def direct_only_validation(**overrides):
    """A release whose validation part holds only direct claims and whose test part holds
    the other types: the two parts' records have different fields."""
    release = _release()
    a = release.papers[0].paperid
    validation = _pair(1, "p1", a, "direct", (_element(a, "table", "2"),))
    return _release(
        splits={"validation": validation, "test": release.splits["test"]},
        images=real_images(release),
        **overrides,
    )


def sciver_records(folder: Path, name: str) -> list[dict]:
    return json.loads((folder / name).read_text())


def as_loaded(record: dict) -> dict:
    """A SciVer record as `datasets` gives it: every field, None where the record lacks one."""
    return {name: record.get(name) for name in FIELDS}


def card(folder: Path) -> tuple[dict, str]:
    text = (folder / "README.md").read_text()
    assert text.startswith("---\n")
    front, body = text[4:].split("\n---\n", 1)
    return yaml.safe_load(front), body


# --- The card and `datasets` --------------------------------------------------------------------


def test_load_dataset_reads_both_parts_with_scivers_fields(hf, tmp_path):
    out = tmp_path / "SciVer"
    write_release(direct_only_validation(), out)
    loaded = load(hf, out, tmp_path)
    assert sorted(loaded) == ["test", "validation"]
    for part, file in (("validation", "valset.json"), ("test", "testset.json")):
        records = sciver_records(out, file)
        assert list(loaded[part].features) == FIELDS
        assert loaded[part].num_rows == len(records)
        assert list(loaded[part]) == [as_loaded(r) for r in records]
    assert {r["claim_type"] for r in loaded["test"]} == {"sequential", "analytical", "direct"}
    # The explicit features are what lets parts with different fields load at all.
    front, _ = card(out)
    assert [f["name"] for f in front["dataset_info"]["features"]] == FIELDS


def test_hidden_test_labels_load_as_none(hf, tmp_path):
    out = tmp_path / "SciVer"
    write_release(direct_only_validation(hide_test_labels=True, seed=3), out)
    loaded = load(hf, out, tmp_path)
    assert all(row[name] is None for row in loaded["test"] for name in HIDDEN_FIELDS)
    assert [r["request_id"] for r in loaded["test"]] == [
        r["request_id"] for r in sciver_records(out, "testset.json")
    ]
    assert all(isinstance(row["label"], bool) for row in loaded["validation"])


def test_the_front_matter_is_what_the_hub_reads(tmp_path):
    out = tmp_path / "SciVer"
    write_release(_release(), out)
    front, body = card(out)
    assert front["configs"] == [
        {
            "config_name": "default",
            "data_files": [
                {"split": "validation", "path": "valset.json"},
                {"split": "test", "path": "testset.json"},
            ],
        }
    ]
    assert front["language"] == ["en"]
    assert front["task_categories"] == ["text-classification", "visual-question-answering"]
    assert front["size_categories"] == ["n<1K"]
    assert front["pretty_name"] == "SciVer-style dataset, split sciver-studio-v1"
    # The two papers have two licences (CC BY, CC0): `other`, linking to the card's table.
    assert front["license"] == "other"
    assert front["license_link"] == "README.md#papers-and-their-licences"
    assert front["license_name"] == "per-paper-licences"
    assert body.lstrip().startswith("# SciVer Studio release")
    assert "## Loading" in body and "wang2025sciver" in body


def test_the_licence_entry_follows_the_papers_licences():
    by = "http://creativecommons.org/licenses/by/4.0/"
    assert hub_licence([by, "cc-by-4.0"]) == {"license": "cc-by-4.0"}
    # Papers under one other licence: the annotations' CC BY 4.0 applies beside it.
    zero = "http://creativecommons.org/publicdomain/zero/1.0/"
    assert hub_licence([zero, zero]) == {"license": ["cc-by-4.0", "cc0-1.0"]}
    assert hub_licence(["https://creativecommons.org/licenses/by-sa/3.0/"]) == {
        "license": ["cc-by-4.0", "cc-by-sa-3.0"]
    }
    arxiv = "http://arxiv.org/licenses/nonexclusive-distrib/1.0/"
    for mixed in ([by, zero], [arxiv], [by, "unknown"]):
        assert hub_licence(mixed)["license"] == "other"
    assert heading_anchor(LICENCE_HEADING) == "papers-and-their-licences"
    assert [size_category(n) for n in (999, 1000, 3000, 10_000)] == [
        "n<1K",
        "1K<n<10K",
        "1K<n<10K",
        "10K<n<100K",
    ]


# --- The dataset card's body -------------------------------------------------------------------


def split_version(**fields) -> SplitVersion:
    """A split as the card reads it (never saved: the card needs no database)."""
    defaults = dict(
        name="v1",
        seed=13,
        validation_size=4,
        test_size=6,
        licences=["cc-by", "cc-by-sa", "cc0"],
        licences_by_default=True,
    )
    return SplitVersion(**(defaults | fields))


def test_the_card_gives_parts_beside_scivers_and_says_how_hidden_labels_are_scored(tmp_path):
    release = _release(hide_test_labels=True, seed=3)
    parts = {name: list(claims) for name, claims in release.splits.items()}
    text = dataset_card(split_version(), parts, list(release.papers), True)
    out = tmp_path / "SciVer"
    write_release(dataclasses.replace(release, readme=text), out)
    _, body = card(out)
    assert "| validation | 4 | 1 | 1,000 claims, 327 papers |" in body
    assert "| test | 6 | 1 | 2,000 claims, 786 papers |" in body
    assert "The parts share no paper, as in SciVer's release." in body
    # The licence link of the front matter reaches a heading of the card.
    assert f"\n## {LICENCE_HEADING}\n" in body
    assert "both claims of every test pair are present" in body
    assert (
        "recovered from the claims' text" in body and "one claim of each pair is entailed" in body
    )
    assert "acc_evaluation.py" in body and "strict loaders" in body
    # The scoring command the card gives is one evaluate_release accepts.
    command = body.split("`python manage.py evaluate_release ", 1)[1].split("`", 1)[0]
    parser = load_command_class("evaluation", "evaluate_release").create_parser(
        "manage.py", "evaluate_release"
    )
    given = parser.parse_args(shlex.split(command))
    assert (given.dir, given.part, str(given.labels)) == (
        "DIR/SciVer",
        "test",
        "DIR/SciVer.labels.json",
    )
    assert given.responses is not None and given.out is not None


def test_the_card_says_why_the_parts_share_papers(tmp_path):
    release = _release()
    a = release.papers[0].paperid
    shared = {
        "validation": list(release.splits["validation"]),
        "test": [
            *release.splits["test"],
            *_pair(11, "p6", a, "direct", (_element(a, "table", "2"),)),
        ],
    }
    allowed = dataset_card(
        split_version(shared_papers_allowed=True), shared, list(release.papers), False
    )
    assert "**The parts share 1 paper(s)**" in allowed
    assert "`--allow-shared-papers`" in allowed and "no paper-disjoint draw" in allowed
    older = dataset_card(split_version(), shared, list(release.papers), False)
    assert "made before splits kept the parts paper-disjoint" in older


# --- Parquet ---------------------------------------------------------------------------------


def test_parquet_files_round_trip_with_their_images(hf, tmp_path):
    import pyarrow.parquet as pq

    release = direct_only_validation(parquet=True)
    out = tmp_path / "SciVer"
    manifest = write_release(release, out)
    assert set(PARQUET_FILES.values()) <= set(manifest["files"])
    front, _ = card(out)
    assert front["configs"][0]["data_files"] == [
        {"split": "validation", "path": "data/parquet/validation.parquet"},
        {"split": "test", "path": "data/parquet/test.parquet"},
    ]
    loaded = load(hf, out, tmp_path)
    for part, file in (("validation", "valset.json"), ("test", "testset.json")):
        records = sciver_records(out, file)
        assert loaded[part].num_rows == len(records)
        for row, record in zip(loaded[part], records, strict=True):
            assert {k: v for k, v in row.items() if k != "images"} == as_loaded(record)
            paths = [
                record[k][len("./SciVer/") :]
                for k in ("image_path", "item1_path", "item2_path")
                if k in record
            ]
            assert len(row["images"]) == len(paths)
            for image, path in zip(row["images"], paths, strict=True):
                assert isinstance(image, Image.Image)
                expected = Image.open(out / path)
                assert image.size == expected.size
                assert image.convert("RGB").tobytes() == expected.convert("RGB").tobytes()
        # Without the card too: the files say themselves that the column holds images.
        table = pq.read_table(out / PARQUET_FILES[part])
        alone = hf.Features.from_arrow_schema(table.schema)
        assert alone["images"] == hf.Features.from_dict({"images": [{"_type": "Image"}]})["images"]
    # The same release written again gives the same bytes.
    again = tmp_path / "again" / "SciVer"
    write_release(release, again)
    for name in PARQUET_FILES.values():
        assert (out / name).read_bytes() == (again / name).read_bytes()


def test_without_pyarrow_parquet_is_refused_before_anything_is_written(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "pyarrow", None)  # as if it were not installed
    out = tmp_path / "SciVer"
    with pytest.raises(ReleaseError, match=r"pip install -e '\.\[hub\]'"):
        write_release(_release(parquet=True), out)
    assert list(tmp_path.iterdir()) == []
    with pytest.raises(CommandError, match=r"pip install -e '\.\[hub\]'"):
        call_command("export_release", "--split", "v1", "--out", str(out), "--parquet")
    assert list(tmp_path.iterdir()) == []


# --- Croissant -------------------------------------------------------------------------------


def croissant_records(folder: Path, record_set: str) -> list[dict]:
    import mlcroissant

    dataset = mlcroissant.Dataset(jsonld=str(folder / "croissant.json"))
    prefix = f"{record_set}/"
    return [
        {
            key[len(prefix) :]: value.decode() if isinstance(value, bytes) else value
            for key, value in row.items()
        }
        for row in dataset.records(record_set)
    ]


def decoded(value):
    if isinstance(value, list):
        return [v.decode() if isinstance(v, bytes) else v for v in value]
    return value


def test_croissant_describes_the_files_and_records(tmp_path):
    out = tmp_path / "SciVer"
    manifest = write_release(direct_only_validation(hide_test_labels=True, seed=3), out)
    assert "croissant.json" in manifest["files"]
    document = json.loads((out / "croissant.json").read_text())
    assert document["conformsTo"] == "http://mlcommons.org/croissant/1.0"
    assert "wang2025sciver" in document["citeAs"] and "sciver_studio" in document["citeAs"]
    shas = {d["contentUrl"]: d["sha256"] for d in document["distribution"] if "contentUrl" in d}
    for file in ("valset.json", "testset.json"):
        assert shas[file] == hashlib.sha256((out / file).read_bytes()).hexdigest()
    for part, file in (("validation", "valset.json"), ("test", "testset.json")):
        records = sciver_records(out, file)
        rows = croissant_records(out, part)
        hidden = set(HIDDEN_FIELDS) if part == "test" else set()
        wanted = [{n: record.get(n) for n in FIELDS if n not in hidden} for record in records]
        assert [{k: decoded(v) for k, v in row.items()} for row in rows] == wanted
    images = croissant_records(out, "images")
    assert sorted(row["file_name"] for row in images) == sorted(
        p.name for p in (out / "images").iterdir()
    )
    assert all(isinstance(row["image"], Image.Image) for row in images)


def test_croissant_refuses_a_file_that_changed(tmp_path):
    out = tmp_path / "SciVer"
    write_release(direct_only_validation(), out)
    records = sciver_records(out, "valset.json")
    records[0]["claim"] = "Something else."
    (out / "valset.json").write_text(json.dumps(records))
    with pytest.raises(Exception, match="valset.json"):
        croissant_records(out, "validation")
    assert any("valset.json's sha256 differs" in p for p in hub_problems(out))


# --- Hidden labels hide the pairing ------------------------------------------------------------


def test_public_hidden_test_files_carry_no_pairing(tmp_path):
    out = tmp_path / "SciVer"
    write_release(direct_only_validation(hide_test_labels=True, seed=3, parquet=True), out)
    gone = {"pair_id", *PAIRING_FIELDS, *HIDDEN_FIELDS}
    assert all(gone.isdisjoint(r) for r in sciver_records(out, "testset.json"))
    rows = [json.loads(line) for line in (out / "data/test.jsonl").read_text().splitlines()]
    assert rows and all(gone.isdisjoint(r) for r in rows)
    header = next(csv.reader(io.StringIO((out / "data/test.csv").read_text())))
    assert gone.isdisjoint(header)
    import pyarrow.parquet as pq

    table = pq.read_table(out / PARQUET_FILES["test"])
    assert gone & set(table.column_names) == set(HIDDEN_FIELDS)  # SciVer's columns, all null
    assert all(table.column(name).null_count == len(table) for name in HIDDEN_FIELDS)
    test_set = json.loads((out / "croissant.json").read_text())["recordSet"][1]
    assert gone.isdisjoint(f["name"] for f in test_set["field"])
    # The validation part keeps them, and the organisers' file keeps the pairs.
    assert all(
        "pair_id" in json.loads(line)
        for line in (out / "data/validation.jsonl").read_text().splitlines()
    )
    labels = json.loads((tmp_path / "SciVer.labels.json").read_text())
    pairs = {}
    for record in labels["records"]:
        pairs.setdefault(record["pair_id"], []).append(record["label"])
        assert {"sampled", "revisions", "guideline_versions"} <= set(record)
    assert all(sorted(v) == [False, True] for v in pairs.values())
    assert hub_problems(out) == []


def test_a_subfield_that_tells_pairs_apart_is_left_out_of_hidden_files(tmp_path):
    release = _release()
    test = list(release.splits["test"])
    test[2:4] = [dataclasses.replace(c, subfield="cs.CV") for c in test[2:4]]  # pair p4
    public = public_test_claims(test)
    assert {c.subfield for c in public} == {""}
    same = public_test_claims(release.splits["test"])
    assert {c.subfield for c in same} == {"cs.CL"}
    out = tmp_path / "SciVer"
    write_release(_release(splits={**release.splits, "test": test}, hide_test_labels=True), out)
    rows = [json.loads(line) for line in (out / "data/test.jsonl").read_text().splitlines()]
    assert {r["subfield"] for r in rows} == {""}
    labels = json.loads((tmp_path / "SciVer.labels.json").read_text())
    assert {r["subfield"] for r in labels["records"]} == {"cs.CL", "cs.CV"}


# --- The consistency check -----------------------------------------------------------------------


def test_hub_problems_refuses_parquet_that_disagrees_with_valset(tmp_path):
    release = direct_only_validation(parquet=True)
    out = tmp_path / "SciVer"
    write_release(release, out)
    assert hub_problems(out) == []
    records = sciver_records(out, "valset.json")
    target = out / PARQUET_FILES["validation"]
    changed = [dict(records[0], claim="Model C beats everyone.")] + records[1:]
    write_parquet(target, changed, release.images)
    found = hub_problems(out)
    assert len(found) == 1 and "request 1: claim differ from valset.json" in found[0]
    write_parquet(target, records[1:], release.images)
    assert "its request_ids are not those of valset.json" in hub_problems(out)[0]
    swapped = {path: release.images[path] for path in release.images}
    first, second = sorted(swapped)[:2]
    swapped[first], swapped[second] = swapped[second], swapped[first]
    write_parquet(target, records, swapped)
    assert any("is not the file's bytes" in p for p in hub_problems(out))
    target.unlink()
    assert [p.split(";")[0] for p in hub_problems(out)] == [
        "README.md: the configuration's file data/parquet/validation.parquet does not exist",
        "data/parquet/validation.parquet: missing beside the other Parquet file",
    ]


def test_hub_problems_refuses_croissant_and_card_that_disagree(tmp_path):
    out = tmp_path / "SciVer"
    write_release(_release(), out)
    document = json.loads((out / "croissant.json").read_text())
    document["recordSet"][0]["numberOfItems"] = 5
    document["recordSet"][1]["field"].pop()
    (out / "croissant.json").write_text(json.dumps(document))
    found = "\n".join(hub_problems(out))
    assert "record set validation declares 5 records, valset.json holds 4" in found
    assert "record set test has fields" in found and "item2_path" in found
    readme = (out / "README.md").read_text().replace("path: testset.json", "path: nothing.json")
    (out / "README.md").write_text(readme)
    assert any("nothing.json does not exist" in p for p in hub_problems(out))


def test_the_export_refuses_what_hub_problems_finds(tmp_path):
    """A card whose own front matter names a file the release does not hold: the check at the
    end of the export refuses it, and nothing is written."""
    bad = "---\nconfigs:\n- config_name: default\n  data_files:\n  - split: test\n    path: gone.json\n---\n"
    out = tmp_path / "SciVer"
    with pytest.raises(ReleaseError, match="gone.json does not exist.*Nothing was written"):
        write_release(_release(readme=bad, hide_test_labels=True), out)
    assert list(tmp_path.iterdir()) == []


# --- From the database, through the command ------------------------------------------------------


@pytest.mark.django_db
def test_export_release_parquet_on_a_split_gives_a_release_the_hub_loads(hf, tmp_path):
    from tests.validation.factories import Team, validated_pairs

    validated_pairs(Team(), 4)
    call_command(
        "make_split",
        "--validation",
        "4",
        "--test",
        "4",
        "--seed",
        "13",
        "--name",
        "v1",
        stdout=io.StringIO(),
    )
    out = tmp_path / "SciVer"
    said = io.StringIO()
    call_command(
        "export_release",
        "--split",
        "v1",
        "--out",
        str(out),
        "--hide-test-labels",
        "--parquet",
        stdout=said,
        stderr=io.StringIO(),
    )
    assert "data/parquet/validation.parquet" in said.getvalue()
    assert hub_problems(out) == []
    front, body = card(out)
    assert front["configs"][0]["data_files"][0]["path"] == PARQUET_FILES["validation"]
    assert "## Parts" in body and "## Hidden test labels" in body and "## Loading" in body
    loaded = load(hf, out, tmp_path)
    assert (loaded["validation"].num_rows, loaded["test"].num_rows) == (4, 4)
    assert all(row["label"] is None for row in loaded["test"])
    for row in loaded["validation"]:
        assert row["images"] and all(isinstance(i, Image.Image) for i in row["images"])
