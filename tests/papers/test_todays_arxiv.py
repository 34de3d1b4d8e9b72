"""arXiv's pages as served in 2026 (LaTeXML oxide beside classic LaTeXML): boxes are text, the
generator is recorded, truncation is judged by the document, appendix matter stays appendix,
the version comes from the page, and every numbered float is kept or warned with what was found
(issue 35). The pages in tests/papers/pages/ are written by hand from ARXIV_HTML.md's facts."""

from __future__ import annotations

import re
import shutil
from datetime import date
from io import StringIO
from pathlib import Path

import lxml.etree
import pytest
from django.core.management import call_command
from django.urls import reverse

from annotation.curation.rules import proposed_for_removal
from papers.models import CrawlItem, CrawlRun, Paper
from papers.parsing import ParseError, parse_paper
from tests.factories import AdminFactory

PAGES = Path(__file__).resolve().parent / "pages"
CORPUS = Path(__file__).resolve().parents[2] / "papers" / "corpus"
OXIDE, CLASSIC, REVTEX = (
    PAGES / n for n in ("oxide-boxes", "classic-trailer", "revtex-supplement")
)
FIXTURE_PAGES = sorted(
    [*PAGES.iterdir(), *(p for p in CORPUS.iterdir() if (p / "paper.html").is_file())]
)

# The reasons a parse warning may give for a numbered table or figure it did not keep.
REASONS = (
    "a text box, not a ",
    "its graphic is an <object>",
    "its graphic is an <embed>",
    "a listing, not a ",
    "a figure with nothing in it",
    "a figure without images (text or markup)",
    "a table with neither cells nor an image",
    "neither a table nor a chart",
    "holds no number the parser reads",
    "kept as part of it",
    "inside the bibliography",
    "inside a footnote or note",
    "inside a heading",
    "inside an equation",
    "outside any table or figure float",
)
_TAG_CLASS = re.compile(r"\bltx_tag_(table|figure)\b")
_PANEL_TAG = re.compile(r"\(\w{1,3}\)")


def import_page(folder: Path, *args: str) -> str:
    out = StringIO()
    call_command(
        "import_arxiv_html", str(folder), "--images", "none", *args, stdout=out, stderr=out
    )
    return out.getvalue()


def caption_tags(html: bytes) -> list[str]:
    """Every numbered table or figure caption tag of the article, read without the parser:
    `Figure 3`, `TABLE S1` (sub-figure tags like `(a)` and page chrome left out)."""
    root = lxml.etree.fromstring(html, lxml.etree.HTMLParser(encoding="utf-8"))
    tags = []
    for span in root.iter("span"):
        if not _TAG_CLASS.search(span.get("class") or ""):
            continue
        if any(a.tag in ("nav", "footer", "a") for a in span.iterancestors()):
            continue
        text = " ".join("".join(span.itertext()).split()).rstrip(":. ")
        if text and not _PANEL_TAG.fullmatch(text):
            tags.append(text)
    return tags


@pytest.mark.django_db
@pytest.mark.parametrize("folder", FIXTURE_PAGES, ids=lambda p: p.name)
def test_every_numbered_float_is_kept_or_warned_with_its_tag_and_a_reason(folder):
    import_page(folder)
    paper = Paper.objects.latest("pk")
    labels = set(paper.elements.values_list("label", flat=True))
    tags = caption_tags((folder / "paper.html").read_bytes())
    assert tags, f"{folder.name}: a fixture page without numbered floats tests nothing"
    for tag in tags:
        if tag in labels:
            continue
        said = [w for w in paper.parse_warnings if w.startswith(f"{tag} ")]
        assert said, f"{folder.name}: {tag} is neither kept nor warned about"
        assert any(reason in w for w in said for reason in REASONS), (folder.name, said)


# -- boxes are text ---------------------------------------------------------------------------


def test_a_paragraph_holding_only_a_drawn_box_is_a_paragraph_with_or_without_oxides_spans():
    oxide = parse_paper((OXIDE / "paper.html").read_bytes())
    texts = {e.anchor: e.text for e in oxide.paragraphs()}
    # oxide's foreignObject > ltx_foreignobject_container > ltx_foreignobject_content
    assert texts["S1.p2"] == (
        "Takeaway 1. Prompted evaluators agree with experts on short answers but drift apart "
        "on long ones, whatever the model size."
    )
    # the classic shape: the paragraph straight inside the foreignObject
    assert texts["S2.p2"] == "Takeaway 2. Cheaper evaluators cost less and agree less."
    classic = parse_paper((CLASSIC / "paper.html").read_bytes())
    assert [e.text for e in classic.paragraphs() if e.anchor == "S1.p2"] == [
        "Budgets beyond 200 passages buy less than one point of recall."
    ]


