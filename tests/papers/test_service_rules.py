"""The rules papers' services ask before they write (issue 46), each a pure function tested
without a database: what an import keeps and reports, how the paper's row describes it, when a
crawl fetches a paper again, when a re-parse revives a rejected paper, which stale sections a
re-parse keeps, and the reading order after it."""

from __future__ import annotations

from datetime import UTC, datetime

from papers.assets import PanelImage
from papers.crawl.fetch_phase import fetch_again
from papers.importing import KeptImages, StoredPage, describe_import, import_result, kept_images
from papers.models import Paper
from papers.parsing import Element as ParsedElement
from papers.parsing import FloatLoss, Panel, ParsedPaper
from papers.parsing import Section as ParsedSection
from papers.parsing.document import Cell
from papers.reparse import merged_order, reparse_revives
from papers.reparse_plan import staying_sections

PNG = PanelImage(b"png", 10, 10)


def _parsed() -> ParsedPaper:
    """A paper with one paragraph, a drawn table, an image table and two charts."""
    section = ParsedSection("S1", "1", "Intro", 1, None, 0, "section")
    return ParsedPaper(
        title="A paper",
        sections=[section],
        elements=[
            ParsedElement("paragraph", "S1.p1", "S1", 0, text="See Table 1.", refs=["S1.T1"]),
            ParsedElement("table", "S1.T1", "S1", 1, label="Table 1", grids=[[[Cell("a")]]]),
            ParsedElement("table", "S1.T2", "S1", 2, label="Table 2", panels=[Panel("t.png", "")]),
            ParsedElement("chart", "S1.F1", "S1", 3, label="Figure 1", panels=[Panel("a.png", "")]),
            ParsedElement("chart", "S1.F2", "S1", 4, label="Figure 2", panels=[Panel("b.png", "")]),
        ],
        base_url="",
        warnings=["Table 9 not kept", "Algorithm 1 (S1.A1) skipped: an algorithm", "alert"],
        losses=[
            FloatLoss("Table 9", "", "no table", "lost"),
            FloatLoss("Algorithm 1", "S1.A1", "an algorithm", "skipped"),
        ],
        duplicates={("table", "3"): ["S1.T3", "S2.T3"]},
    )


def test_below_the_minimums_no_image_is_read_and_the_parse_counts():
    kept = kept_images(_parsed(), None, [], (3, None))
    assert (kept.tables, kept.charts, kept.panel_files, kept.problems) == (2, 2, {}, [])
    assert kept.rejection == "2 tables (fewer than 3)"


def test_only_what_is_kept_with_an_image_counts_and_the_rest_is_a_problem():
    kept = kept_images(_parsed(), {("S1.F1", 0): PNG}, [], (2, 2))
    assert (kept.tables, kept.charts) == (1, 1)  # Table 1 is drawn from its cells
    assert kept.rejection == (
        "1 tables with an image (fewer than 2); 1 charts with an image (fewer than 2)"
    )
    assert [p.split(":")[0] for p in kept.problems] == ["Table 2", "Figure 2"]
    assert "MIN_TABLES" in kept.problems[0] and "MIN_CHARTS" in kept.problems[1]


def test_a_paper_with_every_image_is_not_rejected():
    files = {(anchor, 0): PNG for anchor in ("S1.T2", "S1.F1", "S1.F2")}
    kept = kept_images(_parsed(), files, [], (2, 2))
    assert (kept.tables, kept.charts, kept.rejection, kept.problems) == (2, 2, "", [])


def test_the_import_result_keeps_skipped_floats_as_notes_not_warnings():
    parsed = _parsed()
    paper = Paper(arxiv_id="2401.00001", version=1, status=Paper.Status.PARSED, degraded_count=0)
    result = import_result(paper, parsed, KeptImages({}, ["no image"], 2, 1, ""))
    assert result.warnings == ["Table 9 not kept", "alert"]
    assert result.notes == ["Algorithm 1 (S1.A1) skipped: an algorithm"]
    assert (result.sections, result.paragraphs, result.tables, result.charts) == (1, 1, 2, 1)
    assert (result.lost, result.skipped, result.duplicates) == (1, 1, 1)
    assert result.images == "skipped" and result.problems == ["no image"]


