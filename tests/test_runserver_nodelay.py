"""`make run`'s development server sends each write at once: Nagle's algorithm is off on every
connection it accepts (a kept-alive request otherwise waited about 40 ms for the client's delayed
acknowledgement, docs/benchmarks.md), and `manage.py runserver` is that server, static files
included."""

from __future__ import annotations

import socket
import socketserver
import threading

from django.core.management import get_commands, load_command_class
from django.core.servers.basehttp import WSGIRequestHandler

from config.management.commands.runserver import Command, NoDelayWSGIServer


def app(environ, start_response):
    start_response("200 OK", [("Content-Type", "text/plain"), ("Content-Length", "2")])
    return [b"ok"]


def test_every_connection_the_server_accepts_sends_at_once():
    server = NoDelayWSGIServer(("127.0.0.1", 0), WSGIRequestHandler)
    server.set_app(app)
    try:
        with socket.create_connection(server.server_address, timeout=5) as client:
            accepted, _ = server.get_request()
            with accepted:
                assert accepted.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY) != 0
                # The plain socket a server accepts has it off: this is the server's doing.
                assert client.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY) == 0
    finally:
        server.server_close()


def test_two_requests_on_one_kept_alive_connection_are_answered():
    # Threaded, as runserver makes it (Django keeps a connection alive only then).
    threaded = type("Threaded", (socketserver.ThreadingMixIn, NoDelayWSGIServer), {})
    server = threaded(("127.0.0.1", 0), WSGIRequestHandler)
    server.set_app(app)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        with socket.create_connection(server.server_address, timeout=5) as client:
            answers = b""
            for _ in range(2):
                client.sendall(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
                while not answers.endswith(b"ok"):
                    received = client.recv(4096)
                    assert received, f"the server closed the connection after {answers!r}"
                    answers += received
                answers += b"|"
            assert answers.count(b"200 OK") == 2
    finally:
        server.shutdown()
        server.server_close()


def test_manage_py_runserver_is_this_server_with_static_files():
    assert get_commands()["runserver"] == "config"
    command = load_command_class("config", "runserver")
    assert isinstance(command, Command) and command.server_cls is NoDelayWSGIServer
    # staticfiles' own runserver (it serves /static/ under DEBUG), with the server swapped.
    from django.contrib.staticfiles.management.commands.runserver import Command as Static

    assert isinstance(command, Static)
