"""Guards of splits and exports found by QA: split names that would leave RELEASE_DIR, claims
re-opened after the split was frozen, --overwrite of what is not a release, unknown licence
codes, empty splits, advice for missing images that can be followed (render_images), progress
per file, a folder not named SciVer, the Releases form's defaults, an unknown split on the
statistics page, and the exported folder's mode."""

from __future__ import annotations

import io
import json
import os
import uuid
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command

from annotation.queue import work
from jobs.models import Job
from papers.models import Element
from tests.validation.factories import Team, validated_pairs
from validation import services
from validation.export import services as export_services
from validation.models import ReleaseExport, SplitVersion
from validation.release_check import inspect_release
from validation.split import services as split_services

pytestmark = pytest.mark.django_db


def run(*args) -> tuple[str, str]:
    out, err = io.StringIO(), io.StringIO()
    call_command(*args, stdout=out, stderr=err)
    return out.getvalue(), err.getvalue()


def split(name: str = "v1", validation: int = 2, test: int = 2) -> SplitVersion:
    run(
        "make_split",
        "--validation",
        str(validation),
        "--test",
        str(test),
        "--seed",
        "1",
        "--name",
        name,
    )
    return SplitVersion.objects.get(name=name)


@pytest.fixture
def team_pairs():
    team = Team()
    return team, validated_pairs(team, 2)


@pytest.fixture
def inline_jobs(settings):
    """Exports started from the page run inline, in-process (the default uses a thread; with
    REDIS_URL set, a failed job would be re-raised for RQ)."""
    settings.REDIS_URL = ""
    settings.JOBS_INLINE = True


def files_under(root: Path) -> set[str]:
    return {p.relative_to(root).as_posix() for p in root.rglob("*")}


# --- 1. Split names ---------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["../../qaB-escape", "bad name/../x", "/tmp/abs", ".hidden"])
def test_make_split_refuses_unsafe_names_and_says_what_is_allowed(team_pairs, name):
    with pytest.raises(CommandError, match="letters, digits, dots, hyphens or underscores"):
        split(name)
    assert not SplitVersion.objects.exists()


def test_the_releases_page_refuses_an_unsafe_name_and_keeps_the_input(client, team_pairs):
    team, _ = team_pairs
    client.force_login(team.admin)
    page = client.post(
        "/manage/releases/",
        {"validation": 2, "test": 2, "seed": 7, "name": "bad name/../x", "licenses": "cc-by"},
    ).content.decode()
    assert "The split name &#x27;bad name/../x&#x27; is not allowed" in page
    assert 'value="bad name/../x"' in page and 'value="7"' in page
    assert not SplitVersion.objects.exists()


@pytest.mark.parametrize("name", ["../../qaB-escape", "bad name/../x", "/abs/evil"])
def test_an_existing_split_with_an_unsafe_name_exports_inside_release_dir(
    client, team_pairs, settings, tmp_path, inline_jobs, name
):
    team, _ = team_pairs
    settings.RELEASE_DIR = tmp_path / "deep" / "down" / "releases"
    frozen = split()
    if name.startswith("/abs"):
        name = f"/tmp/sciver-escape-{uuid.uuid4().hex[:8]}"  # the field holds 64 characters
    # Made before names were checked (the service itself does not check them).
    SplitVersion.objects.filter(pk=frozen.pk).update(name=name)
    client.force_login(team.admin)

    response = client.post(f"/manage/releases/splits/{frozen.pk}/export/")

    export = ReleaseExport.objects.select_related("job").get()
    assert export.job.status == Job.Status.FINISHED, export.job.error
    out = Path(export.out)
    assert out.name == "SciVer" and out.parent.parent == settings.RELEASE_DIR
    assert (out / "valset.json").is_file() and Path(export.archive).is_file()
    # Nothing anywhere else: no escaped folder, no empty `bad name/` left behind.
    assert {p.name for p in settings.RELEASE_DIR.iterdir()} == {out.parent.name}
    assert files_under(tmp_path / "deep") - {"down", "down/releases"} == {
        f"down/releases/{p}" for p in files_under(settings.RELEASE_DIR)
    }
    if name.startswith("/"):  # not /tmp/sciver-escape-…-<stamp>/SciVer
        assert not list(Path(name).parent.glob(f"{Path(name).name}*"))
    # The page names the folder within RELEASE_DIR, never the server's absolute path (issue 44).
    page = client.get(response.url).content.decode()
    assert out.relative_to(settings.RELEASE_DIR).as_posix() in page
    assert str(settings.RELEASE_DIR) not in page and str(tmp_path) not in page


