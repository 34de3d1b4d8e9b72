"""Free text has a limit everywhere it is typed (issue 44, item 2): 300,000 characters of
training notes made the expert page 2.66 million px wide. The People pages' forms and the
services behind them (a command, the shell or a script meets the same limit) refuse text longer
than its field holds, naming the field and the limit, and record nothing; each limited field
carries its limit (`data-max`) for the counter of static/js/counter.js, never a `maxlength` at
which a browser would silently cut a paste. A flag's note holds 5,000 characters, like every
note."""

from __future__ import annotations

import datetime as dt

import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse

from annotation.errors import AnnotationError
from annotation.experts import services as experts
from annotation.models import ExpertProfile, Publication, Subfield, Training
from tests.factories import AdminFactory

pytestmark = pytest.mark.django_db

HUGE = "notes " * 49_999 + "notes."  # 300,000 characters


@pytest.fixture
def person(client):
    client.force_login(AdminFactory(username="boss"))
    user = get_user_model().objects.create(username="newcomer")
    ExpertProfile.objects.create(user=user)
    return user


def test_300000_characters_of_training_notes_are_refused_with_the_limit_and_nothing_stored(
    client, person
):
    yesterday = dt.date.today() - dt.timedelta(days=1)
    form = {"completed_on": yesterday.isoformat(), "trainer": "boss", "notes": HUGE}
    response = client.post(reverse("annotation:record_training", args=[person.pk]), form)
    page = response.content.decode()
    assert response.status_code == 400
    assert "Notes: longer than 5,000 characters (it has 300,000); shorten it." in page
    assert not Training.objects.exists()

    with pytest.raises(AnnotationError) as refused:
        experts.record_training(
            profile=person.expert, completed_on=yesterday, trainer="boss", notes=HUGE
        )
    assert "Notes: longer than 5,000 characters (it has 300,000)" in refused.value.message
    assert not Training.objects.exists()

    at_limit = "n" * experts.MAX_NOTES
    client.post(reverse("annotation:record_training", args=[person.pk]), form | {"notes": at_limit})
    assert Training.objects.get().notes == at_limit


def test_profile_notes_names_and_venues_are_refused_past_their_limits_by_page_and_service(
    client, person
):
    response = client.post(
        reverse("annotation:expert_profile", args=[person.pk]), {"active": "on", "notes": HUGE}
    )
    assert response.status_code == 400
    assert "Notes: longer than 5,000 characters" in response.content.decode()
    person.expert.refresh_from_db()
    assert person.expert.notes == ""
    with pytest.raises(AnnotationError, match="Notes: longer than 5,000 characters"):
        experts.update_expert_profile(profile=person.expert, subfields=[], active=True, notes=HUGE)

    Subfield.ensure_sciver_subfields()
    cl = Subfield.objects.get(code="cs.CL")
    form = {"title": "A study", "venue": "V" * 201, "year": 2024, "subfield": cl.pk}
    response = client.post(reverse("annotation:add_publication", args=[person.pk]), form)
    assert response.status_code == 400
    assert "Venue: longer than 200 characters (it has 201)" in response.content.decode()
    with pytest.raises(AnnotationError, match="Venue: longer than 200 characters"):
        experts.add_publication(
            profile=person.expert, title="A study", venue="V" * 201, year=2024, subfield=cl
        )
    assert not Publication.objects.exists()

    response = client.post(reverse("annotation:people"), {"username": "u" * 151})
    assert "Username: longer than 150 characters (it has 151)" in response.content.decode()
    with pytest.raises(AnnotationError, match="Last name: longer than 150 characters"):
        experts.create_account(username="someone", last_name="x" * 151)
    assert not get_user_model().objects.filter(username__startswith="someone").exists()


def test_limited_fields_carry_their_limit_for_the_counter_and_no_cutting_maxlength(client, person):
    page = client.get(reverse("annotation:expert", args=[person.pk])).content.decode()
    assert page.count('data-max="5000"') == 2  # the profile's notes, the training's notes
    assert 'data-max="200"' in page and 'data-max="2000"' in page  # venue, title
    assert 'maxlength="' not in page
    assert "js/counter.js" in page
