"""make_split and export_release: frozen splits, the SciVer layout read by a SciVer loader,
our JSONL/CSV, images, manifest, hidden test labels, byte-identical re-exports."""

from __future__ import annotations

import hashlib
import io
import json
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from annotation.models import ClaimPair
from tests.validation.factories import Team, validated_pairs
from validation.models import SplitMember, SplitVersion

pytestmark = pytest.mark.django_db


def load_sciver(parent: Path, split_file: str) -> list[dict]:
    """What code written for the public SciVer release does: read the split, follow
    `paper_path` and the image paths relative to the release's parent folder."""
    records = json.loads((parent / "SciVer" / split_file).read_text())
    for record in records:
        paper = json.loads((parent / record["paper_path"]).read_text())
        assert {"sections", "image_paths", "tables"} <= set(paper)
        for table in paper["tables"].values():
            assert "capture" in table
        for key in ("image_path", "item1_path", "item2_path"):
            if key in record:
                assert (parent / record[key]).is_file(), record[key]
        record["_paper"] = paper
    return records


@pytest.fixture
def pool():
    team = Team()
    return team, validated_pairs(team, 6)


def run(*args) -> str:
    out = io.StringIO()
    call_command(*args, stdout=out)
    return out.getvalue()


def test_make_split_freezes_exact_sizes_with_pairs_together(pool):
    output = run("make_split", "--validation", "4", "--test", "8", "--seed", "13", "--name", "v1")
    assert "v1" in output
    split = SplitVersion.objects.get(name="v1")
    members = list(SplitMember.objects.filter(split=split))
    assert sum(m.part == "validation" for m in members) * 2 == 4
    assert sum(m.part == "test" for m in members) * 2 == 8
    with pytest.raises(CommandError, match="frozen"):
        run("make_split", "--validation", "2", "--test", "2", "--seed", "1", "--name", "v1")
    with pytest.raises(ValueError):
        members[0].save()


def test_too_few_validated_items_says_how_many_exist(pool):
    with pytest.raises(CommandError, match="12 validated claims exist"):
        run("make_split", "--validation", "10", "--test", "20", "--seed", "13")


def test_licence_filter_keeps_only_redistributable_papers(pool):
    _, pairs = pool
    for pair in pairs[:2]:
        pair.paper.license_url = "http://creativecommons.org/licenses/by/4.0/"
        pair.paper.save()
    run("make_split", "--validation", "2", "--test", "2", "--seed", "1", "--licenses", "cc-by")
    assert {m.pair_id for m in SplitMember.objects.all()} == {p.pk for p in pairs[:2]}
    with pytest.raises(CommandError, match="validated claims exist"):
        run("make_split", "--validation", "4", "--test", "2", "--seed", "1", "--licenses", "cc0")


def test_unvalidated_and_flipped_pairs_never_enter_a_split():
    team = Team()
    pairs = validated_pairs(team, 3)
    from annotation.models import ClaimReview
    from validation.models import Validation

    Validation.objects.filter(claim__pair=pairs[0]).update(status="pending")
    # The perturbation turned out true: the pair goes back to its writer, never to a split.
    ClaimReview.objects.filter(claim__pair=pairs[1], claim__label="refuted").update(
        final_label="entailed"
    )
    with pytest.raises(CommandError, match=r"1 complete pair\(s\).*1 pair\(s\) wait for a new"):
        run("make_split", "--validation", "2", "--test", "2", "--seed", "1")


