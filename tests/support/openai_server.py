"""A real OpenAI-compatible HTTP server for tests and benchmarks, answering from a known truth.

``POST /v1/chat/completions`` finds the (topic, document) of a request in its messages (by
default the headings ``## Topic ID:`` and ``## Document ID:`` of pooljudge's default prompt)
and answers the truth's label, or with probability ``noise`` another label of ``values``
(decided per pair by a seeded hash, so a pair always gets the same answer). Replies come in
three styles, picked per pair: a JSON object, a bare value, or a value and a reason on lines.
``GET /v1/models`` lists the one model.

Faults, consumed one per request, first from :meth:`FakeOpenAI.plan_any` (any request), then
from the pair's own :meth:`FakeOpenAI.plan`:

- ``"429"``: Too Many Requests with ``Retry-After: retry_after`` (seconds or an HTTP-date; a
  callable is called at reply time, e.g. for a date relative to then);
- ``"500"``, ``"503"``: server errors;
- ``"slow"``: the reply comes after ``slow_seconds`` (beyond the client's time-out);
- ``"malformed"``: 200 with a truncated JSON body;
- ``"nolabel"``: a valid completion whose text holds no label; ``"outside"``: label 99;
- ``"drop"``: headers and part of the body, then the socket is closed.

With ``decide`` set, every answer is ``decide(prompt)`` instead (the user messages' text, so a
test can model a judge that reads the prompt, e.g. one that matches the query's words); the
pair then needs no truth. With ``respond`` set, every reply's text is ``respond(messages)``
verbatim (the request's messages, re-asks included): a test of a caller that reads free-form
replies, such as model drafts of nugget banks.

With ``api_key`` set, a request without ``Authorization: Bearer api_key`` gets 401. Every
request is recorded (:attr:`FakeOpenAI.requests`) with its time, pair and fault.
"""

from __future__ import annotations

import hashlib
import json
import re
import socket
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

__all__ = ["FAULTS", "FakeOpenAI", "Request"]

FAULTS = ("429", "500", "503", "slow", "malformed", "nolabel", "outside", "drop")
TOPIC = re.compile(r"## Topic (\S+?):")
DOCUMENT = re.compile(r"## Document (\S+?):")
STYLES = ("json", "bare", "line")


@dataclass(frozen=True)
class Request:
    """One request the server received."""

    time: float
    path: str
    topic: str | None
    doc: str | None
    fault: str | None
    authorization: str | None
    reask: bool


class FakeOpenAI:
    """The server; use as a context manager (or :meth:`start` / :meth:`stop`)."""

    def __init__(self, truth: Mapping[tuple[str, str], int], *, values: Iterable[int] = (0, 1),
                 model: str = "test-model", noise: float = 0.0, seed: int = 0,
                 latency: float = 0.0, retry_after: str | Callable[[], str] = "1",
                 slow_seconds: float = 3.0, api_key: str | None = None,
                 decide: Callable[[str], int] | None = None,
                 respond: Callable[[list[dict]], str] | None = None) -> None:
        self.truth, self.values, self.model = dict(truth), tuple(values), model
        self.noise, self.seed, self.latency = noise, seed, latency
        self.retry_after, self.slow_seconds, self.api_key = retry_after, slow_seconds, api_key
        self.decide, self.respond = decide, respond
        self.requests: list[Request] = []
        self.answers: dict[tuple[str, str], int] = {}
        self._any: deque[str] = deque()
        self._planned: dict[tuple[str, str], deque[str]] = {}
        self._lock = threading.Lock()
        self._httpd: ThreadingHTTPServer | None = None

    # -- control -----------------------------------------------------------------------------
    @property
    def base_url(self) -> str:
        """``http://127.0.0.1:PORT/v1``."""
        if self._httpd is None:
            raise RuntimeError("the server is not started")
        return f"http://127.0.0.1:{self._httpd.server_address[1]}/v1"

    def start(self) -> FakeOpenAI:
        handler = type("Handler", (_Handler,), {"fake": self})
        self._httpd = _Server(("127.0.0.1", 0), handler)
        threading.Thread(target=self._httpd.serve_forever, daemon=True).start()
        return self

    def stop(self) -> None:
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
            self._httpd = None

    def __enter__(self) -> FakeOpenAI:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()

    def plan(self, topic: str, doc: str, *faults: str) -> None:
        """Faults for the pair's next requests, in order."""
        _check(faults)
        with self._lock:
            self._planned.setdefault((topic, doc), deque()).extend(faults)

    def plan_any(self, *faults: str) -> None:
        """Faults for the next requests, whatever their pair."""
        _check(faults)
        with self._lock:
            self._any.extend(faults)

    def requests_for(self, topic: str, doc: str) -> list[Request]:
        """The completion requests of one pair, in arrival order."""
        with self._lock:
            return [r for r in self.requests if (r.topic, r.doc) == (topic, doc)]

    # -- answers -----------------------------------------------------------------------------
    def answer(self, topic: str, doc: str) -> int:
        """The label this server gives the pair (the truth, or its noisy replacement)."""
        label = self.truth[(topic, doc)]
        draw = self._hash(topic, doc, "noise")
        if draw / 2**64 < self.noise and len(self.values) > 1:
            others = [v for v in self.values if v != label]
            label = others[self._hash(topic, doc, "other") % len(others)]
        return label

    def content(self, topic: str, doc: str) -> str:
        """The reply text for the pair, in the pair's style."""
        label = self.answer(topic, doc)
        style = STYLES[self._hash(topic, doc, "style") % len(STYLES)]
        if style == "json":
            return json.dumps({"label": label, "reason": f"about {doc}"})
        if style == "bare":
            return str(label)
        return f"{label}\nThe document {doc} matches the topic this well."

    def _hash(self, *parts: str) -> int:
        digest = hashlib.sha256("\x1f".join([str(self.seed), *parts]).encode()).digest()
        return int.from_bytes(digest[:8], "big")

    def _next_fault(self, pair: tuple[str, str] | None) -> str | None:
        with self._lock:
            if self._any:
                return self._any.popleft()
            queue = self._planned.get(pair) if pair else None
            return queue.popleft() if queue else None

    def _record(self, request: Request) -> None:
        with self._lock:
            self.requests.append(request)


