"""check_release tells the release manager about claims that hold HTML or LaTeX markup (a
warning: the release is sound, but a reader or a model sees the raw markup), naming them."""

from __future__ import annotations

import io

import pytest
from django.core.management import call_command

from tests.annotation.claim_factories import ENTAILED, REFUTED
from tests.validation.factories import Team, final_pair, validate_all

pytestmark = pytest.mark.django_db


def run(*args) -> str:
    out = io.StringIO()
    call_command(*args, stdout=out)
    return out.getvalue()


def test_claims_with_markup_are_a_warning_line_each_kind(tmp_path):
    team = Team()
    script = " <script>alert(1)</script>"
    final_pair(
        team,
        seed=0,
        entailed=ENTAILED + script,
        refuted=REFUTED + script,
        suggestion=REFUTED + script,
    )
    final_pair(
        team,
        seed=1,
        entailed=ENTAILED + r" ($70\%$)",
        refuted=REFUTED + r" ($70\%$)",
        suggestion=REFUTED + r" ($70\%$)",
    )
    final_pair(team, seed=2)
    validate_all(team)
    run("make_split", "--validation", "2", "--test", "4", "--seed", "1", "--name", "v1")
    out = tmp_path / "SciVer"
    run("export_release", "--split", "v1", "--out", str(out))
    report = run("check_release", str(out))
    assert "release OK (with warnings)" in report
    lines = [line for line in report.splitlines() if "markup in claims" in line]
    assert len(lines) == 2, report
    html, latex = sorted(lines)
    assert "2 claim(s) hold HTML markup" in html and "“<script>”" in html
    assert "2 claim(s) hold LaTeX" in latex and r"“$70\%$”" in latex
    assert "set.json[" in html  # each claim named by its record


def test_a_release_without_markup_says_nothing_of_it(tmp_path):
    team = Team()
    for seed in range(2):
        final_pair(team, seed=seed)
    validate_all(team)
    run("make_split", "--validation", "2", "--test", "2", "--seed", "1", "--name", "v1")
    out = tmp_path / "SciVer"
    run("export_release", "--split", "v1", "--out", str(out))
    assert "markup in claims" not in run("check_release", str(out))