def test_the_paper_row_describes_the_import_it_keeps():
    parsed = _parsed()
    paper = Paper(arxiv_id="2401.00001", version=1, title="Kept title", html_url="https://x/")
    fetched = datetime(2026, 1, 1, tzinfo=UTC)
    page = StoredPage(b"<html/>", "saved/page.html", fetched, licence_from_page=True)
    describe_import(paper, parsed, page, KeptImages({}, ["no image"], 1, 0, "1 charts"))
    assert paper.title == "Kept title"  # a stored title is not replaced by the page's
    assert paper.html_url == "https://x/"  # a saved page's path is no address
    assert (paper.status, paper.status_reason) == (Paper.Status.REJECTED, "1 charts")
    assert paper.parse_warnings == [*parsed.warnings, "no image"]
    assert (paper.table_count, paper.chart_count, paper.paragraph_count) == (1, 0, 1)
    assert (paper.lost_count, paper.skipped_count) == (1, 1)
    assert paper.images_status == Paper.ImagesStatus.NONE
    page = StoredPage(b"<html/>", "https://arxiv.org/html/x", fetched, licence_from_page=False)
    describe_import(paper, parsed, page, KeptImages({}, [], 2, 2, ""))
    assert (paper.html_url, paper.status) == ("https://arxiv.org/html/x", Paper.Status.PARSED)


def test_a_crawl_fetches_a_found_paper_and_retries_only_what_it_was_asked_to_once():
    found, failed, rejected, parsed = (
        Paper.Status.FOUND,
        Paper.Status.FAILED,
        Paper.Status.REJECTED,
        Paper.Status.PARSED,
    )
    plain = {"retry_failed": False, "keep_all": False}
    assert fetch_again(found, **plain, attempted=False)
    assert fetch_again(found, **plain, attempted=True)  # a killed session's try: again
    assert not fetch_again(failed, **plain, attempted=False)
    assert fetch_again(failed, retry_failed=True, keep_all=False, attempted=False)
    assert not fetch_again(failed, retry_failed=True, keep_all=False, attempted=True)
    assert not fetch_again(rejected, **plain, attempted=False)
    assert fetch_again(rejected, retry_failed=False, keep_all=True, attempted=False)
    assert not fetch_again(parsed, retry_failed=True, keep_all=True, attempted=False)


def test_a_reparse_revives_a_rejected_paper_only_when_it_now_reaches_the_minimums():
    rejected = Paper.Status.REJECTED
    assert reparse_revives(rejected, 2, 1, (2, 1))
    assert not reparse_revives(rejected, 1, 1, (2, 1))
    assert not reparse_revives(rejected, 5, 5, (None, None))  # no minimums: nothing said
    assert not reparse_revives(Paper.Status.PARSED, 5, 5, (1, 1))
    assert reparse_revives(rejected, 0, 3, (None, 2))


def test_a_stale_section_stays_while_it_holds_what_stays_and_so_do_its_stale_ancestors():
    # Stale sections 1 > 2 > 3 (and 4 alone); section 3 holds a cited element.
    stale = {1: None, 2: 1, 3: 2, 4: None}
    assert staying_sections(stale, {}, {3}) == {1, 2, 3}
    assert staying_sections(stale, {}, set()) == set()
    # A kept section (10) still under stale section 4 keeps it; a non-stale pk held is ignored.
    assert staying_sections(stale, {10: 4}, {99}) == {4}


def test_the_reading_order_places_each_kept_stale_row_after_its_old_neighbour():
    old = ["a", "x", "b", "y", "c"]
    assert merged_order(["a", "b", "c", "n"], old, {"x", "y"}) == ["a", "x", "b", "y", "c", "n"]
    assert merged_order(["b"], ["x", "b"], {"x"}) == ["x", "b"]  # first: before everything
    assert merged_order(["c", "a"], old, set()) == ["c", "a"]
