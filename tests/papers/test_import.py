"""Importing saved pages: atomic, idempotent, complete (sections, elements, images, references)."""

from __future__ import annotations

import shutil
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command
from PIL import Image

from papers.assets import FolderAssets
from papers.importing import PaperImportError, import_paper
from papers.local_pages import locate_page
from papers.models import Element, ElementPanel, Paper, Section
from papers.parsing import parse_paper

CORPUS = Path(__file__).resolve().parents[2] / "papers" / "corpus"
PAGES = sorted(p.parent for p in CORPUS.glob("*/paper.html"))

pytestmark = pytest.mark.django_db


@pytest.fixture
def pillow_only(settings):
    settings.USE_CHROMIUM = False


def run_import(*args: str) -> str:
    out = StringIO()
    call_command("import_arxiv_html", *args, stdout=out, stderr=out)
    return out.getvalue()


@pytest.mark.parametrize("folder", PAGES, ids=lambda p: p.name)
def test_import_matches_the_parser_and_stores_every_image(folder: Path, pillow_only):
    page = locate_page(folder)
    parsed = parse_paper(page.html_path.read_bytes(), page.html_path.as_uri())
    output = run_import(str(folder), "--images", "now")
    paper = Paper.objects.get(arxiv_id=page.arxiv_id, version=page.version)

    assert f"{len(parsed.tables())} tables, {len(parsed.charts())} charts" in output
    assert paper.status == Paper.Status.PARSED
    assert paper.raw_html == page.html_path.read_bytes()
    assert list(paper.sections.order_by("order").values_list("anchor", "kind")) == [
        (s.anchor, s.kind) for s in parsed.sections
    ]
    stored = list(paper.elements.order_by("order").values_list("anchor", "kind"))
    assert stored == [(e.anchor, e.kind) for e in parsed.elements]
    assert (paper.table_count, paper.chart_count, paper.paragraph_count) == (
        len(parsed.tables()),
        len(parsed.charts()),
        len(parsed.paragraphs()),
    )
    # Every paragraph -> table/chart reference survives.
    for element in parsed.paragraphs():
        row = paper.elements.get(anchor=element.anchor)
        assert sorted(row.references.values_list("anchor", flat=True)) == element.refs
    # Every table and chart has a readable PNG; every raster panel too.
    for element in paper.elements.exclude(kind=Element.Kind.PARAGRAPH):
        has_svg = element.panels.exclude(svg="").exists()
        if has_svg and element.kind == Element.Kind.CHART:
            # Without Chromium, a TikZ figure keeps its SVG and says it has no raster.
            assert element.image_renderer == Element.Renderer.SVG_ONLY
            continue
        assert element.image, f"{element.label} has no image"
        with Image.open(element.image.path) as image:
            assert image.format == "PNG" and image.width > 20 and image.height > 10
        expected = (
            Element.Renderer.PILLOW
            if element.kind == Element.Kind.TABLE and not element.is_image_table
            else Element.Renderer.SOURCE_IMAGE
        )
        assert element.image_renderer == expected
    for panel in ElementPanel.objects.filter(element__paper=paper, svg=""):
        assert panel.image and panel.width and panel.height, panel


def test_reimport_replaces_and_never_duplicates(pillow_only, django_capture_on_commit_callbacks):
    folder = PAGES[0]
    run_import(str(folder), "--images", "now")
    paper = Paper.objects.get()
    first_files = sorted(Path(paper.elements.exclude(image="").first().image.path).parent.iterdir())
    counts = (Section.objects.count(), Element.objects.count(), ElementPanel.objects.count())
    with django_capture_on_commit_callbacks(execute=True):  # as after a real commit
        run_import(str(folder), "--images", "now")
    assert Paper.objects.count() == 1
    assert (
        Section.objects.count(),
        Element.objects.count(),
        ElementPanel.objects.count(),
    ) == counts
    # The earlier import's files are gone; the new ones exist.
    assert not any(f.exists() for f in first_files)
    for element in Element.objects.exclude(image=""):
        assert Path(element.image.path).is_file()


