"""Helpers for the web tests: the browser, human-play arguments, a scripted LLM (HTTP calls and
waiting: `tests.support.http_calls`)."""

from __future__ import annotations

from pathlib import Path

CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"
CHROMIUM_FLAGS = (
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
    "--disable-component-update", "--disable-sync", "--window-size=1280,900",
)  # fmt: skip


def human_args(tmp_path: Path, *extra: str):
    """The `HumanRequest` a `proagent human` command line with these flags makes (greedy on cramped_room)."""
    from proagent.cli import build_parser
    from proagent.cli.requests import human_request

    base = [
        "human",
        "--agent",
        "greedy",
        "--layout",
        "cramped_room",
        "--horizon",
        "20",
        "--fps",
        "40",
    ]  # horizon: conftest.HORIZON
    return human_request(
        build_parser().parse_args([*base, "--runs-dir", str(tmp_path), "--port", "0", "--no-browser", *extra])
    )


def heuristic_model(reject_first: bool = True):
    """A ScriptedModel that answers like a competent cook; its first plan is an illegal one, so the
    trace has a Verificator rejection with an explanation."""
    from tests.support.responders.overcooked import overcooked_answer
    from tests.support.scripted import ScriptedModel, answering

    first = ["Analysis: soup first.\nIntention: pickup(onion)\nPlan: deliver_soup()"] if reject_first else []
    return ScriptedModel(first, respond=answering(overcooked_answer))
