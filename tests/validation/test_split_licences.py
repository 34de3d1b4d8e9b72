"""A split made without a licence filter holds only papers that may be redistributed with
adaptations; any other choice is explicit, counted, and said in the card and on the page."""

from __future__ import annotations

import io

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command

from annotation.models import ClaimPair
from papers.licences import REDISTRIBUTABLE, allows_redistribution, licence_code
from tests.validation.factories import Team, validated_pairs
from tests.worlds import build_once
from validation.export import dataset_card
from validation.models import SplitMember, SplitVersion
from validation.release.records import ReleasePaper
from validation.split import services as split_services

pytestmark = pytest.mark.django_db

LICENCES = {
    "cc-by": "http://creativecommons.org/licenses/by/4.0/",
    "cc-by-sa": "http://creativecommons.org/licenses/by-sa/4.0/",
    "cc0": "http://creativecommons.org/publicdomain/zero/1.0/",
    "arxiv": "http://arxiv.org/licenses/nonexclusive-distrib/1.0/",
    "cc-by-nc-sa": "http://creativecommons.org/licenses/by-nc-sa/4.0/",
    "unknown": "",
}


@pytest.fixture(scope="class")
def shared_pool(django_db_setup, django_db_blocker, tmp_path_factory):
    media = tmp_path_factory.mktemp("licence-pool-media")
    for pairs in build_once(
        "split licences: six papers under six licences",
        _pool,
        django_db_blocker=django_db_blocker,
        media_root=media,
    ):
        yield media, {code: pair.pk for code, pair in pairs.items()}


@pytest.fixture
def pool(shared_pool, settings):
    """The class's six pairs as stored (a test's writes are rolled back): images served."""
    media, pks = shared_pool
    settings.MEDIA_ROOT = media
    pairs = ClaimPair.objects.select_related("paper").in_bulk(pks.values())
    return {code: pairs[pk] for code, pk in pks.items()}


def _pool():
    """Six complete pairs, one paper each, under six licences."""
    team = Team()
    pairs = validated_pairs(team, 6)
    assert len({p.paper_id for p in pairs}) == 6
    for pair, url in zip(pairs, LICENCES.values(), strict=True):
        pair.paper.license_url = url
        pair.paper.license_name = ""
        pair.paper.save(update_fields=["license_url", "license_name"])
    return {code: pair for code, pair in zip(LICENCES, pairs, strict=True)}


def test_the_default_redistributable_licences():
    assert set(REDISTRIBUTABLE) == {"cc-by", "cc-by-sa", "cc0"}
    for code, url in LICENCES.items():
        assert licence_code(url) == code
        assert allows_redistribution(code) == (code in REDISTRIBUTABLE)


