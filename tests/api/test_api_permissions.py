"""Who may call each API route: every /api/ route of the URL resolver (but the schema, the docs
and the JSON 404 catch-all), every method its view has, as every role.

A route's audience is read from its view's `permission_classes` AND from the hand-written
EXPECTED table below, which must agree and must name every route: a new route fails
`test_the_table_names_every_api_route` until someone has decided, here, who may call it.

- anonymous, and a revoked admin token: 401 everywhere;
- an annotator's token (and another annotator's): 403 on admins' routes, anything but 401/403
  on routes for everyone signed in;
- an admin's token: anything but 401/403;
- an admin's browser session: reads like a token; a write without the CSRF token is 403.

Path parameters get any value of the right form: the authentication and permission checks
come before the view looks anything up (DRF's `initial`), so a 401 or 403 is never hidden
behind a 404."""

from __future__ import annotations

import json
from dataclasses import dataclass

import pytest
from django.core.cache import cache
from django.db import transaction
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver
from rest_framework.permissions import AllowAny

from api.permissions import IsAdmin, IsSignedIn
from api.tokens import issue_token, revoke_token
from tests.factories import AdminFactory, UserFactory

pytestmark = pytest.mark.django_db

# Who may call each route: "admin" (IsAdmin, the default) or "signed-in" (IsSignedIn: anyone
# signed in, each seeing their own). Every route under /api/ has a row.
EXPECTED = {
    "api:papers": "admin",
    "api:papers_add": "admin",
    "api:paper": "admin",
    "api:crawls": "admin",
    "api:crawl": "admin",
    "api:job": "admin",
    "api:people": "admin",
    "api:person": "admin",
    "api:assignments": "admin",
    "api:progress": "admin",
    "api:agreement": "admin",
    "api:splits": "admin",
    "api:split": "admin",
    "api:split_exports": "admin",
    "api:exports": "admin",
    "api:export": "admin",
    "api:export_download": "admin",
    "api:export_labels": "admin",
    "api:export_check": "admin",
    "api:endpoints": "admin",
    "api:runs": "admin",
    "api:run": "admin",
    "api:run_outcomes": "admin",
    "api:me": "signed-in",
    "api:me_items": "signed-in",
}
NOT_ROUTES = {"api:schema", "api:docs", "api:unknown"}  # public, and the JSON 404
METHODS = ("get", "post", "put", "patch", "delete")
# A value of the right form for each converter (no such object needs to exist).
SAMPLE = {"IntConverter": "987654321", "IdConverter": "987654321", "ArxivIdConverter": "2401.00001"}
SAMPLE_KEY = "A" * 22
SHAPE = {"status", "code", "message", "field"}


@dataclass(frozen=True)
class ApiRoute:
    name: str
    pattern: str  # with `<kind:name>` parts
    view: type
    converters: dict

    @property
    def methods(self) -> list[str]:
        allowed = getattr(self.view, "http_method_names", METHODS)
        return [m for m in METHODS if m in allowed and hasattr(self.view, m)]

    @property
    def audience(self) -> str:
        classes = set(getattr(self.view, "permission_classes", ()))
        if IsAdmin in classes:
            return "admin"
        if IsSignedIn in classes:
            return "signed-in"
        if AllowAny in classes:
            return "public"
        return "unknown: " + ", ".join(sorted(c.__name__ for c in classes))

    def url(self) -> str:
        path = "/api/" + self.pattern
        for name, converter in self.converters.items():
            kind = type(converter).__name__
            value = SAMPLE.get(kind, SAMPLE_KEY)
            path = path.replace(f"<{_kind_of(self.pattern, name)}:{name}>", value)
        return path


def _kind_of(pattern: str, name: str) -> str:
    start = pattern.index(f":{name}>")
    return pattern[pattern.rindex("<", 0, start) + 1 : start]


def api_routes() -> list[ApiRoute]:
    """Every route of the `api` namespace, as the resolver has it (routes added later too)."""
    found: list[ApiRoute] = []

    def walk(patterns, namespace: str, prefix: str) -> None:
        for p in patterns:
            if isinstance(p, URLResolver):
                walk(p.url_patterns, p.namespace or namespace, prefix + str(p.pattern))
            elif isinstance(p, URLPattern) and namespace == "api":
                view = getattr(p.callback, "cls", None) or getattr(p.callback, "view_class", None)
                found.append(
                    ApiRoute(
                        f"api:{p.name}",
                        (prefix + str(p.pattern)).removeprefix("api/"),
                        view,
                        dict(getattr(p.pattern, "converters", {})),
                    )
                )

    walk(get_resolver().url_patterns, "", "")
    return found


ROUTES = [r for r in api_routes() if r.name not in NOT_ROUTES]


