"""Sign-in throttling, a session that ends mid-task, production settings (HTTPS, HSTS, the
deployment checks, `check --deploy`), the Content-Security-Policy, and the admin without Redis."""

from __future__ import annotations

import io
import json
import os
import re
import secrets
import subprocess
import sys
from datetime import timedelta
from pathlib import Path

import pytest
import yaml
from django.contrib.sessions.models import Session
from django.core.management import call_command
from django.db.models import F
from django.test import Client, RequestFactory
from django.urls import URLPattern, URLResolver, get_resolver, reverse
from django.utils import timezone

from tests.factories import AdminFactory, UserFactory

ROOT = Path(__file__).resolve().parent.parent
PASSWORD = "pw-for-tests-1"
LOGIN = "/accounts/login/"


def sign_in(client: Client, username: str, password: str, **extra):
    return client.post(LOGIN, {"username": username, "password": password}, **extra)


# --- Sign-in throttling ------------------------------------------------------------------------


@pytest.mark.django_db
def test_five_wrong_passwords_lock_the_account_and_the_page_says_for_how_long(client):
    UserFactory(username="alice")
    for _ in range(4):
        response = sign_in(client, "alice", "wrong")
        assert response.status_code == 200
        assert "didn't match" in response.content.decode()
    fifth = sign_in(client, "alice", "wrong")
    assert fifth.status_code == 429

    right = sign_in(client, "alice", PASSWORD)
    page = right.content.decode()
    assert right.status_code == 429
    assert "Too many failed sign-ins for this account from this address (5 in a row)" in page
    assert "try again in 15 minutes" in page and 'id="locked-out"' in page
    assert 800 < int(right["Retry-After"]) <= 900
    assert client.get("/").status_code == 302  # not signed in

    # Ten minutes on, the page says five; past the cool-off the right password works at once.
    from axes.models import AccessAttempt

    AccessAttempt.objects.update(attempt_time=F("attempt_time") - timedelta(minutes=10))
    assert "try again in 5 minutes" in sign_in(client, "alice", PASSWORD).content.decode()
    AccessAttempt.objects.update(attempt_time=F("attempt_time") - timedelta(minutes=6))
    response = sign_in(client, "alice", PASSWORD)
    assert response.status_code == 302 and response.url == "/"


@pytest.mark.django_db
def test_guesses_at_many_accounts_from_one_address_lock_that_address_but_not_an_admin(settings):
    settings.SIGNIN_ADDRESS_LIMIT = 12  # far above one lab's typos (50 by default)
    UserFactory(username="bob")
    AdminFactory(username="root")
    attacker = Client(REMOTE_ADDR="192.0.2.7")
    for n in range(12):
        sign_in(attacker, f"someone{n}", "guess")  # four names, three guesses each: no pair's 5
    assert sign_in(attacker, "bob", PASSWORD).status_code == 429
    response = sign_in(Client(REMOTE_ADDR="192.0.2.8"), "bob", PASSWORD)
    assert response.status_code == 302  # bob elsewhere is not locked out
    # The admin, behind the same address, is paused only by failures at their own account.
    assert sign_in(Client(REMOTE_ADDR="192.0.2.7"), "root", PASSWORD).status_code == 302


@pytest.mark.django_db
def test_one_persons_failures_do_not_pause_a_colleague_behind_the_same_address():
    """A lab's NAT or a proxy without PROXY_COUNT: everyone has one address. Alice's five wrong
    passwords pause alice there; carol, and an admin, sign in from that address as before."""
    UserFactory(username="alice")
    UserFactory(username="carol")
    AdminFactory(username="root")
    lab = "198.51.100.1"
    for _ in range(5):
        sign_in(Client(REMOTE_ADDR=lab), "alice", "wrong")
    assert sign_in(Client(REMOTE_ADDR=lab), "alice", PASSWORD).status_code == 429
    assert sign_in(Client(REMOTE_ADDR=lab), "carol", PASSWORD).status_code == 302
    assert sign_in(Client(REMOTE_ADDR=lab), "root", PASSWORD).status_code == 302
    # alice from home is not paused: the pause is hers on the lab's address only.
    assert sign_in(Client(REMOTE_ADDR="203.0.113.5"), "alice", PASSWORD).status_code == 302


