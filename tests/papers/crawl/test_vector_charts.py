"""Vector figures are charts (issue 39): a page of today's arXiv whose Figure 4 is
`<object type="image/svg+xml" data="…/fig4.svg">`, served by the stand-in arXiv with its SVG.

The crawler fetches the SVG through the polite session, makes it inert, and Chromium draws it
into the chart's PNG; without Chromium the chart is kept as SVG only and still counts. Malicious
SVGs are made inert (what was removed is said) or refused within budget."""

from __future__ import annotations

import io
from datetime import UTC, datetime
from pathlib import Path

import pytest
from django.contrib.auth.models import User
from django.core.management import call_command
from django.test import Client
from django.urls import reverse
from PIL import Image

from annotation.views.common import element_image
from papers.models import CrawlEvent, Element, Paper
from tests.standin import StandInPaper
from validation.export.refusals import no_image
from validation.export.rows import ELEMENT_FIELDS, ReleaseElement

pytestmark = pytest.mark.django_db

PAGE = Path(__file__).resolve().parents[1] / "pages" / "oxide-boxes"
SVG_PATH = "latex/fig4.svg"
SVG = b'<svg xmlns="http://www.w3.org/2000/svg" width="40" height="30" viewBox="0 0 40 30"'


def served(svg: bytes | None = None) -> StandInPaper:
    assets = {
        p.relative_to(PAGE).as_posix(): p.read_bytes()
        for p in PAGE.rglob("*")
        if p.suffix in (".png", ".svg")
    }
    if svg is not None:
        assets[SVG_PATH] = svg
    return StandInPaper(
        arxiv_id="2410.00260",
        version=2,
        title="Evaluators",
        published=datetime(2024, 10, 1, 12, 0, tzinfo=UTC),
        html=(PAGE / "paper.html").read_bytes(),
        assets=assets,
    )


def crawl(images: str) -> str:
    out = io.StringIO()
    call_command(
        "crawl_arxiv",
        *("--ids", "2410.00260", "--images", images, "--no-progress"),
        stdout=out,
        stderr=io.StringIO(),
    )
    return out.getvalue()


def figure_4() -> Element:
    return Paper.objects.get(arxiv_id="2410.00260").elements.get(anchor="S2.F4")


def said() -> list[str]:
    return list(CrawlEvent.objects.filter(paper="2410.00260v2").values_list("message", flat=True))


@pytest.mark.browser
def test_a_vector_chart_is_fetched_made_inert_and_drawn(
    arxiv_settings, standin, settings, chromium_path, tmp_path
):
    settings.USE_CHROMIUM, settings.CHROMIUM_PATH = True, chromium_path
    settings.MEDIA_ROOT = tmp_path / "media"
    standin.add_paper(served())

    report = crawl("now")
    assert "kept 1" in report
    assert "vector charts: 1 kept (0 not drawn: SVG only, render_images draws them), 0 vector" in (
        report
    )

    paper = Paper.objects.get(arxiv_id="2410.00260")
    assert (paper.table_count, paper.chart_count) == (2, 3)
    chart = figure_4()
    assert chart.image_renderer == Element.Renderer.SOURCE_IMAGE and chart.image
    panel = chart.panels.get()
    assert panel.svg.startswith("<svg") and "Calibration of the evaluators" in panel.svg
    assert "metadata" not in panel.svg and "<!DOCTYPE" not in panel.svg
    with Image.open(chart.image.path) as drawn:
        assert drawn.width >= 400 and drawn.height >= 250
        colours = {c for _, c in drawn.convert("RGB").getcolors(maxcolors=1 << 20)}
    assert (31, 119, 180) in colours or any(b > 150 > r for r, _, b in colours)  # the blue line
    fetched = [r for r in standin.log if r.path.endswith(SVG_PATH)]
    assert [r.status for r in fetched] == [200]  # once, through the polite session
    assert not any("SVG made inert" in m for m in said())  # a plain plot: nothing to say


