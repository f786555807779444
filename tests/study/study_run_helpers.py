"""Helpers for the study runner's tests: a short study folder, HTTP calls, one round played
through the same endpoints the round page uses."""

from __future__ import annotations

import json
import time
import urllib.error
import urllib.request
from pathlib import Path

SHORT_STUDY = """
name = "a short study"
ordering = "fixed"
rounds = 2
mode = "turns"
questionnaire = "default"

[[layouts]]
name = "cramped_room"
label = "CR"

[[partners]]
name = "greedy"
label = "GREEDY"

[[partners]]
name = "random"

[round_length]
steps = 3

[trial]
layout = "cramped_room"
partner = "greedy"
"""
STEPS = 3
ANSWERS = {f"q{i}": i % 5 + 1 for i in range(1, 7)}


def short_study(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "study.toml").write_text(SHORT_STUDY, encoding="utf-8")
    return folder


def call(url: str, path: str, body: dict | None = None, headers: dict | None = None) -> tuple[int, dict]:
    """GET (body None) or POST JSON; (status, JSON answer)."""
    data = None if body is None else json.dumps(body).encode()
    sent = {"Content-Type": "application/json", **(headers or {})}
    request = urllib.request.Request(url.rstrip("/") + path, data=data, headers=sent)
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read())


def wait_for(predicate, timeout: float = 30.0, interval: float = 0.05):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(interval)
    raise AssertionError(f"condition not met within {timeout} s")


def play_round(url: str, pid: str) -> dict:
    """Open the round (GET /api/info), start it and press keys until it is over; its last state."""
    q = f"?id={pid}"
    status, info = call(url, "/api/info" + q)
    assert status == 200, info
    assert call(url, "/api/start" + q, {})[0] == 200
    for _ in range(STEPS):
        step = call(url, "/api/state" + q)[1]["step"]
        assert call(url, "/api/action" + q, {"action": "up"})[0] == 200
        wait_for(
            lambda step=step: call(url, "/api/state" + q)[1]["step"] > step or call(url, "/api/state" + q)[1]["record"]
        )
    return wait_for(lambda: (s := call(url, "/api/state" + q)[1])["status"] == "finished" and s)


def enter(url: str, pid: str) -> None:
    """Consent and (empty) demographics."""
    q = f"?id={pid}"
    assert call(url, "/api/study/consent" + q, {"agree": True}) == (200, {"saved": True})
    assert call(url, "/api/study/demographics" + q, {"age_range": "25-34"}) == (200, {"saved": True})
