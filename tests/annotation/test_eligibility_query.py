"""The workspace's one-query eligibility (`subfields_with_eligibility`) judges every subfield as
the admins' many-expert reading (`eligibility_by_expert`) does, for every kind of expert."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from annotation.experts.selectors import eligibility_by_expert, subfields_with_eligibility
from annotation.models import ExpertProfile, Publication, Subfield
from tests.annotation.factories import make_expert
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db


def test_one_query_judges_each_subfield_as_the_admins_reading_does():
    eligible = make_expert("eligible", ("cs.CL", "cs.IR"))
    untrained = make_expert("untrained", ("cs.CL",), trained=False)
    inactive = make_expert("inactive", ("cs.CL",), active=False)
    archived = make_expert("archived", ("cs.CL",))
    ExpertProfile.objects.filter(user=archived).update(archived_at=timezone.now())
    short = make_expert("short", ("cs.CL", "cs.CV"), publications=1)
    undeclared = make_expert("undeclared", ("cs.CL",))
    profile = ExpertProfile.objects.get(user=undeclared)
    for n in range(3):  # publications in a subfield the profile does not list
        Publication.objects.create(
            expert=profile,
            title=f"Paper {n}",
            venue="ACL",
            year=2023,
            subfield=Subfield.objects.get(code="cs.IR"),
        )
    no_profile = UserFactory(username="no-profile")
    codes = list(Subfield.objects.values_list("code", flat=True))
    assert len(codes) == 8
    people = [eligible, untrained, inactive, archived, short, undeclared, no_profile]
    expected = eligibility_by_expert([p.pk for p in people], codes)
    for person in people:
        with CaptureQueriesContext(connection) as queries:
            judged = subfields_with_eligibility(person.pk)
        assert len(queries.captured_queries) == 1
        assert [s.code for s, _ in judged] == codes
        assert {s.code: e for s, e in judged} == expected[person.pk], person.username
    assert {s.code for s, e in subfields_with_eligibility(eligible.pk) if e.eligible} == {
        "cs.CL",
        "cs.IR",
    }
    assert not any(e.eligible for _, e in subfields_with_eligibility(short.pk))
