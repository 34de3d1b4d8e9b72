"""The statistics page's annotation-artifact audit of the validated pool (issue 43), and the
pool's records as the audit reads them."""

from __future__ import annotations

import json
from xml.etree import ElementTree

import pytest
from django.template.loader import render_to_string

from tests.validation.artifact_records import planted
from tests.validation.factories import Team, validated_pairs
from tests.validation.releases import run
from validation.audit import audit, pool
from validation.audit.plot import artifact_context

pytestmark = pytest.mark.django_db


@pytest.fixture
def team_pairs():
    team = Team()
    return team, validated_pairs(team, 2)


def test_the_pool_is_read_with_subsets_writers_and_both_statements(team_pairs):
    team, pairs = team_pairs
    records = pool.pool_records()
    assert len(records) == 4
    assert {r["writer"] for r in records} == {team.writer.get_username()}
    assert sorted(r["label"] for r in records) == [False, False, True, True]
    for r in records:
        assert r["claim"] == (r["origin_statement"] if r["label"] else r["perturbed_statement"])
        assert r["part"] == "pool" and r["claim_type"]
    out = json.loads(run("audit_release", "--pool", "--json"))
    assert out["claims"] == 4 and out["baseline"]["overall"] is None
    assert "the claims need at least 40" in out["baseline"]["needed"]
    assert out["writers"][team.writer.get_username()]["pairs"] == 2


def test_a_small_pool_shows_the_size_it_needs(client, team_pairs):
    team, _ = team_pairs
    client.force_login(team.admin)
    page = client.get("/manage/statistics/").content.decode()
    assert 'id="artifacts"' in page
    assert "no score yet: the claims need at least 40 labelled claims" in page
    assert team.writer.get_username() in page.split('id="artifact-writers"')[1]


def test_a_pool_with_negation_rewrites_shows_the_plot_warning_cues_and_writers():
    # The page's own section template, given the audit of a pool of negation rewrites (a
    # database pool that size would cost a world; the page itself is rendered above).
    records = planted(210, negation=True)
    for record in records:
        record["part"] = "pool"
    result = audit(records, human=0.938)
    page = render_to_string("validation/_artifacts.html", artifact_context(result, 10))
    assert "human baseline 94 % (the newest study)" in page
    section = page.split('id="artifacts"')[1]
    assert "5-fold cross-validation" in section
    assert '<svg xmlns="http://www.w3.org/2000/svg" class="plot"' in section
    assert "Claim-only accuracy per subset" in section
    chart = section[section.index("<svg") : section.index("</svg>") + 6]
    assert len(ElementTree.fromstring(chart).findall("{http://www.w3.org/2000/svg}rect")) >= 5
    assert 'id="artifact-warning"' in section
    cues = section.split('id="artifact-cues"')[1].split("</table>")[0]
    assert "<td>not</td>" in cues
    writers = section.split('id="artifact-writers"')[1].split("</table>")[0]
    assert "<td>w0</td>" in writers and "(100 %)" in writers
    pairs = section.split('id="artifact-pairs"')[1].split("</table>")[0]
    assert "negation: " in pairs


def test_the_cached_audit_follows_every_change_of_the_pool(team_pairs):
    team, _ = team_pairs
    first = pool.pool_audit()
    assert first.claims == 4 and pool.pool_audit() == first  # the same pool: the same audit
    validated_pairs(Team(), 1)  # one more complete pair: a new audit, never the cached one
    assert pool.pool_audit().claims == 6
