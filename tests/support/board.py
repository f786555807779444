"""The fake server's board of groundings: where `LoopbackModel` posts what a request's prompt was
rendered from, for the server's responder to find.

The grounding cannot ride in the chat request (a real backend never sends it), so the model posts
it first, under a key made of the request's messages (``POST <api base>/loopback/grounding``), and
the server looks that key up when the chat request comes; this works with the server in another
process too (a benchmark keeps its CPU work apart). The board keeps the latest entries only: a
request and its retries find theirs, an old one is forgotten. Two requests with the same messages
were rendered from the same facts, so one grounding answers both.
"""

from __future__ import annotations

import hashlib
import json
import threading
from collections import OrderedDict
from collections.abc import Iterable, Sequence
from typing import Any

from proagent.llm.types import Grounding, Message

GROUNDING_PATH = "/loopback/grounding"  # under the server's OpenAI base URL
CAPACITY = 4096  # entries kept: far more than the requests ever in flight at once


def request_key(pairs: Iterable[tuple[Any, Any]]) -> str:
    """The key of a chat request: a hash of its (role, content) pairs."""
    blob = json.dumps([[role, content] for role, content in pairs])  # ASCII escapes: any text hashes
    return hashlib.sha256(blob.encode("ascii")).hexdigest()


def message_key(messages: Sequence[Message]) -> str:
    """The key of the request a model is about to send."""
    return request_key((m.role, m.content) for m in messages)


class GroundingBoard:
    """The latest groundings by request key (thread-safe: the server answers in threads)."""

    def __init__(self, capacity: int = CAPACITY) -> None:
        self._lock = threading.Lock()
        self._capacity = capacity
        self._entries: OrderedDict[str, Grounding] = OrderedDict()

    def put(self, key: str, grounding: Grounding) -> None:
        with self._lock:
            self._entries[key] = grounding
            self._entries.move_to_end(key)
            while len(self._entries) > self._capacity:
                self._entries.popitem(last=False)

    def find(self, chat_messages: Sequence[dict[str, Any]]) -> Grounding | None:
        """The grounding posted for a request's ``messages`` (as the HTTP body has them), if any."""
        key = request_key((m.get("role"), m.get("content")) for m in chat_messages)
        with self._lock:
            return self._entries.get(key)

    def __len__(self) -> int:
        with self._lock:
            return len(self._entries)