def test_a_numbered_figure_that_is_only_a_box_is_said_to_be_a_text_box():
    parsed = parse_paper((OXIDE / "paper.html").read_bytes())
    assert "S2.F3" not in {e.anchor for e in parsed.elements}
    assert "Figure 3 (S2.F3) not kept: a text box, not a chart" in parsed.warnings


def test_a_drawing_with_short_labels_is_still_a_chart():
    labels = "".join(
        f'<g transform="translate({x},0)"><foreignObject width="40" height="12">'
        f'<span class="ltx_foreignobject_container"><span class="ltx_foreignobject_content">'
        f"{word}</span></span></foreignObject></g>"
        for x, word in ((0, "Encoder"), (60, "Decoder"), (120, "Loss"), (180, "Output"))
    )
    html = (
        (OXIDE / "paper.html")
        .read_bytes()
        .replace(
            b'<figure id="S2.F6" class="ltx_figure">',
            b'<figure id="S2.F6" class="ltx_figure"><svg class="ltx_picture" width="240" '
            b'height="20"><path d="M 0 0 L 240 0"></path>' + labels.encode() + b"</svg>",
        )
    )
    parsed = parse_paper(html)
    chart = next(e for e in parsed.charts() if e.anchor == "S2.F6")
    assert len(chart.panels) == 1 and chart.panels[0].svg.startswith("<svg")


# -- every lost float says what was found -----------------------------------------------------


def test_each_lost_figure_says_what_it_holds_instead_of_an_image():
    parsed = parse_paper((OXIDE / "paper.html").read_bytes())
    assert [w for w in parsed.warnings if "not kept" in w] == [
        "Figure 3 (S2.F3) not kept: a text box, not a chart",
        "Figure 5 (S2.F5) not kept: a listing, not a chart",
        "Figure 6 (S2.F6) not kept: a figure with nothing in it (no image, drawing, box or text)",
    ]
    assert [e.label for e in parsed.tables()] == ["Table 1", "Table 2"]
    assert [(e.label, len(e.panels)) for e in parsed.charts()] == [
        ("Figure 1", 1),
        ("Figure 2", 2),
        ("Figure 4", 1),  # its graphic is an <object>: a vector panel (issue 39)
    ]
    vector = parsed.charts()[2].panels[0]
    assert (vector.src, vector.svg) == ("2410.00260v2/latex/fig4.svg", "")


def test_an_object_without_a_file_still_says_what_it_is():
    html = (OXIDE / "paper.html").read_bytes().replace(b'data="2410.00260v2/latex/fig4.svg" ', b"")
    parsed = parse_paper(html)
    assert (
        "Figure 4 (S2.F4) not kept: its graphic is an <object> (image/svg+xml, no file named), "
        "which the parser does not keep"
    ) in parsed.warnings


def test_a_table_float_holding_an_embed_is_an_image_table_of_that_file():
    html = (CLASSIC / "paper.html").read_bytes()
    cut = html.index(b'<table id="S1.T2.1"')
    html = (
        html[:cut]
        + b'<embed type="image/svg+xml" src="2409.20001v3/latency.svg"/>'
        + html[html.index(b"</table>", cut) + len(b"</table>") :]
    )
    parsed = parse_paper(html)
    table = next(e for e in parsed.tables() if e.anchor == "S1.T2")
    assert table.is_image_table
    assert [p.src for p in table.panels] == ["2409.20001v3/latency.svg"]


# -- the generator --------------------------------------------------------------------------


