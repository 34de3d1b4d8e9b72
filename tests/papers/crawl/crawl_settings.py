"""Settings for crawler subprocesses in tests (kill-and-resume, RQ worker): env-tunable."""

import os

from config.settings import *  # noqa: F403

ARXIV_GATE_FILE = os.environ.get("ARXIV_GATE_FILE", "")
ARXIV_GATE_KEY = os.environ.get("ARXIV_GATE_KEY", "sciver:arxiv-gate")
ARXIV_BACKOFF_SECONDS = float(os.environ.get("ARXIV_BACKOFF_SECONDS", "0.02"))
ARXIV_READ_TIMEOUT = float(os.environ.get("ARXIV_READ_TIMEOUT", "0.5"))
ARXIV_CONNECT_TIMEOUT = float(os.environ.get("ARXIV_CONNECT_TIMEOUT", "2"))
ARXIV_MAX_TRIES = int(os.environ.get("ARXIV_MAX_TRIES", "3"))
ARXIV_PAGE_SIZE = int(os.environ.get("ARXIV_PAGE_SIZE", "3"))
ARXIV_SEARCH_CHUNK_DAYS = int(os.environ.get("ARXIV_SEARCH_CHUNK_DAYS", "31"))