# --- 2. Claims re-opened after the split was frozen ------------------------------------------


def revalidate(team: Team, *, text: str | None = None) -> int:
    """Validate the re-opened claims again (another validator), revising the text if given."""
    user = team.validators[1]
    done = 0
    while True:
        try:
            item = services.take_next(user=user)
        except work.NothingToDo:
            return done
        claim = item.claim
        services.submit_validation(
            item=item,
            user=user,
            version=item.version,
            token=uuid.uuid4(),
            criteria_failed=["language"] if text else [],
            text=text or claim.text,
            subset=claim.pair.subset,
            label=claim.review.final_label,
            evidence_ids=list(claim.review.final_evidence.values_list("pk", flat=True)),
            explanation=claim.explanation,
        )
        done += 1


def test_a_claim_reopened_after_the_split_stops_the_export_until_validated_again(
    team_pairs, tmp_path, client, settings, inline_jobs
):
    team, pairs = team_pairs
    split()
    claim = pairs[1].claims.get(label="refuted")
    services.reopen_validation(claim=claim, by=team.admin, reason="the number is wrong")
    out = tmp_path / "SciVer"

    with pytest.raises(CommandError) as failure:
        run("export_release", "--split", "v1", "--out", str(out))

    message = str(failure.value)
    assert message.startswith(
        "split v1: 1 claim(s) changed since the split was frozen and are no longer validated: "
        f"claim {claim.key} (refuted, pair {pairs[1].key}, paper {pairs[1].paper.versioned_id}): "
        "re-opened, waiting for validation (reason: the number is wrong). "
    )
    assert "validate the re-opened claims again" in message and "make a new split" in message
    assert not out.exists() and list(tmp_path.iterdir()) == []
    # The same from the page: the job fails with that message.
    settings.RELEASE_DIR = tmp_path / "releases"
    client.force_login(team.admin)
    response = client.post(f"/manage/releases/splits/{SplitVersion.objects.get().pk}/export/")
    export = ReleaseExport.objects.select_related("job").get()
    assert export.job.status == Job.Status.FAILED
    assert (
        f"claim {claim.key} (refuted, pair {pairs[1].key}"
        in client.get(response.url).content.decode()
    )

    # Validated again (revised): the export goes through, with the current final text.
    revised = "Ours reaches a BLEU score of 68.9, which is higher than the Baseline model."
    assert revalidate(team, text=revised) == 1
    run("export_release", "--split", "v1", "--out", str(out))
    rows = [
        json.loads(line)
        for name in ("validation", "test")
        for line in (out / "data" / f"{name}.jsonl").read_text().splitlines()
    ]
    mine = [r for r in rows if r["pair_id"] == pairs[1].pk]
    assert {r["perturbed_statement"] for r in mine} == {revised}
    assert [r["revisions"] for r in mine if not r["label"]] == [1]
    # Nothing changed since: a second export is byte-identical.
    again = tmp_path / "again" / "SciVer"
    run("export_release", "--split", "v1", "--out", str(again))
    manifest = json.loads((out / "manifest.json").read_text())
    assert all((out / n).read_bytes() == (again / n).read_bytes() for n in manifest["files"])


def test_a_pair_dropped_after_the_split_stops_the_export(team_pairs, tmp_path):
    from annotation.review import services as review_services

    team, pairs = team_pairs
    split()
    review_services.drop_pair(pair=pairs[0], by=team.admin, reason="table misread")
    with pytest.raises(CommandError, match=f"pair {pairs[0].key}, .*: its pair was dropped"):
        run("export_release", "--split", "v1", "--out", str(tmp_path / "SciVer"))


# --- 3. --overwrite only replaces a previous release -----------------------------------------


