"""Helpers for the web tests: HTTP calls to the local servers, waiting, arguments, a scripted LLM."""

from __future__ import annotations

import json
import time
import urllib.error
import urllib.request
from pathlib import Path

CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"
CHROMIUM_FLAGS = (
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
    "--disable-component-update", "--disable-sync", "--window-size=1280,900",
)  # fmt: skip


def call(url: str, path: str, body: dict | None = None) -> tuple[int, dict]:
    """GET (body None) or POST JSON to the test server; (status, JSON answer)."""
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(url.rstrip("/") + path, data=data, headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read())


def wait_for(predicate, timeout: float = 20.0, interval: float = 0.05):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(interval)
    raise AssertionError(f"condition not met within {timeout} s")


def human_args(tmp_path: Path, *extra: str):
    from proagent.cli import build_parser

    base = ["human", "--agent", "greedy", "--layout", "cramped_room", "--horizon", "20", "--fps", "40"]  # horizon: conftest.HORIZON
    return build_parser().parse_args([*base, "--runs-dir", str(tmp_path), "--port", "0", "--no-browser", *extra])


def heuristic_model(reject_first: bool = True):
    """A ScriptedModel that answers like a competent cook; its first plan is an illegal one, so the
    trace has a Verificator rejection with an explanation."""
    from tests.support.responders.overcooked import overcooked_answer
    from tests.support.scripted import ScriptedModel, answering

    first = ["Analysis: soup first.\nIntention: pickup(onion)\nPlan: deliver_soup()"] if reject_first else []
    return ScriptedModel(first, respond=answering(overcooked_answer))
