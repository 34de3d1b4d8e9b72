"""Settings, read from the environment; safe for production by default, convenient under `make run`."""

from datetime import timedelta
from pathlib import Path

import environ
from django.core.exceptions import ImproperlyConfigured

BASE_DIR = Path(__file__).resolve().parent.parent
VAR_DIR = BASE_DIR / "var"

env = environ.Env()
environ.Env.read_env(BASE_DIR / ".env") if (BASE_DIR / ".env").exists() else None

# Production-safe defaults: DEBUG off, no wildcard hosts, no secret baked in.
# `make run` sets SCIVER_DEV=1, which turns on a local secret, DEBUG and localhost hosts.
DEV_MODE = env.bool("SCIVER_DEV", default=False)
TESTING = env.bool("SCIVER_TESTING", default=False)
DEBUG = env.bool("DEBUG", default=DEV_MODE)
if DEV_MODE or TESTING:
    SECRET_KEY = env("SECRET_KEY", default="dev-only-insecure-secret-key-change-me-in-production")
else:
    SECRET_KEY = env("SECRET_KEY")
ALLOWED_HOSTS = env.list(
    "ALLOWED_HOSTS", default=["127.0.0.1", "localhost", "[::1]"] if DEV_MODE else []
)
CSRF_TRUSTED_ORIGINS = env.list("CSRF_TRUSTED_ORIGINS", default=[])

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    # Before staticfiles: its `runserver` is the development server's with Nagle off.
    "config.apps.SiteConfig",  # deployment checks, backup and restore, runserver
    "django.contrib.staticfiles",
    "django_rq",
    "axes",
    "jobs",
    "papers",
    "annotation",
    "guidelines",  # versioned guidelines, flags (between annotation and validation)
    "validation",
    "evaluation",
    "workspace",  # pages across the stages (home, papers) and the demo commands
    "rest_framework",
    "drf_spectacular",
    "drf_spectacular_sidecar",  # Swagger UI's files, served from here (no CDN)
    "api",  # the HTTP API under /api/ (docs/api.md)
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "csp.middleware.CSPMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "config.middleware.SignedOutAnswers",
    "django.contrib.messages.middleware.MessageMiddleware",
    # Under DEBUG (`make run`): the project's 404 page, not Django's list of every URL.
    "config.errors.OwnNotFoundPage",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    # Last: it turns the sign-in throttle's verdict into the lockout page (config/signin.py).
    "axes.middleware.AxesMiddleware",
]

ROOT_URLCONF = "config.urls"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "config.signin.transport",
                "annotation.limits.text_limits",  # `data-max` of the free-text fields
            ],
        },
    },
]

WSGI_APPLICATION = "config.wsgi.application"
ASGI_APPLICATION = "config.asgi.application"

# Database: DATABASE_URL, else an SQLite file under var/.
DATABASES = {"default": env.db("DATABASE_URL", default=f"sqlite:///{VAR_DIR / 'sciver.sqlite3'}")}
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # select_for_update() is a no-op on SQLite: take the write lock at the start of each
    # transaction instead, and wait for it rather than failing at once.
    # WAL: readers never wait for the writer, nor it for them (only writers queue, each for a
    # transaction of a few statements); synchronous=NORMAL is WAL's safe setting.
    # Writers of one process (runserver's threads) queue in arrival order for that lock
    # (config/sqlite): SQLite's busy handler sleeps a waiting writer up to 100 ms a try while
    # later ones take the lock first (issue 49: a submission's p95 was 12x the home page's at
    # 16 annotators, and at 64 some waited out the busy timeout). Not for the tests' in-memory
    # database, whose shared cache has table locks of its own.
    if not TESTING:
        DATABASES["default"]["ENGINE"] = "config.sqlite"
    DATABASES["default"].setdefault("OPTIONS", {}).update(
        {
            "transaction_mode": "IMMEDIATE",
            "timeout": env.int("SQLITE_BUSY_TIMEOUT_SECONDS", default=30),
            "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL",
        }
    )
    if TESTING:
        # The test database is in memory with a shared cache, where a reader meets a writer's
        # table lock at once ("database table is locked": no busy timeout waits it out), e.g. a
        # page polled while a job's thread writes; uncommitted reads let it read meanwhile.
        DATABASES["default"]["OPTIONS"]["init_command"] += "; PRAGMA read_uncommitted=1"
