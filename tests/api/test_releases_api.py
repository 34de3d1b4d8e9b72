"""The release manager's routes: a split made through the API is the one the releases page makes
for the same input, and a refusal says what the page says; an export started through the API
is followed to its archive, its hidden test labels (admins only) and check_release's verdict."""

from __future__ import annotations

import io
import json
import zipfile
from pathlib import Path

import pytest
from django.core.management import CommandError
from django.utils.html import escape

from jobs.models import Job
from tests.api.apiclient import Api
from tests.validation.factories import Team, validated_pairs
from tests.validation.releases import run
from tests.worlds import build_once
from validation.models import ReleaseExport, SplitMember, SplitVersion

pytestmark = pytest.mark.django_db

SPLIT = {"validation": 2, "test": 2, "seed": 1}


def _pool() -> tuple[Team, list[int]]:
    team = Team()
    return team, [pair.pk for pair in validated_pairs(team, 3)]


@pytest.fixture(scope="module")
def shared_pool(django_db_setup, django_db_blocker, tmp_path_factory):
    media = tmp_path_factory.mktemp("api-pool-media")
    for team, pks in build_once(
        "api releases: three validated pairs",
        _pool,
        django_db_blocker=django_db_blocker,
        media_root=media,
    ):
        yield media, team, pks


@pytest.fixture
def pool(shared_pool, settings, tmp_path) -> Team:
    """The module's pool of three validated pairs (a test's writes are rolled back), its
    images served, its releases written under the test's folder."""
    media, team, _ = shared_pool
    settings.MEDIA_ROOT = media
    settings.RELEASE_DIR = tmp_path / "releases"
    return team


def _members(split: SplitVersion) -> dict[str, set[int]]:
    parts: dict[str, set[int]] = {"validation": set(), "test": set()}
    for pair_id, part in SplitMember.objects.filter(split=split).values_list("pair_id", "part"):
        parts[part].add(pair_id)
    return parts


def test_a_split_made_through_the_api_is_the_one_the_page_makes(pool, client, admin_api):
    client.force_login(pool.admin)
    page = client.post("/manage/releases/", SPLIT | {"name": "by-page"})
    assert page.status_code == 302
    made = admin_api.post("/api/splits/", SPLIT | {"name": "by-api"})
    assert made.status == 201, made.body
    by_page = SplitVersion.objects.get(name="by-page")
    by_api = SplitVersion.objects.get(name="by-api")
    assert made.body["id"] == by_api.pk and made.body["name"] == "by-api"
    assert _members(by_api) == _members(by_page)
    assert all(_members(by_api).values())  # both parts hold pairs
    for field in ("seed", "counts", "papers", "licences", "left_out", "shared_papers_allowed"):
        assert getattr(by_api, field) == getattr(by_page, field), field
    assert made.body["sizes"] == {"validation": 2, "test": 2}
    assert made.body["papers"] == by_page.papers and made.body["seed"] == 1
    assert made.body["licences"] == by_page.licences
    assert made.body["shared_papers_allowed"] is False and made.body["created"]
    assert made.body["created_by"] == "api-admin"
    assert admin_api.get(f"/api/splits/{by_api.pk}/").body == made.body
    listed = admin_api.get("/api/splits/").body
    assert [s["name"] for s in listed["results"]] == ["by-api", "by-page"]
    assert admin_api.get("/api/splits/999999/").status == 404


@pytest.mark.parametrize(
    ("data", "status", "field", "page_status"),
    [
        ({"validation": "ten", "test": 2}, 400, "validation", 400),
        ({"seed": "-1"}, 400, "seed", 400),
        ({"name": "v" * 201}, 400, "name", 400),
        ({**SPLIT, "licenses": "cc-by,no-such-licence"}, 409, "", 200),
        ({**SPLIT, "name": "no spaces please"}, 409, "", 200),
        ({"validation": 200, "test": 2, "seed": 1}, 409, "", 200),
    ],
)
def test_a_refused_split_says_what_the_page_says(
    pool, client, admin_api, data, status, field, page_status
):
    client.force_login(pool.admin)
    page = client.post("/manage/releases/", data)
    answer = admin_api.post("/api/splits/", data)
    assert answer.status == status, answer.body
    assert answer.body["field"] == field
    assert answer.body["code"] == ("invalid" if status == 400 else "refused")
    assert page.status_code == page_status
    assert escape(answer.body["message"]) in page.content.decode()
    if status == 400:  # the page's message names the field the API names
        assert answer.body["message"].startswith(f"{field}: ")
        assert answer.body["errors"][field] == [answer.body["message"]]
    assert not SplitVersion.objects.exists()  # neither made one


def test_a_split_name_is_a_version_for_the_api_too(pool, admin_api):
    assert admin_api.post("/api/splits/", SPLIT | {"name": "v1"}).status == 201
    again = admin_api.post("/api/splits/", SPLIT | {"name": "v1"})
    assert again.status == 409
    assert again.body["message"] == (
        "A split named v1 exists; splits are frozen, choose a new name."
    )