def _check(faults: Iterable[str]) -> None:
    unknown = [f for f in faults if f not in FAULTS]
    if unknown:
        raise ValueError(f"unknown faults {unknown}; choose from {FAULTS}")


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 256

    def handle_error(self, request, client_address) -> None:
        """A client that hung up (its run stopped, its time-out) is not an error here."""
        import sys

        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    fake: FakeOpenAI

    def setup(self) -> None:
        super().setup()  # replies go out at once (no Nagle delay against delayed ACKs)
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def log_message(self, format, *args) -> None:
        """Quiet."""

    def do_GET(self) -> None:
        if self.path.rstrip("/") != "/v1/models":
            self._json(404, {"error": {"message": "not found"}})
            return
        self._json(200, {"object": "list",
                         "data": [{"id": self.fake.model, "object": "model", "created": 0,
                                   "owned_by": "test"}]})

    def do_POST(self) -> None:
        body = self._body()
        if self.path.rstrip("/") != "/v1/chat/completions" or body is None:
            self._json(404 if body is not None else 400, {"error": {"message": "bad request"}})
            return
        fake = self.fake
        text = "\n".join(str(m.get("content", "")) for m in body.get("messages", []))
        topic, doc = _search(TOPIC, text), _search(DOCUMENT, text)
        pair = (topic, doc) if (topic, doc) in fake.truth else None
        authorization = self.headers.get("Authorization")
        if fake.api_key is not None and authorization != f"Bearer {fake.api_key}":
            fault = "401"
        else:
            fault = fake._next_fault(pair)
        reask = any(m.get("role") == "assistant" for m in body.get("messages", []))
        fake._record(Request(time.monotonic(), self.path, topic, doc, fault, authorization,
                             reask))
        if fake.latency:
            time.sleep(fake.latency)
        self._reply(fault, pair, body)

    def _reply(self, fault: str | None, pair: tuple[str, str] | None, body: dict) -> None:
        fake = self.fake
        if fault == "401":
            self._json(401, {"error": {"message": "bad key", "type": "invalid_request_error"}})
        elif fault in ("429", "500", "503"):
            after = fake.retry_after() if callable(fake.retry_after) else fake.retry_after
            headers = {"Retry-After": after} if fault == "429" else {}
            self._json(int(fault), {"error": {"message": f"fault {fault}"}}, headers)
        elif fault == "malformed":
            self._raw(200, b'{"id": "x", "object": "chat.completion", "choices": [{"mess')
        elif fault == "drop":
            self._drop()
        elif fake.respond is not None and fault is None:
            self._completion(fake.respond(list(body.get("messages", []))), body)
        elif fake.decide is not None and fault is None:
            prompt = "\n".join(str(m.get("content", "")) for m in body.get("messages", [])
                               if m.get("role") == "user")
            self._completion(json.dumps({"label": fake.decide(prompt)}), body)
        elif pair is None:
            self._json(400, {"error": {"message": "no known topic and document in the prompt"}})
        else:
            if fault == "slow":
                time.sleep(fake.slow_seconds)
            content = {"nolabel": "I cannot tell how relevant this is.",
                       "outside": "99"}.get(fault or "")
            if content is None:
                content = fake.content(*pair)
                with fake._lock:
                    fake.answers[pair] = fake.answer(*pair)
            self._completion(content, body)

    def _completion(self, content: str, body: dict) -> None:
        prompt = sum(len(str(m.get("content", "")).split()) for m in body.get("messages", []))
        self._json(200, {
            "id": "chatcmpl-test", "object": "chat.completion", "created": int(time.time()),
            "model": body.get("model", self.fake.model),
            "choices": [{"index": 0, "finish_reason": "stop",
                         "message": {"role": "assistant", "content": content}}],
            "usage": {"prompt_tokens": prompt, "completion_tokens": len(content.split()),
                      "total_tokens": prompt + len(content.split())},
        })

    def _body(self) -> dict | None:
        length = int(self.headers.get("Content-Length") or 0)
        try:
            data = json.loads(self.rfile.read(length) or b"{}")
        except json.JSONDecodeError:
            return None
        return data if isinstance(data, dict) else None

    def _json(self, status: int, data: dict, headers: Mapping[str, str] | None = None) -> None:
        self._raw(status, json.dumps(data).encode(), headers)

    def _raw(self, status: int, payload: bytes, headers: Mapping[str, str] | None = None) -> None:
        try:
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(payload)))
            for name, value in (headers or {}).items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(payload)
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True  # the client gave up (its time-out)

    def _drop(self) -> None:
        """Promise a body, send a part of it, and close the socket."""
        try:
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", "4096")
            self.end_headers()
            self.wfile.write(b'{"id": "chatcmpl-test", "choi')
            self.wfile.flush()
            self.connection.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        self.close_connection = True


def _search(pattern: re.Pattern, text: str) -> str | None:
    match = pattern.search(text)
    return match.group(1) if match else None