else:
    # One connection per worker thread, kept between requests and checked before reuse (tests
    # open connections in threads of their own and close them: none is kept there).
    DATABASES["default"]["CONN_MAX_AGE"] = env.int(
        "DATABASE_CONN_MAX_AGE", default=0 if TESTING else 300
    )
    DATABASES["default"]["CONN_HEALTH_CHECKS"] = True
    # PostgreSQL's JIT compiles a query it estimates costly (the workspace's one count over
    # every stage) for seconds, to save milliseconds: these are short requests, not analytics.
    DATABASES["default"].setdefault("OPTIONS", {}).setdefault("options", "-c jit=off")
# PostgreSQL plans the statements a connection sends often once, not per request: Django's
# statements are bound on the server, and psycopg prepares one once a connection has sent it five
# times (planning the blind submission's locking read took longer than running it), the hot path's
# stored statements (annotation/queue/statements.py) too. Off behind a pooler in transaction
# mode, which does not keep prepared statements.
DATABASE_PREPARED_STATEMENTS = env.bool("DATABASE_PREPARED_STATEMENTS", default=True)
if DATABASE_PREPARED_STATEMENTS and DATABASES["default"]["ENGINE"].endswith("postgresql"):
    # psycopg prepares nothing while this is None (Django's default).
    DATABASES["default"].setdefault("OPTIONS", {}).setdefault("prepare_threshold", 5)
    DATABASES["default"]["OPTIONS"].setdefault("server_side_binding", True)
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# `make run`'s server (manage.py runserver): at most this many requests in progress at once, the
# others served in arrival order (serving/gate.py; 0: no bound, Django's own). One process runs one
# thread's Python at a time: more requests at once add no throughput, and unbounded, page views
# pass the submissions queued for SQLite's one writer (issue 49, docs/benchmarks.md).
RUNSERVER_CONCURRENCY = env.int("RUNSERVER_CONCURRENCY", default=4)

# Background jobs: with REDIS_URL, django-rq queues; without, in-process (see jobs/dispatch.py).
REDIS_URL = env("REDIS_URL", default="")
RQ_QUEUES = {}
# A running background job silent this long is taken as dead (its worker or server stopped).
JOB_STALE_SECONDS = env.int("JOB_STALE_SECONDS", default=1800)
# Every background job runs inline, in the request that starts it (Redis or not): for scripts
# and tests that want a job's outcome at once. Off by default.
JOBS_INLINE = env.bool("JOBS_INLINE", default=False)
if REDIS_URL:
    for _name, _timeout in (("default", 3600), ("crawl", 48 * 3600), ("render", 6 * 3600)):
        RQ_QUEUES[_name] = {"URL": REDIS_URL, "DEFAULT_TIMEOUT": _timeout}
else:
    # django-rq's admin pages import the setting; an empty mapping means "no queues".
    RQ_QUEUES = {}
# Without Redis there are no queues to show: django-rq's dashboard stays out of the admin (its
# pages would answer 500). With Redis, config/admin_site.py guards it.
RQ_SHOW_ADMIN_LINK = bool(REDIS_URL)

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
STATIC_ROOT = Path(env("STATIC_ROOT", default=str(BASE_DIR / "staticfiles")))
MEDIA_URL = "media/"
MEDIA_ROOT = Path(env("MEDIA_ROOT", default=str(VAR_DIR / "media")))

LOGIN_URL = "/accounts/login/"
LOGIN_REDIRECT_URL = "/"
# Django's database sessions; each sign-in is linked to its person (annotation/sessions.py), so that
# all of one person's sessions end in one indexed statement (`end_sessions`).
SESSION_ENGINE = "django.contrib.sessions.backends.db"
SESSION_COOKIE_AGE = env.int("SESSION_COOKIE_AGE", default=14 * 24 * 3600)
CSRF_FAILURE_VIEW = "config.views.csrf_failure"

