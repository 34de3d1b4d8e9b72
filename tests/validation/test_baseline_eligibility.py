"""A baseline study refuses an expert eligible for none of the validated claims (issue 44,
item 7): the page says who and why, names each candidate's pool, and an explicit *start
anyway* box overrides it."""

from __future__ import annotations

import pytest

from annotation.errors import AnnotationError
from tests.annotation.factories import make_expert
from tests.validation.factories import Team, validated_pairs
from validation.baseline import services as baseline_services
from validation.models import BaselineStudy

pytestmark = pytest.mark.django_db


@pytest.fixture
def candidates():
    team = Team()
    validated_pairs(team, 1)  # two validated cs.CL claims
    return (
        team,
        make_expert("ann"),
        make_expert("vic", codes=("cs.CV",)),
        make_expert("newbie", trained=False),
    )


def test_an_expert_eligible_for_nothing_is_refused_unless_started_anyway(client, candidates):
    team, ann, vic, newbie = candidates
    client.force_login(team.admin)
    page = client.get("/manage/baseline/").content.decode()
    assert "ann <span" in page and "(2 validated claims they never worked on" in page
    assert (
        "(eligible for none of the validated claims: eligible for cs.CV; the validated claims "
        "they never worked on are in cs.CL)" in page
    )
    assert "eligible for no subfield" in page  # newbie, untrained
    assert 'name="anyway"' in page

    response = client.post("/manage/baseline/", {"experts": [ann.pk, vic.pk], "per_subset": 1})
    page = response.content.decode()
    assert response.status_code == 200 and not BaselineStudy.objects.exists()
    assert "No study started: an expert is eligible for none of the validated claims" in page
    assert "vic: eligible for cs.CV" in page and "ann:" not in page
    assert f'value="{vic.pk}" checked' in page  # the choice kept

    response = client.post(
        "/manage/baseline/", {"experts": [ann.pk, vic.pk], "per_subset": 1, "anyway": "1"}
    )
    assert response.status_code == 302
    assert set(BaselineStudy.objects.get().experts.all()) == {ann, vic}


def test_the_service_refuses_too_naming_why(candidates):
    team, ann, _, newbie = candidates
    with pytest.raises(AnnotationError, match=r"newbie: eligible for no subfield"):
        baseline_services.start_baseline(by=team.admin, expert_ids=[ann.pk, newbie.pk])
    study = baseline_services.start_baseline(
        by=team.admin, expert_ids=[ann.pk, newbie.pk], anyway=True
    )
    assert study.items.exists()
