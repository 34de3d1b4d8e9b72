"""make_split and export_release: frozen splits, the SciVer layout read by a SciVer loader,
our JSONL/CSV, images, manifest, hidden test labels, byte-identical re-exports."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest
from django.core.management import CommandError

from annotation.models import ClaimPair
from papers.models import Element, Paper
from tests.validation.factories import Team, validated_pairs
from tests.validation.releases import load_sciver, run
from tests.worlds import build_once
from validation.models import SplitMember, SplitVersion

pytestmark = pytest.mark.django_db


def _pool():
    team = Team()
    return team, validated_pairs(team, 6)


@pytest.fixture
def own_pool():
    """Six validated pairs for a test that changes the pool's files (an image removed)."""
    return _pool()


@pytest.fixture(scope="class")
def shared_pool(django_db_setup, django_db_blocker, tmp_path_factory):
    media = tmp_path_factory.mktemp("pool-media")
    for team, pairs in build_once(
        "split and export: six validated pairs",
        _pool,
        django_db_blocker=django_db_blocker,
        media_root=media,
    ):
        yield media, team, [pair.pk for pair in pairs]


@pytest.fixture
def pool(shared_pool, settings):
    """The class's pool as stored (a test's writes are rolled back): its images served."""
    media, team, pks = shared_pool
    settings.MEDIA_ROOT = media
    pairs = ClaimPair.objects.select_related("paper").in_bulk(pks)
    return team, [pairs[pk] for pk in pks]


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


def test_export_refuses_a_missing_image_naming_the_paper_element_and_the_fix(own_pool, tmp_path):
    _, pairs = own_pool
    run("make_split", "--validation", "4", "--test", "8", "--seed", "13", "--name", "v1")
    pair = pairs[0]
    element = Element.objects.get(pk=pair.task.sampled_ids[0])
    Element.objects.filter(pk=element.pk).update(image="", image_error="Chromium timed out")
    out = tmp_path / "SciVer"
    with pytest.raises(CommandError) as failure:
        run("export_release", "--split", "v1", "--out", str(out))
    message = str(failure.value)
    assert message.startswith(f"paper {pair.paper.arxiv_id}: {element.label} (element ")
    assert element.anchor in message and f"/admin/papers/element/{element.pk}/change/" in message
    assert "(render error: Chromium timed out)" in message
    # What can be followed: a table is rendered again; a chart from arXiv's files cannot be.
    if element.kind == "table":
        assert f"`python manage.py render_images {pair.paper.versioned_id}`" in message
        assert "export again" in message
    else:
        assert "were never stored" in message and "make a new split without this pair" in message
    assert "import_arxiv_html" not in message
    assert not out.exists() and list(tmp_path.iterdir()) == []
    # An image recorded but gone from MEDIA_ROOT says so.
    other = Element.objects.get(pk=pairs[1].task.sampled_ids[0])
    Element.objects.filter(pk=element.pk).update(image=other.image.name)
    Path(other.image.path).unlink()
    with pytest.raises(CommandError, match=f"its image file {other.image.name} is missing"):
        run("export_release", "--split", "v1", "--out", str(out))


