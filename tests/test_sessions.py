"""Sessions are Django's own (issue 41 measured the project's engine against them and took
Django's), each sign-in linked to its person (annotation/sessions.py): who a request is stays decided
exactly as Django decides it, and all of one person's sessions end in one indexed statement."""

from __future__ import annotations

import pytest
from django.contrib.auth import SESSION_KEY
from django.contrib.sessions.models import Session
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from annotation.models import SessionLink
from annotation.sessions import end_sessions
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
    assert '"annotation_sessionlink"' in found and '"user_id" =' in found

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


def test_deactivating_or_archiving_a_person_ends_their_sessions_in_that_transaction():
    from django.db import transaction

    from annotation import archiving
    from tests.factories import AdminFactory

    client, alice = signed_in()
    alice.is_active = False
    with transaction.atomic():
        alice.save()  # as the admin's change form saves it
        assert not Session.objects.exists()  # inside the save's transaction
    assert client.get("/").status_code == 302

    boss = AdminFactory(username="boss")
    laptop, bob = signed_in("bob")
    archiving.archive_account(user=bob, by=boss, note="left the lab")
    assert not SessionLink.objects.filter(user=bob).exists()
    assert laptop.get("/").status_code == 302


def test_a_person_signs_out_their_other_sessions_and_keeps_this_one():
    alice = UserFactory(username="alice")
    here, _ = signed_in(user=alice)
    there, _ = signed_in(user=alice)
    page = here.get("/accounts/sessions/").content.decode()
    assert "signed in in 1 other session" in page and 'id="end-other-sessions"' in page
    response = here.post("/accounts/sessions/", follow=True)
    assert "Signed out of 1 other session." in response.content.decode()
    assert here.get("/").status_code == 200 and there.get("/").status_code == 302
    assert "You are signed in here only." in here.get("/accounts/sessions/").content.decode()


def test_an_admin_signs_a_person_out_everywhere_from_the_admin():
    from tests.factories import AdminFactory

    alice = UserFactory(username="alice")
    one, _ = signed_in(user=alice)
    two, _ = signed_in(user=alice)
    admin = Client()
    admin.force_login(AdminFactory(username="boss"))
    response = admin.post(
        "/admin/auth/user/",
        {"action": "sign_out_everywhere", "_selected_action": [alice.pk]},
        follow=True,
    )
    assert "1 person signed out everywhere: 2 sessions ended." in response.content.decode()
    assert one.get("/").status_code == 302 and two.get("/").status_code == 302
    assert admin.get("/").status_code == 200  # the admin's own session stays


def test_clearsessions_clears_expired_sessions_and_their_links():
    from datetime import timedelta

    from django.core.management import call_command
    from django.utils import timezone

    stale, alice = signed_in()
    fresh, _ = signed_in("bob")
    Session.objects.filter(session_key=stale.cookies["sessionid"].value).update(
        expire_date=timezone.now() - timedelta(seconds=1)
    )
    call_command("clearsessions")
    assert Session.objects.count() == 1 and fresh.get("/").status_code == 200
    from annotation.sessions import clear_expired

    assert clear_expired() == 1  # alice's link, whose session clearsessions removed
    assert list(SessionLink.objects.values_list("user__username", flat=True)) == ["bob"]


@pytest.mark.services
def test_with_redis_the_clearing_is_queued_daily_as_one_job(settings):
    import django_rq

    from annotation.sessions import CLEANUP_JOB_ID, clear_expired_and_reschedule, schedule_cleanup
    from tests.services import redis_url_or_skip

    redis_url_or_skip()
    queue = django_rq.get_queue("default")
    scheduled = queue.scheduled_job_registry
    scheduled.remove(CLEANUP_JOB_ID, delete_job=True) if CLEANUP_JOB_ID in scheduled else None
    assert schedule_cleanup() and schedule_cleanup()  # twice: still one job
    assert scheduled.get_job_ids() == [CLEANUP_JOB_ID]
    when = scheduled.get_scheduled_time(CLEANUP_JOB_ID)
    from django.utils import timezone

    assert 23.9 * 3600 < (when - timezone.now()).total_seconds() <= 24 * 3600
    clear_expired_and_reschedule()  # what the worker runs: clears, and queues the next
    assert scheduled.get_job_ids() == [CLEANUP_JOB_ID]
    scheduled.remove(CLEANUP_JOB_ID, delete_job=True)
