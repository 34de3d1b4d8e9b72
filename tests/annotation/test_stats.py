"""Agreement statistics from the database against hand-computed values: the page with its
server-drawn plots, the CSV download and `manage.py agreement_report` (text and JSON)."""

from __future__ import annotations

import csv
import io
import json
import re

import pytest
from django.core.management import call_command
from django.test import Client

from annotation.review import services as review
from annotation.review import stats

pytestmark = pytest.mark.django_db


def test_the_summary_matches_hand_computed_values(annotated):
    s = stats.agreement_summary()
    o = s.overall
    assert (o.items, o.label.complete, o.label.incomplete) == (6, 4, 2)
    # Labels A = 2 entailed, 2 refuted; B has one entailed turned refuted: 3 of 4 agree,
    # κ = (n·agree − Σ n_a n_b) / (n² − Σ n_a n_b) = (4·3 − (2·1 + 2·3)) / (16 − 8) = 0.5.
    assert o.label.percent == 0.75 and o.label.kappa == 0.5
    # Evidence: Jaccard 1, 1, 1, 0.5.
    assert o.evidence.mean_jaccard == 0.875 and o.evidence.exact_match_rate == 0.75
    assert (o.agreed, o.label_disagreements, o.evidence_only_disagreements) == (2, 1, 1)
    assert (s.compared_claims, s.adjudicated_claims, s.adjudication_rate) == (4, 2, 0.5)
    assert dict((code, n) for code, _, n in s.reasons)["second_annotator_error"] == 1
    pairs = s.reports["annotator_pair"]
    assert set(pairs) == {"alice+bob", "alice+carol"}
    assert sum(r.label.complete for r in pairs.values()) == 4
    assert sum(r.items for r in s.reports["subset"].values()) == 6
    assert set(s.reports["subfield"]) == {"cs.CL"}
    assert s.states["unanimous"] == 2 and s.states["second"] == 2 and s.states["adjudicated"] == 1
    assert s.progress[-1][1:] == (3, 4, 1)


def test_dropped_pairs_leave_the_statistics(annotated):
    c, one, _ = annotated
    review.drop_pair(pair=one, by=c["boss"], reason="duplicate")
    assert stats.agreement_summary().overall.items == 4


def test_the_page_draws_its_plots_on_the_server(annotated):
    c = annotated[0]
    client = Client()
    client.force_login(c["boss"])
    page = client.get("/agreement/").content.decode()
    assert page.count("<svg") == 4
    for plot in ("plot-subset", "plot-pair", "plot-reasons", "plot-progress"):
        assert f'id="{plot}"' in page
    assert "alice+bob" in page and "0.50" in page
    # Nothing loaded from elsewhere (a CDN): every script, style and image is ours. (Not a
    # search for "cdn" in the page: the random CSRF token can contain those letters.)
    assert not re.search(r"""(src|href)=["']?(https?:)?//""", page)
    response = client.get("/agreement.csv")
    assert response["Content-Type"].startswith("text/csv")
    rows = list(csv.DictReader(io.StringIO(response.content.decode())))
    assert rows[0]["group"] == "overall" and float(rows[0]["label_kappa"]) == 0.5
    assert {r["value"] for r in rows if r["group"] == "annotator_pair"} == {
        "alice+bob",
        "alice+carol",
    }


def test_the_command_prints_text_or_json(annotated):
    out = io.StringIO()
    call_command("agreement_report", stdout=out)
    text = out.getvalue()
    assert "overall" in text and "0.500" in text and "alice+carol" in text
    out = io.StringIO()
    call_command("agreement_report", "--json", stdout=out)
    data = json.loads(out.getvalue())
    assert data["overall"]["label_kappa"] == 0.5
    assert data["adjudication"]["rate"] == 0.5
    assert data["overall"]["label_incomplete"] == 2


def test_plots_stay_readable_on_one_day_and_many_pairs():
    import datetime as dt

    from annotation.review import plots

    day = dt.date(2026, 11, 30)
    one_day = plots.line_chart("Progress over time", [day], {"pairs written": [3], "adj": [1]})
    assert "all on 2026-11-30" in one_day and "pairs written" in one_day
    assert one_day.count("<rect") >= 2 and "<polyline" not in one_day  # bars, not lone dots
    many = plots.line_chart("P", [day, day + dt.timedelta(days=1)], {"pairs written": [1, 4]})
    assert "<polyline" in many
    # Many annotator pairs: the plot keeps the busiest, the page says so; the table has all.
    from annotation.review.agreement import EvidenceAgreement, GroupReport, LabelAgreement
    from annotation.review.stats import AgreementSummary
    from annotation.views.stats import MAX_PLOTTED_PAIRS, _plots

    def report(value: str, items: int) -> GroupReport:
        return GroupReport(
            group="annotator_pair",
            value=value,
            items=items,
            label=LabelAgreement(complete=items, incomplete=0, percent=1.0, kappa=None),
            evidence=EvidenceAgreement(
                complete=items, incomplete=0, mean_jaccard=1.0, exact_match_rate=1.0
            ),
            agreed=items,
            label_disagreements=0,
            evidence_only_disagreements=0,
        )

    pairs = {f"p{n:02d}+q": report(f"p{n:02d}+q", n) for n in range(1, 31)}
    summary = AgreementSummary(
        reports={"subset": {}, "annotator_pair": pairs},
        threshold=0.5,
        states={},
        adjudicated_claims=0,
        compared_claims=0,
        reasons=[],
        progress=[],
    )
    svg = _plots(summary)["pair"]
    shown = re.findall(r">(p\d\d\+q)</text>", svg)
    assert shown == [f"p{n:02d}+q" for n in range(30, 30 - MAX_PLOTTED_PAIRS, -1)]
    assert f"the {MAX_PLOTTED_PAIRS} with most items of 30" in svg
