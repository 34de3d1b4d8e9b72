"""Error texts the crawler meets from requests and the arxiv package, as they are printed."""

from __future__ import annotations

MAX_RETRIES = (
    "HTTPConnectionPool(host='export.arxiv.org', port=80): Max retries exceeded with url: "
    "/api/query?search_query=cat%3Acs.CL (Caused by NewConnectionError('<urllib3.connection."
    "HTTPConnection object at 0x7f>: Failed to establish a new connection: [Errno 111] "
    "Connection refused'))"
)