def test_export_writes_the_sciver_layout_and_ours(pool, tmp_path):
    run("make_split", "--validation", "4", "--test", "8", "--seed", "13", "--name", "v1")
    out = tmp_path / "SciVer"
    output = run("export_release", "--split", "v1", "--out", str(out))
    assert "files" in output
    val = load_sciver(tmp_path, "valset.json")
    test = load_sciver(tmp_path, "testset.json")
    assert len(val) == 4 and len(test) == 8
    first = val[0]
    assert list(first)[:10] == [
        "request_id", "paperid", "paper_path", "claim_type", "claim", "label",
        "origin_statement", "perturbed_statement", "perturbed_explanation", "section",
    ]  # fmt: skip
    assert isinstance(first["request_id"], int) and isinstance(first["label"], bool)
    assert first["paper_path"] == f"./SciVer/papers/{first['paperid']}.json"
    ids = [r["request_id"] for r in val + test]
    assert len(set(ids)) == len(ids)
    lines = [json.loads(x) for x in (out / "data/validation.jsonl").read_text().splitlines()]
    assert lines[0]["evidence"] and lines[0]["provenance"] == "unanimous"
    assert lines[0]["annotators"]["writer"].startswith("E")
    assert "writer" not in json.dumps(lines[0]["annotators"]).lower().replace('"writer"', "")
    assert (out / "data/test.csv").read_text().startswith("request_id,")
    manifest = json.loads((out / "manifest.json").read_text())
    for name, entry in manifest["files"].items():
        data = (out / name).read_bytes()
        assert hashlib.sha256(data).hexdigest() == entry["sha256"] and len(data) == entry["bytes"]
    assert "Papers and their licences" in (out / "README.md").read_text()
    # The same split exported twice gives byte-identical files.
    again = tmp_path / "again" / "SciVer"
    run("export_release", "--split", "v1", "--out", str(again))
    for name in manifest["files"]:
        assert (out / name).read_bytes() == (again / name).read_bytes(), name


def test_hidden_test_labels(pool, tmp_path):
    run("make_split", "--validation", "4", "--test", "8", "--seed", "13", "--name", "v1")
    out = tmp_path / "SciVer"
    run("export_release", "--split", "v1", "--out", str(out), "--hide-test-labels")
    test = json.loads((out / "testset.json").read_text())
    assert all("label" not in r and "origin_statement" not in r and "claim" in r for r in test)
    lines = [json.loads(x) for x in (out / "data/test.jsonl").read_text().splitlines()]
    assert all("evidence" not in r and "provenance" not in r for r in lines)
    pair_ids = [r["pair_id"] for r in lines]
    assert all(a != b for a, b in zip(pair_ids, pair_ids[1:], strict=False))


def test_export_refuses_an_unknown_split_and_an_existing_folder(pool, tmp_path):
    with pytest.raises(CommandError, match="no split"):
        run("export_release", "--split", "nope", "--out", str(tmp_path / "x"))
    run("make_split", "--validation", "4", "--test", "4", "--seed", "1", "--name", "v1")
    (tmp_path / "x").mkdir()
    with pytest.raises(CommandError, match="exists"):
        run("export_release", "--split", "v1", "--out", str(tmp_path / "x"))


def test_subset_changes_follow_the_pair(pool):
    _, pairs = pool
    assert ClaimPair.objects.filter(pk__in=[p.pk for p in pairs]).count() == 6


def test_check_release_accepts_an_export_and_finds_each_kind_of_damage(pool, tmp_path):
    run("make_split", "--validation", "4", "--test", "8", "--seed", "13", "--name", "v1")
    out = tmp_path / "SciVer"
    run("export_release", "--split", "v1", "--out", str(out), "--hide-test-labels")
    assert "release OK" in run("check_release", str(out))
    image = next((out / "images").iterdir())
    image.write_bytes(b"not the same bytes")
    test = json.loads((out / "testset.json").read_text())
    test[0]["label"] = True
    (out / "testset.json").write_text(json.dumps(test))
    with pytest.raises(CommandError, match="problem"):
        run("check_release", str(out))
    from validation.release_check import check_release

    problems = "\n".join(check_release(out))
    assert (
        "checksum differs" in problems and "test labels are hidden but it has 'label'" in problems
    )
    (out / "papers" / f"{test[0]['paperid']}.json").unlink()
    assert "does not exist" in "\n".join(check_release(out))
