"""Splits as SciVer made them, on a 60-paper demo world: the default split is paper-disjoint
with whole-pair quotas even over the subsets, the page and the command show papers per part
beside SciVer's, and a release whose parts share papers is refused unless the split allowed
it (only where no paper-disjoint draw exists). The demo's release is read by `datasets` and
mlcroissant, and its claims give a claim-only model nothing to learn (issue 43)."""

from __future__ import annotations

import io
import json
import re
from collections import Counter

import pytest
from django.core.management import CommandError, call_command
from django.urls import reverse

from annotation.models import ClaimPair
from tests.demo import people, simulate
from tests.worlds import build_once
from validation.models import SplitMember, SplitVersion
from validation.split import services as split_services
from validation.split.rules import reachable_sizes

pytestmark = pytest.mark.django_db


@pytest.fixture(scope="module")
def world(django_db_setup, django_db_blocker, tmp_path_factory):
    media = tmp_path_factory.mktemp("release-world-media")

    def build() -> str:
        people()
        return simulate("--papers", "60", "--seed", "8", "--pairs-per-paper", "4", "--no-leftovers")

    for printed in build_once(
        "release world: people, 60 papers of 4 pairs, seed 8",
        build,
        django_db_blocker=django_db_blocker,
        media_root=media,
    ):
        yield media, printed


@pytest.fixture
def demo(world, settings):
    settings.MEDIA_ROOT = world[0]
    return world[1]


def run(*args: str) -> str:
    out = io.StringIO()
    call_command(*args, stdout=out)
    return out.getvalue()


def parts_of(split: SplitVersion) -> dict[str, list[ClaimPair]]:
    members = SplitMember.objects.filter(split=split).select_related("pair")
    parts: dict[str, list[ClaimPair]] = {"validation": [], "test": []}
    for member in members:
        parts[member.part].append(member.pair)
    return parts


def test_the_pages_default_split_is_paper_disjoint_with_even_whole_pair_quotas(demo, client):
    client.login(username="admin", password="x")
    page = client.get(reverse("validation:releases"))
    html = page.content.decode()
    offered = {
        name: int(re.search(rf'name="{name}" value="(\d+)"', html).group(1))
        for name in ("validation", "test")
    }
    pool = len(split_services.split_pool())
    assert 0 < offered["validation"] and 0 < offered["test"]
    assert offered["validation"] + offered["test"] <= 2 * pool
    form = {**offered, "seed": "13", "licenses": "", "name": "w1"}
    assert client.post(reverse("validation:releases"), form).status_code == 302
    split = SplitVersion.objects.get(name="w1")
    parts = parts_of(split)
    for part, pairs in parts.items():
        assert 2 * len(pairs) == offered[part]
        per_subset = Counter(p.subset for p in pairs).values()
        assert max(per_subset) - min(per_subset) <= 1, (part, per_subset)
    papers = {part: {p.paper_id for p in pairs} for part, pairs in parts.items()}
    assert not papers["validation"] & papers["test"]
    assert split.papers == {part: len(ids) for part, ids in papers.items()}
    assert not split.shared_papers_allowed
    shown = client.get(reverse("validation:releases")).content.decode()
    assert f"{split.papers['validation']} / {split.papers['test']}" in shown
    assert "SciVer 327 / 786" in shown