@pytest.mark.django_db
def test_an_admin_unlocks_an_account_at_once(client):
    UserFactory(username="dave")
    for _ in range(5):
        sign_in(client, "dave", "wrong")
    assert sign_in(client, "dave", PASSWORD).status_code == 429

    admin = Client()
    admin.force_login(AdminFactory())
    listing = admin.get("/admin/axes/accessattempt/")
    assert listing.status_code == 200 and "dave" in listing.content.decode()

    call_command("axes_reset_username", "dave", stdout=io.StringIO())
    response = sign_in(client, "dave", PASSWORD)
    assert response.status_code == 302 and response.url == "/"


@pytest.mark.django_db
def test_an_admin_sees_who_is_paused_since_when_and_unlocks_them_from_a_page():
    UserFactory(username="erin")
    erin = Client(REMOTE_ADDR="192.0.2.44")
    for _ in range(5):
        sign_in(erin, "erin", "wrong")
    assert sign_in(erin, "erin", PASSWORD).status_code == 429

    admin = Client()
    admin.force_login(AdminFactory())
    people = admin.get("/manage/people/").content.decode()
    assert 'href="/manage/sign-ins/"' in people
    page = admin.get("/manage/sign-ins/").content.decode()
    assert 'id="paused-pairs"' in page and "erin" in page and "192.0.2.44" in page
    assert 'id="no-paused-addresses"' in page
    done = admin.post(
        "/manage/sign-ins/", {"username": "erin", "address": "192.0.2.44"}, follow=True
    )
    assert "Unlocked erin from 192.0.2.44" in done.content.decode()
    assert 'id="no-paused-pairs"' in done.content.decode()
    assert sign_in(erin, "erin", PASSWORD).status_code == 302
    assert Client().get("/manage/sign-ins/").status_code == 302  # signed out: the sign-in page
    nobody = Client()
    nobody.force_login(UserFactory(username="frank"))
    assert nobody.get("/manage/sign-ins/").status_code == 403


@pytest.mark.django_db
def test_the_admin_sign_in_is_throttled_too_and_the_lockout_keeps_next():
    AdminFactory(username="root")
    client = Client()
    for _ in range(5):
        client.post("/admin/login/", {"username": "root", "password": "wrong", "next": "/admin/"})
    response = client.post(
        "/admin/login/", {"username": "root", "password": PASSWORD, "next": "/admin/"}
    )
    assert response.status_code == 429
    assert 'name="next" value="/admin/"' in response.content.decode()
    scripted = client.post(
        LOGIN, {"username": "root", "password": PASSWORD}, HTTP_ACCEPT="application/json"
    )
    assert scripted.status_code == 429 and scripted.json()["retry_after_minutes"] == 15


def test_the_client_address_behind_proxies(settings):
    from config.signin import client_ip

    factory = RequestFactory()
    forwarded = factory.get(
        "/", REMOTE_ADDR="10.0.0.2", HTTP_X_FORWARDED_FOR="203.0.113.9, 198.51.100.2"
    )
    settings.PROXY_COUNT = 0
    assert client_ip(forwarded) == "10.0.0.2"  # no proxy trusted: the connection's address
    settings.PROXY_COUNT = 1
    assert client_ip(forwarded) == "198.51.100.2"  # what our proxy appended, not the forgery
    settings.PROXY_COUNT = 2
    assert client_ip(forwarded) == "203.0.113.9"
    settings.PROXY_COUNT = 3
    assert client_ip(forwarded) == "10.0.0.2"  # fewer hops than proxies: not trusted
    settings.PROXY_COUNT = 1
    assert (
        client_ip(factory.get("/", REMOTE_ADDR="10.0.0.2", HTTP_X_FORWARDED_FOR="nonsense"))
        == "10.0.0.2"
    )


# --- A session that ends mid-task -------------------------------------------------------------


@pytest.mark.django_db
def test_a_session_that_ends_mid_task_keeps_the_draft_and_signing_in_returns_to_it(writer):
    client, item = writer
    page = reverse("annotation:write", args=[item.key])
    draft_url = reverse("annotation:save_draft", args=[item.key])
    saved = "Ours beats the baseline on BLEU by a wide margin in every setting."

    def autosave(text: str):
        body = {"version": item.version, "draft": {"entailed": text}}
        return client.post(
            draft_url,
            json.dumps(body),
            content_type="application/json",
            HTTP_REFERER=f"http://testserver{page}",
        )

    assert autosave(saved).status_code == 200
    Session.objects.update(expire_date=timezone.now() - timedelta(seconds=1))  # it ends

    refused = autosave("Typed after the session ended.")
    assert refused.status_code == 401
    assert refused.json()["signed_out"] is True
    assert refused.json()["login_url"] == f"{LOGIN}?next={page}"

    reload = client.get(page)
    assert reload.status_code == 302 and reload.url == f"{LOGIN}?next={page}"
    back = client.post(LOGIN, {"username": "alice", "password": PASSWORD, "next": page})
    assert back.status_code == 302 and back.url == page
    html = client.get(page).content.decode()
    assert saved in html
    assert "Typed after the session ended." not in html