def test_the_table_names_every_api_route():
    names = {r.name for r in ROUTES}
    missing = sorted(names - set(EXPECTED))
    assert not missing, f"API routes with no row in EXPECTED (decide who may call them): {missing}"
    gone = sorted(set(EXPECTED) - names)
    assert not gone, f"rows of EXPECTED with no route: {gone}"
    assert {r.name for r in api_routes()} >= NOT_ROUTES


@pytest.mark.parametrize("route", ROUTES, ids=lambda r: r.name)
def test_the_views_permission_classes_say_what_the_table_says(route: ApiRoute):
    assert route.view is not None, f"{route.name} is not a DRF view"
    assert route.audience == EXPECTED.get(route.name), (
        f"{route.name}: its view's permission_classes make it {route.audience!r}, the table "
        f"says {EXPECTED.get(route.name)!r}"
    )
    assert route.methods, route.name


@pytest.fixture
def callers(db, settings):
    """Clients for every role: token clients, an admin's browser session enforcing CSRF."""
    settings.API_RATE = ""  # no budget: this test sends many requests from one address
    cache.clear()
    admin, annotator, other = (
        AdminFactory(username="boss"),
        UserFactory(username="ann"),
        UserFactory(username="bob"),
    )
    revoked, revoked_raw = issue_token(user=AdminFactory(username="old-boss"), name="gone")
    revoke_token(token=revoked, by=admin)

    def with_token(user) -> tuple[Client, dict]:
        return Client(), {"Authorization": f"Bearer {issue_token(user=user, name='t')[1]}"}

    session = Client(enforce_csrf_checks=True)
    session.force_login(admin)
    return {
        "anonymous": (Client(), {}),
        "annotator": with_token(annotator),
        "other annotator": with_token(other),
        "admin": with_token(admin),
        "revoked admin": (Client(), {"Authorization": f"Bearer {revoked_raw}"}),
        "admin session": (session, {}),
    }


def expected(route: ApiRoute, role: str, method: str) -> str:
    """'401', '403' or 'allowed' (anything but 401 and 403, and below 500)."""
    audience = EXPECTED[route.name]
    if role in ("anonymous", "revoked admin"):
        return "401"
    if role in ("annotator", "other annotator"):
        return "403" if audience == "admin" else "allowed"
    if role == "admin session" and method != "get":
        return "403"  # no CSRF token
    return "allowed"


def send(client: Client, headers: dict, method: str, url: str):
    """One request, in a savepoint rolled back after it (an allowed write changes nothing)."""
    with transaction.atomic():
        if method == "get":
            response = client.get(url, headers=headers)
        else:
            response = getattr(client, method)(
                url, json.dumps({}), content_type="application/json", headers=headers
            )
        transaction.set_rollback(True)
    return response


# What each refused role's answer says in `code`: no token, a revoked one, not allowed.
REFUSAL_CODES = {
    "anonymous": "not_authenticated",
    "revoked admin": "authentication_failed",
    "annotator": "permission_denied",
    "other annotator": "permission_denied",
    "admin session": "permission_denied",
}


@pytest.mark.parametrize("route", ROUTES, ids=lambda r: r.name)
def test_every_role_gets_what_the_route_allows(route: ApiRoute, callers):
    if route.name not in EXPECTED:
        pytest.fail(f"{route.name} has no row in EXPECTED")
    url, wrong = route.url(), []
    for role, (client, headers) in callers.items():
        for method in route.methods:
            response = send(client, headers, method, url)
            status, want = response.status_code, expected(route, role, method)
            ok = (
                status not in (401, 403) and status < 500
                if want == "allowed"
                else status == int(want)
            )
            if not ok:
                wrong.append(f"{role} {method.upper()} {url}: {status}, expected {want}")
                continue
            if status in (401, 403):  # a refusal in the API's JSON shape, saying why
                body = response.json()
                assert SHAPE <= set(body) and body["status"] == status, (role, method, body)
                assert body["code"] == REFUSAL_CODES[role], (role, method, body)
                if role == "admin session":
                    assert "CSRF" in body["message"], body
            if status == 401:
                assert "Bearer" in response.headers.get("WWW-Authenticate", ""), (role, url)
    assert not wrong, "\n".join(wrong)


def test_a_401_or_403_comes_before_the_lookup():
    """An id no object has: the admin gets 404, the others still 401/403 (no object's
    existence is told to those who may not ask)."""
    with_ids = [r for r in ROUTES if r.converters and "get" in r.methods]
    assert with_ids
    admin, annotator = AdminFactory(username="boss"), UserFactory(username="ann")
    cache.clear()
    admin_h = {"Authorization": f"Bearer {issue_token(user=admin, name='t')[1]}"}
    ann_h = {"Authorization": f"Bearer {issue_token(user=annotator, name='t')[1]}"}
    for route in with_ids:
        url = route.url()
        assert Client().get(url, headers=admin_h).status_code == 404, url
        assert Client().get(url).status_code == 401, url
        if EXPECTED[route.name] == "admin":
            assert Client().get(url, headers=ann_h).status_code == 403, url
