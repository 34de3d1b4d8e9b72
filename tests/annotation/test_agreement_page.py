"""The agreement page as a reader needs it (issue 20): plots with a value axis and n per bar,
"Per annotator pair" spelt right, no heading twice, archived papers left out and said so."""

from __future__ import annotations

import re

import pytest
from django.test import Client

from annotation import archiving
from annotation.review import plots, stats

pytestmark = pytest.mark.django_db


def test_bars_have_an_axis_with_ticks_its_name_and_n_per_bar():
    svg = plots.bar_chart(
        "Agreement per subset",
        [("direct", [0.5, None]), ("parallel", [1.0, 0.25])],
        series=["label", "κ"],
        maximum=1.0,
        percent=False,
        counts=[4, 7],
        axis="agreement (0 to 1)",
    )
    assert svg.count('class="axis"') == 2  # the baseline and the value axis
    ticks = re.findall(r'class="tick"[^>]*>([^<]+)<', svg)
    assert ticks == ["0", "0.25", "0.50", "0.75", "1"]
    assert ">agreement (0 to 1)<" in svg
    assert ">n = 4<" in svg and ">n = 7<" in svg and ">n/a<" in svg
    counts = plots.bar_chart("Reasons", [("a", [3]), ("b", [7])], series=["n"], percent=False)
    assert re.findall(r'class="tick"[^>]*>([^<]+)<', counts) == ["0", "2", "4", "6", "8"]
    empty = plots.bar_chart("Nothing", [], series=["x"], axis="count")
    assert "no data yet" in empty and 'class="axis"' in empty


def test_the_page_spells_its_headings_once_and_counts_its_bars(annotated):  # noqa: F811
    c = annotated[0]
    client = Client()
    client.force_login(c["boss"])
    page = client.get("/agreement/").content.decode()
    assert "Per annotator pair" in page and "annotatorpair" not in page
    headings = re.findall(r"<h[1-3][^>]*>([^<]+)</h[1-3]>", page)
    assert len(headings) == len(set(headings)), headings
    assert page.count("Adjudication reasons") == 2  # the plot's title and its SVG <title>
    subset_plot = page[page.index('id="plot-subset"') :]
    subset_plot = subset_plot[: subset_plot.index("</figure>")]
    complete = {v: r.label.complete for v, r in stats.agreement_summary().reports["subset"].items()}
    for n in complete.values():
        assert f">n = {n}<" in subset_plot
    assert "agreement (0 to 1); n = items annotated by both" in subset_plot
    assert "archived" not in page


def test_archived_papers_leave_the_agreement_page_and_it_says_so(annotated):  # noqa: F811
    c, one, _ = annotated
    before = stats.agreement_summary().overall.items
    archiving.archive_papers(papers=[one.paper], by=c["boss"])
    assert stats.agreement_summary().overall.items == before - 2
    client = Client()
    client.force_login(c["boss"])
    page = client.get("/agreement/").content.decode()
    assert "1 archived paper hidden: its claims are left out of every figure" in page
