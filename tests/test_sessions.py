"""Sessions are Django's own (issue 41 measured the project's engine against them and took
Django's), each sign-in linked to its person (config/sessions.py): who a request is stays decided
exactly as Django decides it, and all of one person's sessions end in one indexed statement."""

from __future__ import annotations

import pytest
from django.contrib.auth import SESSION_KEY
from django.contrib.sessions.models import Session
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from config.models import SessionLink
from config.sessions import end_sessions
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db

PASSWORD = "pw-for-tests-1"  # tests.factories.UserFactory's


def signed_in(username: str = "alice", *, user=None) -> tuple[Client, object]:
    user = user or UserFactory(username=username)
    client = Client()
    response = client.post("/accounts/login/", {"username": username, "password": PASSWORD})
    assert response.status_code == 302, response
    return client, user


def test_a_sign_in_is_linked_to_its_person_under_the_session_key_it_ends_with():
    client, user = signed_in()
    row = Session.objects.get()
    assert row.get_decoded()[SESSION_KEY] == str(user.pk)
    assert list(SessionLink.objects.values_list("session_key", "user_id")) == [
        (row.session_key, user.pk)
    ]
    assert client.cookies["sessionid"].value == row.session_key  # the key after the rotation


def test_all_of_one_persons_sessions_end_in_one_statement_and_no_one_elses():
    alice = UserFactory(username="alice")
    laptop, _ = signed_in(user=alice)
    phone, _ = signed_in(user=alice)
    bob, _ = signed_in("bob")
    assert Session.objects.count() == 3

    with CaptureQueriesContext(connection) as queries:
        ended = end_sessions(alice)
    statements = [q["sql"] for q in queries.captured_queries]
    on_sessions = [s for s in statements if '"django_session"' in s]
    assert ended == 2 and len(on_sessions) == 1, statements
    assert on_sessions[0].startswith('DELETE FROM "django_session"')
    found = on_sessions[0].split("IN (", 1)[1]  # the person's keys, found through the index
    assert '"config_sessionlink"' in found and '"user_id" =' in found

    for client in (laptop, phone):
        response = client.get("/")
        assert response.status_code == 302 and response.url.startswith("/accounts/login/")
    assert bob.get("/").status_code == 200
    assert not SessionLink.objects.filter(user=alice).exists()
    assert SessionLink._meta.get_field("user").db_index


@pytest.mark.parametrize(
    "change",
    [
        pytest.param(lambda u: setattr(u, "is_active", False), id="deactivated"),
        pytest.param(lambda u: u.set_password("another-password-2"), id="password changed"),
        pytest.param(lambda u: u.set_unusable_password(), id="password reset by an admin"),
    ],
)
def test_what_signs_a_user_out_still_does(change):
    client, user = signed_in()
    assert client.get("/").status_code == 200
    change(user)
    user.save()
    response = client.get("/")
    assert response.status_code == 302 and response.url.startswith("/accounts/login/")


def test_signing_out_ends_the_session_and_its_link_and_deleting_the_user_its_links():
    client, user = signed_in()
    other, bob = signed_in("bob")
    assert client.post("/accounts/logout/").status_code == 302
    assert list(SessionLink.objects.values_list("user_id", flat=True)) == [bob.pk]
    assert client.get("/").status_code == 302
    bob.delete()
    assert not SessionLink.objects.exists()
    assert other.get("/").status_code == 302  # Django reads no user for the session's id


def test_an_expired_session_is_signed_out():
    from datetime import timedelta

    from django.utils import timezone

    client, _ = signed_in()
    Session.objects.update(expire_date=timezone.now() - timedelta(seconds=1))
    response = client.get("/")
    assert response.status_code == 302 and response.url.startswith("/accounts/login/")
