"""Benchmark: the writing, blind-annotation and adjudication pages served by gunicorn against
PostgreSQL under concurrent clients, beside a trivial view (`/healthz`) in the same run.

Run by hand (PostgreSQL on 127.0.0.1; the database is created when missing, and its data made
once with the project's own services):

    python bench/pages.py [--database-url postgres://postgres@127.0.0.1:5432/sciver_bench]
                          [--clients 16] [--seconds 30] [--workers 4] [--profile]
                          [--render N [--render-redis redis://127.0.0.1:6379/7]]

Target: p95 of each page ≤ 3 × the trivial view's p95. `--profile` also times one request of
each page in-process (SQL queries and time, and the top functions by cumulative time).
`--render N` times N requests of each page in-process instead of the load (the pages and their
whole-context fragments, whose elements' bodies annotation/fragments.py caches): medians with no
cache, with the in-memory cache emptied before each request (cold) and kept (warm), and with
Redis cold and warm when given a Redis database (the run empties it), interleaved request by
request so that drift falls on every column alike.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import os
import pstats
import random
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from importlib import import_module
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.postgres import ensure_database  # noqa: E402

DEFAULT_URL = "postgres://postgres@127.0.0.1:5432/sciver_bench"
USERS = ("bench-writer", "bench-second", "bench-third", "bench-adjudicator")
CODES = ("cs.CL", "cs.IR", "cs.CV", "cs.LG", "cs.CR", "cs.RO")


def build_data() -> None:
    """Corpus papers, curated; claim pairs written; second annotations (one claim in three
    disagreeing) and the adjudication items they open. Made once per database."""
    from django.conf import settings
    from django.contrib.auth import get_user_model

    from annotation.assignment import services as assignment_services
    from annotation.curation import rules as context_rules
    from annotation.curation import services as curation_services
    from annotation.models import Subfield, WorkItem
    from annotation.queue import work
    from annotation.review import services as review
    from annotation.writing import services as writing
    from papers.assets import FolderAssets
    from papers.importing import import_paper
    from papers.local_pages import locate_page
    from papers.models import Element, Paper, Section
    from tests.annotation.claim_factories import submit
    from tests.annotation.factories import make_expert

    if get_user_model().objects.filter(username=USERS[0]).exists():
        return
    started = time.perf_counter()
    Subfield.ensure_sciver_subfields()
    for folder in sorted(p.parent for p in settings.SAMPLE_PAPERS_DIR.glob("*/paper.html")):
        page = locate_page(folder)
        if Paper.objects.filter(arxiv_id=page.arxiv_id, version=page.version).exists():
            continue
        import_paper(
            html=page.html_path.read_bytes(),
            page_url=page.html_path.resolve().as_uri(),
            assets=FolderAssets(page.folder),
            arxiv_id=page.arxiv_id,
            version=page.version,
            metadata=page.metadata,
        )
    # The corpus's papers in SciVer's subfields (it grows: a cs.SE paper came, and a cs.NI one
    # that no expert may take), with experts of every one of them.
    known = set(Subfield.objects.values_list("code", flat=True))
    papers = [p for p in Paper.objects.order_by("arxiv_id") if p.primary_category in known]
    codes = sorted({*CODES, *(p.primary_category for p in papers)})
    people = {name: make_expert(name, codes) for name in USERS}
    admin = get_user_model().objects.create_superuser("bench-admin", password=uuid.uuid4().hex)
    writer = people["bench-writer"]
    assignment_services.assign_papers(papers=papers, experts=[writer], assigned_by=admin)
    for paper in papers:
        kept = {
            s.pk
            for s in Section.objects.filter(paper=paper)
            if not context_rules.proposed_for_removal(s.kind)
        }
        curation_services.save_curated_context(
            paper=paper,
            user=writer,
            kept_section_ids=kept,
            kept_element_ids=set(Element.objects.filter(paper=paper).values_list("pk", flat=True)),
            not_chart_ids=(),
            latest_seen=None,
        )
        writing.create_claim_tasks(paper=paper, by=writer, count=4, seed=7)
    written = 0
    while WorkItem.objects.filter(kind="write", status="open").count() > len(papers):
        submit(work.next_item(user=writer, kind="write"), writer)
        written += 1
    flip = {"entailed": "refuted", "refuted": "entailed"}
    annotated = 0
    for annotator in ("bench-second", "bench-third"):
        user = people[annotator]
        while True:
            try:
                item = review.take_next(user=user, kind="evidence")
            except work.NothingToDo:
                break
            claim = item.claim
            annotated += 1
            review.submit_second_annotation(
                item=item,
                user=user,
                version=item.version,
                token=uuid.uuid4(),
                label=flip[claim.label] if annotated % 3 == 0 else claim.label,
                evidence_ids=claim.evidence.values_list("pk", flat=True),
            )
    adjudications = WorkItem.objects.filter(kind="adjudicate").count()
    print(
        f"data: {len(papers)} papers curated, {written} pairs written, {annotated} claims "
        f"annotated blind, {adjudications} adjudication items "
        f"({time.perf_counter() - started:.1f} s)"
    )


def lease_pages() -> dict[str, tuple[str, str]]:
    """Each page's URL and its user: the item that user holds (leased, or the lease renewed).
    The second annotator's item is a fresh pair's (written now), so every run has one."""
    from django.contrib.auth import get_user_model

    from annotation.queue import work
    from annotation.review import services as review
    from tests.annotation.claim_factories import submit

    users = {u.username: u for u in get_user_model().objects.filter(username__in=USERS)}
    writer = users["bench-writer"]
    write = work.next_item(user=writer, kind="write")
    try:
        evidence = review.take_next(user=users["bench-second"], kind="evidence")
    except work.NothingToDo:
        submit(write, writer)
        write = work.next_item(user=writer, kind="write")
        evidence = review.take_next(user=users["bench-second"], kind="evidence")
    adjudication = review.take_next(user=users["bench-adjudicator"], kind="adjudicate")
    return {
        "write": (f"/claims/write/{write.key}/", "bench-writer"),
        "annotate": (f"/review/annotate/{evidence.key}/", "bench-second"),
        "adjudicate": (f"/review/adjudicate/{adjudication.key}/", "bench-adjudicator"),
        "healthz (trivial)": ("/healthz", ""),
    }


def session_cookie(username: str) -> str:
    """A signed-in session, made the way django.contrib.auth.login makes one."""
    from django.conf import settings
    from django.contrib.auth import (
        BACKEND_SESSION_KEY,
        HASH_SESSION_KEY,
        SESSION_KEY,
        get_user_model,
    )

    SessionStore = import_module(settings.SESSION_ENGINE).SessionStore
    user = get_user_model().objects.get(username=username)
    session = SessionStore()
    session[SESSION_KEY] = str(user.pk)
    session[BACKEND_SESSION_KEY] = settings.AUTHENTICATION_BACKENDS[-1]  # the password backend
    session[HASH_SESSION_KEY] = user.get_session_auth_hash()
    session.create()
    return session.session_key


def profile(pages: dict[str, tuple[str, str]]) -> None:
    from django.contrib.auth import get_user_model
    from django.db import connection
    from django.test import Client
    from django.test.utils import CaptureQueriesContext

    for name, (url, username) in pages.items():
        client = Client(HTTP_HOST="127.0.0.1")
        if username:
            client.force_login(get_user_model().objects.get(username=username))
        client.get(url)  # warm
        with CaptureQueriesContext(connection) as queries:
            profiler = cProfile.Profile()
            started = time.perf_counter()
            profiler.enable()
            response = client.get(url)
            profiler.disable()
            elapsed = time.perf_counter() - started
        sql = sum(float(q["time"]) for q in queries.captured_queries)
        print(
            f"\n{name} {url}: {response.status_code}, {len(response.content):,} bytes, "
            f"{elapsed * 1000:.1f} ms, {len(queries)} SQL queries ({sql * 1000:.1f} ms)"
        )
        out = io.StringIO()
        pstats.Stats(profiler, stream=out).sort_stats("cumulative").print_stats(
            r"annotation/|papers/|template/base|db/models/sql/compiler", 10
        )
        print("\n".join(line for line in out.getvalue().splitlines()[6:] if line.strip()))


def render(pages: dict[str, tuple[str, str]], n: int, redis_url: str = "") -> None:
    """Medians of `n` in-process requests of each page and its whole context, by cache."""
    from django.contrib.auth import get_user_model
    from django.core.cache import caches
    from django.test import Client, override_settings

    def locmem(location: str) -> dict:
        return {"BACKEND": "django.core.cache.backends.locmem.LocMemCache", "LOCATION": location}

    modes = {
        "no cache": {"BACKEND": "django.core.cache.backends.dummy.DummyCache"},
        "cold": locmem("bench-render-cold"),
        "warm": locmem("bench-render-warm"),
    }
    if redis_url:
        redis = {"BACKEND": "django.core.cache.backends.redis.RedisCache", "LOCATION": redis_url}
        modes |= {"Redis cold": redis | {"KEY_PREFIX": "cold"}, "Redis warm": redis}
    shown = {}
    for name, (url, username) in pages.items():
        if username:
            shown[name] = (url, username)
            if name == "write":
                shown["write: whole context"] = (url + "context/", username)
            if name == "annotate":
                shown["annotate: whole context"] = (
                    url.replace("annotate/", "items/", 1) + "context/",
                    username,
                )
    clients = {}
    for username in {u for _, u in shown.values()}:
        clients[username] = Client(HTTP_HOST="127.0.0.1")
        clients[username].force_login(get_user_model().objects.get(username=username))
    times: dict[tuple[str, str], list[float]] = {(p, m): [] for p in shown for m in modes}
    sizes = {}
    for round_ in range(n + 1):  # the first round warms up, not counted
        for mode, backend in modes.items():
            with override_settings(CACHES={"default": locmem("default"), "fragments": backend}):
                for name, (url, username) in shown.items():
                    if "cold" in mode:
                        caches["fragments"].clear()
                    started = time.perf_counter()
                    response = clients[username].get(url, secure=True)
                    elapsed = time.perf_counter() - started
                    if response.status_code != 200:
                        sys.exit(f"{name} {url} answered {response.status_code}")
                    sizes[name] = (len(response.content), response.content.count(b'class="ev-item'))
                    if round_:
                        times[name, mode].append(elapsed)
    print(f"\nIn-process requests, median of {n} each (ms), {os.cpu_count()} cores, PostgreSQL")
    print(f"{'page':<26}{'elements':>9}{'bytes':>9}" + "".join(f"{m:>12}" for m in modes))
    for name in shown:
        size, elements = sizes[name]
        medians = "".join(f"{statistics.median(times[name, m]) * 1000:>12.1f}" for m in modes)
        print(f"{name:<26}{elements:>9}{size:>9,}{medians}")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def percentile(values: list[float], q: float) -> float:
    return (
        statistics.quantiles(values, n=100, method="inclusive")[q - 1]
        if len(values) > 1
        else values[0]
    )


def load(base: str, pages: dict, cookies: dict, clients: int, seconds: float) -> dict:
    import requests

    results: dict[str, list[float]] = {name: [] for name in pages}
    errors: dict[str, int] = dict.fromkeys(pages, 0)
    lock = threading.Lock()
    deadline = time.monotonic() + seconds

    def client(number: int) -> None:
        rng = random.Random(number)
        sessions = {}
        for username in {u for _, u in pages.values()}:
            s = requests.Session()
            if username:
                s.cookies.set("sessionid", cookies[username])
            sessions[username] = s
        names = list(pages)
        while time.monotonic() < deadline:
            name = rng.choice(names)
            url, username = pages[name]
            started = time.perf_counter()
            try:
                r = sessions[username].get(base + url, timeout=10, allow_redirects=False)
                ok = r.status_code == 200
            except requests.RequestException:
                ok = False
            elapsed = time.perf_counter() - started
            with lock:
                if ok:
                    results[name].append(elapsed)
                else:
                    errors[name] += 1

    threads = [threading.Thread(target=client, args=(n,)) for n in range(clients)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(seconds + 30)
    return {"latencies": results, "errors": errors}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--database-url", default=os.environ.get("BENCH_DATABASE_URL", DEFAULT_URL))
    parser.add_argument("--clients", type=int, default=16)
    parser.add_argument("--seconds", type=float, default=30)
    parser.add_argument("--workers", type=int, default=4, help="gunicorn sync workers")
    parser.add_argument("--profile", action="store_true")
    parser.add_argument("--render", type=int, default=0, metavar="N", help="in-process medians")
    parser.add_argument("--render-redis", default="", help="a Redis database --render may empty")
    args = parser.parse_args()
    if not args.database_url.startswith("postgres"):
        sys.exit("The benchmark runs against PostgreSQL: give a postgres:// URL.")
    media = tempfile.mkdtemp(prefix="sciver-bench-media-")
    os.makedirs(f"{media}/static")
    env = {
        "DATABASE_URL": args.database_url,
        "MEDIA_ROOT": media,
        "STATIC_ROOT": media + "/static",
        "DEBUG": "0",
        "SCIVER_DEV": "0",
        "SECRET_KEY": "bench-only-" + "x" * 40,
        "ALLOWED_HOSTS": "127.0.0.1",
        "USE_CHROMIUM": "0",
        "LOG_LEVEL": "WARNING",
        "REDIS_URL": "",
        "DJANGO_SETTINGS_MODULE": "config.settings",
    }
    os.environ.update(env)
    ensure_database(args.database_url)

    import django
    from django.core.management import call_command

    django.setup()
    call_command("migrate", verbosity=0)
    build_data()
    pages = lease_pages()
    cookies = {u: session_cookie(u) for _, u in pages.values() if u}
    if args.profile:
        profile(pages)
    if args.render:
        render(pages, args.render, args.render_redis)
        shutil.rmtree(media, ignore_errors=True)
        return

    port = free_port()
    gunicorn = Path(sys.executable).parent / "gunicorn"
    server = subprocess.Popen(
        [
            str(gunicorn),
            "config.wsgi",
            "-b",
            f"127.0.0.1:{port}",
            "-w",
            str(args.workers),
            "--access-logfile",
            "/dev/null",
            "--error-logfile",
            "-",
            "--log-level",
            "warning",
        ],
        cwd=ROOT,
        env=os.environ.copy(),
    )
    base = f"http://127.0.0.1:{port}"
    try:
        import requests

        for _ in range(100):
            try:
                if requests.get(base + "/healthz", timeout=2).status_code == 200:
                    break
            except requests.RequestException:
                time.sleep(0.1)
        else:
            sys.exit("gunicorn did not answer /healthz within 10 s")
        for name, (url, username) in pages.items():  # each page once, and check it answers
            jar = {"sessionid": cookies[username]} if username else {}
            r = requests.get(base + url, cookies=jar, timeout=10, allow_redirects=False)
            if r.status_code != 200:
                sys.exit(f"{name} {url} answered {r.status_code}")
        load(base, pages, cookies, args.clients, 2)  # warm-up, not counted
        run = load(base, pages, cookies, args.clients, args.seconds)
    finally:
        server.terminate()
        server.wait(10)
        shutil.rmtree(media, ignore_errors=True)

    lat, errors = run["latencies"], run["errors"]
    base_p95 = percentile(lat["healthz (trivial)"], 95)
    print(
        f"\n{args.clients} clients, {args.seconds:.0f} s, gunicorn {args.workers} sync workers, "
        f"{os.cpu_count()} cores, PostgreSQL"
    )
    print(
        f"{'page':<20}{'requests':>9}{'errors':>7}{'p50 ms':>9}{'p95 ms':>9}{'p95 / trivial':>15}"
    )
    for name, values in lat.items():
        p50, p95 = percentile(values, 50), percentile(values, 95)
        verdict = (
            "" if name.startswith("healthz") else (" ok" if p95 <= 3 * base_p95 else " MISSED")
        )
        print(
            f"{name:<20}{len(values):>9}{errors[name]:>7}{p50 * 1000:>9.1f}{p95 * 1000:>9.1f}"
            f"{p95 / base_p95:>14.2f}{verdict}"
        )
    print("target: p95 of each page ≤ 3 × the trivial view's p95")


if __name__ == "__main__":
    main()
