"""Personal API tokens: made on the account's page and shown once, stored only as a digest,
signing a script in until revoked (by its owner, or an admin; never by someone else), revoked
with its account's deactivation or archiving, and held to the request budget (API_RATE). A
malformed or foreign header is a 401 in the API's JSON shape, never a 500."""

from __future__ import annotations

import hashlib
import re

import pytest
from django.core.cache import cache
from django.test import Client

from annotation.archiving import archive_account
from annotation.experts import services as expert_services
from api import tokens
from api.models import ApiToken
from tests.factories import AdminFactory, UserFactory

pytestmark = pytest.mark.django_db

PAGE = "/accounts/api-tokens/"
MANAGE = "/manage/api-tokens/"
ADMIN_ROUTE = "/api/people/"  # an admin's route (api/views/people.py)
SHAPE = {"status", "code", "message", "field"}


@pytest.fixture(autouse=True)
def _fresh_budget():
    """Request budgets live in Django's cache (local memory, shared by every test here)."""
    cache.clear()
    yield
    cache.clear()


def signed_in(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def make_on_page(client: Client, name: str = "my script") -> str:
    """Make a token on the account's page; the token as its answer shows it."""
    response = client.post(PAGE, {"name": name})
    assert response.status_code == 200, response.content[:500]
    return re.search(r'value="(svs_[A-Za-z0-9_-]+)"', response.content.decode()).group(1)


def call(raw: str | None, path: str = ADMIN_ROUTE, header: str | None = None):
    headers = {}
    if header is not None:
        headers["Authorization"] = header
    elif raw is not None:
        headers["Authorization"] = f"Bearer {raw}"
    return Client().get(path, headers=headers)


def refusal(response, status: int) -> dict:
    assert response.status_code == status, (response.status_code, response.content[:300])
    body = response.json()
    assert SHAPE <= set(body), body
    assert body["status"] == status and body["message"], body
    return body


def test_a_token_is_shown_once_on_the_answer_and_never_again():
    admin = AdminFactory(username="boss")
    client = signed_in(admin)
    response = client.post(PAGE, {"name": "nightly export"})
    page = response.content.decode()
    raw = re.search(r'value="(svs_[A-Za-z0-9_-]+)"', page).group(1)
    assert f"Authorization: Bearer {raw}" in page  # the header to send
    assert "shown only once" in page
    assert "no-store" in response.headers.get("Cache-Control", "")
    token = ApiToken.objects.get(user=admin)
    assert raw.startswith(token.prefix) and token.name == "nightly export"

    listing = client.get(PAGE).content.decode()
    assert raw not in listing and raw[len(token.prefix) :] not in listing
    assert f"{token.prefix}…" in listing and "nightly export" in listing
    assert call(raw).status_code == 200  # and it signs a script in


def test_only_the_digest_is_stored():
    user = UserFactory(username="ann")
    raw = make_on_page(signed_in(user))
    row = ApiToken.objects.filter(user=user).values().get()
    secret = raw[len(tokens.PREFIX) + 6 :]  # what the prefix does not show
    assert all(secret not in str(value) for value in row.values()), row
    assert row["digest"] == hashlib.sha256(raw.encode()).hexdigest()
    assert len(row["prefix"]) < len(raw)


def test_a_token_signs_its_owner_in_and_records_its_use():
    admin, annotator = AdminFactory(username="boss"), UserFactory(username="ann")
    admin_raw, annotator_raw = make_on_page(signed_in(admin)), make_on_page(signed_in(annotator))
    assert call(admin_raw).status_code == 200
    assert ApiToken.objects.get(user=admin).last_used_at is not None
    body = refusal(call(annotator_raw), 403)  # an admin's route
    assert body["code"] == "permission_denied"


def test_a_revoked_token_gets_401_in_the_json_shape():
    admin = AdminFactory(username="boss")
    client = signed_in(admin)
    raw = make_on_page(client)
    token = ApiToken.objects.get(user=admin)
    response = client.post(PAGE, {"revoke": token.pk})
    assert response.status_code == 302
    token.refresh_from_db()
    assert token.revoked_at is not None and token.revoked_by == admin
    body = refusal(call(raw), 401)
    assert body["code"] == "authentication_failed" and body["field"] == ""
    assert "Bearer" in call(raw)["WWW-Authenticate"]
    page = client.get(PAGE).content.decode()
    assert "Revoked the token" in page and f'value="{token.pk}"' not in page  # no button left


def test_someone_else_cannot_revoke_your_token():
    owner, other = UserFactory(username="ann"), UserFactory(username="bob")
    raw = make_on_page(signed_in(owner))
    token = ApiToken.objects.get(user=owner)
    intruder = signed_in(other)
    assert intruder.post(PAGE, {"revoke": token.pk}).status_code == 404
    assert intruder.post(MANAGE, {"revoke": token.pk}).status_code == 403
    assert intruder.get(MANAGE).status_code == 403
    token.refresh_from_db()
    assert token.active
    assert call(raw).status_code != 401
    # Their own list does not show it either.
    assert token.prefix not in intruder.get(PAGE).content.decode()


def test_an_admin_sees_everyones_tokens_and_revokes_any():
    owner, admin = UserFactory(username="ann"), AdminFactory(username="boss")
    raw = make_on_page(signed_in(owner), "ann's notebook")
    token = ApiToken.objects.get(user=owner)
    client = signed_in(admin)
    page = client.get(MANAGE).content.decode()
    assert 'id="active-tokens"' in page and "ann&#x27;s notebook" in page
    assert 'data-user="ann"' in page and raw not in page
    response = client.post(MANAGE, {"revoke": token.pk}, follow=True)
    assert "Revoked the token" in response.content.decode()
    token.refresh_from_db()
    assert token.revoked_by == admin
    refusal(call(raw), 401)
    page = client.get(MANAGE).content.decode()
    assert 'id="revoked-tokens"' in page and 'id="no-active-tokens"' in page
    # Revoking again says so; an unknown or malformed id is 404 or 400, never 500.
    again = client.post(MANAGE, {"revoke": token.pk}, follow=True).content.decode()
    assert "was already revoked" in again
    assert client.post(MANAGE, {"revoke": 10**9}).status_code == 404
    assert client.post(MANAGE, {"revoke": "²"}).status_code == 400
    assert client.post(MANAGE, {"revoke": str(2**70)}).status_code == 400


def test_the_pages_need_a_sign_in_and_the_csrf_token():
    assert Client().get(PAGE).status_code == 302
    assert Client().get(MANAGE).status_code == 302
    user = UserFactory(username="ann")
    strict = Client(enforce_csrf_checks=True)
    strict.force_login(user)
    assert strict.post(PAGE, {"name": "x"}).status_code == 403
    assert not ApiToken.objects.exists()


def test_a_deactivated_accounts_token_gets_401_and_is_revoked():
    admin = AdminFactory(username="boss")
    raw = make_on_page(signed_in(admin))
    assert call(raw).status_code == 200
    admin.is_active = False
    admin.save()
    refusal(call(raw), 401)
    assert not tokens.active_tokens(admin).exists()  # revoked with its sessions
    # Active again, the old token stays revoked.
    admin.is_active = True
    admin.save()
    refusal(call(raw), 401)


def test_an_inactive_accounts_token_is_refused_even_if_not_revoked():
    user = AdminFactory(username="boss")
    _, raw = tokens.issue_token(user=user, name="x")
    type(user).objects.filter(pk=user.pk).update(is_active=False)  # no save, no signal
    body = refusal(call(raw), 401)
    assert "not active" in body["message"]


def test_an_archived_accounts_tokens_are_revoked():
    admin, ann = AdminFactory(username="boss"), UserFactory(username="ann")
    expert_services.ensure_expert_profile(user=ann)
    _, raw = tokens.issue_token(user=ann, name="x")
    archive_account(user=ann, by=admin)
    token = ApiToken.objects.get(user=ann)
    assert token.revoked_at is not None and token.revoked_by == admin
    refusal(call(raw), 401)


def test_the_budget_answers_429_throttled(settings):
    settings.API_RATE = "3/min"
    admin = AdminFactory(username="boss")
    _, raw = tokens.issue_token(user=admin, name="x")
    _, other = tokens.issue_token(user=admin, name="y")
    for _ in range(3):
        assert call(raw).status_code == 200
    body = refusal(call(raw), 429)
    assert body["code"] == "throttled"
    assert call(other).status_code == 200  # each token has its own budget


@pytest.mark.parametrize(
    "header",
    [
        "Token x y",
        "Bearer",
        "Bearer a b",
        "Bearer svs_nothing",
        "Bearer notatoken",
        "Bearer svs_" + "x" * 5000,
        "Bearer svs_é",
        "Bearer svs_" + "漢".encode().decode("latin-1"),  # UTF-8 bytes, as a server reads them
        "token svs_\x7f",
    ],
)
def test_a_malformed_or_foreign_header_is_401_not_500(header):
    AdminFactory(username="boss")
    body = refusal(call(None, header=header), 401)
    assert body["code"] in ("authentication_failed", "not_authenticated")


def test_no_header_on_an_admin_route_is_401_not_authenticated():
    body = refusal(call(None), 401)
    assert body["code"] == "not_authenticated"


def test_a_long_name_is_refused_with_the_limit_said():
    user = UserFactory(username="ann")
    client = signed_in(user)
    response = client.post(PAGE, {"name": "x" * 300})
    page = response.content.decode()
    assert response.status_code == 400
    assert f"{tokens.MAX_NAME:,} characters" in page and "300" in page
    assert f"at most {tokens.MAX_NAME} characters" in client.get(PAGE).content.decode()
    for name in ("", "   ", "a\x00b"):
        assert client.post(PAGE, {"name": name}).status_code == 400
    assert not ApiToken.objects.exists()


def test_the_services_refusals_are_shown_as_messages():
    user = UserFactory(username="ann")
    client = signed_in(user)
    for n in range(tokens.MAX_ACTIVE_PER_PERSON):
        tokens.issue_token(user=user, name=f"t{n}")
    response = client.post(PAGE, {"name": "one more"})
    assert response.status_code == 400
    assert "revoke one before making another" in response.content.decode()
    assert tokens.active_tokens(user).count() == tokens.MAX_ACTIVE_PER_PERSON