# --- Transport security (docs/deploying.md) --------------------------------------------------
# In production (DEBUG off) cookies are Secure, plain HTTP is redirected to HTTPS and HSTS is
# sent; behind a TLS-terminating proxy, SECURE_PROXY_SSL_HEADER says which header marks a
# request that arrived over HTTPS. config/checks.py names the combinations that cannot work.
PRODUCTION = not DEBUG and not TESTING
SECURE_COOKIES = env.bool("SECURE_COOKIES", default=not DEBUG)
SESSION_COOKIE_SECURE = CSRF_COOKIE_SECURE = SECURE_COOKIES
# The test client and the browser tests speak plain HTTP to the live server: no redirect there.
SECURE_SSL_REDIRECT = env.bool("SECURE_SSL_REDIRECT", default=PRODUCTION)
# Load balancers probe liveness over plain HTTP.
SECURE_REDIRECT_EXEMPT = [r"^healthz$"]
SECURE_HSTS_SECONDS = env.int("SECURE_HSTS_SECONDS", default=0 if DEBUG else 365 * 24 * 3600)
SECURE_HSTS_INCLUDE_SUBDOMAINS = env.bool("SECURE_HSTS_INCLUDE_SUBDOMAINS", default=not DEBUG)
SECURE_HSTS_PRELOAD = env.bool("SECURE_HSTS_PRELOAD", default=False)
SECURE_CONTENT_TYPE_NOSNIFF = True


def _proxy_ssl_header(value: str) -> tuple[str, str] | None:
    """`X-Forwarded-Proto` (meaning `X-Forwarded-Proto: https`) or `X-Forwarded-Proto=https`
    -> Django's ("HTTP_X_FORWARDED_PROTO", "https")."""
    if not value.strip():
        return None
    name, _, expected = value.partition("=")
    name = name.strip().upper().replace("-", "_")
    if not name.startswith("HTTP_"):
        name = f"HTTP_{name}"
    return name, expected.strip() or "https"


SECURE_PROXY_SSL_HEADER = _proxy_ssl_header(env("SECURE_PROXY_SSL_HEADER", default=""))
USE_X_FORWARDED_HOST = env.bool("USE_X_FORWARDED_HOST", default=False)
# Reverse proxies in front of the app that append the client's address to X-Forwarded-For
# (0: the connection's own address is the client's). The sign-in throttle counts by address.
PROXY_COUNT = env.int("PROXY_COUNT", default=0)
SILENCED_SYSTEM_CHECKS = []
if TESTING:
    # The test client and Chromium on localhost send Secure cookies over plain HTTP; the check
    # itself is tested directly (tests/test_security.py).
    SILENCED_SYSTEM_CHECKS.append("sciver.W001")
if not SECURE_HSTS_PRELOAD:
    # Preloading commits the whole domain, by its owner's choice at hstspreload.org: not a
    # default (SECURE_HSTS_PRELOAD=1 opts in), so its reminder is not a warning here.
    SILENCED_SYSTEM_CHECKS.append("security.W021")

# --- The cache: request budgets of the API (api/throttling.py) and the audit's pool -----------
# Without CACHE_URL each server process keeps its own in memory (a budget per process: with
# gunicorn's 4 workers, 4 times API_RATE). With CACHE_URL (redis://host:port/db, a Redis
# database of its own: the cache may clear it) every process shares one.
# The work pages' element bodies (annotation/fragments.py) stay in each process's memory
# whatever CACHE_URL says: a Redis round trip costs more than rendering one, and they must not
# push the request budgets out of the default cache's 300 entries.
CACHE_URL = env("CACHE_URL", default="")
CACHES = {
    "default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"},
    "fragments": {
        "BACKEND": "django.core.cache.backends.locmem.LocMemCache",
        "LOCATION": "element-bodies",
        "OPTIONS": {"MAX_ENTRIES": 20_000},
    },
}
if CACHE_URL:
    if not CACHE_URL.startswith(("redis://", "rediss://", "unix://")):
        raise ImproperlyConfigured(
            f"CACHE_URL must be a Redis address (redis://host:port/db), not {CACHE_URL!r}"
        )
    CACHES["default"] = {
        "BACKEND": "django.core.cache.backends.redis.RedisCache",
        "LOCATION": CACHE_URL,
        "KEY_PREFIX": "sciver",
    }