@pytest.mark.django_db
def test_the_generator_is_recorded_from_either_stamp_and_shown_and_counted(client):
    for folder in (OXIDE, CLASSIC, REVTEX):
        import_page(folder)
    oxide = Paper.objects.get(arxiv_id="2410.00260")
    assert (oxide.generator_name, oxide.generator_version, oxide.generator_date) == (
        "LaTeXML oxide",
        "0.7.6",
        None,
    )
    assert oxide.generator.startswith("Generated by LaTeXML oxide (version 0.7.6)")
    classic = Paper.objects.get(arxiv_id="2409.20001")
    assert (classic.generator_name, classic.generator_version, classic.generator_date) == (
        "LaTeXML",
        "0.8.8",
        date(2026, 7, 5),
    )
    revtex = Paper.objects.get(arxiv_id="2411.04321")
    assert (revtex.generator, revtex.generator_name, revtex.generator_date) == ("", "", None)

    admin = AdminFactory()
    client.force_login(admin)
    pages = {
        p.arxiv_id: client.get(
            reverse("papers:detail", args=[p.arxiv_id, p.version])
        ).content.decode()
        for p in (oxide, classic, revtex)
    }
    assert "page made by LaTeXML oxide 0.7.6<" in pages["2410.00260"]
    assert "page made by LaTeXML 0.8.8 (2026-07-05)<" in pages["2409.20001"]
    assert "the page names no generator" in pages["2411.04321"]

    run = CrawlRun.objects.create(date_from=date(2024, 10, 1), date_to=date(2024, 10, 2))
    for paper in (oxide, classic, revtex):
        CrawlItem.objects.create(run=run, paper=paper, outcome=CrawlItem.Outcome.KEPT)
    assert run.counts()["generators"] == {
        "no generator stamp": 1,
        "LaTeXML 0.8.8": 1,
        "LaTeXML oxide 0.7.6": 1,
    }
    html = client.get(reverse("crawl:detail", args=[run.pk])).content.decode()
    assert "Pages made by: no generator stamp 1, LaTeXML 0.8.8 1, LaTeXML oxide 0.7.6 1" in html


# -- truncation -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "trailer",
    [b"<!-- Saved by a browser extension -->", b"{% endblock content %}\n", b"\n\n<p>x</p>\x00"],
    ids=["comment", "template-tag", "markup-and-nul"],
)
def test_what_follows_the_html_element_is_no_truncation(trailer):
    html = (CLASSIC / "paper.html").read_bytes()
    html = html[: html.rindex(b"</html>") + len(b"</html>")] + trailer
    assert [e.label for e in parse_paper(html).tables()] == ["Table 1", "Table 2"]


@pytest.mark.parametrize(
    ("cut_before", "reason"),
    [
        (b"</body>", "truncated page: the body element is never closed"),
        (b"</article>", "truncated page: article.ltx_document is never closed"),
        (b'<figure id="S1.F2"', "truncated page: article.ltx_document is never closed"),
    ],
)
def test_a_page_cut_short_is_refused_as_truncated_even_with_a_trailer(cut_before, reason):
    html = (CLASSIC / "paper.html").read_bytes()
    # Cut, then a trailer that ends like a whole page: the document itself is what counts.
    cut = html[: html.index(cut_before)] + b"\n</html>\n<!-- saved -->"
    with pytest.raises(ParseError) as caught:
        parse_paper(cut)
    assert caught.value.reason == reason


# -- appendix matter ------------------------------------------------------------------------


@pytest.mark.django_db
def test_a_supplement_beside_an_empty_appendix_heading_is_appendix_and_proposed_for_removal():
    import_page(REVTEX)
    paper = Paper.objects.get(arxiv_id="2411.04321")
    kinds = dict(paper.sections.values_list("anchor", "kind"))
    assert kinds == {
        "abstract": "abstract",
        "S1": "body",
        "S2": "body",
        "ack": "acknowledgments",
        "bib": "references",
        "A1": "appendix",
        "S3": "appendix",
        "S3.SS1": "appendix",
        "S4": "appendix",
    }
    proposed = {a for a, kind in kinds.items() if proposed_for_removal(kind)}
    assert {"S3", "S3.SS1", "S4"} <= proposed and not {"S1", "S2"} & proposed
    # Its tables and figures stay elements (of the appendix): curation decides, not the parser.
    assert list(
        paper.elements.exclude(kind="paragraph")
        .filter(section__kind="appendix")
        .values_list("label", flat=True)
    ) == ["TABLE S1", "FIG. S1"]


def test_an_appendix_heading_with_content_does_not_make_later_sections_appendix():
    html = (
        (REVTEX / "paper.html")
        .read_bytes()
        .replace(
            b'<h2 class="ltx_title ltx_title_appendix">Appendix</h2>\n</section>',
            b'<h2 class="ltx_title ltx_title_appendix">Appendix</h2><div class="ltx_para" id="A1.p1">'
            b'<p class="ltx_p">Proofs.</p></div>\n</section>',
        )
    )
    kinds = {s.anchor: s.kind for s in parse_paper(html).sections}
    assert (kinds["A1"], kinds["S3"], kinds["S4"]) == ("appendix", "body", "body")