@pytest.mark.django_db
def test_a_signed_out_form_post_signs_in_back_to_its_page(writer):
    client, item = writer
    page = reverse("annotation:write", args=[item.key])
    client.logout()
    response = client.post(
        reverse("annotation:release_task", args=[item.key]),
        {"version": item.version},
        HTTP_REFERER=f"http://testserver{page}",
    )
    assert response.status_code == 302 and response.url == f"{LOGIN}?next={page}"
    # A Referer from elsewhere is never followed.
    response = client.post(
        reverse("annotation:release_task", args=[item.key]),
        {"version": item.version},
        HTTP_REFERER="https://evil.example/phish",
    )
    assert "evil" not in response.url


@pytest.mark.django_db
def test_a_stale_csrf_token_answers_json_to_the_autosave(writer):
    """Signing in again (in another tab) renews the token: the old page's autosave is refused,
    as JSON the page can read, and the draft on the server stays."""
    _, item = writer
    strict = Client(enforce_csrf_checks=True)
    strict.force_login(item.holder)
    strict.get(reverse("annotation:write", args=[item.key]))  # the page sets the CSRF cookie
    stale = {"HTTP_X_CSRFTOKEN": "x" * 32}
    response = strict.post(
        reverse("annotation:save_draft", args=[item.key]),
        "{}",
        content_type="application/json",
        **stale,
    )
    assert response.status_code == 403
    assert response.json()["csrf"] is True and "Reload it" in response.json()["error"]
    page = strict.post(reverse("annotation:release_task", args=[item.key]), {}, **stale)
    assert page.status_code == 403 and "This page is out of date" in page.content.decode()


@pytest.mark.django_db
def test_no_csrf_cookie_over_plain_http_to_secure_cookies_says_why(settings):
    settings.ALLOWED_HOSTS = ["sciver.example.org"]
    settings.SESSION_COOKIE_SECURE = settings.CSRF_COOKIE_SECURE = True
    strict = Client(enforce_csrf_checks=True, HTTP_HOST="sciver.example.org")
    response = strict.post(LOGIN, {"username": "x", "password": "y"})
    assert response.status_code == 403
    assert "this request came over plain HTTP" in response.content.decode()


# --- Production settings ----------------------------------------------------------------------


def test_secure_cookies_without_https_is_named_by_a_check(settings):
    from config.checks import proxy_count_needs_a_proxy, secure_cookies_need_https

    settings.SESSION_COOKIE_SECURE = settings.CSRF_COOKIE_SECURE = True
    settings.SECURE_SSL_REDIRECT = False
    settings.SECURE_PROXY_SSL_HEADER = None
    [warning] = secure_cookies_need_https(None)
    assert warning.id == "sciver.W001"
    assert "SESSION_COOKIE_SECURE and CSRF_COOKIE_SECURE are on" in warning.msg
    assert "SECURE_PROXY_SSL_HEADER=X-Forwarded-Proto" in warning.hint
    settings.SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    assert secure_cookies_need_https(None) == []
    settings.SECURE_PROXY_SSL_HEADER = None
    settings.SECURE_SSL_REDIRECT = True
    assert secure_cookies_need_https(None) == []
    settings.SECURE_SSL_REDIRECT = False
    settings.SESSION_COOKIE_SECURE = settings.CSRF_COOKIE_SECURE = False
    assert secure_cookies_need_https(None) == []

    settings.PROXY_COUNT = 1
    assert [w.id for w in proxy_count_needs_a_proxy(None)] == ["sciver.W002"]
    settings.SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    assert proxy_count_needs_a_proxy(None) == []


