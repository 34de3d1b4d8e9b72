"""Synthetic papers (simulate_annotation's copies of fixture papers) are marked everywhere:
our records, the dataset card, the manifest, check_release, the paper pages, the admin and
the statistics; the SciVer-format files keep exactly the public release's keys."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest
from django.core.management import call_command

from papers.models import Paper
from tests.validation.factories import Team, validated_pairs
from validation.release_check import inspect_release

pytestmark = pytest.mark.django_db

SCIVER_KEYS = {
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
}
ONE = {"type", "item", "image_path"}
TWO = {f"item{n}{s}" for n in (1, 2) for s in ("_type", "", "_path")}


def run(*args) -> str:
    out = io.StringIO()
    call_command(*args, stdout=out)
    return out.getvalue()


@pytest.fixture
def pool():
    team = Team()
    pairs = validated_pairs(team, 4)
    return team, pairs


def jsonl(out: Path, name: str) -> list[dict]:
    return [json.loads(x) for x in (out / "data" / f"{name}.jsonl").read_text().splitlines()]


def test_a_release_with_synthetic_papers_says_so_everywhere_but_the_sciver_files(pool, tmp_path):
    _, pairs = pool
    fake = pairs[0].paper
    Paper.objects.filter(pk=fake.pk).update(synthetic=True)
    run("make_split", "--validation", "4", "--test", "4", "--seed", "13", "--name", "v1")
    out = tmp_path / "SciVer"
    exported = run("export_release", "--split", "v1", "--out", str(out), "--hide-test-labels")
    assert "warning: 1 synthetic paper(s) and 2 synthetic claim(s)" in exported

    rows = jsonl(out, "validation") + jsonl(out, "test")
    assert {r["pair_id"] for r in rows if r["synthetic"]} == {pairs[0].pk}
    assert all(r["synthetic"] is (r["paperid"] == fake.arxiv_id) for r in rows)
    csv_rows = [
        row
        for name in ("validation", "test")
        for row in csv.DictReader(io.StringIO((out / "data" / f"{name}.csv").read_text()))
    ]
    assert sorted(r["synthetic"] for r in csv_rows) == ["false"] * 6 + ["true"] * 2
    # valset/testset and the paper files keep exactly the public release's keys.
    for name, hidden in (("valset.json", False), ("testset.json", True)):
        for record in json.loads((out / name).read_text()):
            shape = ONE if record["claim_type"] in ("direct", "analytical") else TWO
            expected = SCIVER_KEYS | shape
            if hidden:
                expected -= {
                    "label",
                    "origin_statement",
                    "perturbed_statement",
                    "perturbed_explanation",
                }
            assert set(record) == expected
    for path in (out / "papers").glob("*.json"):
        assert set(json.loads(path.read_text())) == {"sections", "image_paths", "tables"}

    readme = (out / "README.md").read_text().splitlines()
    # At the top of the card, right after the Hub's front matter and the title.
    card = readme[readme.index("---", 1) + 2 :]
    assert card[0].startswith("# ")
    assert card[2].startswith("> **Warning: synthetic data.** 1 of 4 papers and 2 of 8 claims")
    assert "do not publish or evaluate on them" in card[2]
    # Its row in the card's paper table (under its licence, CC BY) says synthetic.
    assert f"| {fake.arxiv_id} | {fake.arxiv_id}v1 | {fake.license_url} | yes |" in readme
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["synthetic_papers"] == 1
    assert sum(c["synthetic"] for c in manifest["counts"].values()) == 2

    report = inspect_release(out)
    assert report.problems == []
    assert report.warnings[0].startswith("synthetic content: 1 of 4 papers and 2 of 8 claims")
    checked = run("check_release", str(out))
    assert "warning: synthetic content" in checked
    assert checked.strip().endswith("release OK (with warnings)")


def test_a_release_of_real_papers_has_no_warning(pool, tmp_path):
    run("make_split", "--validation", "4", "--test", "4", "--seed", "13", "--name", "v1")
    out = tmp_path / "SciVer"
    assert "warning" not in run("export_release", "--split", "v1", "--out", str(out))
    readme = (out / "README.md").read_text()
    assert "Warning" not in readme
    assert "None: every paper is a real arXiv paper, every claim an expert's." in readme
    assert not any(r["synthetic"] for r in jsonl(out, "validation") + jsonl(out, "test"))
    assert json.loads((out / "manifest.json").read_text())["synthetic_papers"] == 0
    checked = run("check_release", str(out))
    assert "warning" not in checked and checked.strip().endswith("release OK")


def test_paper_pages_and_admin_mark_synthetic_papers(pool, client):
    team, pairs = pool
    fake, real = pairs[0].paper, pairs[1].paper
    Paper.objects.filter(pk=fake.pk).update(synthetic=True)
    client.force_login(team.admin)
    listing = client.get("/papers/").content.decode()
    assert "1 of these 4 papers is <strong>synthetic</strong>" in listing
    row = next(r for r in listing.split("<tr") if f"{fake.arxiv_id}v1</a>" in r)
    assert 'class="badge synthetic"' in row
    real_row = next(r for r in listing.split("<tr") if f"{real.arxiv_id}v1</a>" in r)
    assert "badge synthetic" not in real_row
    detail = client.get(f"/papers/{fake.arxiv_id}v1/").content.decode()
    assert 'id="synthetic-paper"' in detail and "not a real arXiv paper" in detail
    assert 'id="synthetic-paper"' not in client.get(f"/papers/{real.arxiv_id}v1/").content.decode()

    changelist = client.get("/admin/papers/paper/", {"synthetic__exact": "1"})
    assert changelist.status_code == 200
    shown = changelist.context["cl"].result_list
    assert [p.pk for p in shown] == [fake.pk]
    assert "synthetic" in changelist.context["cl"].list_display
    everything = client.get("/admin/papers/paper/").content.decode()
    assert "By synthetic" in everything

    # A writer sees only their assigned papers, with the same marks.
    client.force_login(team.writer)
    assert "badge synthetic" in client.get("/papers/").content.decode()


def test_statistics_count_synthetic_papers_and_claims(pool, client):
    team, pairs = pool
    client.force_login(team.admin)
    page = client.get("/manage/statistics/").content.decode()
    assert 'id="synthetic-warning"' not in page
    assert "Synthetic: <strong>0</strong> of 8 claims, on 0 papers." in page

    Paper.objects.filter(pk=pairs[0].paper.pk).update(synthetic=True)
    page = client.get("/manage/statistics/").content.decode()
    assert 'id="synthetic-warning"' in page and "1 of 4 papers in the database" in page
    assert "Synthetic: <strong>2</strong> of 8 claims, on 1 paper." in page

    run("make_split", "--validation", "4", "--test", "4", "--seed", "13", "--name", "v1")
    page = client.get("/manage/statistics/", {"split": "v1"}).content.decode()
    counts = [
        int(page.split("Synthetic: <strong>")[i].split("<")[0]) for i in (1, 2)
    ]  # validation, test
    assert sum(counts) == 2 and "validation: " in page

    printed = run("dataset_stats", "--split", "v1")
    assert "warning: 1 of 4 papers are synthetic" in printed
    assert printed.count("synthetic claims") == 2
    as_json = json.loads(run("dataset_stats", "--json"))
    assert as_json["synthetic"]["parts"]["validated pool"] == {
        "claims": 2,
        "all_claims": 8,
        "papers": 1,
    }
