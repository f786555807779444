"""`proagent human`: a person plays one seat, agents (ProAgent or any registered partner) the
others; the session is saved as a normal run folder (config, trace, episode record, summary).

Two interfaces: ``web`` (real-time worlds: a page with keyboard control, replay.html and an optional
questionnaire.json after the game) and ``text`` (turn-based worlds with a text view, Yōkai: the
person types skills in the terminal; `human_text.py`). ``auto`` picks text where the world has one."""

from __future__ import annotations

import argparse
import os
import sys
import time
import webbrowser
from typing import TYPE_CHECKING

from proagent.bounded import shown, small_whole
from proagent.cli.agent_options import add_agent_options, embedded_notice
from proagent.cli.arg_types import (
    horizon_steps,
    non_negative_int,
    port_number,
    positive_float,
    run_name,
    seed_number,
    writable_folder,
)

if TYPE_CHECKING:
    from proagent.web.human_request import HumanRequest

EMBEDDED_REALTIME_NOTICE = (
    "In real time the agent waits in place while the model thinks; the embedded model needs seconds "
    "per decision (much longer on a busy CPU). --mode turns makes the game wait for it instead."
)
LINGER_S = 1.5  # after the end, the page's last poll still gets an answer
WEB_HORIZON = 400  # steps of a web game: 80 s at 5 steps a second


def until_count(text: str) -> tuple[str, int]:
    """``METRIC=N`` (N >= 1) for ``--until``."""
    metric, sep, count = text.partition("=")
    number = small_whole(count)
    if not sep or not metric or number is None or number < 1:
        raise argparse.ArgumentTypeError(f"{shown(text)}: expected METRIC=N with N >= 1, e.g. soups=3")
    return metric, number


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("human", help="play with agents: in the browser (arrows + space), or typing skills (Yōkai)")
    p.add_argument(
        "--layout",
        default=None,
        help="layout name or path to a kitchen file (default: the world's own, counter_circuit in Overcooked)",
    )
    p.add_argument(
        "--domain",
        default=None,
        help="the world: a built-in name or module:attribute (default: the one owning --layout)",
    )
    p.add_argument(
        "--interface",
        choices=("auto", "web", "text"),
        default="auto",
        help="web: the browser page; text: type skills in the terminal (turn-based worlds); auto: text where the world "
        "has a text view",
    )
    p.add_argument(
        "--agent",
        default="proagent",
        help="'proagent' (the LLM agent, see --llm), a partner from `proagent partners`, or a checkpoint folder's path",
    )
    p.add_argument(
        "--human-seat", type=non_negative_int, default=0, help="the person's player index (agents take the others)"
    )
    p.add_argument(
        "--mode",
        choices=("realtime", "turns"),
        default="realtime",
        help="realtime: the game ticks at --fps; turns: one step per key press",
    )
    p.add_argument(
        "--fps",
        type=positive_float,
        default=5.0,
        help="steps a second in realtime mode (overcooked-demo plays at about 4-5)",
    )
    p.add_argument(
        "--horizon",
        type=horizon_steps,
        default=None,
        help="steps in the game (web default 400: 80 s at 5/s; text: the layout's own)",
    )
    p.add_argument("--seed", type=seed_number, default=0)
    p.add_argument(
        "--until",
        type=until_count,
        default=None,
        metavar="METRIC=N",
        help="end the game early once the world's episode metric reaches N (e.g. soups=3); --horizon still caps it",
    )
    p.add_argument("--port", type=port_number, default=8765, help="local port (0: any free port)")
    p.add_argument("--no-browser", action="store_true", help="print the address instead of opening a browser tab")
    p.add_argument("--no-questionnaire", action="store_true", help="skip the post-game questionnaire")
    p.add_argument("--name", default=None, type=run_name, help="run folder suffix (default human-<layout>-<agent>)")
    p.add_argument(
        "--runs-dir",
        type=writable_folder,
        default=None,
        help="where run folders go (default: runs/ in the current folder)",
    )
    add_agent_options(p)
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from proagent.builder import SetupError
    from proagent.cli.requests import human_request
    from proagent.request import RequestError

    try:
        request = settle(human_request(args))
    except (RequestError, SetupError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if request.interface == "text":
        from proagent.cli.human_text import run_text

        return run_text(request)
    return _run_web(request)


def settle(request: HumanRequest) -> HumanRequest:
    """The request with the defaults that depend on the world filled in: the layout, the interface
    (web or text) and, on the web, the horizon. A SetupError for a world the interface cannot show."""
    from proagent.agent.person import has_view
    from proagent.builder import SetupError, settled_layout
    from proagent.domains import domain_for
    from proagent.world.types import DomainInputError

    layout = settled_layout(request.layout, request.domain)
    try:
        domain = domain_for(layout, request.domain)
    except DomainInputError as exc:
        raise SetupError(str(exc)) from exc
    if request.interface == "web" and has_view(domain):
        raise SetupError(
            f"--interface web: the {domain.name} page draws the whole table, more than a seat may see; use --interface "
            "text"
        )
    text = request.interface == "text" or (request.interface == "auto" and has_view(domain))
    horizon = WEB_HORIZON if not text and request.horizon is None else request.horizon
    return request.model_copy(update={"layout": layout, "interface": "text" if text else "web", "horizon": horizon})


def _run_web(request: HumanRequest) -> int:
    from proagent.builder import SetupError
    from proagent.web.human_session import build_human_session

    try:
        session = build_human_session(request)
    except SetupError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if session.embedded:
        print(embedded_notice(request.llm.adapter_file), file=sys.stderr)
        if request.mode == "realtime":
            print(EMBEDDED_REALTIME_NOTICE, file=sys.stderr)
    try:
        server = session.serve(request.port)
    except OSError as exc:
        print(f"error: cannot listen on 127.0.0.1:{request.port}: {exc} (try --port 0)", file=sys.stderr)
        return 2
    game = session.game
    print(f"run folder: {session.folder.path}", file=sys.stderr)
    print(f"play at {server.url}  (arrows move, space interacts; Ctrl+C to stop)", flush=True)
    if request.open_browser:
        webbrowser.open(server.url)
    try:
        while not game.finished.wait(0.5):
            pass
        time.sleep(LINGER_S)
    except KeyboardInterrupt:
        game.stop()
    finally:
        server.close()
    code = _report(session)
    if session.game.running_in_background(grace_s=2.0):
        # An LLM call that was in flight when the game ended cannot be interrupted (a local model
        # may need minutes on a busy CPU); everything is saved, so do not wait for it to exit.
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)
    return code


def _report(session) -> int:
    game, folder = session.game, session.folder.path
    if game.record is None:
        reason = game.snapshot()["error"] or "the game was not played to the end"
        print(f"no finished episode: {reason}; steps played so far are in {folder / 'trace.jsonl'}", file=sys.stderr)
        return 1
    outcomes = ", ".join(f"{value:g} {name.replace('_', ' ')}" for name, value in game.record.domain_metrics.items())
    print(f"score {game.record.score:.0f} ({outcomes}) in {game.record.wall_time_s:.0f} s")
    print(
        f"saved {folder}: trace.jsonl, episodes.jsonl, summary.json, replay.html"
        + (", questionnaire.json" if (folder / "questionnaire.json").exists() else "")
    )
    return 0