def test_the_command_prints_papers_per_part_and_refuses_what_no_disjoint_draw_makes(demo):
    pool = split_services.split_pool()
    too_many = 2 * len(pool)
    with pytest.raises(CommandError) as refused:
        run(
            "make_split",
            "--validation",
            str(too_many // 3 // 2 * 2),
            "--test",
            str(too_many - too_many // 3 // 2 * 2),
            "--name",
            "big",
        )
    message = str(refused.value)
    assert "per subset, pairs needed / available" in message
    assert "Reachable with this seed (paper-disjoint): validation" in message
    reachable = re.search(r"validation ([\d,]+) \+ test ([\d,]+) claims", message)
    v, t = (reachable.group(n).replace(",", "") for n in (1, 2))
    printed = run("make_split", "--validation", v, "--test", t, "--name", "w2")
    assert re.search(rf"validation: {v} claims \(.*\) from \d+ papers \(SciVer: 327\)", printed)
    assert re.search(rf"test: {t} claims \(.*\) from \d+ papers \(SciVer: 786\)", printed)
    assert not SplitVersion.objects.get(name="w2").shared_papers_allowed


def test_a_release_whose_parts_share_papers_is_refused_unless_the_split_allowed_it(demo, tmp_path):
    # A split frozen before splits were paper-disjoint: one paper's pairs in both parts.
    by_paper: dict[int, list[ClaimPair]] = {}
    for pair in ClaimPair.objects.filter(pk__in=[p.pair_id for p in split_services.split_pool()]):
        by_paper.setdefault(pair.paper_id, []).append(pair)
    paper, pairs = next((k, v) for k, v in sorted(by_paper.items()) if len(v) >= 2)
    others = [v[0] for k, v in sorted(by_paper.items()) if k != paper][:2]  # two papers
    old = SplitVersion.objects.create(name="old", seed=1, validation_size=4, test_size=4)
    SplitMember.objects.bulk_create(
        SplitMember(split=old, pair=pair, part=part, subset=pair.subset)
        for pair, part in zip(
            [pairs[0], others[0], pairs[1], others[1]],
            ["validation", "validation", "test", "test"],
            strict=True,
        )
    )
    out = tmp_path / "SciVer"
    run("export_release", "--split", "old", "--out", str(out))
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["split"]["paper_disjoint"] is False
    assert manifest["split"]["shared_papers"] == 1
    said = io.StringIO()
    with pytest.raises(CommandError, match="1 problem"):
        call_command("check_release", str(out), stdout=said, stderr=said)
    assert "papers in both parts: 1 paper(s)" in said.getvalue()
    # The same members in a split made with --allow-shared-papers pass, with a warning.
    SplitVersion.objects.filter(pk=old.pk).update(shared_papers_allowed=True)
    run("export_release", "--split", "old", "--out", str(out), "--overwrite")
    assert "papers in both parts" in run("check_release", str(out))


@pytest.mark.filterwarnings("ignore:ConjunctiveGraph is deprecated:DeprecationWarning")
def test_the_default_demo_release_is_read_by_datasets_and_mlcroissant(demo, hf, tmp_path):
    import mlcroissant

    pool = split_services.split_pool()
    validation, test = split_services.offered_sizes(pool, seed=13)
    run("make_split", "--validation", str(validation), "--test", str(test), "--name", "hub")
    out = tmp_path / "SciVer"
    run("export_release", "--split", "hub", "--out", str(out), "--parquet")
    checked = run("check_release", str(out))
    assert "release OK" in checked
    # The demo copies fixture papers, so claims repeat across parts: a warning, not a problem.
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["split"]["paper_disjoint"] is True
    assert manifest["split"]["papers"] == SplitVersion.objects.get(name="hub").papers
    loaded = hf.load_dataset(str(out), cache_dir=str(tmp_path / "cache"))
    assert sorted(loaded) == ["test", "validation"]
    for part, file, size in (
        ("validation", "valset.json", validation),
        ("test", "testset.json", test),
    ):
        records = json.loads((out / file).read_text())
        assert loaded[part].num_rows == len(records) == size
        assert loaded[part]["request_id"] == [r["request_id"] for r in records]
        assert loaded[part]["claim"] == [r["claim"] for r in records]
        assert loaded[part]["label"] == [r["label"] for r in records]
    first = loaded["validation"][0]
    assert first["images"] and first["images"][0].size[0] > 0  # decoded as an image
    croissant = mlcroissant.Dataset(jsonld=str(out / "croissant.json"))
    rows = list(croissant.records("test"))
    assert len(rows) == test
    assert sorted(int(r["test/request_id"]) for r in rows) == sorted(
        r["request_id"] for r in json.loads((out / "testset.json").read_text())
    )


def test_a_simulator_release_of_400_records_gives_a_claim_only_model_nothing(demo, tmp_path):
    # Every licence, so that the release holds at least 400 records (the artifact check's size).
    everything = "cc-by,cc-by-sa,cc0,arxiv,cc-by-nc-sa"
    pool = split_services.split_pool()
    asked = 2 * (len(pool) // 3), 2 * len(pool) - 2 * (len(pool) // 3)
    validation, test = reachable_sizes(pool, validation=asked[0], test=asked[1], seed=13)
    assert validation + test >= 400, (len(pool), validation, test)
    run(
        "make_split",
        "--validation",
        str(validation),
        "--test",
        str(test),
        "--licenses",
        everything,
        "--name",
        "audit",
    )
    out = tmp_path / "SciVer"
    run("export_release", "--split", "audit", "--out", str(out))
    checked = run("check_release", str(out))
    assert "release OK" in checked and "annotation artifacts" not in checked
    audit = json.loads(run("audit_release", str(out), "--json"))
    overall = audit["baseline"]["overall"]
    assert overall["total"] == test
    assert abs(overall["accuracy"] - overall["chance"]) <= 0.10, overall  # within 10 points
    assert audit["warn"] is False
    # No refuted claim is only a negation of its entailed claim.
    assert all(s["negation"] == 0 for s in audit["pairs"].values()), audit["pairs"]
