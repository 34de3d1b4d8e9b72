"""A stand-in OpenAI-compatible chat-completions server on 127.0.0.1, with faults to inject:
429 with Retry-After, 500, a hung connection, malformed JSON. It logs every request (time,
headers, body) and how many were in flight at once.

    server = StandInOpenAI(answer=lambda body: "Answer: yes").start()
    server.add_faults("429", "500")  # the next two requests fail so, then answers again
    ...
    server.stop()

By hand, a demonstration model that answers a release's claims (right with probability
--accuracy, worded in the styles of the response table's model families):

    python -m tests.evaluation.standin_openai --release DIR/SciVer --part validation --port 8766

With `--grounded` it answers only when the request shows every table/chart image the claim's
record names, and otherwise says it cannot tell (so a RAG run that misses them scores lower).
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class Logged:
    at: float
    path: str
    headers: dict[str, str]
    body: Any
    answered: str  # "ok" or the fault


@dataclass
class StandInOpenAI:
    answer: Callable[[dict], str] = lambda body: "Answer: yes"
    api_key: str = ""  # set: requests without this bearer key get 401
    delay: float = 0.0  # seconds before each answer
    retry_after: str = "1"
    hang_seconds: float = 5.0
    redirect_to: str = ""  # where "307" and "302" send the client (another server's URL)
    drip_seconds: float = 0.05  # "drip": a byte of the answer this often
    huge_bytes: int = 20 * 1024 * 1024  # "huge": an answer this long
    log: list[Logged] = field(default_factory=list)
    max_in_flight: int = 0
    _faults: list[str] = field(default_factory=list)
    _always: dict[str, str] = field(default_factory=dict)  # claim text → fault, every time
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _in_flight: int = 0
    _stopping: threading.Event = field(default_factory=threading.Event)

    def start(self) -> StandInOpenAI:
        return self.start_on(0)

    def start_on(self, port: int) -> StandInOpenAI:
        """Listen on 127.0.0.1:`port` (0: any free port), always the loopback address."""
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: object) -> None:
                pass

            def do_POST(self) -> None:  # noqa: N802 - http.server's name
                server._handle(self)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", port), Handler)
        self.httpd.daemon_threads = True
        # A short poll: stop() waits for it (the default 0.5 s cost every test its teardown).
        self.thread = threading.Thread(
            target=self.httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )
        self.thread.start()
        return self

    def stop(self) -> None:
        self._stopping.set()
        self.httpd.shutdown()
        self.httpd.server_close()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"

    def add_faults(self, *faults: str) -> None:
        """The next requests answer with these faults, in order: "429", "500", "hang",
        "malformed" (a 200 whose body is not JSON), "shape" (JSON, but no choices), "307" and
        "302" (to `redirect_to`), "echo" (a 400 that quotes the request's headers), "drip" (a
        200 whose body comes a byte every `drip_seconds`), "huge" (a 200 of `huge_bytes`)."""
        with self._lock:
            self._faults.extend(faults)

    def always_fail(self, text: str, fault: str = "500") -> None:
        """Every request whose prompt contains `text` answers with `fault`."""
        self._always[text] = fault

    def requests(self, path: str = "/v1/chat/completions") -> list[Logged]:
        return [r for r in self.log if r.path == path]

    def _send(
        self,
        handler: BaseHTTPRequestHandler,
        status: int,
        body: bytes,
        headers: dict[str, str] | None = None,
    ) -> None:
        handler.send_response(status)
        handler.send_header("Content-Type", "application/json")
        handler.send_header("Content-Length", str(len(body)))
        for name, value in (headers or {}).items():
            handler.send_header(name, value)
        handler.end_headers()
        handler.wfile.write(body)

    def _completion(self, body: dict) -> bytes:
        answer = {
            "id": "chatcmpl-standin",
            "object": "chat.completion",
            "created": 0,
            "model": body.get("model"),
            "choices": [
                {
                    "index": 0,
                    "finish_reason": "stop",
                    "message": {"role": "assistant", "content": self.answer(body)},
                }
            ],
        }
        return json.dumps(answer).encode()

    def _drip(self, handler: BaseHTTPRequestHandler, body: bytes) -> None:
        """The headers at once, then the body a byte at a time until the client gives up."""
        handler.send_response(200)
        handler.send_header("Content-Type", "application/json")
        handler.send_header("Content-Length", str(len(body)))
        handler.end_headers()
        for byte in body:
            if self._stopping.wait(self.drip_seconds):
                return
            handler.wfile.write(bytes([byte]))
            handler.wfile.flush()

    def _huge(self, handler: BaseHTTPRequestHandler) -> None:
        """A well-formed chat completion whose content is `huge_bytes` long."""
        head = b'{"id": "x", "object": "chat.completion", "created": 0, "model": "m", '
        head += b'"choices": [{"index": 0, "finish_reason": "stop", "message": '
        head += b'{"role": "assistant", "content": "'
        tail = b'Answer: yes"}}]}'
        filler = self.huge_bytes - len(head) - len(tail)
        handler.send_response(200)
        handler.send_header("Content-Type", "application/json")
        handler.send_header("Content-Length", str(len(head) + filler + len(tail)))
        handler.end_headers()
        handler.wfile.write(head)
        chunk = b"a" * 65536
        for _ in range(filler // len(chunk)):
            handler.wfile.write(chunk)
        handler.wfile.write(b"a" * (filler % len(chunk)))
        handler.wfile.write(tail)

    def _handle(self, handler: BaseHTTPRequestHandler) -> None:
        length = int(handler.headers.get("Content-Length") or 0)
        raw = handler.rfile.read(length)
        try:
            body = json.loads(raw)
        except ValueError:
            body = None
        with self._lock:
            self._in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self._in_flight)
            fault = self._faults.pop(0) if self._faults else ""
        text = json.dumps(body)
        fault = next((f for t, f in self._always.items() if t in text), fault)
        self.log.append(
            Logged(
                time.monotonic(),
                handler.path,
                {name.title(): value for name, value in handler.headers.items()},
                body,
                fault or "ok",
            )
        )
        try:
            if self.delay:
                time.sleep(self.delay)
            if handler.path != "/v1/chat/completions":
                self._send(handler, 404, b'{"error": {"message": "not found"}}')
            elif self.api_key and handler.headers.get("Authorization") != f"Bearer {self.api_key}":
                self._send(handler, 401, b'{"error": {"message": "Incorrect API key"}}')
            elif fault == "429":
                self._send(
                    handler,
                    429,
                    b'{"error": {"message": "rate limited"}}',
                    {"Retry-After": self.retry_after},
                )
            elif fault == "500":
                self._send(handler, 500, b'{"error": {"message": "internal error"}}')
            elif fault == "hang":
                self._stopping.wait(self.hang_seconds)  # never answers within the client's timeout
            elif fault == "malformed":
                self._send(handler, 200, b'{"choices": [{"message": {"content": "Answ')
            elif fault == "shape":
                self._send(handler, 200, b'{"object": "chat.completion"}')
            elif fault in ("307", "302"):
                self._send(handler, int(fault), b"", {"Location": self.redirect_to})
            elif fault == "echo":
                sent = dict(sorted(handler.headers.items()))
                echoed = {"error": {"message": f"bad request; you sent {sent}"}}
                self._send(handler, 400, json.dumps(echoed).encode())
            elif fault == "drip":
                self._drip(handler, self._completion(body))
            elif fault == "huge":
                self._huge(handler)
            else:
                self._send(handler, 200, self._completion(body))
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client gave up (its timeout): nothing to answer
        finally:
            with self._lock:
                self._in_flight -= 1


# --- By hand: a demonstration model ----------------------------------------------------------

# How the demonstration model words its verdict, in the styles of the response table's model
# families (so that SciVer's substring rule and our reading part ways as they do on real runs).
STYLES = (
    (
        "The table supports the claim.\n\nAnswer: yes",
        "The figure contradicts the claim.\n\nAnswer: no",
    ),
    (
        "Looking at the evidence, the claim is therefore entailed.",
        "Looking at the evidence, the claim is therefore refuted.",
    ),
    (
        "**Conclusion:** The claim is **supported**.",
        "**Conclusion:** The claim is **contradicted**.",
    ),
    ("Entailed", "Refuted."),
    ("The final answer is: $\\boxed{Yes}$", "The final answer is: $\\boxed{No}$"),
    (
        "Compared with the naive Bayes baseline, the numbers match. The claim is true.",
        "Compared with the Bayesian baseline, the numbers differ. The claim is false.",
    ),
    ("I cannot determine whether the claim holds from the context.",) * 2,
)


def demonstration_model(
    release: str, part: str, accuracy: float, grounded: bool = False
) -> Callable[[dict], str]:
    """Answers a release's claims right with probability `accuracy` (by a hash of the claim,
    so the same claim always gets the same answer), in one of STYLES; `grounded`: only when
    the request shows the record's own table/chart images."""
    import base64
    import hashlib
    from pathlib import Path

    name = {"validation": "valset.json", "test": "testset.json"}[part]
    root = Path(release)
    records = json.loads((root / name).read_text("utf-8"))
    labels: dict[str, bool] = {}
    hidden_file = root.parent / f"{root.name}.labels.json"
    hidden = json.loads(hidden_file.read_text("utf-8"))["labels"] if hidden_file.is_file() else {}
    needs: dict[str, set[str]] = {}  # claim → SHA-256 of the images its record names
    for record in records:
        label = record.get("label", hidden.get(str(record["request_id"])))
        labels[record["claim"]] = bool(label)
        needs[record["claim"]] = {
            hashlib.sha256((root / path.removeprefix("./SciVer/")).read_bytes()).hexdigest()
            for path in (record.get(f) for f in ("image_path", "item1_path", "item2_path"))
            if path
        }

    def shown(body: dict) -> set[str]:
        urls = [
            p["image_url"]["url"]
            for p in body["messages"][0]["content"]
            if p.get("type") == "image_url"
        ]
        return {hashlib.sha256(base64.b64decode(u.split(",", 1)[1])).hexdigest() for u in urls}

    def answer(body: dict) -> str:
        text = body["messages"][0]["content"][0]["text"]
        claim = next((c for c in labels if f"Claim: {c}\n" in text), None)
        if claim is None:
            return "I cannot see a claim I know."
        if grounded and not needs[claim] <= shown(body):
            return "The context does not show the table or chart; I cannot determine it."
        digest = hashlib.sha256(claim.encode()).digest()
        right = digest[0] / 255 < accuracy
        says = labels[claim] if right else not labels[claim]
        style = STYLES[digest[1] % len(STYLES)]
        return style[0] if says else style[1]

    return answer


def main(argv: list[str] | None = None) -> None:
    import argparse

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, default=8766)
    parser.add_argument("--release", required=True, help="DIR/SciVer: the claims to answer")
    parser.add_argument("--part", default="validation", choices=("validation", "test"))
    parser.add_argument("--accuracy", type=float, default=0.75)
    parser.add_argument(
        "--grounded",
        action="store_true",
        help="answer only when shown the record's own tables/charts",
    )
    args = parser.parse_args(argv)
    model = demonstration_model(args.release, args.part, args.accuracy, args.grounded)
    standin = StandInOpenAI(answer=model)
    standin.start_on(args.port)
    print(f"stand-in chat-completions API at {standin.url} (Ctrl-C to stop)", flush=True)
    try:
        standin.thread.join()
    except KeyboardInterrupt:
        standin.stop()


if __name__ == "__main__":
    main()