def test_overwrite_only_replaces_a_previous_release(team_pairs, tmp_path):
    split()
    plain = tmp_path / "notes.txt"
    plain.write_text("keep me")
    folder = tmp_path / "SciVer"
    folder.mkdir()
    (folder / "thesis.tex").write_text("keep me too")
    for target in (plain, folder):
        with pytest.raises(CommandError, match="--overwrite only replaces a") as failure:
            run("export_release", "--split", "v1", "--out", str(target), "--overwrite")
        assert "nothing was deleted" in str(failure.value) or "not a folder" in str(failure.value)
    assert plain.read_text() == "keep me" and (folder / "thesis.tex").read_text() == "keep me too"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["SciVer", "notes.txt"]

    release = tmp_path / "release" / "SciVer"
    run("export_release", "--split", "v1", "--out", str(release))
    (release / "stale.txt").write_text("from an older export")
    run("export_release", "--split", "v1", "--out", str(release), "--overwrite")
    assert not (release / "stale.txt").exists() and (release / "manifest.json").is_file()
    assert sorted(p.name for p in release.parent.iterdir()) == ["SciVer"]  # no leftovers


def test_an_existing_folder_is_refused_with_the_command_line_flag_before_any_progress(
    team_pairs, tmp_path
):
    split()
    (tmp_path / "SciVer").mkdir()
    err = io.StringIO()
    with pytest.raises(CommandError) as failure:
        call_command(
            "export_release",
            "--split",
            "v1",
            "--out",
            str(tmp_path / "SciVer"),
            stdout=io.StringIO(),
            stderr=err,
        )
    assert str(failure.value) == (
        f"{tmp_path / 'SciVer'} already exists; choose another folder, or pass --overwrite to "
        "replace the release in it"
    )
    assert "overwrite=True" not in str(failure.value) and err.getvalue() == ""


# --- 4. and 5. Licence codes, empty splits ---------------------------------------------------


def test_unknown_licence_codes_are_refused_with_the_valid_ones(team_pairs, client):
    team, _ = team_pairs
    for codes in ("cc-by,bogus", "cc-bysa"):
        with pytest.raises(CommandError) as failure:
            run("make_split", "--validation", "2", "--test", "2", "--licenses", codes)
        message = str(failure.value)
        assert message.startswith(f"Unknown licence code(s): {codes.split(',')[-1]}. Valid codes:")
        assert (
            "arxiv, cc-by, cc-by-nc, cc-by-nc-nd, cc-by-nc-sa, cc-by-nd, cc-by-sa, cc0" in message
        )
    client.force_login(team.admin)
    page = client.post(
        "/manage/releases/", {"validation": 2, "test": 2, "seed": 1, "licenses": "cc-by,bogus"}
    ).content.decode()
    assert "Unknown licence code(s): bogus. Valid codes: arxiv, cc-by" in page
    assert not SplitVersion.objects.exists()


def test_an_empty_split_is_refused(team_pairs, client):
    team, _ = team_pairs
    with pytest.raises(CommandError, match=r"at least one claim in total .* 4 validated claims"):
        run("make_split", "--validation", "0", "--test", "0")
    client.force_login(team.admin)
    page = client.post("/manage/releases/", {"validation": 0, "test": 0, "seed": 1})
    assert "a split needs at least one claim" in page.content.decode()
    assert not SplitVersion.objects.exists()


# --- 6. A missing image: advice that can be followed ----------------------------------------


def cite_everywhere(pair, element) -> None:
    """Make sure the export needs the element's image: both claims rest on it. The element is
    one of the sampled ones and the claims keep as many tables/charts as their subset needs,
    so the evidence rule still holds (a record names exactly its claim's tables/charts)."""
    from annotation.evidence import visuals_needed
    from annotation.models import ClaimReview

    assert element.pk in pair.task.sampled_ids
    others = [pk for pk in pair.task.sampled_ids if pk != element.pk]
    for review in ClaimReview.objects.filter(claim__pair=pair):
        paragraphs = list(
            review.final_evidence.filter(kind="paragraph").values_list("pk", flat=True)
        )
        review.final_evidence.set(
            [*paragraphs, element.pk, *others[: visuals_needed(pair.subset) - 1]]
        )


def sampled(pair, kind: str) -> Element:
    """A sampled table or chart of the pair's task (three of the paper's four body visuals are
    sampled, so there is always one of each kind)."""
    return Element.objects.filter(pk__in=pair.task.sampled_ids, kind=kind).order_by("order")[0]


