"""Accounts: admins create them and hand out one-time links; people change their password."""

from __future__ import annotations

import re

import pytest
from django.contrib.auth import get_user_model

from annotation.models import ExpertProfile
from tests.factories import AdminFactory, UserFactory

pytestmark = pytest.mark.django_db
User = get_user_model()


def link_in(html: str) -> str:
    match = re.search(r'value="(http://testserver(/accounts/reset/[^"]+))"', html)
    assert match, "no one-time link on the page"
    return match.group(2)


def test_admin_creates_an_account_and_the_link_works_once(client):
    client.force_login(AdminFactory())
    response = client.post(
        "/manage/people/", {"username": "erin", "first_name": "Erin", "last_name": "Ng"}
    )
    assert response.status_code == 200
    path = link_in(response.content.decode())
    erin = User.objects.get(username="erin")
    assert not erin.has_usable_password() and ExpertProfile.objects.filter(user=erin).exists()

    client.logout()
    response = client.get(path, follow=True)  # Django swaps the token for a session marker
    form_url = response.redirect_chain[-1][0]
    assert "Choose your password" in response.content.decode()
    response = client.post(
        form_url,
        {"new_password1": "a-long-pass-phrase-42", "new_password2": "a-long-pass-phrase-42"},
    )
    assert response.status_code == 302
    response = client.get(response.url)
    assert "You are signed in as erin" in response.content.decode()
    client.logout()
    assert client.login(username="erin", password="a-long-pass-phrase-42")
    client.logout()
    response = client.get(path, follow=True)
    assert "This link no longer works" in response.content.decode()


def test_a_taken_username_is_refused_with_a_clear_error(client):
    UserFactory(username="erin")
    client.force_login(AdminFactory())
    response = client.post("/manage/people/", {"username": "Erin"})
    assert response.status_code == 400
    assert "The username &#x27;Erin&#x27; is taken." in response.content.decode()
    assert User.objects.filter(username__iexact="erin").count() == 1


def test_reset_disables_the_old_password_and_gives_a_new_link(client):
    bob = UserFactory(username="bob")
    client.force_login(AdminFactory())
    response = client.post(f"/manage/people/{bob.pk}/reset-password/")
    path = link_in(response.content.decode())
    bob.refresh_from_db()
    assert not bob.has_usable_password()
    assert "Their old password no longer works" in response.content.decode()
    client.logout()
    assert "Choose your password" in client.get(path, follow=True).content.decode()


def test_password_change(client):
    user = UserFactory(username="carol")
    client.force_login(user)
    assert client.get("/accounts/password_change/").status_code == 200
    response = client.post(
        "/accounts/password_change/",
        {
            "old_password": "pw-for-tests-1",
            "new_password1": "another-long-phrase-7",
            "new_password2": "another-long-phrase-7",
        },
    )
    assert response.status_code == 302 and response.url == "/accounts/password_change/done/"
    user.refresh_from_db()
    assert user.check_password("another-long-phrase-7")


def test_there_is_no_self_service_reset_by_email(client):
    assert client.get("/accounts/password_reset/").status_code == 404


def test_sign_in_and_out(client):
    UserFactory(username="dave")
    response = client.post("/accounts/login/", {"username": "dave", "password": "pw-for-tests-1"})
    assert response.status_code == 302 and response.url == "/"
    assert client.get("/").status_code == 200
    assert client.post("/accounts/logout/").status_code == 302
    assert client.get("/").status_code == 302


def test_people_tells_synthetic_experts_from_people_waiting_for_their_link(client):
    from annotation.experts import services as expert_services

    expert_services.create_account(username="sim-cl-1", first_name="Synthetic")
    expert_services.create_account(username="erin", first_name="Erin")
    client.force_login(AdminFactory())
    page = client.get("/manage/people/").content.decode()
    rows = dict(re.findall(r'<tr data-user="([^"]+)">(.*?)</tr>', page, re.S))
    assert "synthetic expert: cannot sign in" in rows["sim-cl-1"]
    assert "link not used yet" in rows["erin"] and "synthetic" not in rows["erin"]


def test_the_real_hasher_stores_pbkdf2_and_signs_in(client, settings):
    """The suite hashes with MD5 (tests/conftest.py); the deployment's hasher is Django's
    default, and here it is the subject: a password set and checked with it, and a sign-in."""
    from django.conf import global_settings

    settings.PASSWORD_HASHERS = global_settings.PASSWORD_HASHERS
    user = UserFactory(username="frank")
    user.set_password("a-real-pass-phrase-9")
    user.save()
    user.refresh_from_db()
    assert user.password.startswith("pbkdf2_sha256$")
    response = client.post(
        "/accounts/login/", {"username": "frank", "password": "a-real-pass-phrase-9"}
    )
    assert response.status_code == 302 and response.url == "/"
    user.refresh_from_db()
    assert user.password.startswith("pbkdf2_sha256$")  # not re-hashed to anything weaker
