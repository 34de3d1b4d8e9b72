"""No silent loss: every numbered table or figure is an element, or a warning that names it and
says why; pages as arXiv serves them in 2026 parse whole (issue 15)."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.urls import reverse

from papers.models import CrawlItem, CrawlRun, Element, Paper
from papers.parsing import PARSER_VERSION, ParseError, parse_paper
from tests.factories import AdminFactory
from tests.papers.pages2026 import (
    ARXIV_ID,
    URL,
    figure,
    ieee_page,
    import_folder,
    page,
    para,
    save_page,
    section,
    table,
)

# -- pages in LaTeXML's markup, in arXiv's 2026 shape ---------------------------------------
# (no <base>, src under <id>vN/, `id` before `class`, `intent` on math, the licence banner, the
# generator comment, a new stylesheet and classes LaTeXML 0.8.7 never wrote)


# -- the parser -----------------------------------------------------------------------------


def test_an_ieee_page_of_2026_keeps_every_roman_numbered_table():
    parsed = parse_paper(ieee_page(), URL)
    assert [(t.anchor, t.label, t.number) for t in parsed.tables()] == [
        ("S2.T1", "TABLE I", "I"),
        ("S2.T2", "TABLE II", "II"),
        ("S2.T3", "TABLE III", "III"),
    ]
    assert [(c.label, c.number, len(c.panels)) for c in parsed.charts()] == [
        ("Fig. 1", "1", 1),
        ("Fig. 2", "2", 2),
    ]
    assert parsed.tables()[1].caption == "Ablations."
    assert parsed.tables()[1].grids[0][1][1].text == "$68.9$"
    # No <base>: images resolve under the page's own folder.
    assert parsed.charts()[0].panels[0].url == f"{URL}/x1.png"
    # References reach the tables, a panel's reference its parent figure.
    refs = {e.anchor: e.refs for e in parsed.paragraphs()}
    assert refs == {"S1.p1": ["S2.T2"], "S2.p1": ["S2.F1", "S2.F2", "S2.T1", "S2.T3"]}
    # Sub-figure panels are no warning; the algorithm is said, in a quieter class of its own
    # (skipped, not lost: it does not flag the paper).
    skipped = "Algorithm 1 (alg1) skipped: an algorithm, neither a table nor a chart"
    assert parsed.warnings == [skipped] and parsed.lost() == []
    assert [s.message() for s in parsed.skipped()] == [skipped]
    assert parsed.licence is not None and parsed.licence.name == "CC BY 4.0"
    assert parsed.generator.startswith("Generated on Sun Jul 5 10:11:12 2026 by LaTeXML")
    assert "(version 0.8.8)" in parsed.generator


@pytest.mark.parametrize(
    ("tag", "label", "number"),
    [
        ("Table iv: ", "Table iv", "iv"),
        ("Table A.1: ", "Table A.1", "A.1"),
        ("Table S2. ", "Table S2", "S2"),
        ("Tab. 3: ", "Tab. 3", "3"),
        ("TABLE 5", "TABLE 5", "5"),
        ("Table A: ", "Table A", "A"),
    ],
)
def test_every_numbering_style_is_kept_as_printed(tag, label, number):
    parsed = parse_paper(page(section("S1", "R", table("S1.T1", tag, "c."))), URL)
    assert [(t.label, t.number) for t in parsed.tables()] == [(label, number)]
    assert parsed.warnings == []


def test_figure_numbers_in_appendix_style():
    body = section("A1", "Appendix", figure("A1.F1", "Figure B3: ", "More.", ("x9.png",)))
    parsed = parse_paper(page(body), URL)
    assert [(c.label, c.number) for c in parsed.charts()] == [("Figure B3", "B3")]


def test_numbered_floats_not_kept_are_warnings_naming_them_and_why():
    body = section(
        "S1",
        "Floats",
        # a "figure" of text, a table with neither cells nor image, an unreadable tag
        '<figure id="S1.F1" class="ltx_figure"><div class="ltx_block">Prompt: say hi</div>'
        '<figcaption class="ltx_caption"><span class="ltx_tag ltx_tag_figure">Figure 1: '
        "</span>A prompt.</figcaption></figure>"
        '<figure id="S1.T1" class="ltx_table"><figcaption class="ltx_caption">'
        '<span class="ltx_tag ltx_tag_table">Table 1: </span>Empty.</figcaption></figure>'
        + table("S1.T2", "Table 2 (continued): ", "More rows.")
        # a numbered table inside a footnote, which holds no elements
        + para(
            "S1.p1",
            'Text.<span class="ltx_note ltx_role_footnote"><span class="ltx_note_outer">'
            '<span class="ltx_note_content">'
            + table("S1.T3", "Table 3: ", "In a note.")
            + "</span></span></span>",
        ),
    ) + (
        '<section id="bib" class="ltx_bibliography"><h2 class="ltx_title">References</h2>'
        + table("bib.T4", "Table 4: ", "In the bibliography.")
        + "</section>"
    )
    parsed = parse_paper(page(body), URL)
    assert parsed.tables() == [] and parsed.charts() == []
    assert parsed.warnings == [
        "Figure 1 (S1.F1) not kept: a figure without images (text or markup) is not a chart",
        "Table 1 (S1.T1) not kept: a table with neither cells nor an image",
        "Table 2 (continued) (S1.T2) not kept: its caption tag 'Table 2 (continued):' holds no "
        "number the parser reads",
        "Table 3 (S1.T3) not kept: inside a footnote or note, which holds no elements",
        "Table 4 (bib.T4) not kept: inside the bibliography, which holds no elements",
    ]
    assert [loss.kind for loss in parsed.losses] == ["lost"] * 5


def test_a_float_inside_a_paragraph_is_an_element_of_its_own():
    body = section(
        "S1",
        "R",
        '<div id="S1.p1" class="ltx_para"><p class="ltx_p">Before the table.</p>'
        + table("S1.T1", "Table 1: ", "Inside a paragraph.")
        + "</div>",
    )
    parsed = parse_paper(page(body), URL)
    assert [t.anchor for t in parsed.tables()] == ["S1.T1"]
    assert [p.text for p in parsed.paragraphs()] == ["Before the table."]


def test_a_supplement_restarting_at_table_1_is_a_duplicate_warning():
    body = section("S1", "R", table("S1.T1", "Table 1: ", "Main.")) + section(
        "S2", "Supplement", table("S2.T1", "Table 1: ", "Supplementary.")
    )
    parsed = parse_paper(page(body), URL)
    assert len(parsed.tables()) == 2
    assert parsed.duplicates == {("table", "1"): ["S1.T1", "S2.T1"]}
    assert parsed.warnings == [
        "2 tables print the number 1 (S1.T1, S2.T1): give each a distinct number in the admin "
        "(Elements); until then an export whose context holds both refuses this paper (a "
        "release names tables and figures by number)"
    ]


@pytest.mark.parametrize("depth", [249, 250, 600, 1500])
def test_deep_nesting_before_the_first_section_keeps_the_whole_paper(depth):
    wrapped = "<div>" * depth + "<span>front matter</span>" + "</div>" * depth
    body = (
        wrapped
        + section("S1", "A", para("S1.p1", "One."))
        + section("S2", "B", para("S2.p1", "Two.") + table("S2.T1", "TABLE I: ", "c."))
    )
    parsed = parse_paper(page(body), URL)
    assert [s.anchor for s in parsed.sections] == ["S1", "S2"]
    assert len(parsed.tables()) == 1 and parsed.warnings == []


def test_nesting_beyond_what_the_html_parser_reads_is_refused_not_cut():
    wrapped = "<div>" * 3000 + "x" + "</div>" * 3000
    with pytest.raises(ParseError, match="the rest of the page would be lost"):
        parse_paper(page(wrapped + section("S1", "A", para("S1.p1", "One."))), URL)


# -- through the importer -------------------------------------------------------------------


@pytest.mark.django_db
def test_a_saved_2026_page_imports_every_table_with_the_licence_and_generator(tmp_path):
    # A folder whose name says nothing: without <base>, the id comes from the images' paths.
    folder = save_page(tmp_path / "download", ieee_page(), ("x1.png", "x2.png", "x3.png"))
    output = import_folder(folder)
    paper = Paper.objects.get(arxiv_id="2508.08468", version=6)
    assert "3 tables, 2 charts" in output and "0 numbered floats not kept, 1 skipped" in output
    assert list(paper.elements.filter(kind="table").values_list("label", "number")) == [
        ("TABLE I", "I"),
        ("TABLE II", "II"),
        ("TABLE III", "III"),
    ]
    assert (paper.table_count, paper.chart_count, paper.lost_count) == (3, 2, 0)
    assert paper.skipped_floats == [
        {
            "label": "Algorithm 1",
            "anchor": "alg1",
            "reason": "an algorithm, neither a table nor a chart",
        }
    ]
    # No meta.json, no abstract page: the licence comes from the page's banner.
    assert paper.license_name == "CC BY 4.0"
    assert paper.license_url == "https://creativecommons.org/licenses/by/4.0/"
    assert "LaTeXML (version 0.8.8)" in paper.generator and paper.parser_version == PARSER_VERSION


def lossy_page() -> bytes:
    """TABLE I kept, Figure 2 made of text (lost), Fig. 1 whose only image is missing."""
    return page(
        section(
            "S1",
            "R",
            table("S1.T1", "TABLE I: ", "Kept.")
            + figure("S1.F1", "Fig. 1: ", "Image missing.", ("gone.png",))
            + '<figure id="S1.F2" class="ltx_figure"><pre class="ltx_verbatim">print(1)</pre>'
            '<figcaption class="ltx_caption"><span class="ltx_tag ltx_tag_figure">Fig. 2: </span>'
            "Code.</figcaption></figure>",
        )
    )


@pytest.mark.django_db
def test_losses_are_in_the_summary_on_the_paper_and_flagged_for_an_admin(tmp_path, client):
    folder = save_page(tmp_path / ARXIV_ID, lossy_page(), ())
    output = import_folder(folder)
    assert "1 numbered floats not kept" in output
    assert "Fig. 2 (S1.F2) not kept: a figure without images (text or markup) is not a chart" in (
        output
    )
    # A chart whose only image failed is kept, says so, and does not count towards MIN_CHARTS.
    assert "Fig. 1: kept, but no image of it could be read, so it does not count" in output
    paper = Paper.objects.get()
    assert paper.elements.filter(kind="chart").count() == 1 and paper.chart_count == 0
    assert paper.lost_count == 1 and paper.lost_floats[0]["anchor"] == "S1.F2"

    client.force_login(AdminFactory())
    listing = client.get(reverse("admin:papers_paper_changelist") + "?problems=lost")
    assert paper.versioned_id in listing.content.decode()
    assert "1 not kept" in listing.content.decode()
    page_html = client.get(reverse("admin:papers_paper_change", args=[paper.pk])).content.decode()
    assert "1 numbered table(s)/figure(s) not kept as elements" in page_html
    assert "a figure without images (text or markup) is not a chart" in page_html
    clean = client.get(reverse("admin:papers_paper_changelist") + "?problems=duplicates")
    assert paper.versioned_id not in clean.content.decode()
    detail = client.get(reverse("papers:detail", args=[paper.arxiv_id, paper.version]))
    assert 'id="lost-floats"' in detail.content.decode()
    assert "Fig. 2 (S1.F2): a figure without images" in detail.content.decode()


@pytest.mark.django_db
def test_min_charts_counts_only_charts_kept_with_an_image(tmp_path):
    from papers.assets import FolderAssets
    from papers.importing import import_paper
    from papers.local_pages import locate_page

    folder = save_page(tmp_path / ARXIV_ID, lossy_page(), ())
    page_found = locate_page(folder)
    result = import_paper(
        html=page_found.html_path.read_bytes(),
        page_url=URL,
        assets=FolderAssets(page_found.folder),
        arxiv_id="2508.08468",
        version=6,
        min_tables=1,
        min_charts=1,
        images="none",
    )
    assert result.status == Paper.Status.REJECTED
    assert result.paper.status_reason == "0 charts with an image (fewer than 1)"


@pytest.mark.django_db
def test_an_admin_gives_a_duplicate_a_distinct_number(tmp_path, client):
    body = section("S1", "R", table("S1.T1", "Table 1: ", "Main.")) + section(
        "S2", "Supplement", table("S2.T1", "Table 1: ", "Supplementary.")
    )
    folder = save_page(tmp_path / ARXIV_ID, page(body), ())
    output = import_folder(folder)
    assert "1 numbers printed twice" in output and "2 tables print the number 1" in output
    paper = Paper.objects.get()
    assert paper.duplicate_numbers() == {("table", "1"): ["S1.T1", "S2.T1"]}

    client.force_login(AdminFactory())
    change = reverse("admin:papers_paper_change", args=[paper.pk])
    assert "Table 1 is printed by S1.T1, S2.T1" in client.get(change).content.decode()
    flagged = client.get(reverse("admin:papers_paper_changelist") + "?problems=duplicates")
    assert paper.versioned_id in flagged.content.decode()

    element = paper.elements.get(anchor="S2.T1")
    url = reverse("admin:papers_element_change", args=[element.pk])
    form = client.get(url).context["adminform"].form
    data = {k: v for k, v in form.initial.items() if v is not None and k != "image"}
    data.update({"number": "S1", "paper": paper.pk, "section": element.section_id})
    data.update(
        {
            f"panels-{k}": v
            for k, v in {
                "TOTAL_FORMS": 0,
                "INITIAL_FORMS": 0,
                "MIN_NUM_FORMS": 0,
                "MAX_NUM_FORMS": 1000,
            }.items()
        }
    )
    data["cells"] = '[[[{"text": "Model"}]]]'
    data["degraded_reasons"] = "[]"
    response = client.post(url, data)
    assert response.status_code == 302, response.content.decode()[:2000]
    element.refresh_from_db()
    assert (element.number, element.label) == ("S1", "Table S1")
    assert paper.duplicate_numbers() == {}
    assert "no number is printed twice" in client.get(change).content.decode()


@pytest.mark.django_db
def test_the_crawl_run_page_counts_what_imports_did_not_keep(client):
    from datetime import date

    run = CrawlRun.objects.create(date_from=date(2024, 10, 1), date_to=date(2024, 10, 2))
    for n, (lost, skipped) in enumerate([(2, 1), (0, 1), (1, 0)]):
        paper = Paper.objects.create(
            arxiv_id=f"2410.0000{n}", status="parsed", lost_count=lost, skipped_count=skipped
        )
        CrawlItem.objects.create(run=run, paper=paper, outcome=CrawlItem.Outcome.KEPT)
    counts = run.counts()
    assert (counts["floats_lost"], counts["papers_with_lost_floats"]) == (3, 2)
    assert counts["floats_skipped"] == 2
    client.force_login(AdminFactory())
    html = client.get(reverse("crawl:detail", args=[run.pk])).content.decode()
    assert "Numbered tables and figures not kept: <strong>3</strong> in 2 papers" in html
    assert "2 algorithm/listing floats skipped" in html
    assert Element.objects.count() == 0


@pytest.mark.django_db
def test_a_crawl_logs_each_float_not_kept_and_counts_them(arxiv_settings, standin):  # noqa: F811
    from datetime import date

    from papers.crawl.runner import execute_crawl
    from papers.crawl.services import create_crawl_run
    from tests.standin import StandInPaper

    corpus = Path(__file__).resolve().parents[2] / "papers" / "corpus"
    for slug in ("tempered-early-exit", "prefetch-edge-cache"):
        standin.add_paper(StandInPaper.from_corpus(corpus / slug))
    run = create_crawl_run(
        date_from=date(2024, 10, 1),
        date_to=date(2024, 11, 15),
        categories=["cs.CL", "cs.NI"],
        images="none",
        min_tables=1,
        min_charts=1,
    )
    run = execute_crawl(run_id=run.pk)
    warnings = list(
        run.events.filter(kind="parse", level="warning").values_list("paper", "message")
    )
    assert (
        "2411.07765v1",
        "Table 2 not kept: its caption sits in Table 1 (S4.T2), kept as part of it",
    ) in warnings
    assert any("2 tables print the number 1" in m for _, m in warnings)
    # The algorithm and listing floats are in the log, not among the problems.
    notes = run.events.filter(kind="parse", level="info").values_list("message", flat=True)
    assert "Listing 1 (LST1) skipped: a listing, neither a table nor a chart" in notes
    counts = run.counts()
    assert (counts["floats_lost"], counts["papers_with_lost_floats"]) == (1, 1)
    assert counts["floats_skipped"] == 3
    ieee = Paper.objects.get(arxiv_id="2410.17342")
    assert list(ieee.elements.filter(kind="table").values_list("number", flat=True)) == [
        "I",
        "II",
        "III",
        "IV",
    ]
    assert ieee.license_name == "CC BY 4.0"  # from the abstract page, as every crawl reads it