@pytest.mark.django_db
def test_the_sign_in_page_says_when_secure_cookies_meet_plain_http(settings):
    settings.ALLOWED_HOSTS = ["sciver.example.org", "localhost"]
    settings.SESSION_COOKIE_SECURE = settings.CSRF_COOKIE_SECURE = True

    def notice(**extra) -> bool:
        return 'id="insecure-signin"' in Client().get(LOGIN, **extra).content.decode()

    assert notice(HTTP_HOST="sciver.example.org")
    assert not notice(HTTP_HOST="sciver.example.org", secure=True)
    assert not notice(HTTP_HOST="localhost")  # browsers keep Secure cookies on localhost
    settings.SESSION_COOKIE_SECURE = settings.CSRF_COOKIE_SECURE = False
    assert not notice(HTTP_HOST="sciver.example.org")


@pytest.mark.django_db
def test_behind_the_proxy_http_is_redirected_and_https_gets_hsts(settings):
    settings.ALLOWED_HOSTS = ["sciver.example.org"]
    settings.SECURE_SSL_REDIRECT = True
    settings.SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    client = Client(HTTP_HOST="sciver.example.org")  # made now: middleware reads settings once
    plain = client.get(LOGIN)
    assert plain.status_code == 301 and plain.url == f"https://sciver.example.org{LOGIN}"
    assert client.get("/healthz").status_code == 200  # load balancers probe over plain HTTP
    tls = client.get(LOGIN, HTTP_X_FORWARDED_PROTO="https")
    assert tls.status_code == 200 and 'id="insecure-signin"' not in tls.content.decode()
    assert tls["Strict-Transport-Security"] == "max-age=31536000; includeSubDomains"


def test_the_proxy_header_variable_reads_both_spellings():
    from config.settings import _proxy_ssl_header

    assert _proxy_ssl_header("X-Forwarded-Proto") == ("HTTP_X_FORWARDED_PROTO", "https")
    assert _proxy_ssl_header("HTTP_X_FORWARDED_SSL=on") == ("HTTP_X_FORWARDED_SSL", "on")
    assert _proxy_ssl_header("") is None


def production_env(tmp_path: Path, **overrides: str) -> dict[str, str]:
    """The environment README's *Deploying* documents (as docker-compose.yml sets it)."""
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("SCIVER_", "SECURE_", "DEBUG", "PROXY_", "DJANGO_ALLOW"))
    }
    env.update(
        DJANGO_SETTINGS_MODULE="config.settings",
        SECRET_KEY=secrets.token_urlsafe(50),
        ALLOWED_HOSTS="sciver.example.org",
        SECURE_PROXY_SSL_HEADER="X-Forwarded-Proto",
        PROXY_COUNT="1",
        DATABASE_URL=f"sqlite:///{tmp_path / 'db.sqlite3'}",
        MEDIA_ROOT=str(tmp_path / "media"),
        **overrides,
    )
    return env


def manage(args: list[str], env: dict[str, str]) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_check_deploy_is_clean_with_the_documented_production_variables(tmp_path):
    done = manage(["check", "--deploy", "--fail-level", "WARNING"], production_env(tmp_path))
    assert done.returncode == 0, done.stdout + done.stderr
    assert "System check identified no issues" in done.stdout


def test_a_production_start_over_plain_http_is_named_at_start(tmp_path):
    env = production_env(tmp_path, SECURE_SSL_REDIRECT="0")
    del env["SECURE_PROXY_SSL_HEADER"], env["PROXY_COUNT"]
    done = manage(["check", "--deploy"], env)
    assert "sciver.W001" in done.stderr, done.stderr


def test_every_setting_read_from_the_environment_is_in_the_readme_table():
    names = set(
        re.findall(
            r'env(?:\.\w+)?\(\s*"([A-Z][A-Z0-9_]+)"', (ROOT / "config/settings.py").read_text()
        )
    )
    readme = (ROOT / "README.md").read_text()
    start = readme.index("## Configuration")
    table = readme[start : readme.index("\n## ", start + 5)]
    assert sorted(n for n in names if f"`{n}`" not in table) == []


def test_compose_trusts_its_proxy_and_is_reachable_only_through_it():
    compose = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
    env = compose["services"]["web"]["environment"]
    assert env["SECURE_PROXY_SSL_HEADER"] == "X-Forwarded-Proto" and str(env["PROXY_COUNT"]) == "1"
    # The app trusts that header: only the proxy on this host may reach the app's port.
    assert all(str(p).startswith("127.0.0.1:") for p in compose["services"]["web"]["ports"])