def test_a_missing_table_screenshot_is_rendered_again_by_render_images(
    team_pairs, tmp_path, settings
):
    settings.USE_CHROMIUM = False  # the Pillow renderer draws the stored cell grid
    _, pairs = team_pairs
    split()
    paper = pairs[0].paper
    paper.media_dir = f"papers/{paper.versioned_id}/import"
    paper.save(update_fields=["media_dir"])
    table = sampled(pairs[0], "table")
    cite_everywhere(pairs[0], table)
    Path(table.image.path).unlink()
    out = tmp_path / "SciVer"

    with pytest.raises(CommandError) as failure:
        run("export_release", "--split", "v1", "--out", str(out))

    message = str(failure.value)
    assert f"its image file {table.image.name} is missing from MEDIA_ROOT" in message
    assert f"`python manage.py render_images {paper.versioned_id}`" in message
    assert "import_arxiv_html" not in message

    # The paper has expert work (curation, claims): render_images still works on it.
    output, _ = run("render_images", paper.versioned_id)
    assert "table(s) rendered with pillow" in output
    table.refresh_from_db()
    assert table.image_renderer == "pillow" and Path(table.image.path).is_file()
    run("export_release", "--split", "v1", "--out", str(out))
    assert inspect_release(out).problems == []


def test_a_missing_chart_image_says_to_restore_it_from_a_backup(team_pairs, tmp_path, settings):
    settings.USE_CHROMIUM = False
    _, pairs = team_pairs
    split()
    paper = pairs[0].paper
    Paper = type(paper)
    Paper.objects.filter(pk=paper.pk).update(media_dir=f"papers/{paper.versioned_id}/import")
    chart = sampled(pairs[0], "chart")
    cite_everywhere(pairs[0], chart)
    Path(chart.image.path).unlink()

    with pytest.raises(CommandError) as failure:
        run("export_release", "--split", "v1", "--out", str(tmp_path / "SciVer"))

    message = str(failure.value)
    assert f"{chart.label} (element {chart.anchor}" in message
    assert "came from the paper's own image files on arXiv and cannot be made again" in message
    assert f"restore {chart.image.name} under MEDIA_ROOT from a backup" in message
    out = io.StringIO()
    with pytest.raises(
        CommandError, match=f"image\\(s\\) of {paper.versioned_id} are still missing"
    ):
        call_command("render_images", paper.versioned_id, stdout=out, stderr=io.StringIO())
    assert f"{chart.label} (element {chart.anchor}): {chart.image.name}" in out.getvalue()
    assert "restore them under MEDIA_ROOT" in out.getvalue()


def test_a_missing_svg_chart_raster_points_at_render_images(team_pairs, tmp_path):
    from papers.models import ElementPanel

    _, pairs = team_pairs
    split()
    paper = pairs[0].paper
    chart = sampled(pairs[0], "chart")
    cite_everywhere(pairs[0], chart)
    ElementPanel.objects.create(element=chart, order=0, svg="<svg></svg>")
    Element.objects.filter(pk=chart.pk).update(image="", image_error="SVG kept; no raster image")
    with pytest.raises(CommandError) as failure:
        run("export_release", "--split", "v1", "--out", str(tmp_path / "SciVer"))
    assert str(failure.value).endswith(
        "Rasterise the chart's SVG again (needs Chromium: "
        f"`python manage.py render_images {paper.versioned_id}`), then export again."
    )


def test_render_images_names_the_versions_of_an_id_given_without_one(team_pairs):
    _, pairs = team_pairs
    paper = pairs[0].paper
    with pytest.raises(CommandError, match=rf"\({paper.arxiv_id}v1\)"):
        run("render_images", paper.arxiv_id)


# --- 7. Progress per file --------------------------------------------------------------------


