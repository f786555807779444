"""HTTP calls to the test servers (the human, replay and study pages) and a polling wait."""

from __future__ import annotations

import json
import time
import urllib.error
import urllib.request


def call(url: str, path: str, body: dict | None = None, headers: dict | None = None) -> tuple[int, dict]:
    """GET (body None) or POST JSON to a test server; (status, JSON answer)."""
    data = None if body is None else json.dumps(body).encode()
    sent = {"Content-Type": "application/json", **(headers or {})}
    request = urllib.request.Request(url.rstrip("/") + path, data=data, headers=sent)
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read())


def wait_for(predicate, timeout: float = 30.0, interval: float = 0.05):
    """The predicate's first truthy value, polled until ``timeout`` seconds (then AssertionError)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(interval)
    raise AssertionError(f"condition not met within {timeout} s")
