"""Shared fixtures for the LLM-layer tests: hermetic env and a fake OpenAI-compatible server."""

from __future__ import annotations

import json
import os
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")


@pytest.fixture(autouse=True)
def _no_real_credentials(monkeypatch: pytest.MonkeyPatch) -> None:
    """Tests must never see (or leak) a developer's real keys, nor reach a real provider."""
    for name in list(os.environ):
        if name.upper().endswith(("_API_KEY", "_API_BASE", "_TOKEN")):
            monkeypatch.delenv(name, raising=False)


@dataclass
class FakeOpenAIServer:
    """An OpenAI-compatible /v1/chat/completions endpoint on 127.0.0.1 with scripted replies."""

    url: str
    requests: list[dict[str, Any]] = field(default_factory=list)
    replies: list[tuple[int, dict[str, Any]]] = field(default_factory=list)
    delay_s: float = 0.05
    content: str = '{"plan": "fetch_onion"}'
    usage: tuple[int, int] = (42, 7)

    def next_reply(self) -> tuple[int, dict[str, Any]]:
        if self.replies:
            return self.replies.pop(0)
        prompt, completion = self.usage
        return 200, {
            "id": "chatcmpl-fake",
            "object": "chat.completion",
            "created": 1700000000,
            "model": "fake-local",
            "choices": [
                {"index": 0, "message": {"role": "assistant", "content": self.content}, "finish_reason": "stop"}
            ],
            "usage": {"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion},
        }


def _handler_for(state: FakeOpenAIServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # noqa: N802 - http.server API
            length = int(self.headers.get("Content-Length", "0"))
            body = json.loads(self.rfile.read(length) or b"{}")
            state.requests.append(
                {"path": self.path, "body": body, "authorization": self.headers.get("Authorization")}
            )
            time.sleep(state.delay_s)
            status, payload = state.next_reply()
            data = json.dumps(payload).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - silence stderr
            return

    return Handler


@pytest.fixture
def fake_openai_server() -> Iterator[FakeOpenAIServer]:
    state = FakeOpenAIServer(url="")
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler_for(state))
    state.url = f"http://127.0.0.1:{server.server_address[1]}/v1"
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield state
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)