def test_export_progress_moves_per_file_and_the_job_bar_never_goes_back(
    team_pairs, tmp_path, settings
):
    from jobs.dispatch import JobContext
    from validation.jobs import STEPS, export_release_job

    settings.RELEASE_DIR = tmp_path / "releases"
    team, _ = team_pairs
    frozen = split()
    seen: list[tuple[int, int, str]] = []
    manifest = export_services.export_release(
        split=frozen,
        out=str(tmp_path / "SciVer"),
        progress=lambda done, total, message: seen.append((done, total, message)),
    )
    files = len(manifest["files"])
    writing = [(d, t) for d, t, m in seen if m == "writing files" and t == files]
    assert [d for d, _ in writing] == list(range(files + 1))  # every file, few enough to show
    assert any(m == "building records" and d == t for d, t, m in seen)

    export = ReleaseExport.objects.create(
        split=frozen, out=str(tmp_path / "releases" / "v1-x" / "SciVer"), created_by=team.admin
    )
    job = Job.objects.create(kind="export_release", function="validation.jobs.export_release_job")
    bar: list[int] = []

    class Recording(JobContext):
        def progress(self, done, total=None, message=None):
            bar.append(round(100 * done / total))
            super().progress(done, total, message)

    export_release_job(job=Recording(job), export_id=export.pk)
    assert bar == sorted(bar) and bar[-1] == 100 and len(set(bar)) > files // 2
    job.refresh_from_db()
    assert (job.progress_done, job.progress_total) == (STEPS, STEPS)
    assert job.message == f"wrote {files} files"


# --- 8. A folder not named SciVer -------------------------------------------------------------


def test_a_folder_not_named_sciver_is_warned_about_at_export_and_by_check_release(
    team_pairs, tmp_path
):
    split()
    out = tmp_path / "Release"
    output, _ = run("export_release", "--split", "v1", "--out", str(out))
    assert "warning: the folder is named 'Release', not 'SciVer'" in output
    assert "paper_path" in output
    checked, _ = run("check_release", str(out))
    assert "the release folder is named 'Release', not 'SciVer'" in checked
    assert "release OK (with warnings)" in checked
    good, _ = run("export_release", "--split", "v1", "--out", str(tmp_path / "x" / "SciVer"))
    assert "not 'SciVer'" not in good
    assert "not 'SciVer'" not in run("check_release", str(tmp_path / "x" / "SciVer"))[0]


# --- 9. The Releases form ---------------------------------------------------------------------


def test_the_releases_form_offers_sizes_that_can_be_made_and_the_real_next_name(client, team_pairs):
    team, _ = team_pairs
    split("v1")
    SplitVersion.objects.filter(name="v1").update(name="first")
    split("v2")
    client.force_login(team.admin)
    page = client.get("/manage/releases/").content.decode()
    assert "4 validated claims in 2 complete pairs may take part" in page
    # 2 pairs: the whole pool, 1:2 in whole pairs.
    assert 'name="validation" value="0"' in page and 'name="test" value="4"' in page
    assert "of 4 available" in page
    assert 'placeholder="v3"' in page and "blank: v3" in page
    assert (
        client.post("/manage/releases/", {"validation": 0, "test": 4, "seed": 13}).status_code
        == 302
    )
    assert SplitVersion.objects.filter(name="v3").exists()


# --- 10. An unknown split on the statistics page and in dataset_stats ------------------------


def test_an_unknown_split_is_said_on_the_statistics_page_and_by_dataset_stats(client, team_pairs):
    team, _ = team_pairs
    split("v1")
    client.force_login(team.admin)
    page = client.get("/manage/statistics/?split=nope").content.decode()
    assert "There is no split &#x27;nope&#x27; (splits: v1): showing the validated pool" in page
    assert "There is no split" not in client.get("/manage/statistics/?split=v1").content.decode()
    with pytest.raises(CommandError, match=r"There is no split 'nope' \(splits: v1\)"):
        run("dataset_stats", "--split", "nope")


# --- 11. The exported folder's mode ----------------------------------------------------------


def test_the_exported_folder_follows_the_umask_like_its_contents(team_pairs, tmp_path):
    split()
    old = os.umask(0o022)
    try:
        run("export_release", "--split", "v1", "--out", str(tmp_path / "SciVer"))
    finally:
        os.umask(old)
    out = tmp_path / "SciVer"
    assert out.stat().st_mode & 0o777 == 0o755
    assert (out / "images").stat().st_mode & 0o777 == 0o755
    assert (out / "valset.json").stat().st_mode & 0o777 == 0o644


@pytest.mark.django_db
def test_the_split_service_itself_refuses_unsafe_names_and_unknown_licences():
    from annotation.errors import AnnotationError

    with pytest.raises(AnnotationError, match="not allowed"):
        split_services.freeze_split(validation=2, test=2, seed=1, name="../../escape")
    with pytest.raises(AnnotationError, match="Unknown licence code"):
        split_services.freeze_split(validation=2, test=2, seed=1, name="ok", licences=["cc-bysa"])
