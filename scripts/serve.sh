#!/bin/sh
# Serve on 127.0.0.1:8000; with REDIS_URL set, an RQ worker runs beside the server.
set -e
BIN=${BIN:-.venv/bin}
worker=""
if [ -n "${REDIS_URL:-}" ]; then
    "$BIN/python" manage.py rqworker crawl render default &
    worker=$!
    echo "RQ worker started (pid $worker) on queues crawl, render, default"
    trap 'kill $worker 2>/dev/null' EXIT INT TERM
fi
"$BIN/python" manage.py runserver "${RUN_ADDR:-127.0.0.1:8000}"
