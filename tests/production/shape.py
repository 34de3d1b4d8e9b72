"""The production shape on loopback: gunicorn over TLS, RQ workers, PostgreSQL and Redis.

Every process runs `config.settings` as a deployment does, configured only by the environment
variables a deployment sets (README: Deploying): DEBUG off, Secure cookies, the HTTPS redirect
and HSTS as they default there. The shape owns a fresh PostgreSQL database and a Redis database
number of its own, a certificate authority made for the run (trustme), and temporary MEDIA_ROOT,
RELEASE_DIR and STATIC_ROOT; `close()` stops every process it started and drops the rest.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import secrets
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urljoin, urlsplit, urlunsplit

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent
LOOPBACK = "127.0.0.1"
REDIS_CLAIM = "sciver:production-shape:claim"
# Variables named in config/settings.py (env("NAME"…), env.bool("NAME"…), …): a child inherits
# none of them from the test run (SCIVER_TESTING above all), only what the shape sets.
_SETTINGS_VARIABLE = re.compile(r"""env(?:\.\w+)?\(\s*f?["']([A-Z][A-Z0-9_]*)""")
_NOT_INHERITED = {"DJANGO_SETTINGS_MODULE", "REQUIRE_SERVICES", "PYTHONPATH"}


def settings_variables() -> set[str]:
    text = (ROOT / "config" / "settings.py").read_text()
    return set(_SETTINGS_VARIABLE.findall(text)) | _NOT_INHERITED


def inherited_environment() -> dict[str, str]:
    """The test run's environment less every variable the app reads and every proxy setting
    (children talk to loopback only)."""
    drop = settings_variables()
    return {
        key: value
        for key, value in os.environ.items()
        if key not in drop
        and not key.startswith(("CLAIM_TARGET_", "ARXIV_", "PYTEST_"))
        and key.lower() not in ("http_proxy", "https_proxy", "all_proxy", "no_proxy")
    }


# --- PostgreSQL and Redis --------------------------------------------------------------------


def with_path(url: str, path: str) -> str:
    return urlunsplit(urlsplit(url)._replace(path=path))


DATABASE_PREFIX = "sciver_production_shape_"
_DATABASE_NAME = re.compile(rf"{DATABASE_PREFIX}(\d+)_[0-9a-f]{{8}}")


def _process_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # someone else's process: alive
        return True
    return True


def leftover_keep_reason(
    name: str, connections: int, process_alive: Callable[[int], bool] = _process_alive
) -> str | None:
    """Why the shape's database `name` must be kept, or None when it is a killed run's leftover
    to drop: anything connected to it is in use; a run whose process (its pid is in the name)
    still lives on this machine may be between creating its database and connecting to it."""
    if connections:
        return f"{connections} connection(s) to it"
    match = _DATABASE_NAME.fullmatch(name)
    if match is None:
        return "not named as this test names its databases"
    if process_alive(int(match[1])):
        return f"the run's process {match[1]} is alive"
    return None


def drop_leftover_databases(base_url: str) -> tuple[list[str], list[str]]:
    """Drop what earlier runs left: a run killed outright (SIGKILL) never reaches `close()`, and
    its database stays. Only the shape's own names that nothing is connected to (by
    pg_stat_activity) and whose run's process is gone; DROP without FORCE, so a connection made
    meanwhile keeps the database. Returns (dropped, kept with why)."""
    import psycopg
    from psycopg import sql

    like = DATABASE_PREFIX.replace("_", "\\_") + "%"
    dropped, kept = [], []
    with psycopg.connect(with_path(base_url, "/postgres"), autocommit=True, connect_timeout=5) as c:
        rows = c.execute(
            "SELECT d.datname, count(a.pid) FROM pg_database d"
            " LEFT JOIN pg_stat_activity a ON a.datname = d.datname"
            " WHERE d.datname LIKE %s GROUP BY d.datname ORDER BY d.datname",
            [like],
        ).fetchall()
        for name, connections in rows:
            reason = leftover_keep_reason(name, connections)
            if reason is None:
                try:
                    c.execute(sql.SQL("DROP DATABASE {}").format(sql.Identifier(name)))
                except psycopg.errors.ObjectInUse:
                    reason = "connected to while it was being dropped"
                else:
                    dropped.append(name)
                    continue
            kept.append(f"{name} ({reason})")
    return dropped, kept


def create_database(base_url: str) -> str:
    """A new, empty database beside the one `base_url` names; its URL. Killed runs' leftover
    databases are dropped first, and the output says which (and which were kept, and why)."""
    import psycopg

    dropped, kept = drop_leftover_databases(base_url)
    if dropped:
        print(
            f"production shape: dropped {len(dropped)} database(s) left by killed runs: "
            + ", ".join(dropped)
        )
    if kept:
        print("production shape: kept these databases of other runs: " + "; ".join(kept))
    name = f"{DATABASE_PREFIX}{os.getpid()}_{uuid.uuid4().hex[:8]}"
    with psycopg.connect(with_path(base_url, "/postgres"), autocommit=True, connect_timeout=5) as c:
        c.execute(f'CREATE DATABASE "{name}"')
    return with_path(base_url, f"/{name}")


def drop_database(url: str) -> None:
    import psycopg

    name = urlsplit(url).path.lstrip("/")
    with psycopg.connect(with_path(url, "/postgres"), autocommit=True, connect_timeout=5) as c:
        c.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def claim_redis_database(base_url: str) -> str:
    """A Redis database number nobody uses (empty) other than `base_url`'s: claimed with a key
    set only if absent, so two runs at once never share one. Its URL."""
    import redis

    taken = int(urlsplit(base_url).path.strip("/") or 0)
    token = uuid.uuid4().hex
    for number in range(15, 0, -1):
        if number == taken:
            continue
        url = with_path(base_url, f"/{number}")
        client = redis.Redis.from_url(url, socket_connect_timeout=2)
        try:
            if not client.set(REDIS_CLAIM, token, nx=True, ex=3600):
                continue
            if client.dbsize() == 1:
                return url
            if client.get(REDIS_CLAIM) == token.encode():
                client.delete(REDIS_CLAIM)  # someone's data is there: not ours to use
        except redis.ResponseError:  # fewer databases than 16 configured
            continue
        finally:
            client.close()
    raise RuntimeError(f"no empty Redis database besides {taken} at {base_url}")


def flush_redis_database(url: str) -> None:
    import redis

    client = redis.Redis.from_url(url, socket_connect_timeout=2)
    try:
        client.flushdb()
    finally:
        client.close()


# --- TLS -------------------------------------------------------------------------------------


@dataclass
class Certificates:
    ca: Path  # the bundle clients verify against
    cert: Path  # the server's chain
    key: Path


def make_certificates(folder: Path) -> Certificates:
    import trustme

    folder.mkdir(parents=True, exist_ok=True)
    authority = trustme.CA(organization_name="SciVer Studio production-shape test")
    issued = authority.issue_cert(LOOPBACK, "localhost")
    paths = Certificates(folder / "ca.pem", folder / "server-chain.pem", folder / "server-key.pem")
    authority.cert_pem.write_to_path(str(paths.ca))
    for pem in issued.cert_chain_pems:
        pem.write_to_path(str(paths.cert), append=True)
    issued.private_key_pem.write_to_path(str(paths.key))
    return paths


# --- Processes -------------------------------------------------------------------------------


def free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind((LOOPBACK, 0))
        return s.getsockname()[1]


@dataclass
class Process:
    name: str
    popen: subprocess.Popen
    log: Path
    finite: bool = False  # a command that runs beside the servers and ends (exit 0)
    started: float = field(default_factory=time.monotonic)

    def text(self) -> str:
        return self.log.read_text(errors="replace") if self.log.exists() else ""


def stop_processes(popens: list[subprocess.Popen], grace: float = 15) -> None:
    """SIGTERM to the process group each leads (a worker's work-horse, Chromium, gunicorn's
    workers), all at once; SIGKILL to a group still there after `grace` seconds."""
    running = [p for p in popens if p.poll() is None]
    for popen in running:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(popen.pid, signal.SIGTERM)
    deadline = time.monotonic() + grace
    for popen in running:
        try:
            popen.wait(max(0.1, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(popen.pid, signal.SIGKILL)
            popen.wait(5)


@dataclass
class Shape:
    """One deployment on loopback. Build with `Shape.create(...)`; always `close()` it."""

    folder: Path
    database_url: str
    redis_url: str
    certificates: Certificates
    extra_env: dict[str, str] = field(default_factory=dict)
    processes: list[Process] = field(default_factory=list)
    commands: list[tuple[str, float]] = field(default_factory=list)  # (what, seconds)
    base: str = ""
    secret_key: str = field(default_factory=lambda: secrets.token_urlsafe(50))

    @classmethod
    def create(
        cls, folder: Path, *, postgres_url: str, redis_url: str, env: dict[str, str]
    ) -> Shape:
        for name in ("media", "releases", "static", "logs"):
            (folder / name).mkdir(parents=True, exist_ok=True)
        database = create_database(postgres_url)
        redis_db = ""
        try:
            redis_db = claim_redis_database(redis_url)
            return cls(folder, database, redis_db, make_certificates(folder / "tls"), dict(env))
        except BaseException:
            if redis_db:
                flush_redis_database(redis_db)
            drop_database(database)
            raise

    @property
    def media_root(self) -> Path:
        return self.folder / "media"

    @property
    def release_dir(self) -> Path:
        return self.folder / "releases"

    def env(self) -> dict[str, str]:
        """What a deployment sets (README: Configuration): nothing that changes a setting's
        production default, except the stand-in arXiv's addresses and its lowered delay."""
        return {
            **inherited_environment(),
            "DJANGO_SETTINGS_MODULE": "config.settings",
            "SECRET_KEY": self.secret_key,
            "ALLOWED_HOSTS": f"{LOOPBACK},localhost",
            "DATABASE_URL": self.database_url,
            "REDIS_URL": self.redis_url,
            "MEDIA_ROOT": str(self.media_root),
            "RELEASE_DIR": str(self.release_dir),
            "STATIC_ROOT": str(self.folder / "static"),
            "EVALUATION_CACHE_DIR": str(self.folder / "evaluation-cache"),
            "PYTHONPATH": str(ROOT),
            "PYTHONUNBUFFERED": "1",
            **self.extra_env,
        }

    def run(
        self, *args: str, timeout: float = 120, what: str = "", env: dict[str, str] | None = None
    ) -> str:
        """A command to its end (manage.py … or python -m …); its output, or an error with it.
        `env`: variables of this command only (createsuperuser's password, say)."""
        started = time.monotonic()
        done = subprocess.run(
            [sys.executable, *args],
            cwd=ROOT,
            env=self.env() | (env or {}),
            capture_output=True,
            text=True,
            timeout=timeout,
        )
        self.commands.append((what or " ".join(args[:3]), time.monotonic() - started))
        if done.returncode != 0:
            raise AssertionError(
                f"{' '.join(args)} exited {done.returncode}\n{done.stdout[-4000:]}\n"
                f"{done.stderr[-8000:]}"
            )
        return done.stdout

    def manage(self, *args: str, timeout: float = 120, env: dict[str, str] | None = None) -> str:
        return self.run("manage.py", *args, timeout=timeout, what=f"manage.py {args[0]}", env=env)

    def start(self, name: str, command: list[str], *, finite: bool = False) -> Process:
        log = self.folder / "logs" / f"{name}.log"
        with open(log, "wb") as out:
            popen = subprocess.Popen(
                command,
                cwd=ROOT,
                env=self.env(),
                stdout=out,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                start_new_session=True,
            )
        process = Process(name, popen, log, finite)
        self.processes.append(process)
        return process

    def launch(self, *args: str, what: str) -> Process:
        """A command (manage.py …) started beside the servers; `finish` waits for it."""
        return self.start(what, [sys.executable, *args], finite=True)

    def finish(self, process: Process, timeout: float) -> str:
        try:
            code = process.popen.wait(timeout)
        except subprocess.TimeoutExpired:
            raise AssertionError(f"{process.name} did not end within {timeout:g} s") from None
        self.commands.append((process.name, time.monotonic() - process.started))
        if code != 0:
            raise AssertionError(f"{process.name} exited {code}:\n{process.text()[-8000:]}")
        return process.text()

    def start_web(self, workers: int = 3) -> str:
        """gunicorn as docker-compose.yml runs it, listening with TLS on loopback."""
        from gunicorn.config import KNOWN_SETTINGS

        port = free_port()
        command = [
            str(BIN / "gunicorn"),
            "config.wsgi:application",
            "--bind",
            f"{LOOPBACK}:{port}",
            "--workers",
            str(workers),
            "--timeout",
            "120",
            "--certfile",
            str(self.certificates.cert),
            "--keyfile",
            str(self.certificates.key),
            "--error-logfile",
            "-",
            "--access-logfile",
            "-",
        ]
        if any(s.name == "control_socket_disable" for s in KNOWN_SETTINGS):
            # gunicorn 25+ opens a control socket in ~/.gunicorn, one path for every server
            # of the machine: runs at once would take it from each other.
            command.append("--no-control-socket")
        self.start("gunicorn", command)
        self.base = f"https://{LOOPBACK}:{port}"
        return self.base

    def start_worker(self, name: str, queues: Iterable[str]) -> Process:
        return self.start(name, [sys.executable, "manage.py", "rqworker", *queues, "--name", name])

    def process(self, name: str) -> Process:
        return next(p for p in self.processes if p.name == name)

    def alive(self) -> None:
        for process in self.processes:
            code = process.popen.poll()
            if code is not None and not (process.finite and code == 0):
                raise AssertionError(f"{process.name} exited ({code}):\n{process.text()[-6000:]}")

    def logs(self) -> str:
        return "\n".join(
            f"===== {p.name} log (last 200 lines) =====\n" + "\n".join(p.text().splitlines()[-200:])
            for p in self.processes
        )

    def close(self) -> None:
        try:
            stop_processes([process.popen for process in self.processes])
        finally:
            with contextlib.suppress(Exception):
                flush_redis_database(self.redis_url)
            drop_database(self.database_url)

    def records(self, crawled_prefix: str) -> dict[str, Any]:
        out = self.run(
            "-m",
            "tests.production.records",
            what="records",
            timeout=60,
            env={"CRAWLED_PREFIX": crawled_prefix},
        )
        return json.loads(out.strip().splitlines()[-1])


# --- An HTTPS client, as a person's browser would talk --------------------------------------


@dataclass
class Client:
    """A signed-in person over HTTPS, verifying the server against the run's CA."""

    base: str
    ca: Path
    timeout: float = 30

    def __post_init__(self) -> None:
        import requests

        self.session = requests.Session()
        self.session.trust_env = False  # loopback only: no proxy from the environment
        self.session.verify = str(self.ca)

    def url(self, path: str) -> str:
        return urljoin(self.base + "/", path.lstrip("/"))

    def get(self, path: str, **kwargs: Any):
        return self.session.get(self.url(path), **{"timeout": self.timeout, **kwargs})

    def post(self, path: str, data: Any, **kwargs: Any):
        # A browser names the origin of a form's POST; Django's CSRF check over HTTPS needs it.
        return self.session.post(
            self.url(path),
            data=data,
            headers={"Origin": self.base},
            timeout=self.timeout,
            allow_redirects=False,
            **kwargs,
        )

    def page(self, path: str):
        from bench.load import parse

        response = self.get(path)
        assert response.status_code == 200, (path, response.status_code, response.text[:2000])
        return parse(response.url, response.content)

    def submit(self, path: str, form, **values: Any):
        """Post `form` (bench.load's Form, read from the page) with `values` filled in."""
        payload = [(k, v) for k, v in form.payload() if k not in values]
        for key, value in values.items():
            for item in value if isinstance(value, list) else [value]:
                payload.append((key, str(item)))
        return self.post(urlsplit(form.action).path or path, payload)


def wait_for(
    what: str,
    check: Callable[[], Any],
    *,
    timeout: float,
    every: float = 0.2,
    alive: Callable[[], None] | None = None,
) -> Any:
    """Poll `check` until it returns something truthy; fail after `timeout` seconds."""
    deadline = time.monotonic() + timeout
    last: Any = None
    while time.monotonic() < deadline:
        if alive is not None:
            alive()
        last = check()
        if last:
            return last
        time.sleep(every)
    raise AssertionError(f"timed out after {timeout:g} s waiting for {what} (last: {last!r})")