# --- The HTTP API (api/, docs/api.md) -------------------------------------------------------
# Requests per token a minute (per person on a session, per address signed out); "" for none.
API_RATE = env("API_RATE", default="600/min")
REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "api.auth.TokenAuthentication",
        "api.auth.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["api.permissions.IsAdmin"],  # routes for others say so
    "DEFAULT_THROTTLE_CLASSES": ["api.throttling.PerToken"],
    "DEFAULT_PAGINATION_CLASS": "api.pagination.Cursor",
    "DEFAULT_RENDERER_CLASSES": ["rest_framework.renderers.JSONRenderer"],
    "DEFAULT_PARSER_CLASSES": [
        "api.parsers.JSONParser",
        "rest_framework.parsers.FormParser",
        "rest_framework.parsers.MultiPartParser",
    ],
    "EXCEPTION_HANDLER": "api.errors.handler",
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "UNAUTHENTICATED_USER": "django.contrib.auth.models.AnonymousUser",
}
SPECTACULAR_SETTINGS = {
    "TITLE": "SciVer Studio API",
    "DESCRIPTION": "What admins and release managers do in the browser, from a script "
    "(docs/api.md).",
    "VERSION": "1",
    "SERVE_INCLUDE_SCHEMA": False,
    "SERVE_PERMISSIONS": ["rest_framework.permissions.AllowAny"],
    "SERVE_AUTHENTICATION": [],
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    "SCHEMA_PATH_PREFIX": "/api/",
    "COMPONENT_SPLIT_REQUEST": True,
}

# --- Content-Security-Policy (django-csp), in every mode -------------------------------------
# Scripts, styles, images and fetches from this origin only: no inline script or style (htmx's
# indicator style is switched off in base.html), plots are inline SVG with presentation
# attributes, images of the paper come from /media/ or data: URLs. KaTeX (static/vendor/katex,
# math in paragraphs and captions) needs no 'unsafe-inline': it sizes its nodes through the
# CSSOM, which style-src does not govern, and its fonts are served from here (static/js/math.js).
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": ["'self'"],
        "script-src": ["'self'"],
        "style-src": ["'self'"],
        "img-src": ["'self'", "data:"],
        "font-src": ["'self'"],
        "connect-src": ["'self'"],
        "object-src": ["'none'"],
        "base-uri": ["'none'"],
        "form-action": ["'self'"],
        "frame-ancestors": ["'none'"],
    }
}

# --- Sign-in throttling (django-axes) --------------------------------------------------------
# After SIGNIN_FAILURE_LIMIT failed sign-ins for one username from one address (or
# SIGNIN_ADDRESS_LIMIT from one address, whatever the usernames) within SIGNIN_COOLOFF_MINUTES,
# further sign-ins for it are refused until that long after the failures that made the limit. Admins unlock at once on Manage -> Sign-ins (who is paused, since when), or
# `manage.py axes_reset_username NAME` / `axes_reset_ip ADDRESS` / `axes_reset`.
AUTHENTICATION_BACKENDS = [
    "config.signin.SignInThrottle",  # refuses a locked-out sign-in before any password check
    "django.contrib.auth.backends.ModelBackend",
]
AXES_FAILURE_LIMIT = env.int("SIGNIN_FAILURE_LIMIT", default=5)
AXES_COOLOFF_TIME = timedelta(minutes=env.int("SIGNIN_COOLOFF_MINUTES", default=15))
# Counted by the pair (username, address), so that one person's typos pause only that person on
# that address; and by the address alone, against a far higher limit (a guesser trying many
# usernames), which never pauses an admin's account (config/signin.py, PairThenAddress).
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"], "ip_address"]
SIGNIN_ADDRESS_LIMIT = env.int("SIGNIN_ADDRESS_LIMIT", default=50)
AXES_HANDLER = "config.signin.PairThenAddress"
# The wait the page shows holds: refused attempts during a lockout do not prolong it.
AXES_RESET_COOL_OFF_ON_FAILURE_DURING_LOCKOUT = False
# A success does not wipe failures: signing in to one's own account must not reset the count of
# guesses made from the same address at someone else's.
AXES_RESET_ON_SUCCESS = False
AXES_LOCKOUT_CALLABLE = "config.signin.lockout_response"
AXES_CLIENT_IP_CALLABLE = "config.signin.client_ip"
AXES_USERNAME_CALLABLE = "config.signin.client_username"
AXES_DISABLE_ACCESS_LOG = True  # failures are kept (for the lockout); successful sign-ins are not
AXES_VERBOSE = False  # no banner on every command; lockouts are still logged

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    # A 400 is one line (its path and message), not a traceback (config/errors.py).
    "filters": {"one_line_400": {"()": "config.errors.OneLineBadRequests"}},
    "handlers": {"console": {"class": "logging.StreamHandler", "filters": ["one_line_400"]}},
    "root": {"handlers": ["console"], "level": env("LOG_LEVEL", default="INFO")},
    # Axes tells of every sign-in at INFO; failures and lockouts are WARNING.
    "loggers": {"axes": {"level": "WARNING"}},
}

