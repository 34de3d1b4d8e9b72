"""A release from simulated demo data, read back record by record as SciVer's own code reads
it (`validation.release.reading`): every model input holds its claim's evidence paragraphs,
and its images are exactly the claim's evidence tables/charts."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from django.core.management import call_command

from papers.licences import REDISTRIBUTABLE
from tests.demo import people
from validation.release.reading import is_reachable, model_input
from validation.release_check import inspect_release
from validation.split import services as split_services
from validation.split.rules import reachable_sizes

pytestmark = pytest.mark.django_db(transaction=False)


def quiet(*args: str) -> str:
    out = io.StringIO()
    call_command(*args, stdout=out, stderr=io.StringIO())
    return out.getvalue()


def test_every_record_of_a_demo_release_gives_a_model_its_claims_evidence(tmp_path):
    people()
    # No work left for people: every pair that can be completed is.
    quiet("simulate_annotation", "--papers", "12", "--seed", "21", "--no-leftovers")
    # As much of the pool a default split may draw from as a paper-disjoint draw takes, a
    # third (in pairs) for validation.
    pool = [p for p in split_services.split_pool() if p.licence in REDISTRIBUTABLE]
    assert len(pool) >= 4, "simulate_annotation left too few complete pairs"
    asked = 2 * (len(pool) // 3), 2 * len(pool) - 2 * (len(pool) // 3)
    reachable = reachable_sizes(pool, validation=asked[0], test=asked[1], seed=5)
    assert reachable is not None and sum(reachable) >= len(pool), (asked, reachable)
    validation, test = reachable
    quiet(
        "make_split",
        "--validation",
        str(validation),
        "--test",
        str(test),
        "--seed",
        "5",
        "--name",
        "demo",
    )
    out = tmp_path / "SciVer"
    quiet("export_release", "--split", "demo", "--out", str(out))
    report = inspect_release(out)
    assert report.problems == []

    rows: dict[int, dict] = {}
    for name in ("validation", "test"):
        for line in (out / "data" / f"{name}.jsonl").read_text().splitlines():
            row = json.loads(line)
            rows[row["request_id"]] = row
    checked = with_paragraphs = 0
    for split_file in ("valset.json", "testset.json"):
        for record in json.loads((out / split_file).read_text()):
            paper = json.loads((tmp_path / record["paper_path"]).read_text())
            assert all(is_reachable(s["section_id"]) for s in paper["sections"])
            seen = model_input(record, paper)
            row = rows[record["request_id"]]
            where = (record["request_id"], record["paperid"], record["section"])
            assert record["section"] and seen.context, where
            paragraphs = [p for p in row["evidence"] if p["kind"] == "paragraph"]
            for piece in paragraphs:
                assert piece["text"] in seen.context, (where, piece["anchor"])
            with_paragraphs += bool(paragraphs)
            visuals = sorted(
                (p["kind"], p["image_path"]) for p in row["evidence"] if p["kind"] != "paragraph"
            )
            shown = sorted((i.type, i.path.removeprefix("./SciVer/")) for i in seen.images)
            assert shown == visuals, where
            for image in seen.images:
                assert Path(tmp_path / image.path).is_file() and image.caption, where
            checked += 1
    assert checked == validation + test
    assert with_paragraphs  # some claims rest on paragraphs too: their text is checked
