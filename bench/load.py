"""Benchmark: many annotators at once, over HTTP on loopback, against the server a shape runs.

Each client signs in for real (the sign-in page, its CSRF token, the credentials) and loops on
one stage for a bounded time: the trivial view (/healthz) and the signed-in home page (the
floor), then "next" (the workspace's button), the item page it redirects to, the submission
(fields read from that page's form) and the page that submission redirects to. Clients follow the app's redirects and never build an item URL,
so the same client measures an older checkout. Afterwards the database is asked what happened.

    python bench/load.py [--shape default|production] [--stage blind|writing|validation]
                         [--clients 16] [--seconds 30] [--workers 4] [--claims 3000]
                         [--checkout DIR] [--compare DIR] [--repeat 3] [--json FILE]

Shapes: `default` is what `make run` serves (manage.py runserver --noreload, an SQLite file,
no Redis); `production` is gunicorn (`--workers`) against PostgreSQL on 127.0.0.1 (a database
per run, copied from a cached world with CREATE DATABASE … TEMPLATE). The world (experts,
curated papers, `--claims` claims waiting at the stage) is built once per checkout commit,
migrations, shape, stage and size by bench/loadworld.py inside the measured checkout, through
its own services. `--compare DIR` alternates runs of the two checkouts (A B A B …, `--repeat`
each) and prints both medians and their ratios. Method and fields: docs/load.md.
"""

from __future__ import annotations

import argparse
import contextlib
import datetime as dt
import hashlib
import json
import os
import re
import shutil
import signal
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import zlib
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urljoin, urlsplit, urlunsplit

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.pages import free_port, percentile  # noqa: E402
from bench.postgres import ensure_database  # noqa: E402

LOOPBACK = "127.0.0.1"
CACHE = ROOT / "var" / "bench-load"
WORLD_SCRIPT = ROOT / "bench" / "loadworld.py"
DEFAULT_POSTGRES = f"postgres://postgres@{LOOPBACK}:5432/postgres"
MIN_ACCOUNTS = 64  # annotator accounts in every world (more only for more clients)
KINDS = ("next", "item", "submit", "landing", "trivial", "home")
KIND_NAMES = {
    "next": "next (lease)",
    "item": "item page",
    "submit": "submit",
    "landing": "after submit",
    "trivial": "trivial /healthz",
    "home": "home page (floor)",
}
EXPECTED = {
    "signin": (200, 302),
    "next": (302,),
    "item": (200,),
    "submit": (302,),
    "landing": (200,),
    "trivial": (200,),
    "home": (200,),
}
NEXT_BUTTON = {"blind": "next-annotation", "writing": "next", "validation": "next-validation"}
STAGE_NAMES = {
    "blind": "blind second annotation",
    "writing": "claim writing",
    "validation": "validation",
}
# Environment variables of the app that the shapes set themselves, never inherited.
APP_VARIABLES = (
    "DATABASE_URL",
    "REDIS_URL",
    "SCIVER_DEV",
    "SCIVER_TESTING",
    "DEBUG",
    "SECRET_KEY",
    "ALLOWED_HOSTS",
    "MEDIA_ROOT",
    "STATIC_ROOT",
    "SECURE_COOKIES",
    "SECURE_SSL_REDIRECT",
    "SECURE_PROXY_SSL_HEADER",
    "SECURE_HSTS_SECONDS",
    "LOG_LEVEL",
    "WORK_LEASE_MINUTES",
    "DJANGO_SETTINGS_MODULE",
    "REQUIRE_SERVICES",
    "USE_CHROMIUM",
    "SQLITE_BUSY_TIMEOUT_SECONDS",
)


def server_log(text: str) -> dict[str, int]:
    """What the server's log says: each 500 Django logged (and how many of them were SQLite's
    "database is locked"), tracebacks, gunicorn's worker timeouts."""
    errors = text.split("Internal Server Error: ")[1:]
    return {
        "http_500_logged": len(errors),
        "database_is_locked": sum("database is locked" in e for e in errors),
        "tracebacks": text.count("Traceback (most recent call last)"),
        "worker_timeouts": text.count("WORKER TIMEOUT"),
    }


# --- Pages and forms -------------------------------------------------------------------------


@dataclass
class Field:
    name: str
    kind: str  # an input's type, or "select" / "textarea"
    value: str
    checked: bool = False


@dataclass
class Form:
    """What a browser would submit: a form's own controls and those outside it that name it
    (`form="…"`), without disabled ones and buttons."""

    action: str
    fields: list[Field]

    def values(self, name: str) -> list[str]:
        return [f.value for f in self.fields if f.name == name]

    def fill(self, name: str, value: str) -> None:
        for f in self.fields:
            if f.name == name:
                f.value = value

    def choose(self, name: str, value: str) -> None:
        """A radio group's or a select's value."""
        for f in self.fields:
            if f.name == name and f.kind == "radio":
                f.checked = f.value == value
            elif f.name == name and f.kind == "select":
                f.value = value

    def check(self, name: str, values: set[str]) -> None:
        for f in self.fields:
            if f.name == name and f.kind == "checkbox":
                f.checked = f.value in values

    def payload(self) -> list[tuple[str, str]]:
        return [
            (f.name, f.value)
            for f in self.fields
            if f.kind not in ("checkbox", "radio") or f.checked
        ]


