"""Sessions read with their user in one statement (config/sessions.py): who a request is stays
decided exactly as Django decides it (an inactive account, a changed password, a signed-out or
deleted session, a deleted user all sign the request out), for one statement less."""

from __future__ import annotations

import pytest
from django.contrib.auth import SESSION_KEY
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from config.models import Session
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db

PASSWORD = "pw-for-tests-1"  # tests.factories.UserFactory's


def signed_in(username: str = "alice") -> tuple[Client, object]:
    user = UserFactory(username=username)
    client = Client()
    response = client.post("/accounts/login/", {"username": username, "password": PASSWORD})
    assert response.status_code == 302, response
    return client, user


def workspace(client: Client) -> tuple[int, list[str]]:
    with CaptureQueriesContext(connection) as queries:
        status = client.get("/").status_code
    return status, [q["sql"] for q in queries.captured_queries]


def test_a_signed_in_request_reads_its_session_and_user_in_one_statement():
    client, user = signed_in()
    row = Session.objects.get()
    assert row.user_id == user.pk  # the column is kept with the session's data
    assert row.get_decoded()[SESSION_KEY] == str(user.pk)  # the model knows its store
    status, statements = workspace(client)
    assert status == 200
    first = statements[0]
    assert '"config_session"' in first and '"auth_user"' in first
    by_id = [s for s in statements if s.startswith('SELECT "auth_user"') and '"id" =' in s]
    assert by_id == [], by_id  # the user is not read a second time


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


def test_signing_out_and_deleting_the_user_end_the_sessions():
    client, user = signed_in()
    other, _ = signed_in("bob")
    assert Session.objects.count() == 2
    assert client.post("/accounts/logout/").status_code == 302
    assert list(Session.objects.values_list("user__username", flat=True)) == ["bob"]
    assert client.get("/").status_code == 302
    type(user).objects.filter(username="bob").delete()
    assert not Session.objects.exists()
    assert other.get("/").status_code == 302


def test_a_column_that_names_someone_else_is_not_believed():
    """The session's data decides who it is; a user column that disagrees (written by hand) is
    ignored and the user is read by the data's id, as Django reads it."""
    client, alice = signed_in()
    _, bob = signed_in("bob")
    Session.objects.filter(user=alice).update(user=bob)
    with CaptureQueriesContext(connection) as queries:
        page = client.get("/")
    assert page.status_code == 200 and page.wsgi_request.user.pk == alice.pk
    assert any(q["sql"].startswith('SELECT "auth_user"') for q in queries.captured_queries)


def test_an_expired_session_is_signed_out():
    from datetime import timedelta

    from django.utils import timezone

    client, _ = signed_in()
    Session.objects.update(expire_date=timezone.now() - timedelta(seconds=1))
    response = client.get("/")
    assert response.status_code == 302 and response.url.startswith("/accounts/login/")
