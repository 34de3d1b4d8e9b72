"""reparse_papers: stored pages parsed again recover what an earlier parser lost, and never
remove, renumber or rewrite what a curated context, a claim or an evidence mark cites."""

from __future__ import annotations

from io import StringIO
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from annotation.assignment import services as assignment_services
from annotation.curation import services as curation_services
from annotation.models import CuratedElement
from papers.models import Element, Paper, Section, work_citing
from papers.parsing import PARSER_VERSION
from tests.factories import AdminFactory
from tests.papers.pages2026 import ARXIV_ID, ieee_page, import_folder, save_page

pytestmark = pytest.mark.django_db


@pytest.fixture
def pillow_only(settings):
    settings.USE_CHROMIUM = False


def reparse(*args: str) -> str:
    out = StringIO()
    call_command("reparse_papers", *args, stdout=out, stderr=out)
    return out.getvalue()


def as_the_earlier_parser_stored_it(tmp_path: Path) -> Paper:
    """The IEEE page imported, then brought to what the parser before issue 15 stored: TABLE
    II and III silently dropped (their roman numerals were not read), no loss recorded."""
    folder = save_page(tmp_path / ARXIV_ID, ieee_page(), ("x1.png", "x2.png", "x3.png"))
    import_folder(folder)
    paper = Paper.objects.get()
    paper.elements.filter(anchor__in=["S2.T2", "S2.T3"]).delete()
    Paper.objects.filter(pk=paper.pk).update(
        table_count=1, lost_count=0, lost_floats=[], parser_version=0, generator=""
    )
    paper.refresh_from_db()
    return paper


def curate_everything(paper: Paper) -> None:
    curation_services.save_curated_context(
        paper=paper,
        user=AdminFactory(),
        kept_section_ids=set(paper.sections.values_list("pk", flat=True)),
        kept_element_ids=set(paper.elements.values_list("pk", flat=True)),
        not_chart_ids=(),
        latest_seen=None,
    )


def test_reparse_recovers_the_lost_tables_without_touching_the_work(tmp_path, pillow_only):
    paper = as_the_earlier_parser_stored_it(tmp_path)
    section = paper.sections.get(anchor="S2")
    # A table the page does not hold that a curated context cites, and one nothing cites.
    cited_gone = Element.objects.create(
        paper=paper,
        section=section,
        kind="table",
        anchor="S2.T8",
        order=3,
        label="TABLE VIII",
        number="VIII",
        cells=[[[{"text": "x"}]]],
    )
    table_one = paper.elements.get(anchor="S2.T1")
    Element.objects.filter(pk=table_one.pk).update(caption="Main results (as curated).")
    curate_everything(paper)
    curated = list(CuratedElement.objects.order_by("pk").values_list("element_id", "in_context"))
    uncited = Element.objects.create(
        paper=paper, section=section, kind="table", anchor="S2.T9", order=99, label="TABLE IX"
    )
    before = {e.pk: (e.anchor, e.label, e.number, e.caption) for e in paper.elements.all()}

    dry = reparse(str(paper.pk), "--dry-run")
    assert "would add 2, would change 0, would remove 1 elements" in dry
    assert "[dry run: nothing written]" in dry
    assert {e.pk: (e.anchor, e.label, e.number, e.caption) for e in paper.elements.all()} == before

    output = reparse(str(paper.pk))
    assert "added 2, changed 0, removed 1 elements" in output
    assert "  + TABLE II (S2.T2)" in output and "  + TABLE III (S2.T3)" in output
    assert "  - TABLE IX (S2.T9)" in output
    assert (
        "  ! left as stored, for an admin: TABLE I (S2.T1): caption; cited by curated element #"
        in output
    )
    assert "  ! left as stored, for an admin: TABLE VIII (S2.T8): no longer in the page" in output
    assert "a curator includes them by saving a new context version" in output

    paper.refresh_from_db()
    # Reading order: the page's, the cited stale table still after the one it followed.
    tables = paper.elements.filter(kind="table").order_by("order")
    assert list(tables.values_list("anchor", "label", "number")) == [
        ("S2.T1", "TABLE I", "I"),
        ("S2.T8", "TABLE VIII", "VIII"),
        ("S2.T2", "TABLE II", "II"),
        ("S2.T3", "TABLE III", "III"),
    ]
    orders = list(paper.elements.order_by("order").values_list("order", flat=True))
    assert orders == list(range(len(orders)))
    # The cited rows are exactly as they were; the uncited stale one is gone.
    for pk, stored in before.items():
        if pk != uncited.pk:
            row = Element.objects.get(pk=pk)
            assert (row.anchor, row.label, row.number, row.caption) == stored
    assert not Element.objects.filter(pk=uncited.pk).exists()
    assert Element.objects.filter(pk=cited_gone.pk).exists()
    assert (
        list(CuratedElement.objects.order_by("pk").values_list("element_id", "in_context"))
        == curated
    )
    # The recovered tables have their cells, images and the paragraphs that cite them.
    recovered = paper.elements.get(anchor="S2.T2")
    assert recovered.cells[0][1][1]["text"] == "$68.9$" and recovered.image
    assert list(recovered.referenced_by.values_list("anchor", flat=True)) == ["S1.p1"]
    assert (paper.table_count, paper.lost_count, paper.parser_version) == (4, 0, PARSER_VERSION)
    assert paper.reparsed_at is not None and "LaTeXML (version 0.8.8)" in paper.generator

    again = reparse(str(paper.pk))
    assert "added 0, changed 0, removed 0 elements" in again
    assert again.count("  ! left as stored") == 2  # still listed, still untouched