class TestOnThePool:
    """Tests that read the pool of six validated pairs (built once for the class: what a test writes is rolled back, its exports go to its own folder)."""

    def test_make_split_freezes_exact_sizes_with_pairs_together(self, pool):
        output = run(
            "make_split", "--validation", "4", "--test", "8", "--seed", "13", "--name", "v1"
        )
        assert "v1" in output
        split = SplitVersion.objects.get(name="v1")
        members = list(SplitMember.objects.filter(split=split))
        assert sum(m.part == "validation" for m in members) * 2 == 4
        assert sum(m.part == "test" for m in members) * 2 == 8
        with pytest.raises(CommandError, match="frozen"):
            run("make_split", "--validation", "2", "--test", "2", "--seed", "1", "--name", "v1")
        with pytest.raises(ValueError):
            members[0].save()

    def test_too_few_validated_items_says_how_many_exist(self, pool):
        with pytest.raises(CommandError, match="12 validated claims exist"):
            run("make_split", "--validation", "10", "--test", "20", "--seed", "13")

    def test_licence_filter_keeps_only_redistributable_papers(self, pool):
        _, pairs = pool
        for pair in pairs[2:]:
            pair.paper.license_url = "http://arxiv.org/licenses/nonexclusive-distrib/1.0/"
            pair.paper.save()
        run("make_split", "--validation", "2", "--test", "2", "--seed", "1", "--licenses", "cc-by")
        assert {m.pair_id for m in SplitMember.objects.all()} == {p.pk for p in pairs[:2]}
        with pytest.raises(CommandError, match="validated claims exist"):
            run(
                "make_split", "--validation", "4", "--test", "2", "--seed", "1", "--licenses", "cc0"
            )

    def test_export_writes_the_sciver_layout_and_ours(self, pool, tmp_path):
        run("make_split", "--validation", "4", "--test", "8", "--seed", "13", "--name", "v1")
        out = tmp_path / "SciVer"
        output = run("export_release", "--split", "v1", "--out", str(out))
        assert "files" in output
        val = load_sciver(tmp_path, "valset.json")
        test = load_sciver(tmp_path, "testset.json")
        assert len(val) == 4 and len(test) == 8
        first = val[0]
        assert list(first)[:10] == [
            "request_id",
            "paperid",
            "paper_path",
            "claim_type",
            "claim",
            "label",
            "origin_statement",
            "perturbed_statement",
            "perturbed_explanation",
            "section",
        ]
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
            assert (
                hashlib.sha256(data).hexdigest() == entry["sha256"] and len(data) == entry["bytes"]
            )
        assert "Papers and their licences" in (out / "README.md").read_text()
        # The same split exported twice gives byte-identical files.
        again = tmp_path / "again" / "SciVer"
        run("export_release", "--split", "v1", "--out", str(again))
        for name in manifest["files"]:
            assert (out / name).read_bytes() == (again / name).read_bytes(), name

    def test_hidden_test_labels(self, pool, tmp_path):
        run("make_split", "--validation", "4", "--test", "8", "--seed", "13", "--name", "v1")
        out = tmp_path / "SciVer"
        run("export_release", "--split", "v1", "--out", str(out), "--hide-test-labels")
        test = json.loads((out / "testset.json").read_text())
        assert all("label" not in r and "origin_statement" not in r and "claim" in r for r in test)
        lines = [json.loads(x) for x in (out / "data/test.jsonl").read_text().splitlines()]
        assert all("evidence" not in r and "provenance" not in r for r in lines)
        # Nor which claims form a pair (the labels file says it).
        assert all("pair_id" not in r and "sampled" not in r for r in lines)
        # The organisers keep the answers in a file of their own, beside the folder (not in it,
        # not in the zip the page offers), named by the manifest; the public folder checks clean.
        labels_file = tmp_path / "SciVer.labels.json"
        manifest = json.loads((out / "manifest.json").read_text())
        assert manifest["hidden_labels"]["path"] == "../SciVer.labels.json"
        assert (out / manifest["hidden_labels"]["path"]).resolve() == labels_file.resolve()
        labels = json.loads(labels_file.read_text())
        pair_of = {r["request_id"]: r["pair_id"] for r in labels["records"]}
        pair_ids = [pair_of[r["request_id"]] for r in lines]
        assert all(a != b for a, b in zip(pair_ids, pair_ids[1:], strict=False))
        assert set(labels["labels"]) == {str(r["request_id"]) for r in test}
        by_pair: dict[int, list[bool]] = {}
        for record in labels["records"]:
            by_pair.setdefault(record["pair_id"], []).append(record["label"])
            assert record["evidence"] and record["origin_statement"]
        assert all(sorted(v) == [False, True] for v in by_pair.values())
        assert labels["labels"] == {str(r["request_id"]): r["label"] for r in labels["records"]}
        labels_file.unlink()
        assert "release OK" in run("check_release", str(out))

    def test_export_refuses_an_unknown_split_and_an_existing_folder(self, pool, tmp_path):
        with pytest.raises(CommandError, match="no split"):
            run("export_release", "--split", "nope", "--out", str(tmp_path / "x"))
        run("make_split", "--validation", "4", "--test", "4", "--seed", "1", "--name", "v1")
        (tmp_path / "x").mkdir()
        with pytest.raises(CommandError, match="exists"):
            run("export_release", "--split", "v1", "--out", str(tmp_path / "x"))

    def test_subset_changes_follow_the_pair(self, pool):
        _, pairs = pool
        assert ClaimPair.objects.filter(pk__in=[p.pk for p in pairs]).count() == 6

    def test_check_release_accepts_an_export_and_finds_each_kind_of_damage(self, pool, tmp_path):
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
            "checksum differs" in problems
            and "test labels are hidden but it has 'label'" in problems
        )
        (out / "papers" / f"{test[0]['paperid']}.json").unlink()
        assert "does not exist" in "\n".join(check_release(out))

    def test_two_versions_of_one_arxiv_id_get_their_own_paperids(self, pool, tmp_path):
        _, pairs = pool
        first, second = pairs[0].paper, pairs[1].paper
        # Pairs written on v1 and v2 of one arXiv id: two Paper rows, one id.
        Paper.objects.filter(pk=second.pk).update(arxiv_id=first.arxiv_id, version=2)
        run("make_split", "--validation", "4", "--test", "8", "--seed", "13", "--name", "v1")
        out = tmp_path / "SciVer"
        run("export_release", "--split", "v1", "--out", str(out))
        papers = sorted(p.stem for p in (out / "papers").glob("*.json"))
        assert f"{first.arxiv_id}v1" in papers and f"{first.arxiv_id}v2" in papers
        assert first.arxiv_id not in papers
        others = {p.paper.arxiv_id for p in pairs[2:]}
        assert others <= set(papers)  # a single version keeps the bare arXiv id
        assert len(papers) == 6  # six pairs on six Paper rows, two of them one arXiv id
        images = [p.name for p in (out / "images").iterdir()]
        assert any(n.startswith(f"{first.arxiv_id}v1_") for n in images)
        assert any(n.startswith(f"{first.arxiv_id}v2_") for n in images)
        rows = [
            json.loads(line)
            for name in ("validation", "test")
            for line in (out / "data" / f"{name}.jsonl").read_text().splitlines()
        ]
        by_pair = {r["pair_id"]: r for r in rows}
        assert (by_pair[pairs[0].pk]["paperid"], by_pair[pairs[0].pk]["arxiv_version"]) == (
            f"{first.arxiv_id}v1",
            1,
        )
        assert by_pair[pairs[1].pk]["paperid"] == f"{first.arxiv_id}v2"
        assert by_pair[pairs[1].pk]["arxiv_id"] == first.arxiv_id
        # Each record's paper file is its own version's.
        records = load_sciver(tmp_path, "valset.json") + load_sciver(tmp_path, "testset.json")
        for record in records:
            pair = by_pair[
                [r for r in rows if r["request_id"] == record["request_id"]][0]["pair_id"]
            ]
            assert record["paper_path"] == f"./SciVer/papers/{pair['paperid']}.json"
        readme = (out / "README.md").read_text()
        assert f"Versioned here: `{first.arxiv_id}v1`, `{first.arxiv_id}v2`." in readme
        assert "release OK" in run("check_release", str(out))

    def test_export_refuses_two_elements_with_one_number(self, pool, tmp_path):
        _, pairs = pool
        run("make_split", "--validation", "4", "--test", "8", "--seed", "13", "--name", "v1")
        paper = pairs[0].paper
        tables = list(Element.objects.filter(paper=paper, kind="table").order_by("order"))
        assert len(tables) >= 2
        Element.objects.filter(pk=tables[1].pk).update(number=tables[0].number)
        with pytest.raises(CommandError) as failure:
            run("export_release", "--split", "v1", "--out", str(tmp_path / "SciVer"))
        message = str(failure.value)
        assert f"paper {paper.arxiv_id}: " in message
        assert tables[0].anchor in message and tables[1].anchor in message
        assert f"are both table {tables[0].number}" in message
        assert f"images/{paper.arxiv_id}_table_{tables[0].number}.png" in message
        assert "distinct number in the admin" in message
        assert list(tmp_path.iterdir()) == []

    def test_superseded_claims_never_ship_and_a_pair_left_short_is_named(self, pool, tmp_path):
        from django.utils import timezone

        from annotation.models import Claim

        _, pairs = pool
        run("make_split", "--validation", "4", "--test", "8", "--seed", "13", "--name", "v1")
        # After the split was frozen, the refuted claim of a pair was replaced by a new
        # perturbation (not yet validated): the split's record of that pair is gone.
        Claim.objects.filter(pair=pairs[2], label="refuted").update(superseded_at=timezone.now())
        out = tmp_path / "SciVer"
        with pytest.raises(CommandError) as failure:
            run("export_release", "--split", "v1", "--out", str(out))
        # The pair named by its key, as pages name it; the command line adds the command.
        assert str(failure.value) == (
            f"pair {pairs[2].key} (paper {pairs[2].paper.arxiv_id}) of split v1: its refuted "
            "claim is missing (changed after the split was frozen); make a new split and export "
            "it\nTo make a new split from the command line: python manage.py make_split "
            "--validation N --test M …"
        )
        assert not out.exists()