@dataclass
class Page:
    url: str
    doc: object  # lxml.html element tree

    def form(self, *, button: str | None = None, field_name: str | None = None) -> Form | None:
        """The form holding the button with id `button`, or the first with a control named
        `field_name`."""
        if button is not None:
            found = self.doc.xpath("//form[.//button[@id=$b]]", b=button)
            return self._form(found[0]) if found else None
        for element in self.doc.xpath("//form"):
            form = self._form(element)
            if any(f.name == field_name for f in form.fields):
                return form
        return None

    def _form(self, element) -> Form:
        own = element.get("id")
        controls = [
            c for c in element.iter("input", "select", "textarea") if c.get("form") in (None, own)
        ]
        if own:
            inside = set(controls)
            controls += [
                c
                for c in self.doc.xpath(
                    "//input[@form=$f]|//select[@form=$f]|//textarea[@form=$f]", f=own
                )
                if c not in inside
            ]
        fields = []
        for c in controls:
            name = c.get("name")
            if not name or c.get("disabled") is not None:
                continue
            if c.tag == "select":
                options = c.xpath(".//option")
                chosen = [o for o in options if o.get("selected") is not None] or options[:1]
                value = chosen[0].get("value", chosen[0].text_content()) if chosen else ""
                fields.append(Field(name, "select", value))
            elif c.tag == "textarea":
                fields.append(Field(name, "textarea", c.text or ""))
            else:
                kind = (c.get("type") or "text").lower()
                if kind in ("submit", "button", "reset", "image", "file"):
                    continue
                fields.append(
                    Field(
                        name,
                        kind,
                        c.get("value", "on" if kind == "checkbox" else ""),
                        checked=c.get("checked") is not None,
                    )
                )
        action = element.get("action")
        return Form(urljoin(self.url, action) if action else self.url.split("#")[0], fields)

    def text(self, xpath: str) -> str:
        found = self.doc.xpath(xpath)
        return " ".join(found[0].text_content().split()) if found else ""

    def success(self) -> bool:
        return bool(
            self.doc.xpath("//ul[contains(@class,'messages')]/li[contains(@class,'success')]")
        )


def parse(url: str, body: bytes) -> Page:
    import lxml.html

    return Page(url, lxml.html.fromstring(body or b"<html></html>"))


# --- One annotator ---------------------------------------------------------------------------


@dataclass
class Hold:
    """An item page one client reached (by following "next") and when its submission ended."""

    path: str
    began: float
    ended: float