class TestOnTheLicencePool:
    """Tests that read the six papers under six licences (built once for the class; what a test writes is rolled back)."""

    def test_a_default_split_takes_only_redistributable_papers_and_counts_the_others(self, pool):
        split = split_services.freeze_split(validation=2, test=4, seed=1, name="d1")
        assert {m.pair_id for m in SplitMember.objects.filter(split=split)} == {
            pool[code].pk for code in REDISTRIBUTABLE
        }
        assert split.licences_by_default and split.licences == sorted(REDISTRIBUTABLE)
        assert split.left_out == {"arxiv": 1, "cc-by-nc-sa": 1, "unknown": 1}
        # Asking for more than the redistributable pool holds says what the filter left out.
        with pytest.raises(
            Exception,
            match=r"6 more claims were left out by the licence filter \[cc-by, cc-by-sa, cc0\]",
        ):
            split_services.freeze_split(validation=4, test=4, seed=1, name="d2")

    def test_naming_other_licences_is_explicit_and_the_card_marks_those_papers(self, pool):
        out = io.StringIO()
        call_command(
            "make_split",
            "--validation",
            "4",
            "--test",
            "4",
            "--seed",
            "1",
            "--name",
            "e1",
            "--licenses",
            "cc-by,cc-by-sa,arxiv,cc-by-nc-sa",
            stdout=out,
        )
        text = out.getvalue()
        assert "(as asked)" in text
        assert "warning: arxiv does not allow redistribution with adaptations" in text
        assert "left out by the licence filter: pairs cc0 1, unknown 1" in text
        split = SplitVersion.objects.get(name="e1")
        assert not split.licences_by_default
        papers = [
            ReleasePaper(
                paperid=f"p-{code}",
                sections=(),
                chart_captions={},
                table_captions={},
                licence=LICENCES[code],
                arxiv_id=f"p-{code}",
                version=1,
                synthetic=False,
            )
            for code in ("cc-by", "cc-by-sa", "arxiv", "cc-by-nc-sa")
        ]
        card = dataset_card(split, {"validation": [], "test": []}, papers, False)
        assert "named by whoever made the split" in card
        assert "### CC BY (`cc-by`): 1 paper(s)" in card
        assert "### CC BY-SA (`cc-by-sa`): 1 paper(s)" in card
        for code in ("arxiv", "cc-by-nc-sa"):
            section = card[card.index(f"(`{code}`)") :]
            assert "does not allow redistribution with adaptations" in section.split("###")[0]
            assert f"| p-{code} |" in section and "⚠ not redistributable" in section.split("###")[0]
        assert card.index("(`cc-by`)") < card.index("(`arxiv`)")  # the redistributable ones first
        assert (
            "Left out by the licence filter (complete pairs): CC0 (public domain) 1, unknown 1"
            in card
        )

    def test_the_releases_page_shows_the_pool_by_licence_before_a_split(self, client, pool):
        admin = get_user_model().objects.create_user("root", password="x", is_staff=True)
        client.force_login(admin)
        html = client.get("/manage/releases/").content.decode()
        table = html[html.index('id="licences"') :].split("</table>")[0]
        for code in LICENCES:
            assert f"<code>{code}</code>" in table
        assert table.count(">yes<") == 3 and "no: licence unknown" in table
        assert "6 claims in 3 pairs" in html  # what a default split may take
        # The form's default sizes fit the default pool: making the split as offered works.
        assert 'name="validation" value="2"' in html and 'name="test" value="4"' in html
        response = client.post("/manage/releases/", {"validation": 2, "test": 4, "seed": 13})
        assert response.status_code == 302
        assert SplitVersion.objects.get().licences_by_default

    def test_check_release_warns_about_each_licence_named_explicitly(self, pool, tmp_path):
        from validation.release_check import inspect_release

        codes = "cc-by,cc-by-sa,cc0,arxiv,cc-by-nc-sa"
        split_services.freeze_split(
            validation=2, test=8, seed=1, name="x1", licences=codes.split(",")
        )
        call_command(
            "export_release",
            "--split",
            "x1",
            "--out",
            str(tmp_path / "SciVer"),
            stdout=io.StringIO(),
        )
        report = inspect_release(tmp_path / "SciVer")
        assert report.problems == []
        licence = [w for w in report.warnings if w.startswith("licence:")]
        assert len(licence) == 2, report.warnings
        assert any("(`arxiv`)" in w and "does not allow redistribution" in w for w in licence)
        assert any("(`cc-by-nc-sa`)" in w for w in licence)
        # A default split's release has no such warning.
        split_services.freeze_split(validation=2, test=4, seed=1, name="d1")
        call_command(
            "export_release",
            "--split",
            "d1",
            "--out",
            str(tmp_path / "d" / "SciVer"),
            stdout=io.StringIO(),
        )
        assert not [
            w for w in inspect_release(tmp_path / "d" / "SciVer").warnings if "licence" in w
        ]

    def test_the_export_page_says_where_the_hidden_labels_are(
        self, client, pool, tmp_path, settings
    ):
        from jobs.models import Job
        from validation.models import ReleaseExport

        split = split_services.freeze_split(validation=2, test=4, seed=1, name="h1")
        out = tmp_path / "h1-x-hidden" / "SciVer"
        job = Job.objects.create(kind="export_release", status="finished")
        export = ReleaseExport.objects.create(
            split=split,
            out=str(out),
            hide_test_labels=True,
            job=job,
            archive=str(tmp_path / "a.zip"),
            manifest={
                "files": {},
                "hidden_labels": {"path": "../SciVer.labels.json", "records": 4},
            },
        )
        client.force_login(
            get_user_model().objects.create_user("root", password="x", is_staff=True)
        )
        # Within RELEASE_DIR, never the server's absolute folder (issue 44).
        settings.RELEASE_DIR = tmp_path
        html = client.get(f"/manage/releases/exports/{export.pk}/").content.decode()
        assert "h1-x-hidden/SciVer.labels.json" in html and "(4 records)" in html
        assert str(tmp_path) not in html