# --- SciVer Studio ---------------------------------------------------------------------------
# Parsing and images
MAX_HTML_BYTES = env.int("MAX_HTML_BYTES", default=50 * 1024 * 1024)
MAX_IMAGE_BYTES = env.int("MAX_IMAGE_BYTES", default=20 * 1024 * 1024)
MAX_IMAGE_PIXELS = env.int("MAX_IMAGE_PIXELS", default=40_000_000)
# Chromium for table screenshots and SVG rasterising; empty: found automatically.
CHROMIUM_PATH = env("CHROMIUM_PATH", default="")
# Set to 0 to force the Pillow table renderer even where Chromium is installed.
USE_CHROMIUM = env.bool("USE_CHROMIUM", default=True)

# Bundled sample papers imported by `make run`
SAMPLE_PAPERS_DIR = BASE_DIR / "papers" / "corpus"

# arXiv
ARXIV_API_URL = env("ARXIV_API_URL", default="https://export.arxiv.org/api/query")
ARXIV_HTML_URL = env("ARXIV_HTML_URL", default="https://arxiv.org/html/")
ARXIV_ABS_URL = env("ARXIV_ABS_URL", default="https://arxiv.org/abs/")
ARXIV_DELAY_SECONDS = env.float("ARXIV_DELAY_SECONDS", default=3.0)
ARXIV_CONTACT = env("ARXIV_CONTACT", default="sciver-studio@example.org")
ARXIV_USER_AGENT = env("ARXIV_USER_AGENT", default=f"SciVerStudio/0.1 (+mailto:{ARXIV_CONTACT})")
MIN_TABLES = env.int("MIN_TABLES", default=2)
MIN_CHARTS = env.int("MIN_CHARTS", default=2)
# The politeness gate: "redis" (default when REDIS_URL is set), "file" (a lock file shared by
# every process on this machine; the default otherwise) or "local" (this process only).
ARXIV_GATE = env("ARXIV_GATE", default="")
ARXIV_GATE_FILE = env("ARXIV_GATE_FILE", default=str(VAR_DIR / "arxiv-gate"))
# The Redis keys' prefix of the gate (deployments sharing one Redis server need their own).
ARXIV_GATE_KEY = env("ARXIV_GATE_KEY", default="sciver:arxiv-gate")
ARXIV_MAX_TRIES = env.int("ARXIV_MAX_TRIES", default=4)
ARXIV_BACKOFF_SECONDS = env.float("ARXIV_BACKOFF_SECONDS", default=2.0)
ARXIV_BACKOFF_CAP_SECONDS = env.float("ARXIV_BACKOFF_CAP_SECONDS", default=120.0)
ARXIV_MAX_RETRY_AFTER = env.float("ARXIV_MAX_RETRY_AFTER", default=600.0)
ARXIV_CONNECT_TIMEOUT = env.float("ARXIV_CONNECT_TIMEOUT", default=10.0)
ARXIV_READ_TIMEOUT = env.float("ARXIV_READ_TIMEOUT", default=30.0)
ARXIV_REQUEST_DEADLINE = env.float("ARXIV_REQUEST_DEADLINE", default=120.0)
ARXIV_PAGE_SIZE = env.int("ARXIV_PAGE_SIZE", default=200)
ARXIV_SEARCH_CHUNK_DAYS = env.int("ARXIV_SEARCH_CHUNK_DAYS", default=1)
# A running crawl whose heartbeat is older than this is taken as dead (its worker was killed).
CRAWL_STALE_SECONDS = env.int("CRAWL_STALE_SECONDS", default=1800)