# --- Content-Security-Policy ------------------------------------------------------------------

POLICY = (
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data:",
    "object-src 'none'",
    "frame-ancestors 'none'",
    "base-uri 'none'",
    "form-action 'self'",
)


def assert_policy(response) -> None:
    header = response["Content-Security-Policy"]
    directives = {d.strip() for d in header.split(";")}
    assert set(POLICY) <= directives, header


@pytest.mark.django_db
def test_every_page_carries_the_content_security_policy(writer):
    client, item = writer
    anonymous = Client()
    assert_policy(anonymous.get(LOGIN))
    assert_policy(anonymous.get("/no-such-page/"))
    assert_policy(client.get("/"))
    assert_policy(client.get(reverse("annotation:write", args=[item.key])))
    admin = Client()
    admin.force_login(AdminFactory())
    for url in ("/admin/", "/agreement/", "/manage/statistics/"):
        response = admin.get(url)
        assert response.status_code == 200, url
        assert_policy(response)
        # Plots are inline SVG: presentation attributes only, no style attribute to block.
        assert " style=" not in response.content.decode(), url


def test_the_policy_is_on_in_development_mode_too(tmp_path):
    code = (
        "import django; django.setup(); from django.test import Client; "
        "print(Client().get('/accounts/login/', HTTP_HOST='localhost')['Content-Security-Policy'])"
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SCIVER_", "DEBUG"))}
    env.update(
        SCIVER_DEV="1",
        DJANGO_SETTINGS_MODULE="config.settings",
        DATABASE_URL=f"sqlite:///{tmp_path / 'db.sqlite3'}",
    )
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    assert "script-src 'self'" in done.stdout and "style-src 'self'" in done.stdout


def test_no_template_has_inline_script_style_or_handlers():
    found = []
    for path in sorted((ROOT / "templates").rglob("*.html")):
        text = path.read_text()
        for pattern in (
            r"<script(?![^>]*\bsrc=)[^>]*>",
            r"<style\b",
            r"\sstyle=",
            r"\son[a-z]+=",
            r"javascript:",
        ):
            found += [f"{path.relative_to(ROOT)}: {m.group(0)}" for m in re.finditer(pattern, text)]
    assert found == []


# --- The admin without Redis ------------------------------------------------------------------


def admin_urls() -> list[str]:
    """Every admin URL, each parameter filled with 1 (as a probe would)."""

    def walk(patterns, prefix: str = ""):
        for p in patterns:
            if isinstance(p, URLResolver):
                yield from walk(p.url_patterns, prefix + str(p.pattern))
            elif isinstance(p, URLPattern):
                yield prefix + str(p.pattern)

    urls = []
    for pattern in walk(get_resolver().url_patterns):
        if not pattern.startswith("admin/"):
            continue
        url = re.sub(r"<[^>]+>", "1", pattern)
        url = re.sub(r"\(\?P<[^>]+>[^)]*\)", "1", url)
        urls.append("/" + re.sub(r"[\^$]|\\Z", "", url))
    return urls


@pytest.mark.django_db
def test_no_admin_page_answers_500(settings):
    from django_rq.models import Dashboard

    client = Client(raise_request_exception=False)
    client.force_login(AdminFactory())
    failures = [
        (url, r.status_code) for url in admin_urls() if (r := client.get(url)).status_code >= 500
    ]
    assert failures == []
    index = client.get("/admin/").content.decode()
    from django.contrib import admin

    if settings.REDIS_URL:
        assert admin.site.is_registered(Dashboard) and "Django-RQ" in index
        assert client.get("/admin/django_rq/dashboard/").status_code == 200
        assert client.get("/admin/django_rq/dashboard/queues/99/").status_code == 404
    else:
        assert not admin.site.is_registered(Dashboard) and "Django-RQ" not in index
        assert client.get("/admin/django_rq/dashboard/").status_code == 404


@pytest.mark.skipif(not os.environ.get("REDIS_URL"), reason="this run already has no Redis")
def test_no_admin_page_answers_500_without_redis():
    """The run above had Redis (CI): the same walk in a run without it."""
    env = {k: v for k, v in os.environ.items() if k not in {"REDIS_URL", "DATABASE_URL"}}
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            f"{__file__}::test_no_admin_page_answers_500",
        ],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=110,
    )
    assert done.returncode == 0, done.stdout[-3000:]