def test_an_export_is_followed_to_its_archive_labels_and_check(
    pool, admin_api, annotator_api, settings
):
    # Two test pairs at least: hidden labels need an order where no pair's claims touch.
    whole = {"validation": 2, "test": 4, "seed": 1, "name": "v1"}
    split_id = admin_api.post("/api/splits/", whole).body["id"]
    bad = admin_api.post(f"/api/splits/{split_id}/exports/", {"parquet": [1]})
    assert bad.status == 400 and bad.body["field"] == "parquet"
    assert not ReleaseExport.objects.exists()

    settings.JOBS_INLINE = True  # the export's job runs in the request
    started = admin_api.post(f"/api/splits/{split_id}/exports/", {"hide_test_labels": True})
    assert started.status == 202, started.body
    export = ReleaseExport.objects.get()
    assert started.body["id"] == export.pk and started.headers["Location"] == started.body["url"]
    assert started.body["split"] == {"id": split_id, "name": "v1"}

    status = admin_api.get(started.body["url"]).body
    assert status["status"] == "finished", status["job"]["error"]
    # The folder as the releases page names it: within RELEASE_DIR, not the server's own path.
    assert status["out"] == Path(export.out).relative_to(settings.RELEASE_DIR).as_posix()
    assert not status["out"].startswith("/") and str(settings.RELEASE_DIR) not in str(status)
    assert status["job"]["percent"] == 100 and status["hide_test_labels"] is True
    assert status["manifest"]["files"] == len(export.manifest["files"]) > 0
    assert status["manifest"]["hidden_labels_records"] == 4
    assert status["download_url"] == f"http://testserver/api/exports/{export.pk}/download/"
    assert status["labels_url"] == f"http://testserver/api/exports/{export.pk}/labels/"
    assert [e["id"] for e in admin_api.get("/api/exports/").body["results"]] == [export.pk]

    download = admin_api.client.get(status["download_url"], headers=admin_api._headers())
    assert download.status_code == 200
    archive = zipfile.ZipFile(io.BytesIO(b"".join(download.streaming_content)))
    names = {Path(name).name for name in archive.namelist()}
    assert {"valset.json", "testset.json", "manifest.json"} <= names

    labels = admin_api.client.get(status["labels_url"], headers=admin_api._headers())
    assert labels.status_code == 200
    assert labels["Content-Disposition"] == 'attachment; filename="SciVer.labels.json"'
    assert json.loads(b"".join(labels.streaming_content))
    assert "SciVer.labels.json" not in names  # the answers never go in the zip
    for url in (status["labels_url"], status["download_url"], status["url"]):
        refused = annotator_api.get(url)
        assert refused.status == 403 and refused.body["code"] == "permission_denied", url

    # check_release's verdict, as the command gives it on the same folder.
    check = admin_api.get(f"/api/exports/{export.pk}/check/")
    assert check.status == 200
    assert check.body["ok"] is True and check.body["problems"] == []
    said = run("check_release", export.out)
    assert "release OK" in said
    assert [w for w in check.body["warnings"] if f"warning: {w}" not in said] == []
    # A file changed after the export: the route and the command both name it.
    valset = Path(export.out) / "valset.json"
    valset.write_text(valset.read_text() + " ")
    broken = admin_api.get(f"/api/exports/{export.pk}/check/").body
    assert broken["ok"] is False and any("valset.json" in p for p in broken["problems"])
    with pytest.raises(CommandError, match=rf"{len(broken['problems'])} problem\(s\)"):
        run("check_release", export.out)


def test_an_unfinished_export_has_no_check_nor_archive(pool, admin_api):
    split = SplitVersion.objects.create(name="v9", seed=1, validation_size=2, test_size=2)
    job = Job.objects.create(kind="export_release", function="x", status=Job.Status.RUNNING)
    export = ReleaseExport.objects.create(split=split, out="/nonexistent/SciVer", job=job)
    body = admin_api.get(f"/api/exports/{export.pk}/").body
    assert body["status"] == "running" and body["download_url"] is None
    assert body["labels_url"] is None and body["manifest"] is None
    check = admin_api.get(f"/api/exports/{export.pk}/check/")
    assert check.status == 409 and "not finished" in check.body["message"]
    assert admin_api.get(f"/api/exports/{export.pk}/download/").status == 404
    assert admin_api.get(f"/api/exports/{export.pk}/labels/").status == 404


def test_release_routes_are_for_admins_only(pool, annotator_api):
    for path in ("/api/splits/", "/api/exports/"):
        assert annotator_api.get(path).status == 403
    assert annotator_api.post("/api/splits/", SPLIT).status == 403
    assert Api(annotator_api.client).get("/api/splits/").status == 401
    assert not SplitVersion.objects.exists()
