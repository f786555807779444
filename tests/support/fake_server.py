"""An OpenAI-compatible chat server on 127.0.0.1 for tests and benchmarks.

It answers ``POST /v1/chat/completions`` after a fixed delay, with scripted error replies first
(to exercise retries) and then content from a responder. A world's responder (`responders`) plays
a sensible policy from the request's grounding, which `LoopbackModel` posts to the server's board
(``POST /v1/loopback/grounding``, not a chat request: never recorded, never scripted) just before,
so a whole episode runs through the real HTTP path (litellm, retries, cache, accounting) without
any model; the default answers wait(1). A world responder asked without a grounding gets the
client a 400 that says how to send one.

A scripted reply is ``(status, json_body)`` or a `Reply`, which can also send raw bytes (a body
that is not JSON), extra headers (``Retry-After``) or answer late (a client timeout); a `Reply`
with no body sends the responder's normal answer. Each request is kept with its arrival time.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from proagent.llm.scripted import MissingGrounding
from proagent.llm.types import Grounding
from tests.support.board import GROUNDING_PATH, GroundingBoard

Responder = Callable[[Grounding | None], str]

LISTEN_BACKLOG = 1024  # benchmarks open hundreds of connections at once; Python's default of 5 drops them


class _Server(ThreadingHTTPServer):
    """A threading HTTP server whose listen queue holds a benchmark's burst of connections."""

    request_queue_size = LISTEN_BACKLOG
    daemon_threads = True


@dataclass(frozen=True)
class Reply:
    """One scripted reply: ``body`` None is the normal answer; str/bytes are sent as they are."""

    status: int = 200
    body: dict[str, Any] | str | bytes | None = None
    headers: dict[str, str] = field(default_factory=dict)
    delay_s: float = 0.0


def wait_answer(grounding: Grounding | None) -> str:
    """The default responder: a valid plan in any world (every world has wait(n))."""
    return "Plan: wait(1)"


def fixed(text: str) -> Responder:
    """A responder that always answers ``text``."""
    return lambda grounding: text


@dataclass
class FakeChatServer:
    """Start with ``start()`` (or use as a context manager); ``url`` is the OpenAI base URL."""

    delay_s: float = 0.0
    responder: Responder = wait_answer  # a world's responder plays it sensibly
    usage: tuple[int, int] = (42, 7)
    replies: list[tuple[int, dict[str, Any]] | Reply] = field(default_factory=list)
    requests: list[dict[str, Any]] = field(default_factory=list)
    board: GroundingBoard = field(default_factory=GroundingBoard)
    url: str = ""
    _server: _Server | None = None
    _thread: threading.Thread | None = None
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def next_reply(self, body: dict[str, Any]) -> Reply:
        with self._lock:
            scripted = self.replies.pop(0) if self.replies else Reply()
        if isinstance(scripted, tuple):
            return Reply(status=scripted[0], body=scripted[1])
        if scripted.body is None:
            try:
                answer = self.answer(body)
            except MissingGrounding as exc:
                return Reply(400, {"error": {"message": str(exc), "type": "invalid_request_error"}})
            return Reply(scripted.status, answer, scripted.headers, scripted.delay_s)
        return scripted

    def answer(self, body: dict[str, Any]) -> dict[str, Any]:
        """The normal chat-completion envelope around the responder's text."""
        prompt, completion = self.usage
        content = self.responder(self.board.find(body.get("messages", [])))
        return {
            "id": "chatcmpl-fake",
            "object": "chat.completion",
            "created": 1700000000,
            "model": body.get("model", "fake"),
            "choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion},
        }

    def start(self) -> FakeChatServer:
        self._server = _Server(("127.0.0.1", 0), _handler_for(self))
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}/v1"
        self._thread = threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def __enter__(self) -> FakeChatServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def _handler_for(server: FakeChatServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        # HTTP/1.1 keeps a client's connection open between requests (every reply sends its
        # Content-Length), so a decision does not pay a new TCP connection.
        protocol_version = "HTTP/1.1"

        def do_POST(self) -> None:  # http.server's name
            length = int(self.headers.get("Content-Length", "0"))
            body = json.loads(self.rfile.read(length) or b"{}")
            if self.path.endswith(GROUNDING_PATH):
                server.board.put(body["key"], Grounding.model_validate(body["grounding"]))
                self._send(Reply(body={}))
                return
            with server._lock:
                server.requests.append(
                    {
                        "path": self.path,
                        "body": body,
                        "authorization": self.headers.get("Authorization"),
                        "time": time.monotonic(),
                    }
                )
            time.sleep(server.delay_s)
            reply = server.next_reply(body)
            time.sleep(reply.delay_s)
            try:
                self._send(reply)
            except (BrokenPipeError, ConnectionResetError):  # the client gave up (a timeout test)
                return

        def _send(self, reply: Reply) -> None:
            if isinstance(reply.body, bytes):
                data = reply.body
            elif isinstance(reply.body, str):
                data = reply.body.encode("utf-8", "surrogatepass")
            else:
                data = json.dumps(reply.body).encode()  # ensure_ascii: a lone surrogate goes as \udXXX
            self.send_response(reply.status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            for name, value in reply.headers.items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, format: str, *args: Any) -> None:  # quiet: keeps test output clean
            return

    return Handler