# Experts: eligible for a subfield with this many publications in it and completed training.
MIN_PUBLICATIONS = env.int("MIN_PUBLICATIONS", default=2)

# Claim writing (annotation/writing/): tasks per curated paper, subset targets, claim length,
# and how long a taken work item stays with its holder (each autosave renews it).
CLAIM_TASKS_PER_PAPER = env.int("CLAIM_TASKS_PER_PAPER", default=4)
CLAIM_SUBSET_TARGETS = {
    subset: env.float(f"CLAIM_TARGET_{subset.upper()}", default=1.0)
    for subset in ("direct", "parallel", "sequential", "analytical")
}
CLAIM_MIN_WORDS = env.int("CLAIM_MIN_WORDS", default=6)
CLAIM_MAX_WORDS = env.int("CLAIM_MAX_WORDS", default=120)
WORK_LEASE_MINUTES = env.int("WORK_LEASE_MINUTES", default=60)
# Time per item (People, time CSV): the longest stretch between two recorded events of an item
# that counts as active; 0 means WORK_LEASE_MINUTES.
ACTIVE_TIME_CAP_MINUTES = env.int("ACTIVE_TIME_CAP_MINUTES", default=0)

# Blind second annotation (annotation/review/): labels equal and evidence overlapping at least
# at this Jaccard index mean agreed (1.0: the evidence sets must be equal).
EVIDENCE_JACCARD_THRESHOLD = env.float("EVIDENCE_JACCARD_THRESHOLD", default=1.0)

# Validation and release (validation/): expert ids in releases are keyed hashes with this salt
# (default: derived from SECRET_KEY; it must stay the same for byte-identical re-exports), and
# where release folders made from the admin pages go.
RELEASE_SALT = env("RELEASE_SALT", default="")
RELEASE_DIR = Path(env("RELEASE_DIR", default=str(VAR_DIR / "releases")))
BASELINE_PER_SUBSET = env.int("BASELINE_PER_SUBSET", default=10)
# The annotation-artifact audit (validation/audit/): check_release and audit_release warn when
# a claim-only baseline's 95 % lower bound beats chance by more than this many points.
ARTIFACT_MARGIN = env.float("ARTIFACT_MARGIN", default=10.0)


# Evaluating models on a release (evaluation/): the only endpoints the pages may send a release
# to, each with the one environment variable that holds its key ("name|url|KEY_VARIABLE",
# comma-separated; the key variable may be left out). A page never reads any other variable.
def _evaluation_endpoints(value: str) -> dict[str, dict[str, str]]:
    endpoints = {}
    for entry in filter(None, (e.strip() for e in value.split(","))):
        name, _, rest = entry.partition("|")
        url, _, key_variable = rest.partition("|")
        if not name.strip() or not url.strip():
            raise ImproperlyConfigured(
                f"EVALUATION_ENDPOINTS: {entry!r} should be name|url or name|url|KEY_VARIABLE"
            )
        endpoints[name.strip()] = {"url": url.strip(), "key_variable": key_variable.strip()}
    return endpoints


EVALUATION_ENDPOINTS = _evaluation_endpoints(env("EVALUATION_ENDPOINTS", default=""))
EVALUATION_CACHE_DIR = Path(env("EVALUATION_CACHE_DIR", default=str(VAR_DIR / "evaluation-cache")))
EVALUATION_CONCURRENCY = env.int("EVALUATION_CONCURRENCY", default=4)
EVALUATION_TIMEOUT_SECONDS = env.float("EVALUATION_TIMEOUT_SECONDS", default=120.0)
