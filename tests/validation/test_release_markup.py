"""check_release on claims that hold markup: HTML (tags, entities) is a problem naming each
record and field, since a reader and a model see the raw markup; LaTeX is a warning naming the
claims (SciVer's own data keeps LaTeX too)."""

from __future__ import annotations

import io

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from tests.validation.factories import Team, distinct_claims, final_pair, validate_all

pytestmark = pytest.mark.django_db


def run(*args) -> str:
    out = io.StringIO()
    call_command(*args, stdout=out)
    return out.getvalue()


def with_markup(i: int, markup: str) -> dict:
    fields = distinct_claims(i)
    return fields | {k: fields[k] + markup for k in ("entailed", "refuted", "suggestion")}


def test_html_in_claims_is_refused_and_latex_is_a_warning(tmp_path):
    team = Team()
    final_pair(team, seed=0, **with_markup(1, " <script>alert(1)</script>"))
    final_pair(team, seed=1, **with_markup(2, r" ($70\%$)"))
    final_pair(team, seed=2, **distinct_claims(3))
    validate_all(team)
    run("make_split", "--validation", "2", "--test", "4", "--seed", "1", "--name", "v1")
    out = tmp_path / "SciVer"
    run("export_release", "--split", "v1", "--out", str(out))
    printed, said = io.StringIO(), io.StringIO()
    with pytest.raises(CommandError, match="problem"):
        call_command("check_release", str(out), stdout=printed, stderr=said)
    html = [line for line in said.getvalue().splitlines() if "raw HTML" in line]
    # Each claim in its record (claim and statement) and in our JSON Lines row.
    assert any(line.split("[")[0] in ("valset.json", "testset.json") for line in html)
    assert any(line.startswith("data/") and "origin_statement" in line for line in html)
    assert all("('<script>' and 1 more)" in line for line in html), html
    assert all("writes it as plain text" in line for line in html)
    assert html == [line for line in said.getvalue().splitlines() if "<script>" in line]
    lines = [line for line in printed.getvalue().splitlines() if "markup in claims" in line]
    assert len(lines) == 1, printed.getvalue()
    assert "2 claim(s) hold LaTeX" in lines[0] and r"“$70\%$”" in lines[0]
    assert "set.json[" in lines[0]  # each claim named by its record


def test_a_release_without_markup_says_nothing_of_it(tmp_path):
    team = Team()
    for seed in range(2):
        final_pair(team, seed=seed, **distinct_claims(seed + 1))
    validate_all(team)
    run("make_split", "--validation", "2", "--test", "2", "--seed", "1", "--name", "v1")
    out = tmp_path / "SciVer"
    run("export_release", "--split", "v1", "--out", str(out))
    report = run("check_release", str(out))
    assert "markup in claims" not in report and "release OK" in report
