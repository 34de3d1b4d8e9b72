"""`runserver` (what `make run` serves) with Nagle's algorithm off on each connection.

Django's development server writes a response's status line, headers and body in several small
sends. On a kept-alive connection (every browser's) Nagle's algorithm holds the second send until
the first is acknowledged, and the client's TCP delays that acknowledgement by about 40 ms: every
request to `make run` took 40 ms longer than its view (a trivial view: 44 ms kept alive against
1.6 ms on a fresh connection, docs/benchmarks.md). TCP_NODELAY sends each write at once.

And with at most RUNSERVER_CONCURRENCY requests in progress at once, the others waiting their turn
in arrival order (serving/gate.py: runserver otherwise runs every connection's thread at once,
and page views pass the submissions queued for SQLite's one writer). Everything else is
staticfiles' runserver's."""

from __future__ import annotations

import socket

from django.conf import settings
from django.contrib.staticfiles.management.commands import runserver
from django.core.servers.basehttp import WSGIServer

from serving.gate import gated


class NoDelayWSGIServer(WSGIServer):
    def get_request(self) -> tuple[socket.socket, object]:
        connection, address = super().get_request()
        if connection.family in (socket.AF_INET, socket.AF_INET6):
            connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        return connection, address


class Command(runserver.Command):
    server_cls = NoDelayWSGIServer

    def get_handler(self, *args, **options):
        handler = super().get_handler(*args, **options)
        size = settings.RUNSERVER_CONCURRENCY
        if not size:
            self.stdout.write("Requests in progress at once: no bound (RUNSERVER_CONCURRENCY=0).")
            return handler
        self.stdout.write(
            f"Requests in progress at once: at most {size}, the others served in the order they "
            "came (RUNSERVER_CONCURRENCY)."
        )
        return gated(handler, size)
