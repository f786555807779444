"""`proagent replay runs/<run>`: watch an episode frame by frame in the browser (127.0.0.1 only),
or export it as one self-contained HTML file that opens without a server."""

from __future__ import annotations

import argparse
import sys
import time
import webbrowser
from pathlib import Path

from proagent.cli.arg_types import positive_int


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("replay", help="watch a run's episode in the browser, or export it as one HTML file")
    p.add_argument("run_dir", type=Path, help="a run folder with trace.jsonl (play, human, or eval with trace = true)")
    p.add_argument(
        "--episode",
        type=positive_int,
        default=None,
        metavar="N",
        help="the episode numbered N (from 1, as --list shows; default: the first)",
    )
    p.add_argument(
        "--pair", default=None, help="eval runs: which agent|partner|layout|pSeat played it (as --list shows)"
    )
    p.add_argument(
        "--list",
        action="store_true",
        help="list the run's episodes (number, pair, partner, seed, score, steps) and exit",
    )
    p.add_argument(
        "--export", type=Path, default=None, metavar="OUT.html", help="write a self-contained HTML file and exit"
    )
    p.add_argument("--port", type=int, default=8766, help="local port (0: any free port)")
    p.add_argument("--no-browser", action="store_true", help="do not open a browser tab")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from proagent.web.replay_data import ReplayError, episode_payload, load_run
    from proagent.web.replay_index import listing, select_episode
    from proagent.web.replay_page import PAGE, export_html, replay_routes
    from proagent.web.server import WebServer

    try:
        trace = load_run(args.run_dir)
        if args.list:
            print("\n".join(listing(trace)))
            return 0
        position = select_episode(trace, args.episode, args.pair)
        episode_payload(trace, position)  # checks the episode can be drawn before anything is served
    except ReplayError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if args.export is not None:
        out = export_html(trace, args.export, position)
        print(f"wrote {out} ({out.stat().st_size / 1024:.0f} KiB); open it in any browser, no server needed")
        return 0
    try:
        server = WebServer(replay_routes(trace, position), PAGE, args.port).start()
    except OSError as exc:
        print(f"error: cannot listen on 127.0.0.1:{args.port}: {exc} (try --port 0)", file=sys.stderr)
        return 2
    print(f"replay of {args.run_dir} at {server.url}  (Ctrl+C to stop)", flush=True)
    if not args.no_browser:
        webbrowser.open(server.url)
    try:
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        return 0
    finally:
        server.close()
