"""Archiving the demo asks first (issue 44, item 6): the Papers page's button shows what the
archive would strand (running baseline studies with their progress, work people hold) and
archives nothing until confirmed; the command says the same; a study whose claims left says
why and stops counting them."""

from __future__ import annotations

import io
import uuid

import pytest
from django.core.management import call_command
from django.utils import timezone

from annotation.models import WorkItem, WorkKind
from papers.models import Paper
from tests.annotation.factories import make_expert
from tests.validation.factories import Team, validated_pairs
from validation.baseline import services as baseline_services

pytestmark = pytest.mark.django_db


@pytest.fixture
def demo_study():
    """The demo's papers (synthetic) under a running baseline study: dave answered one claim
    and holds the next."""
    team = Team()
    validated_pairs(team, 2)
    Paper.objects.update(synthetic=True)
    dave, erin = make_expert("dave"), make_expert("erin")
    study = baseline_services.start_baseline(
        by=team.admin, expert_ids=[dave.pk, erin.pk], per_subset=2, seed=1
    )
    item = baseline_services.take_next_baseline(user=dave)
    baseline_services.submit_baseline_answer(
        item=item,
        user=dave,
        version=item.version,
        token=uuid.uuid4(),
        label="entailed",
        explanation="the table says so",
    )
    baseline_services.take_next_baseline(user=dave)  # held now
    return team, study


def test_the_archive_button_asks_first_listing_what_it_strands_and_archives_nothing(
    client, demo_study
):
    team, study = demo_study
    claims = study.items.count()
    client.force_login(team.admin)
    response = client.post("/manage/archive/", {"action": "archive_demo"})
    page = response.content.decode()
    assert response.status_code == 200 and "Archive the demo data?" in page
    assert not Paper.objects.filter(archived_at__isnull=False).exists()  # nothing archived
    assert f"Baseline study {study.pk}</a>: answered 1 of {2 * claims}" in page
    assert claims == 2  # dave answered one and holds the other
    assert '<li data-person="dave">dave holds 1 human-baseline item</li>' in page
    assert "erin has 2 human-baseline items waiting for them by name" in page
    assert 'name="confirm" value="yes"' in page

    response = client.post("/manage/archive/", {"action": "archive_demo", "confirm": "yes"})
    assert response.status_code == 302
    assert Paper.objects.filter(archived_at__isnull=True).count() == 0


def test_a_study_whose_claims_were_archived_says_why_and_stops_counting_them(client, demo_study):
    team, study = demo_study
    claims = study.items.count()
    client.force_login(team.admin)
    client.post("/manage/archive/", {"action": "archive_demo", "confirm": "yes"})
    page = client.get(f"/manage/baseline/{study.pk}/").content.decode()
    today = timezone.now().date().isoformat()
    assert (
        f"{claims} of its claims are on archived papers (archived {today} by boss: demo data);"
        " they no longer count" in page
    )
    assert "answered 0 of 0 on papers that are not archived" in page
    assert f"With them the study was answered 1 of {2 * claims}." in page


def test_the_command_says_what_the_archive_strands(demo_study):
    _, study = demo_study
    out = io.StringIO()
    call_command("archive_demo", stdout=out)
    output = out.getvalue()
    assert "Stranded by this archive" in output
    assert f"baseline study {study.pk} (answered 1 of {2 * study.items.count()})" in output
    assert "dave holds 1 human-baseline item" in output
    assert (
        WorkItem.objects.filter(kind=WorkKind.BASELINE, paper__archived_at__isnull=True).count()
        == 0
    )