def test_without_chromium_a_vector_chart_is_kept_as_svg_and_counts(
    arxiv_settings, standin, settings, tmp_path
):
    settings.USE_CHROMIUM = False
    settings.MEDIA_ROOT = tmp_path / "media"
    standin.add_paper(served())
    assert "vector charts: 1 kept (1 not drawn" in crawl("now")
    paper = Paper.objects.get(arxiv_id="2410.00260")
    assert paper.chart_count == 3
    chart = figure_4()
    assert chart.image_renderer == Element.Renderer.SVG_ONLY and not chart.image
    assert "Chromium unavailable" in chart.image_error
    assert chart.panels.get().svg.startswith("<svg")

    # Pages show the chart's inert SVG file as an <img>, never its markup inline.
    assert chart.vector.name.endswith("S2.F4.svg")
    kept = Path(chart.vector.path).read_text()
    assert kept.startswith("<svg") and "Calibration of the evaluators" in kept
    admin = User.objects.create_superuser("root", password="pw-12345678")
    client = Client()
    client.force_login(admin)
    page = client.get(reverse("papers:detail", args=["2410.00260", 2])).content.decode()
    assert f'<img src="{chart.vector.url}"' in page
    assert "Calibration of the evaluators</text>" not in page  # the drawing is not inline
    served_file = client.get(chart.vector.url)
    assert served_file["Content-Type"] == "image/svg+xml"
    assert "sandbox" in served_file["Content-Security-Policy"]
    assert b"".join(served_file.streaming_content).decode() == kept
    # A work item's image route (the blind stages') serves the same file, under the same policy.
    shown = element_image(paper_id=paper.pk, element_id=chart.pk)
    assert (
        shown["Content-Type"] == "image/svg+xml" and "sandbox" in shown["Content-Security-Policy"]
    )
    # The release refuses it, naming the chart and the command that draws it.
    row = Element.objects.filter(pk=chart.pk).values_list(*ELEMENT_FIELDS).get()
    refusal = no_image(ReleaseElement.from_row(row), "2410.00260")
    assert "Figure 4" in refusal and "render_images 2410.00260v2" in refusal, refusal


MALICIOUS = [
    (
        "script",
        SVG + b'><script>fetch("http://127.0.0.1:9/x")</script><path d="M0 0 L9 9"/></svg>',
        "SVG made inert before drawing: removed 1 scripts",
    ),
    (
        "onload",
        SVG + b' onload="alert(1)"><rect width="9" height="9" onclick="x()"/></svg>',
        "removed 2 event handlers",
    ),
    (
        "refresh",
        SVG + b'><foreignObject width="9" height="9"><meta xmlns="http://www.w3.org/1999/xhtml"'
        b' http-equiv="refresh" content="0;url=http://127.0.0.1:9/"/></foreignObject></svg>',
        "removed 1 foreignObjects",
    ),
    (
        "external",
        SVG + b'><image href="http://127.0.0.1:9/a.png" width="9" height="9"/>'
        b'<rect width="9" height="9" fill="url(http://127.0.0.1:9/p)"/></svg>',
        "removed 1 outside images, 2 outside references",
    ),
    (
        "canvas",
        b'<svg xmlns="http://www.w3.org/2000/svg" width="50000" height="50000"/>',
        "SVG not drawn: the SVG's canvas is 50,000 × 50,000 px",
    ),
    (
        "entities",
        b'<?xml version="1.0"?><!DOCTYPE svg [<!ENTITY a "aaaaaaaaaa">'
        b'<!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;">]>'
        b'<svg xmlns="http://www.w3.org/2000/svg"><text>&b;</text></svg>',
        "SVG not drawn: the SVG declares entities",
    ),
    (
        "nodes",
        SVG + b'><path d="M0 0 ' + b"L1 1 " * 600_000 + b'"/></svg>',
        "SVG not drawn: the SVG has over 500,000 path nodes",
    ),
]


@pytest.mark.parametrize("name, svg, words", MALICIOUS, ids=[m[0] for m in MALICIOUS])
def test_a_malicious_vector_graphic_is_made_inert_or_refused(
    arxiv_settings, standin, settings, tmp_path, name, svg, words
):
    settings.USE_CHROMIUM = False  # what Chromium may meet is checked before it would draw
    settings.MEDIA_ROOT = tmp_path / "media"
    standin.add_paper(served(svg))
    report = crawl("now")  # no Chromium: the chart's inert SVG is what pages would show
    assert any(words in m for m in said()), said()
    refused = int("not drawn" in words)
    assert f"vector charts: {1 - refused} kept" in report
    assert f"{refused} vector files refused" in report
    panel = figure_4().panels.get()
    if "not drawn" in words:
        assert panel.svg == "" and words.removeprefix("SVG not drawn: ") in panel.error
        assert Paper.objects.get(arxiv_id="2410.00260").chart_count == 2  # it does not count
    else:
        shown = Path(figure_4().vector.path).read_text()
        for kept in (panel.svg.lower(), shown.lower()):
            for bad in ("<script", "onload", "onclick", "foreignobject", "127.0.0.1", "refresh"):
                assert bad not in kept, (name, kept)
        assert Paper.objects.get(arxiv_id="2410.00260").chart_count == 3


def test_a_saved_page_reads_its_vector_graphic_from_its_folder(settings, tmp_path):
    settings.MEDIA_ROOT = tmp_path / "media"
    call_command(
        "import_arxiv_html",
        str(PAGE),
        "--images",
        "none",
        stdout=io.StringIO(),
        stderr=io.StringIO(),
    )
    panel = figure_4().panels.get()
    assert panel.svg.startswith("<svg") and panel.source_url.endswith("latex/fig4.svg")
    assert Paper.objects.get(arxiv_id="2410.00260").chart_count == 3