@dataclass
class Annotator:
    name: str
    password: str
    base: str
    stage: str
    answers: dict
    disagree: float
    timeout: float
    fresh_connections: bool = False
    verify: bool | str = True  # TLS: True (the system's CAs) or a CA bundle's path
    # (kind, started, seconds, status: an HTTP code or "connection: <error>")
    requests: list[tuple[str, float, float, object]] = field(default_factory=list)
    acked: list[float] = field(default_factory=list)  # when each acknowledged submission ended
    cycle_times: list[tuple[float, float]] = field(default_factory=list)  # (ended, seconds)
    holds: list[Hold] = field(default_factory=list)
    nothing_to_do: int = 0
    unconfirmed: int = 0  # a submission redirected away without a success message
    problems: Counter = field(default_factory=Counter)  # pages the client could not read
    signed_in: bool = False
    written: int = 0
    page: Page | None = None  # where the client is: the workspace, or a submission's landing
    via_workspace: bool = False  # every submission asks for the workspace (the page's 2nd button)
    deadline: float = float("inf")
    # The next item a submission went on to: its URL, page and when that submission began.
    onward: tuple[str, Page, float] | None = None

    def __post_init__(self) -> None:
        import requests

        self.session = requests.Session()
        self.session.trust_env = False  # loopback only: no proxy or netrc from the environment
        self.session.verify = self.verify
        self.session.headers["User-Agent"] = "sciver-bench-load"
        self.home = self.base + "/"

    # HTTP, always to the server on loopback, never following redirects by itself
    def send(self, kind: str, method: str, url: str, data=None):
        import requests

        if not url.startswith(self.base + "/"):
            self.problems[f"refused to leave {self.base}: {url[:80]}"] += 1
            return None
        if self.fresh_connections:
            self.session.close()  # a new TCP connection for this request; cookies stay
        # As a browser does on a form's POST: over HTTPS, Django's CSRF check refuses a POST
        # that names neither its Origin nor a Referer.
        headers = {"Origin": self.base} if method == "POST" else None
        started = time.monotonic()
        try:
            response = self.session.request(
                method, url, data=data, headers=headers, allow_redirects=False, timeout=self.timeout
            )
        except requests.RequestException as exc:
            self.requests.append(
                (kind, started, time.monotonic() - started, f"connection: {type(exc).__name__}")
            )
            return None
        self.requests.append((kind, started, time.monotonic() - started, response.status_code))
        return response

    def target(self, response) -> str | None:
        if response is None or response.status_code not in (301, 302, 303, 307, 308):
            return None
        return urljoin(response.url, response.headers.get("Location", ""))

    def get_page(self, kind: str, url: str) -> Page | None:
        response = self.send(kind, "GET", url)
        if response is None or response.status_code != 200:
            return None
        return parse(response.url, response.content)

    def sign_in(self) -> bool:
        for _ in range(3):
            page = self.get_page("signin", self.base + "/accounts/login/")
            form = page.form(field_name="password") if page else None
            if form is not None:
                form.fill("username", self.name)
                form.fill("password", self.password)
                landing = self.target(self.send("signin", "POST", form.action, form.payload()))
                if landing and "sessionid" in self.session.cookies:
                    self.page = self.get_page("signin", landing)
                    if self.page is not None:
                        self.signed_in = True
                        return True
            time.sleep(1)
        return False

    # The loop
    def work(self, deadline: float) -> None:
        """Cycles until `deadline`; the one under way then is finished (no lease left held: its
        submission asks for the workspace, not the next item)."""
        self.deadline = deadline
        while time.monotonic() < deadline:
            self.send("trivial", "GET", self.base + "/healthz")
            # The floor: the signed-in home page (the workspace), the page every person loads,
            # measured in the same run as the cycle (issue 49 compares the submission to it).
            self.send("home", "GET", self.home)
            if time.monotonic() >= deadline:
                break
            if not self.cycle():
                self.page = None
                time.sleep(0.2)  # as a person would before pressing the button again
        if self.onward is not None:  # leased by the last submission: submit it, then stop
            self.cycle()

    def cycle(self) -> bool:
        if self.onward is not None:  # the last submission went on to this item
            item_url, item, began = self.onward
            self.onward = None
            return self.finish(item_url, item, began)
        began = time.monotonic()
        form = self.page.form(button=NEXT_BUTTON[self.stage]) if self.page else None
        if form is None:  # back to the workspace, where every stage's button is
            self.page = self.get_page("landing", self.home)
            form = self.page.form(button=NEXT_BUTTON[self.stage]) if self.page else None
            if form is None:
                if self.page is not None:
                    self.nothing_to_do += 1
                    time.sleep(1)
                return self.page is not None
        item_url = self.target(self.send("next", "POST", form.action, form.payload()))
        if item_url is None:
            return False
        if urlsplit(item_url).path == urlsplit(self.home).path:  # nothing left for this client
            self.nothing_to_do += 1
            self.page = self.get_page("landing", item_url)
            time.sleep(1)
            return self.page is not None
        item = self.get_page("item", item_url)
        if item is None:
            return False
        return self.finish(item_url, item, began)

    def finish(self, item_url: str, item: Page, began: float) -> bool:
        """Fill and submit the item's form, then read where the server went: the workspace,
        the pair's page (writing) or, where the page's first button goes on, the next item
        (already leased: the next cycle starts there, its hold from this submission's start)."""
        form = self.fill(item)
        if form is None:
            self.problems[f"no {self.stage} form on {urlsplit(item_url).path}"] += 1
            return False
        payload = form.payload()
        if self.via_workspace or time.monotonic() >= self.deadline:
            payload.append(("then", "home"))  # the page's second button (a no-op at 659311a)
        submitted = time.monotonic()
        response = self.send("submit", "POST", form.action, payload)
        ended = time.monotonic()
        self.holds.append(Hold(urlsplit(item_url).path, began, ended))
        landing_url = self.target(response)
        if landing_url is None or landing_url.split("#")[0] == item_url:
            return False  # refused (the status is counted) or sent back to the item
        home = urlsplit(landing_url).path == urlsplit(self.home).path
        onward = not home and self.stage != "writing"
        self.page = self.get_page("item" if onward else "landing", landing_url)
        if self.page is None:
            self.unconfirmed += 1
            return False
        if self.page.success():
            self.acked.append(ended)
            self.cycle_times.append((ended, time.monotonic() - began))
        else:
            self.unconfirmed += 1
        if onward:
            self.onward = (landing_url, self.page, submitted)
            self.page = None
        return True

    def fill(self, item: Page) -> Form | None:
        if self.stage == "blind":
            return self.fill_annotation(item)
        if self.stage == "writing":
            return self.fill_pair(item)
        return self.fill_validation(item)

    def fill_annotation(self, item: Page) -> Form | None:
        """Label the claim and mark its evidence as the expert knows them (the writer's, from
        the world's answer key), disagreeing on the label for `disagree` of the claims."""
        form = item.form(field_name="token")
        if form is None:
            return None
        claim = item.text("//*[@id='claim-text']")
        answer = self.answers.get(claim, {})
        label = answer.get("label", "entailed")
        if zlib.crc32(claim.encode()) % 1000 < self.disagree * 1000:
            label = {"entailed": "refuted", "refuted": "entailed"}[label]
        shown = set(form.values("evidence"))
        wanted = {str(pk) for pk in answer.get("evidence", [])} & shown
        if not wanted:  # not in the key: the first table or chart shown
            first = item.doc.xpath("//div[contains(@class,'sampled')]//input[@name='evidence']")
            wanted = {first[0].get("value")} if first else set(list(shown)[:1])
        form.choose("label", label)
        form.check("evidence", wanted)
        return form

    def fill_pair(self, item: Page) -> Form | None:
        """A pair on the task's first sampled tables/charts, as many as the page asks."""
        form = item.form(field_name="entailed")
        if form is None:
            return None
        box = item.doc.xpath("//*[@id='write-page']")
        needed = 2
        if box:
            needed = int(box[0].get("data-visuals-needed") or box[0].get("data-min-visuals") or 2)
        sampled = [
            c.get("value")
            for c in item.doc.xpath("//div[@class='sampled']//input[@name='evidence']")
        ]
        self.written += 1
        where = f"split {self.written} of {self.name}"
        form.fill("entailed", f"Ours reaches a BLEU of 73.2 on {where}, above the Baseline model.")
        form.fill("refuted", f"Ours reaches a BLEU of 68.9 on {where}, above the Baseline model.")
        form.fill("explanation", "Table 1 gives Ours a BLEU of 73.2, not 68.9.")
        kinds = [f for f in form.fields if f.name == "perturbation_kind"]
        if kinds and not kinds[0].value:
            options = item.doc.xpath("//select[@name='perturbation_kind']/option[@value!='']")
            if options:
                form.choose("perturbation_kind", options[0].get("value"))
        form.check("evidence", set(sampled[:needed]))
        return form

    def fill_validation(self, item: Page) -> Form | None:
        """All five criteria passed: nothing ticked, nothing changed."""
        form = item.form(field_name="criteria_failed")
        if form is not None:
            form.check("criteria_failed", set())
        return form