# -- the version ----------------------------------------------------------------------------


@pytest.mark.django_db
def test_the_version_comes_from_the_page_when_none_is_given(tmp_path):
    folder = shutil.copytree(OXIDE, tmp_path / "download")
    output = import_page(folder, "--arxiv-id", "2410.00260")
    paper = Paper.objects.get(arxiv_id="2410.00260")
    assert paper.version == 2
    assert "version v2 read from the page's own image paths and links" in output
    # Without any id at all, the page names both.
    Paper.objects.all().delete()
    import_page(folder)
    assert list(Paper.objects.values_list("arxiv_id", "version")) == [("2410.00260", 2)]


@pytest.mark.django_db
def test_a_given_version_the_page_contradicts_is_stored_as_given_and_warned(tmp_path):
    folder = shutil.copytree(OXIDE, tmp_path / "2410.00260v1")
    output = import_page(folder)
    assert list(Paper.objects.values_list("arxiv_id", "version")) == [("2410.00260", 1)]
    assert (
        "the page's own image paths and links name v2, but the name '2410.00260v1' says v1: "
        "stored as v1, as given (check that it is right)"
    ) in output


@pytest.mark.django_db
def test_a_page_that_names_no_version_is_stored_as_v1_and_says_so(tmp_path):
    folder = tmp_path / "page"
    folder.mkdir()
    html = (CLASSIC / "paper.html").read_bytes().replace(b"2409.20001v3/", b"")
    html = html.replace(b"https://arxiv.org/html/2409.20001v3#", b"#")
    (folder / "paper.html").write_bytes(html)
    for image in CLASSIC.glob("*.png"):
        shutil.copy(image, folder)
    output = import_page(folder, "--arxiv-id", "2409.20001")
    assert list(Paper.objects.values_list("arxiv_id", "version")) == [("2409.20001", 1)]
    assert "no version given and the page names none: stored as v1" in output


# -- reparse_papers applies the new rules to stored papers ------------------------------------


@pytest.mark.django_db
def test_reparse_papers_applies_the_new_rules_and_prints_what_changed_per_paper():
    for folder in (OXIDE, REVTEX):
        import_page(folder)
    oxide = Paper.objects.get(arxiv_id="2410.00260")
    revtex = Paper.objects.get(arxiv_id="2411.04321")
    # What the earlier parser stored: no box paragraphs, no generator read, supplement as body.
    oxide.elements.filter(anchor__in=["S1.p2", "S2.p2"]).delete()
    Paper.objects.filter(pk=oxide.pk).update(generator_name="", generator_version="")
    revtex.sections.filter(anchor__in=["S3", "S3.SS1", "S4"]).update(kind="body")

    out = StringIO()
    call_command("reparse_papers", str(oxide.pk), str(revtex.pk), "--images", "none", stdout=out)
    lines = out.getvalue().splitlines()
    oxide_at = next(i for i, line in enumerate(lines) if line.startswith("2410.00260v2"))
    revtex_at = next(i for i, line in enumerate(lines) if line.startswith("2411.04321v1"))
    oxide_lines = lines[oxide_at:revtex_at] if oxide_at < revtex_at else lines[oxide_at:]
    revtex_lines = lines[revtex_at:oxide_at] if revtex_at < oxide_at else lines[revtex_at:]
    assert "added 2," in oxide_lines[0]
    assert "  + 2 paragraphs (S1.p2 … S2.p2)" in oxide_lines
    assert "  generator: none read -> LaTeXML oxide 0.7.6" in oxide_lines
    assert (
        "  ~ sections: S3 (kind body -> appendix), S3.SS1 (kind body -> appendix), "
        "S4 (kind body -> appendix)"
    ) in revtex_lines

    oxide.refresh_from_db()
    assert oxide.generator_label == "LaTeXML oxide 0.7.6"
    assert set(
        oxide.elements.filter(anchor__in=["S1.p2", "S2.p2"]).values_list("kind", flat=True)
    ) == {"paragraph"}
    assert set(
        revtex.sections.filter(anchor__in=["S3", "S3.SS1", "S4"]).values_list("kind", flat=True)
    ) == {"appendix"}
