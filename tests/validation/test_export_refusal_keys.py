"""An export's refusal names claims and pairs by their keys, as the pages do, never by their
row ids ("claim 39 … pair 20"); where a new split is the fix, the pages offer the split form
(a "Make a new split" button) instead of a shell command, and the command line keeps the
command (issue 44, item 8)."""

from __future__ import annotations

import io
import re

import pytest
from django.core.management import CommandError, call_command

from jobs.models import Job
from tests.validation.factories import Team, validated_pairs
from validation import services
from validation.models import ReleaseExport, SplitVersion

pytestmark = pytest.mark.django_db


def run(*args) -> None:
    call_command(*args, stdout=io.StringIO(), stderr=io.StringIO())


def test_a_refused_export_names_keys_and_offers_the_split_form_on_the_page(
    client, settings, tmp_path
):
    settings.REDIS_URL, settings.JOBS_INLINE = "", True  # the page's export runs inline
    settings.RELEASE_DIR = tmp_path / "releases"
    team = Team()
    pairs = validated_pairs(team, 2)
    run("make_split", "--validation", "2", "--test", "2", "--seed", "1", "--name", "v1")
    claim = pairs[1].claims.get(label="refuted")
    services.reopen_validation(claim=claim, by=team.admin, reason="the number is wrong")
    named = f"claim {claim.key} (refuted, pair {pairs[1].key}, paper "

    # The command line: keys, and the command that makes a new split.
    with pytest.raises(CommandError) as failure:
        run("export_release", "--split", "v1", "--out", str(tmp_path / "SciVer"))
    message = str(failure.value)
    assert named in message
    assert "python manage.py make_split --validation N --test M" in message

    # The page: the same keys, no row id, no shell command, and a button to the split form.
    client.force_login(team.admin)
    split = SplitVersion.objects.get()
    response = client.post(f"/manage/releases/splits/{split.pk}/export/")
    assert ReleaseExport.objects.select_related("job").get().job.status == Job.Status.FAILED
    page = client.get(response.url).content.decode()
    error = page.split('id="export-error"', 1)[1].split("</p>", 1)[0]
    assert named in error
    assert not re.search(rf"\b(claim {claim.pk}|pair {pairs[1].pk})\b", error)
    assert "manage.py" not in page and "make_split" not in page
    assert 'id="make-new-split" href="/manage/releases/#make-split"' in page
    # The releases page: the failed export offers the split form (on that page) too.
    releases = client.get("/manage/releases/").content.decode()
    assert 'id="make-split"' in releases
    exports = releases.split('id="exports"', 1)[1]
    assert 'refused: <a href="#make-split" class="make-new-split">make a new split</a>' in exports
    assert "manage.py" not in releases