def test_uncited_elements_are_rewritten_and_a_rejected_paper_that_now_qualifies_is_kept(
    tmp_path, pillow_only, settings
):
    settings.MIN_TABLES, settings.MIN_CHARTS = 3, 2
    paper = as_the_earlier_parser_stored_it(tmp_path)
    Paper.objects.filter(pk=paper.pk).update(
        status=Paper.Status.REJECTED, status_reason="1 tables (fewer than 3)"
    )
    Element.objects.filter(paper=paper, anchor="S2.T1").update(number="1", label="Table 1")
    output = reparse(str(paper.pk))
    assert "added 2, changed 1, removed 0 elements" in output
    assert "  ~ Table 1 (S2.T1): label, number" in output
    assert "status rejected -> parsed" in output
    paper.refresh_from_db()
    assert paper.status == Paper.Status.PARSED and paper.status_reason == ""
    assert paper.elements.get(anchor="S2.T1").number == "I"


def test_a_lost_section_is_recovered_and_the_sections_keep_their_reading_order(
    tmp_path, pillow_only
):
    paper = as_the_earlier_parser_stored_it(tmp_path)
    paper.sections.filter(anchor="S2").delete()  # and with it every element it held
    output = reparse(str(paper.pk), "--images", "none")
    assert "sections +1 ~0 -0" in output and "  + sections: S2" in output
    assert list(paper.sections.order_by("order").values_list("anchor", flat=True)) == ["S1", "S2"]
    # Charts added without an image source say so, and do not count.
    assert "image not read: re-parse without an image source" in output
    paper.refresh_from_db()
    assert paper.chart_count == 0 and paper.elements.filter(kind="chart").count() == 2


def test_added_charts_read_their_images_from_the_saved_folder(tmp_path, pillow_only):
    paper = as_the_earlier_parser_stored_it(tmp_path)
    paper.elements.filter(kind="chart").delete()
    reparse(str(paper.pk), "--assets", str(tmp_path / ARXIV_ID))
    paper.refresh_from_db()
    charts = paper.elements.filter(kind="chart")
    assert charts.count() == 2 and not charts.filter(image="").exists()
    assert paper.chart_count == 2


def test_the_command_refuses_what_it_cannot_do(tmp_path):
    empty = Paper.objects.create(arxiv_id="2410.00009", version=1)
    with pytest.raises(CommandError, match="name paper ids, or pass --all"):
        reparse()
    with pytest.raises(CommandError, match="no paper with id 999"):
        reparse("999")
    with pytest.raises(CommandError, match="1 of 1 paper"):
        out = reparse(str(empty.pk))
    out = StringIO()
    with pytest.raises(CommandError):
        call_command("reparse_papers", str(empty.pk), stdout=out, stderr=out)
    assert "no stored page to re-parse" in out.getvalue()
    with pytest.raises(CommandError, match="exactly one paper"):
        reparse("--all", "--assets", str(tmp_path))


def test_all_reparses_every_stored_page(tmp_path, pillow_only):
    paper = as_the_earlier_parser_stored_it(tmp_path)
    Paper.objects.create(arxiv_id="2410.00009", version=1)  # no page: not a candidate
    output = reparse("--all", "--dry-run")
    assert output.count("(paper #") == 1 and f"(paper #{paper.pk})" in output


def test_work_citing_finds_curated_contexts_and_claims_through_the_model_registry():
    from annotation.queue import work
    from annotation.writing import services as writing
    from tests.annotation.claim_factories import curated_paper, submit
    from tests.annotation.factories import make_expert

    admin, alice = AdminFactory(), make_expert("alice")
    paper, _ = curated_paper(admin)
    assignment_services.assign_papers(papers=[paper], experts=[alice], assigned_by=admin)
    writing.create_claim_tasks(paper=paper, by=alice, count=1, seed=1)
    pair = submit(work.next_item(user=alice, kind="write"), alice)
    evidence = set(pair.claims.first().evidence.values_list("pk", flat=True))
    cited = work_citing(Element, paper.elements.values_list("pk", flat=True))
    assert all(any(d.startswith("curated element #") for d in cited[pk]) for pk in cited)
    assert set(paper.elements.values_list("pk", flat=True)) == set(cited)
    for pk in evidence:
        assert any(d.startswith("claim #") and d.endswith("(evidence)") for d in cited[pk])
    sections = work_citing(Section, paper.sections.values_list("pk", flat=True))
    assert all(any(d.startswith("curated section #") for d in v) for v in sections.values())


def test_a_rejected_import_gets_its_images_and_is_kept_once_its_tables_are_found(
    tmp_path, pillow_only, settings
):
    from papers.assets import FolderAssets
    from papers.importing import import_paper

    settings.MIN_TABLES, settings.MIN_CHARTS = 3, 2
    folder = save_page(tmp_path / ARXIV_ID, ieee_page(), ("x1.png", "x2.png", "x3.png"))
    result = import_paper(
        html=(folder / "paper.html").read_bytes(),
        page_url="",
        assets=FolderAssets(folder),
        arxiv_id="2508.08468",
        version=6,
        min_tables=99,
        min_charts=2,
        images="none",
    )
    paper = result.paper
    assert paper.status == Paper.Status.REJECTED  # so no chart image was read
    assert not paper.elements.filter(kind="chart").exclude(image="").exists()
    output = reparse(str(paper.pk), "--assets", str(folder))
    assert "  ~ Fig. 1 (S2.F1): images read" in output and "status rejected -> parsed" in output
    paper.refresh_from_db()
    assert (paper.status, paper.table_count, paper.chart_count) == ("parsed", 3, 2)
