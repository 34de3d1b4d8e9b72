"""Settings, read from the environment; safe for production by default, convenient under `make run`."""

from pathlib import Path

import environ

BASE_DIR = Path(__file__).resolve().parent.parent
VAR_DIR = BASE_DIR / "var"

env = environ.Env()
environ.Env.read_env(BASE_DIR / ".env") if (BASE_DIR / ".env").exists() else None

# Production-safe defaults: DEBUG off, no wildcard hosts, no secret baked in.
# `make run` sets SCIVER_DEV=1, which turns on a local secret, DEBUG and localhost hosts.
DEV_MODE = env.bool("SCIVER_DEV", default=False)
DEBUG = env.bool("DEBUG", default=DEV_MODE)
if DEV_MODE or env.bool("SCIVER_TESTING", default=False):
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
    "django.contrib.staticfiles",
    "django_rq",
    "jobs",
    "papers",
    "annotation",
    "validation",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
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
    DATABASES["default"].setdefault("OPTIONS", {}).update(
        {"transaction_mode": "IMMEDIATE", "timeout": 20}
    )
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# Background jobs: with REDIS_URL, django-rq queues; without, in-process (see jobs/dispatch.py).
REDIS_URL = env("REDIS_URL", default="")
RQ_QUEUES = {}
# A running background job silent this long is taken as dead (its worker or server stopped).
JOB_STALE_SECONDS = env.int("JOB_STALE_SECONDS", default=1800)
if REDIS_URL:
    for _name, _timeout in (("default", 3600), ("crawl", 48 * 3600), ("render", 6 * 3600)):
        RQ_QUEUES[_name] = {"URL": REDIS_URL, "DEFAULT_TIMEOUT": _timeout}
else:
    # django-rq's admin pages import the setting; an empty mapping means "no queues".
    RQ_QUEUES = {}

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

if not DEBUG:
    SESSION_COOKIE_SECURE = env.bool("SECURE_COOKIES", default=True)
    CSRF_COOKIE_SECURE = env.bool("SECURE_COOKIES", default=True)
    SECURE_CONTENT_TYPE_NOSNIFF = True

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": env("LOG_LEVEL", default="INFO")},
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

# Blind second annotation (annotation/review/): labels equal and evidence overlapping at least
# at this Jaccard index mean agreed (1.0: the evidence sets must be equal).
EVIDENCE_JACCARD_THRESHOLD = env.float("EVIDENCE_JACCARD_THRESHOLD", default=1.0)

# Validation and release (validation/): expert ids in releases are keyed hashes with this salt
# (default: derived from SECRET_KEY; it must stay the same for byte-identical re-exports), and
# where release folders made from the admin pages go.
RELEASE_SALT = env("RELEASE_SALT", default="")
RELEASE_DIR = Path(env("RELEASE_DIR", default=str(VAR_DIR / "releases")))
BASELINE_PER_SUBSET = env.int("BASELINE_PER_SUBSET", default=10)