def test_failed_reimport_keeps_the_good_import(tmp_path: Path, pillow_only):
    folder = PAGES[0]
    run_import(str(folder), "--images", "none")
    paper = Paper.objects.get()
    elements = Element.objects.count()
    broken = tmp_path / "broken"
    shutil.copytree(folder, broken)
    html = (broken / "paper.html").read_bytes()
    (broken / "paper.html").write_bytes(html[: len(html) // 2])
    with pytest.raises(CommandError, match="1 of 1 page"):
        run_import(str(broken))
    paper.refresh_from_db()
    assert paper.status == Paper.Status.PARSED
    assert Element.objects.count() == elements
    assert "re-import" in paper.parse_warnings[-1] and "truncated" in paper.parse_warnings[-1]


def test_unparseable_new_page_is_recorded_as_failed(tmp_path: Path):
    page = tmp_path / "2410.00001v2.html"
    page.write_bytes(b"<html><body><p>PDF only</p></body></html>")
    with pytest.raises(CommandError):
        run_import(str(page))
    paper = Paper.objects.get(arxiv_id="2410.00001", version=2)
    assert paper.status == Paper.Status.FAILED
    assert "not LaTeXML output" in paper.status_reason
    assert not paper.sections.exists()


def test_page_without_an_id_asks_for_one(tmp_path: Path):
    page = tmp_path / "saved.html"
    page.write_bytes((PAGES[0] / "paper.html").read_bytes().replace(b"<base", b"<nobase"))
    with pytest.raises(CommandError):
        run_import(str(page))
    out = StringIO()
    with pytest.raises(CommandError):
        call_command("import_arxiv_html", str(page), stderr=out, stdout=out)
    assert "pass --arxiv-id" in out.getvalue()


def test_missing_chart_image_is_reported_not_fatal(tmp_path: Path, pillow_only):
    folder = tmp_path / "paper"
    shutil.copytree(PAGES[0], folder)
    parsed = parse_paper((folder / "paper.html").read_bytes(), "")
    src = next(p.src for e in parsed.charts() for p in e.panels if p.src)
    referenced = [p for p in folder.rglob(Path(src).name) if p.suffix == ".png"]
    assert len(referenced) == 1
    referenced[0].unlink()
    output = run_import(str(folder), "--images", "now")
    assert "not found" in output
    paper = Paper.objects.get()
    assert paper.status == Paper.Status.PARSED
    assert ElementPanel.objects.filter(element__paper=paper).exclude(error="").count() == 1


def test_minimum_counts_reject_with_reason():
    page = locate_page(PAGES[0])
    result = import_paper(
        html=page.html_path.read_bytes(),
        page_url="https://arxiv.org/html/x",
        assets=FolderAssets(page.folder),
        arxiv_id=page.arxiv_id,
        version=page.version,
        min_tables=99,
        min_charts=1,
        images="now",
    )
    assert result.status == Paper.Status.REJECTED
    assert "(fewer than 99)" in result.paper.status_reason
    assert result.images == "skipped"
    assert result.paper.table_count == result.tables  # the counts are kept for the admin


def test_folder_assets_never_read_outside_the_folder(tmp_path: Path):
    from papers.assets import AssetError
    from papers.parsing import Panel

    (tmp_path / "secret.png").write_bytes(b"x")
    inner = tmp_path / "page"
    inner.mkdir()
    with pytest.raises(AssetError):
        FolderAssets(inner).fetch(Panel(src="../secret.png", url=""))


def test_import_error_when_parse_fails_through_the_service():
    with pytest.raises(PaperImportError, match="empty page"):
        import_paper(
            html=b"",
            page_url="",
            assets=FolderAssets(Path(".")),
            arxiv_id="2409.00002",
            version=1,
        )


@pytest.mark.services
@pytest.mark.django_db(transaction=True)
def test_with_redis_screenshots_are_a_render_job_run_by_a_worker(settings, tmp_path: Path):
    from tests.services import redis_url_or_skip

    url = redis_url_or_skip()
    settings.REDIS_URL = url
    settings.USE_CHROMIUM = False
    settings.RQ_QUEUES = {name: {"URL": url, "DEFAULT_TIMEOUT": 600} for name in ("render",)}
    import django_rq
    from rq import SimpleWorker

    from jobs.models import Job

    queue = django_rq.get_queue("render")
    queue.empty()
    output = run_import(str(PAGES[0]))  # images "auto": a job, since Redis is configured
    assert "images queued" in output
    paper = Paper.objects.get()
    assert paper.images_status == Paper.ImagesStatus.PENDING
    assert not paper.elements.filter(kind="table").exclude(image="").exists()
    job = Job.objects.get(kind="render_images")
    assert job.params == {"paper_id": paper.pk} and queue.count == 1

    SimpleWorker([queue], connection=queue.connection).work(burst=True)
    job.refresh_from_db()
    paper.refresh_from_db()
    assert job.status == Job.Status.FINISHED, job.error
    assert job.progress_done == job.progress_total > 0
    assert paper.images_status == Paper.ImagesStatus.DONE
    tables = paper.elements.filter(kind="table", is_image_table=False)
    assert tables.exists() and not tables.filter(image="").exists()


@pytest.mark.browser
def test_with_chromium_tikz_figures_are_rasterised_and_tables_screenshot(settings, chromium_path):
    settings.CHROMIUM_PATH = chromium_path
    folder = next(
        p
        for p in PAGES
        if any(
            panel.svg
            for c in parse_paper((p / "paper.html").read_bytes(), "").charts()
            for panel in c.panels
        )
    )
    run_import(str(folder), "--images", "now")
    paper = Paper.objects.get()
    svg_charts = paper.elements.filter(kind="chart", panels__svg__gt="").distinct()
    assert svg_charts.exists()
    for chart in svg_charts:
        assert chart.image_renderer == Element.Renderer.SOURCE_IMAGE
        with Image.open(chart.image.path) as image:
            assert image.format == "PNG" and image.width > 50 and image.height > 50
            # A real drawing: not a blank canvas.
            assert len(image.convert("L").getcolors(maxcolors=256) or []) > 2
        assert not chart.panels.filter(image="").exists()
    tables = paper.elements.filter(kind="table", is_image_table=False)
    assert set(tables.values_list("image_renderer", flat=True)) == {"chromium"}
    assert paper.images_status == Paper.ImagesStatus.DONE


def test_deleting_a_paper_removes_its_media_once_committed(
    pillow_only, settings, django_capture_on_commit_callbacks
):
    from django.db import transaction

    folder = PAGES[0]
    page = locate_page(folder)
    run_import(str(folder), "--images", "now")
    paper = Paper.objects.get(arxiv_id=page.arxiv_id, version=page.version)
    media = Path(settings.MEDIA_ROOT) / f"papers/{paper.arxiv_id}v{paper.version}"
    assert any(media.rglob("*.png"))

    # A deletion that rolls back keeps the paper, so it keeps the files.
    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        with pytest.raises(RuntimeError), transaction.atomic():
            Paper.objects.get(pk=paper.pk).delete()
            raise RuntimeError("rolled back")
    assert not callbacks and any(media.rglob("*.png"))

    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        Paper.objects.get(pk=paper.pk).delete()
    assert len(callbacks) == 1
    assert not media.exists()
    assert not Paper.objects.filter(pk=paper.pk).exists()


def test_missing_screenshots_are_drawn_and_the_others_left_alone(pillow_only):
    """What a resumed crawl calls for a paper whose render was killed half-way."""
    from papers.drawing import make_paper_images, missing_image_ids

    page = locate_page(PAGES[0])
    result = import_paper(
        html=page.html_path.read_bytes(),
        page_url=page.html_path.as_uri(),
        assets=FolderAssets(page.folder),
        arxiv_id=page.arxiv_id,
        version=page.version,
        images="now",
    )
    tables = list(result.paper.elements.filter(kind=Element.Kind.TABLE, is_image_table=False))
    assert len(tables) >= 2 and missing_image_ids(result.paper) == []
    kept, lost = tables[0], tables[1]
    kept_file = Path(kept.image.path)
    kept_mtime = kept_file.stat().st_mtime_ns
    # As a kill leaves it: the context committed, one screenshot never drawn.
    Path(lost.image.path).unlink()
    Element.objects.filter(pk=lost.pk).update(image="", image_renderer="")
    Paper.objects.filter(pk=result.paper.pk).update(images_status=Paper.ImagesStatus.NONE)
    assert missing_image_ids(result.paper) == [lost.pk]

    outcome, problems = make_paper_images(paper_id=result.paper.pk, images="now", only_missing=True)

    assert (outcome, problems) == ("rendered", [])
    lost.refresh_from_db()
    assert lost.image and Path(lost.image.path).is_file()
    assert kept_file.stat().st_mtime_ns == kept_mtime  # not drawn again
    assert Paper.objects.get(pk=result.paper.pk).images_status == Paper.ImagesStatus.DONE


def test_an_id_no_column_holds_is_refused_and_nothing_is_stored():
    with pytest.raises(PaperImportError) as info:
        import_paper(
            html=PAGES[0].joinpath("paper.html").read_bytes(),
            page_url="",
            assets=FolderAssets(PAGES[0]),
            arxiv_id="2409." + "1" * 40,
            version=1,
        )
    assert info.value.code == "unstorable" and "Paper.arxiv_id" in info.value.reason
    assert not Paper.objects.exists()