@pytest.mark.browser
def test_a_reparse_fetches_the_vector_graphic_an_earlier_parse_lost(
    arxiv_settings, standin, settings, chromium_path, tmp_path
):
    """A paper crawled before vector figures were charts has no Figure 4: `reparse_papers
    --fetch-images` adds it, fetching only its SVG (politely), and draws it."""
    settings.USE_CHROMIUM, settings.CHROMIUM_PATH = True, chromium_path
    settings.MEDIA_ROOT = tmp_path / "media"
    standin.add_paper(served())
    crawl("now")
    paper = Paper.objects.get(arxiv_id="2410.00260")
    figure_4().delete()  # as the parser before issue 39 left the paper
    Paper.objects.filter(pk=paper.pk).update(chart_count=2)
    before = len(standin.log)

    out = io.StringIO()
    call_command("reparse_papers", str(paper.pk), "--fetch-images", stdout=out)

    said = out.getvalue()
    assert "added 1," in said and "+ Figure 4 (S2.F4)" in said, said
    assert "vector graphics fetched and made inert, to be drawn: Figure 4" in said
    assert [r.path for r in standin.log[before:]] == [f"/html/2410.00260v2/{SVG_PATH}"]
    chart = figure_4()
    assert chart.image_renderer == Element.Renderer.SOURCE_IMAGE and chart.image
    assert chart.panels.get().svg.startswith("<svg")
    assert Paper.objects.get(pk=paper.pk).chart_count == 3


@pytest.mark.browser
def test_a_crawled_vector_chart_is_released_as_its_png(
    arxiv_settings, standin, settings, chromium_path, tmp_path
):
    """The whole way: crawled, drawn by Chromium, curated, sampled for a claim task, written,
    annotated, validated, split and exported: the release's image of Figure 4 is its PNG."""
    from annotation.assignment import services as assignment_services
    from annotation.curation import services as curation_services
    from annotation.queue import work
    from annotation.writing import services as writing
    from annotation.writing.sampling import sample_elements
    from papers.models import Section
    from tests.annotation.claim_factories import submit
    from tests.validation.factories import Team, second_annotate, validate_all
    from validation.export import services as export_services
    from validation.release.records import image_name
    from validation.split import services as split_services

    settings.USE_CHROMIUM, settings.CHROMIUM_PATH = True, chromium_path
    settings.MEDIA_ROOT, settings.RELEASE_DIR = tmp_path / "media", tmp_path / "releases"
    standin.add_paper(served())
    crawl("now")
    paper = Paper.objects.get(arxiv_id="2410.00260")
    chart = figure_4()
    assert chart.image.name.endswith(".png") and chart.vector.name.endswith(".svg")

    team = Team()
    curation_services.save_curated_context(
        paper=paper,
        user=team.admin,
        kept_section_ids=set(
            Section.objects.filter(paper=paper, kind__in=["body", "abstract"]).values_list(
                "pk", flat=True
            )
        ),
        kept_element_ids=set(paper.elements.values_list("pk", flat=True)),
        not_chart_ids=(),
        latest_seen=None,
    )
    assignment_services.assign_papers(papers=[paper], experts=[team.writer], assigned_by=team.admin)
    candidates = sorted(
        paper.elements.filter(kind__in=["table", "chart"]).values_list("pk", flat=True)
    )
    seed = next(s for s in range(200) if chart.pk in sample_elements(candidates, k=3, seed=s))
    writing.create_claim_tasks(paper=paper, by=team.writer, count=1, seed=seed)
    pair = submit(work.next_item(user=team.writer, kind="write"), team.writer)
    from annotation.review import services as review

    for annotator in (team.second, team.third):
        try:
            taken = review.take_next(user=annotator, kind="evidence")
        except work.NothingToDo:
            annotator = team.second
            taken = review.take_next(user=annotator, kind="evidence")
        evidence = list(taken.claim.evidence.values_list("pk", flat=True))
        second_annotate(taken, annotator, label=taken.claim.label, evidence=evidence)
    assert validate_all(team) == 2
    frozen = split_services.freeze_split(validation=2, test=0, seed=1, name="vector")
    out = tmp_path / "SciVer"
    export_services.export_release(split=frozen, out=str(out))

    released = out / image_name(paper.arxiv_id, "chart", chart.number)
    assert released.is_file(), sorted(p.name for p in (out / "images").rglob("*"))[:20]
    assert released.read_bytes() == Path(chart.image.path).read_bytes()  # the PNG, not the SVG
    assert pair.claims.count() == 2