# --- Servers and databases -------------------------------------------------------------------


def git(checkout: Path, *args: str) -> str:
    try:
        return subprocess.run(
            ["git", "-C", str(checkout), *args], capture_output=True, text=True, check=True
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return ""


def identity(checkout: Path) -> dict:
    digest = hashlib.sha256()
    for path in sorted(checkout.glob("*/migrations/*.py")):
        digest.update(str(path.relative_to(checkout)).encode() + b"\0" + path.read_bytes())
    return {
        "path": str(checkout),
        "commit": git(checkout, "rev-parse", "HEAD"),
        "dirty": bool(git(checkout, "status", "--porcelain", "--untracked-files=no")),
        "migrations": digest.hexdigest()[:16],
    }


def shape_env(shape: str, database_url: str, run_dir: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in APP_VARIABLES}
    env |= {
        "DATABASE_URL": database_url,
        "MEDIA_ROOT": str(run_dir / "media"),
        "STATIC_ROOT": str(run_dir / "static"),
        "USE_CHROMIUM": "0",
        "DJANGO_SETTINGS_MODULE": "config.settings",
        "PYTHONDONTWRITEBYTECODE": "1",
    }
    if shape == "default":
        env["SCIVER_DEV"] = "1"  # what `make run` sets; nothing else
    else:
        env |= {
            "SCIVER_DEV": "0",
            "DEBUG": "0",
            "SECRET_KEY": "bench-load-only-" + "k" * 40,
            "ALLOWED_HOSTS": LOOPBACK,
            "LOG_LEVEL": "WARNING",
            # Plain HTTP on loopback: Secure cookies would never come back, and an HTTPS
            # redirect would leave the loopback server.
            "SECURE_COOKIES": "0",
            "SECURE_SSL_REDIRECT": "0",
            "SECURE_HSTS_SECONDS": "0",
        }
    return env


def postgres_url(base: str, name: str) -> str:
    return urlunsplit(urlsplit(base)._replace(path=f"/{name}"))


def postgres(base: str, sql: str) -> None:
    import psycopg

    with psycopg.connect(postgres_url(base, "postgres"), autocommit=True) as conn:
        conn.execute(sql)


def database_exists(base: str, name: str) -> bool:
    import psycopg

    with psycopg.connect(postgres_url(base, "postgres"), autocommit=True) as conn:
        return bool(conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", [name]).fetchone())


@dataclass
class World:
    """A built database for one checkout, shape, stage and size, and its manifest."""

    checkout: Path
    shape: str
    key: str
    source: str  # an SQLite file, or a PostgreSQL database name
    manifest: dict


def world_for(checkout: Path, args, postgres_base: str) -> World:
    accounts = max(MIN_ACCOUNTS, args.clients)
    who = identity(checkout)
    recipe = {
        "commit": who["commit"],
        "migrations": who["migrations"],
        "builder": hashlib.sha256(WORLD_SCRIPT.read_bytes()).hexdigest()[:16],
        "shape": args.shape,
        "stage": args.stage,
        "claims": args.claims,
        "accounts": accounts,
    }
    key = hashlib.sha256(json.dumps(recipe, sort_keys=True).encode()).hexdigest()[:16]
    CACHE.mkdir(parents=True, exist_ok=True)
    manifest_path = CACHE / f"{key}.json"
    source = str(CACHE / f"{key}.sqlite3") if args.shape == "default" else f"sciver_load_{key}"
    built = manifest_path.exists() and (
        Path(source).exists() if args.shape == "default" else database_exists(postgres_base, source)
    )
    if args.rebuild or not built:
        print(
            f"building the world for {checkout} @ {who['commit'][:7] or '?'}: {args.claims} "
            f"claims at {args.stage}, {args.shape} shape (cached as {key}) …",
            flush=True,
        )
        with tempfile.TemporaryDirectory(prefix="sciver-load-build-") as tmp:
            if args.shape == "default":
                target = Path(tmp) / "world.sqlite3"
                url = f"sqlite:///{target}"
            else:
                target = f"{source}_new"
                postgres(postgres_base, f'DROP DATABASE IF EXISTS "{target}" WITH (FORCE)')
                url = postgres_url(postgres_base, target)
                ensure_database(url)
            env = shape_env(args.shape, url, Path(tmp))
            env["DEBUG"] = "0"  # building only: no query log in memory
            run_child(
                [
                    sys.executable,
                    str(WORLD_SCRIPT),
                    "build",
                    "--checkout",
                    str(checkout),
                    "--stage",
                    args.stage,
                    "--claims",
                    str(args.claims),
                    "--accounts",
                    str(accounts),
                    "--manifest",
                    str(Path(tmp) / "manifest.json"),
                ],
                cwd=checkout,
                env=env,
            )
            manifest = json.loads((Path(tmp) / "manifest.json").read_text())
            if args.shape == "default":
                copy_sqlite(target, Path(source))
            else:
                postgres(postgres_base, f'DROP DATABASE IF EXISTS "{source}" WITH (FORCE)')
                postgres(postgres_base, f'ALTER DATABASE "{target}" RENAME TO "{source}"')
            manifest |= {"recipe": recipe, "checkout": who}
            manifest_path.write_text(json.dumps(manifest))
    manifest = json.loads(manifest_path.read_text())
    manifest["checkout"] = who  # as it is now (dirty or not)
    return World(checkout, args.shape, key, source, manifest)


def fresh_database(
    world: World, run_dir: Path, postgres_base: str, number: int, settings: list[str]
) -> str:
    """A copy of the world for one run: it starts from the same data every time. `settings`
    (NAME=VALUE) are PostgreSQL settings of that copy, e.g. jit=off."""
    if world.shape == "default":
        copy = run_dir / "sciver.sqlite3"
        copy_sqlite(Path(world.source), copy)
        return f"sqlite:///{copy}"
    name = f"sciver_load_run_{os.getpid()}_{number}"
    postgres(postgres_base, f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    postgres(postgres_base, f'CREATE DATABASE "{name}" TEMPLATE "{world.source}"')
    for setting in settings:
        key, _, value = setting.partition("=")
        if not re.fullmatch(r"[a-z_.]+", key) or not re.fullmatch(r"[\w.-]+", value):
            raise SystemExit(f"--pg-set {setting!r}: NAME=VALUE, e.g. jit=off")
        postgres(postgres_base, f"ALTER DATABASE \"{name}\" SET {key} = '{value}'")
    return postgres_url(postgres_base, name)


def copy_sqlite(source: Path, target: Path) -> None:
    """SQLite's online backup: a consistent copy whatever the journal mode (a WAL file not yet
    checkpointed is read too)."""
    partial = target.with_name(target.name + ".partial")
    partial.unlink(missing_ok=True)
    with contextlib.closing(sqlite3.connect(source)) as src:
        with contextlib.closing(sqlite3.connect(partial)) as dst:
            src.backup(dst)
    partial.replace(target)


CHILDREN: set[subprocess.Popen] = set()


def run_child(cmd: list[str], **kwargs) -> None:
    """A builder or checker, in its own process group, ended with us if we are interrupted."""
    child = subprocess.Popen(cmd, start_new_session=True, **kwargs)
    CHILDREN.add(child)
    try:
        if child.wait() != 0:
            raise SystemExit(f"{Path(cmd[1]).name} {cmd[2]} failed (exit {child.returncode})")
    finally:
        stop(child)
        CHILDREN.discard(child)


def stop(process: subprocess.Popen) -> None:
    """End a process group we started: SIGTERM, then SIGKILL after 15 s."""
    if process.poll() is not None:
        return
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGTERM)
    try:
        process.wait(15)
    except subprocess.TimeoutExpired:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
        process.wait(5)


@contextlib.contextmanager
def serving(world: World, env: dict, workers: int, log_path: Path):
    import requests

    port = free_port()
    if world.shape == "default":
        cmd = [sys.executable, "manage.py", "runserver", "--noreload", f"{LOOPBACK}:{port}"]
    else:
        cmd = [
            str(Path(sys.executable).parent / "gunicorn"),
            "config.wsgi",
            "-b",
            f"{LOOPBACK}:{port}",
            "-w",
            str(workers),
            "--chdir",
            str(world.checkout),
            "--access-logfile",
            "/dev/null",
            "--error-logfile",
            "-",
        ]
    with open(log_path, "wb") as log:
        server = subprocess.Popen(
            cmd,
            cwd=world.checkout,
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    CHILDREN.add(server)
    base = f"http://{LOOPBACK}:{port}"
    try:
        for _ in range(600):
            if server.poll() is not None:
                raise SystemExit(f"the server exited ({server.returncode}); see {log_path}")
            try:
                if requests.get(base + "/healthz", timeout=2).status_code == 200:
                    break
            except requests.RequestException:
                pass
            time.sleep(0.1)
        else:
            raise SystemExit("the server did not answer /healthz within 60 s")
        yield base
    finally:
        stop(server)
        CHILDREN.discard(server)


# --- One run ---------------------------------------------------------------------------------


def drive(base: str, world: World, args, *, verify: bool | str = True) -> dict:
    """Sign every client in, then let them loop: `--warmup` seconds not counted, then
    `--seconds` measured. `base` may be any server holding the world (tests/production runs
    one over HTTPS, `verify` naming its CA bundle)."""
    names = world.manifest["accounts"][: args.clients]
    clients = [
        Annotator(
            name,
            world.manifest["password"],
            base,
            args.stage,
            world.manifest.get("answers", {}),
            args.disagree,
            args.timeout,
            args.fresh_connections,
            verify,
            via_workspace=getattr(args, "via_workspace", False),
        )
        for name in names
    ]
    clock: dict[str, float] = {}

    def start() -> None:
        clock["start"] = time.monotonic() + args.warmup
        clock["end"] = clock["start"] + args.seconds

    barrier = threading.Barrier(len(clients), action=start)

    def run(client: Annotator) -> None:
        client.sign_in()
        try:
            barrier.wait(timeout=300)
        except threading.BrokenBarrierError:
            return
        if client.signed_in:
            client.work(clock["end"])

    cpu = time.process_time()
    threads = [threading.Thread(target=run, args=(c,), daemon=True) for c in clients]
    for t in threads:
        t.start()
    for t in threads:
        t.join(300 + args.warmup + args.seconds + args.timeout + 30)
    return {"clients": clients, "clock": clock, "client_cpu": time.process_time() - cpu}


def pct(values: list[float], q: int) -> float | None:
    return round(percentile(values, q) * 1000, 1) if values else None


def overlapping_holds(clients: list[Annotator]) -> int:
    """Item pages two clients reached with overlapping [next, submit] spans."""
    spans = defaultdict(list)
    for client in clients:
        for hold in client.holds:
            spans[hold.path].append((hold.began, hold.ended, client.name))
    doubles = 0
    for rows in spans.values():
        if any(
            a[2] != b[2] and a[0] < b[1] and b[0] < a[1]
            for i, a in enumerate(rows)
            for b in rows[i + 1 :]
        ):
            doubles += 1
    return doubles


def summarize(outcome: dict, check: dict, log_path: Path, args) -> dict:
    clients, clock = outcome["clients"], outcome["clock"]
    start, end = clock.get("start", 0.0), clock.get("end", 0.0)
    latencies: dict[str, list[float]] = {k: [] for k in (*KINDS, "signin")}
    errors: dict[str, Counter] = {k: Counter() for k in (*KINDS, "signin")}
    for client in clients:
        for kind, began, seconds, status in client.requests:
            if status in EXPECTED[kind]:
                if kind == "signin" or start <= began < end:
                    latencies[kind].append(seconds)
            else:
                errors[kind][str(status)] += 1
    acked = {c.name: len(c.acked) for c in clients}
    cycles = sum(1 for c in clients for t in c.acked if start <= t < end)
    cycle_seconds = [s for c in clients for t, s in c.cycle_times if start <= t < end]
    recorded = check["recorded"]
    lost = {n: acked[n] - recorded.get(n, 0) for n in acked if acked[n] > recorded.get(n, 0)}
    unacked = {
        n: recorded.get(n, 0) - acked.get(n, 0) for n in recorded if recorded[n] > acked.get(n, 0)
    }
    log = log_path.read_text(errors="replace") if log_path.exists() else ""
    requests = {
        kind: {
            "n": len(v),
            "p50_ms": pct(v, 50),
            "p95_ms": pct(v, 95),
            "max_ms": round(max(v) * 1000, 1) if v else None,
        }
        for kind, v in latencies.items()
    }
    # Where submissions go on to the next item, the lease is the submission's: its p95 stands in.
    trivial = requests["trivial"]["p95_ms"]
    lease = requests["next"]["p95_ms"] or requests["submit"]["p95_ms"]
    status_totals: Counter = Counter()
    for counts in errors.values():
        status_totals.update(counts)
    return {
        "cycles": cycles,
        "cycles_per_s": round(cycles / args.seconds, 3),
        "cycle_p50_ms": pct(cycle_seconds, 50),
        "cycle_p95_ms": pct(cycle_seconds, 95),
        "requests": requests,
        "next_p95_over_trivial_p95": round(lease / trivial, 1) if lease and trivial else None,
        "submit_p95_over_home_p95": (
            round(requests["submit"]["p95_ms"] / requests["home"]["p95_ms"], 2)
            if requests["submit"]["p95_ms"] and requests["home"]["p95_ms"]
            else None
        ),
        "errors": {k: dict(v) for k, v in errors.items() if v},
        "errors_by_status": dict(status_totals),
        "error_total": sum(status_totals.values()),
        "clients": len(clients),
        "signed_in": sum(c.signed_in for c in clients),
        "nothing_to_do": sum(c.nothing_to_do for c in clients),
        "unconfirmed": sum(c.unconfirmed for c in clients),
        "unreadable_pages": dict(sum((c.problems for c in clients), Counter())),
        "acknowledged": sum(acked.values()),
        "recorded": sum(recorded.values()),
        "lost": sum(lost.values()),
        "lost_by_client": lost,
        "recorded_not_acknowledged": sum(unacked.values()),
        "items_held_by_two": check["items_held_by_two"],
        "items_submitted_twice": check["items_submitted_twice"],
        "submitted_without_holding": check["submitted_without_holding"],
        "client_side_overlaps": overlapping_holds(clients),
        "consistency": check["consistency"],
        "inconsistencies": sum(check["consistency"].values()),
        "still_leased": check["still_leased"],
        "still_open": check["still_open"],
        "server_log": server_log(log),
        "client_cpu_share": round(outcome["client_cpu"] / (args.warmup + args.seconds), 2),
    }


def one_run(world: World, args, postgres_base: str, number: int) -> dict:
    run_dir = Path(tempfile.mkdtemp(prefix="sciver-load-run-"))
    (run_dir / "media").mkdir()
    (run_dir / "static").mkdir()
    url = ""
    try:
        url = fresh_database(world, run_dir, postgres_base, number, args.pg_set)
        env = shape_env(world.shape, url, run_dir)
        since = dt.datetime.now(dt.UTC)
        log_path = run_dir / "server.log"
        with serving(world, env, args.workers, log_path) as base:
            outcome = drive(base, world, args)
        check_path = run_dir / "check.json"
        run_child(
            [
                sys.executable,
                str(WORLD_SCRIPT),
                "check",
                "--checkout",
                str(world.checkout),
                "--stage",
                args.stage,
                "--since",
                since.isoformat(),
                "--out",
                str(check_path),
            ],
            cwd=world.checkout,
            env=env | {"DEBUG": "0"},
        )
        figures = summarize(outcome, json.loads(check_path.read_text()), log_path, args)
        if args.keep:
            figures["kept"] = {"directory": str(run_dir), "database": url}
        return figures
    finally:
        if not args.keep:
            if world.shape == "production" and url:
                name = urlsplit(url).path.lstrip("/")
                with contextlib.suppress(Exception):
                    postgres(postgres_base, f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
            shutil.rmtree(run_dir, ignore_errors=True)


# --- Figures ---------------------------------------------------------------------------------


def medians(runs: list[dict]) -> dict:
    def median(values):
        values = [v for v in values if v is not None]
        return round(statistics.median(values), 3) if values else None

    return {
        "runs": len(runs),
        "cycles_per_s": median([r["cycles_per_s"] for r in runs]),
        "cycles_per_s_each": [r["cycles_per_s"] for r in runs],
        "cycle_p95_ms": median([r["cycle_p95_ms"] for r in runs]),
        "requests": {
            kind: {q: median([r["requests"][kind][q] for r in runs]) for q in ("p50_ms", "p95_ms")}
            for kind in (*KINDS, "signin")
        },
        "next_p95_over_trivial_p95": median([r["next_p95_over_trivial_p95"] for r in runs]),
        "submit_p95_over_home_p95": median([r.get("submit_p95_over_home_p95") for r in runs]),
        # What must be zero is summed over the runs, not a median.
        "errors_by_status": dict(sum((Counter(r["errors_by_status"]) for r in runs), Counter())),
        **{
            name: sum(r[name] for r in runs)
            for name in (
                "error_total",
                "lost",
                "recorded_not_acknowledged",
                "items_held_by_two",
                "items_submitted_twice",
                "client_side_overlaps",
                "inconsistencies",
                "unconfirmed",
                "nothing_to_do",
            )
        },
        "server_log": dict(sum((Counter(r["server_log"]) for r in runs), Counter())),
    }


def ms(value) -> str:
    return "—" if value is None else f"{value:,.1f}"


def describe(world: World, args) -> str:
    who = world.manifest["checkout"]
    server = (
        "runserver + SQLite"
        if world.shape == "default"
        else f"gunicorn {args.workers} workers + PostgreSQL"
    )
    return (
        f"{who['path']} @ {who['commit'][:7] or '?'}{' (dirty)' if who['dirty'] else ''}, {server}"
    )


def print_run(label: str, number: int, r: dict) -> None:
    errors = "; ".join(
        f"{KIND_NAMES.get(kind, kind)} " + ", ".join(f"{s} × {n}" for s, n in sorted(c.items()))
        for kind, c in r["errors"].items()
    )
    print(
        f"  run {number} {label}: {r['cycles_per_s']:.2f} cycles/s ({r['cycles']} cycles), "
        f"next p95 {ms(r['requests']['next']['p95_ms'])} ms, submit p95 "
        f"{ms(r['requests']['submit']['p95_ms'])} ms, home p95 "
        f"{ms(r['requests']['home']['p95_ms'])} ms, trivial p95 "
        f"{ms(r['requests']['trivial']['p95_ms'])} ms; errors: {errors or 'none'}; handed to "
        f"two {r['items_held_by_two']}, lost {r['lost']}, inconsistent {r['inconsistencies']}",
        flush=True,
    )
    if r["nothing_to_do"]:
        print(
            f"    WARNING: clients found nothing to do {r['nothing_to_do']} times: the stage ran "
            "dry, the figures are not the server's (give more --claims)"
        )
    if r["signed_in"] < r["clients"]:
        print(f"    WARNING: only {r['signed_in']} of {r['clients']} clients signed in")
    if r["unreadable_pages"]:
        print(f"    pages the clients could not read: {r['unreadable_pages']}")


def print_table(columns: dict[str, dict]) -> None:
    """Medians (and what must be zero, summed), one column per checkout, A / B for throughput."""
    labels = list(columns)
    width = 16
    pair = len(labels) == 2
    print(f"\n{'':<26}" + "".join(f"{label:>{width}}" for label in labels))

    def row(name: str, cell) -> None:
        print(f"{name:<26}" + "".join(f"{cell(columns[label]):>{width}}" for label in labels))

    row("cycles/s (median)", lambda m: f"{m['cycles_per_s']:.2f}")
    row("cycle p95 ms", lambda m: ms(m["cycle_p95_ms"]))
    for kind in KINDS:
        for q in ("p50", "p95"):
            row(
                f"{KIND_NAMES[kind]} {q} ms", lambda m, k=kind, q=q: ms(m["requests"][k][f"{q}_ms"])
            )
    row("sign-in p95 ms", lambda m: ms(m["requests"]["signin"]["p95_ms"]))
    row("lease p95 / trivial p95", lambda m: ms(m["next_p95_over_trivial_p95"]))
    row(
        "submit p95 / home p95",
        lambda m: (
            "—" if m["submit_p95_over_home_p95"] is None else f"{m['submit_p95_over_home_p95']:.2f}"
        ),
    )
    row(
        "errors (all runs)",
        lambda m: ", ".join(f"{s}×{n}" for s, n in sorted(m["errors_by_status"].items())) or "0",
    )
    for name, title in (
        ("items_held_by_two", "handed to two at once"),
        ("lost", "acked, not recorded"),
        ("recorded_not_acknowledged", "recorded, not acked"),
        ("inconsistencies", "inconsistencies"),
        ("client_side_overlaps", "overlaps seen by clients"),
    ):
        row(title, lambda m, n=name: str(m[n]))
    row("500s in the log", lambda m: str(m["server_log"].get("http_500_logged", 0)))
    row("… 'database is locked'", lambda m: str(m["server_log"].get("database_is_locked", 0)))
    row("tracebacks (log)", lambda m: str(m["server_log"].get("tracebacks", 0)))
    if pair:
        a, b = (columns[label] for label in labels)
        if a["cycles_per_s"] and b["cycles_per_s"]:
            print(
                f"\nthroughput A / B: {a['cycles_per_s'] / b['cycles_per_s']:.2f} (medians of "
                f"{a['runs']} and {b['runs']} runs)"
            )


def clean(postgres_base: str) -> None:
    """Cached worlds are keyed by commit: they pile up as the code moves."""
    import psycopg

    with psycopg.connect(postgres_url(postgres_base, "postgres"), autocommit=True) as conn:
        names = [
            row[0]
            for row in conn.execute(
                "SELECT datname FROM pg_database WHERE datname LIKE 'sciver\\_load\\_%'"
            )
        ]
        for name in names:
            conn.execute(f'DROP DATABASE "{name}" WITH (FORCE)')
    shutil.rmtree(CACHE, ignore_errors=True)
    print(f"dropped {len(names)} PostgreSQL databases ({', '.join(names) or 'none'}) and {CACHE}")


# --- Main ------------------------------------------------------------------------------------


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shape", choices=("default", "production"), default="production")
    parser.add_argument("--stage", choices=sorted(STAGE_NAMES), default="blind")
    parser.add_argument("--clients", type=int, default=16)
    parser.add_argument("--seconds", type=float, default=30)
    parser.add_argument("--warmup", type=float, default=2, help="seconds not counted, per run")
    parser.add_argument("--workers", type=int, default=4, help="gunicorn sync workers")
    parser.add_argument("--claims", type=int, default=3000, help="claims waiting at the stage")
    parser.add_argument("--checkout", type=Path, default=ROOT, help="the checkout measured (A)")
    parser.add_argument("--compare", type=Path, help="a second checkout (B), runs alternating")
    parser.add_argument("--repeat", type=int, default=1, help="runs of each checkout")
    parser.add_argument("--json", type=Path, help="save every figure here")
    parser.add_argument("--timeout", type=float, default=60, help="seconds per request")
    parser.add_argument(
        "--disagree",
        type=float,
        default=0.06,
        help="blind: share of claims labelled against the writer",
    )
    parser.add_argument(
        "--via-workspace",
        action="store_true",
        help="every submission goes back to the workspace (the page's second button) instead "
        "of on to the next item: the loop as it was before submissions went on",
    )
    parser.add_argument(
        "--fresh-connections",
        action="store_true",
        help="a new TCP connection per request instead of keep-alive",
    )
    parser.add_argument(
        "--postgres",
        default=DEFAULT_POSTGRES,
        help="PostgreSQL on loopback (its 'postgres' database)",
    )
    parser.add_argument(
        "--pg-set",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="production: a PostgreSQL setting of each run's database (e.g. jit=off); repeatable",
    )
    parser.add_argument("--rebuild", action="store_true", help="build the worlds again")
    parser.add_argument("--keep", action="store_true", help="keep each run's database and log")
    parser.add_argument(
        "--clean",
        action="store_true",
        help="drop every cached world and left-over run database, and stop",
    )
    args = parser.parse_args()
    if urlsplit(args.postgres).hostname not in (LOOPBACK, "localhost"):
        sys.exit("--postgres must be on 127.0.0.1: the benchmark talks to loopback only.")
    if args.clients < 1 or args.seconds <= 0 or args.repeat < 1:
        sys.exit("--clients, --seconds and --repeat must be positive.")

    if args.clean:
        clean(args.postgres)
        return

    def terminated(signum, frame):
        raise SystemExit(f"stopped by signal {signum}")

    signal.signal(signal.SIGTERM, terminated)
    checkouts = {"A": args.checkout.resolve()}
    if args.compare:
        checkouts["B"] = args.compare.resolve()
    for path in checkouts.values():
        if not (path / "manage.py").exists():
            sys.exit(f"{path} is not a checkout of the project (no manage.py)")
    try:
        worlds = {label: world_for(path, args, args.postgres) for label, path in checkouts.items()}
        for label, world in worlds.items():
            print(
                f"{label}: {describe(world, args)}; world {world.key}: {world.manifest['counts']}"
            )
        print(
            f"{STAGE_NAMES[args.stage]}, {args.clients} clients, {args.seconds:g} s measured "
            f"after {args.warmup:g} s, {os.cpu_count()} cores",
            flush=True,
        )
        runs: dict[str, list[dict]] = {label: [] for label in worlds}
        number = 0
        for _ in range(args.repeat):
            for label, world in worlds.items():  # A B A B …: drift on the machine hits both
                number += 1
                figures = one_run(world, args, args.postgres, number)
                runs[label].append(figures)
                print_run(label, number, figures)
    finally:
        for child in list(CHILDREN):
            stop(child)
    columns = {label: medians(r) for label, r in runs.items()}
    print_table(columns)
    if args.json:
        report = {
            "config": {k: str(v) if isinstance(v, Path) else v for k, v in vars(args).items()},
            "cores": os.cpu_count(),
            "checkouts": {label: w.manifest["checkout"] for label, w in worlds.items()},
            "worlds": {
                label: {"key": w.key, "counts": w.manifest["counts"]} for label, w in worlds.items()
            },
            "runs": runs,
            "medians": columns,
        }
        if len(columns) == 2 and columns["A"]["cycles_per_s"] and columns["B"]["cycles_per_s"]:
            report["ratios"] = {
                "throughput_A_over_B": round(
                    columns["A"]["cycles_per_s"] / columns["B"]["cycles_per_s"], 2
                ),
                "next_p95_over_trivial_p95": {
                    label: m["next_p95_over_trivial_p95"] for label, m in columns.items()
                },
            }
        args.json.write_text(json.dumps(report, indent=2, default=str))
        print(f"figures saved to {args.json}")


if __name__ == "__main__":
    try:
        main()
    except KeyboardInterrupt:
        sys.exit("interrupted: the servers were stopped and the run's database dropped")
