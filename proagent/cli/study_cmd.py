"""`proagent study`: human studies kept as study folders (docs/human_study.md).

``run STUDY_DIR``: a local server where the experimenter starts participants and each
participant's browser walks through consent, demographics, the rounds and their questionnaires.
``report STUDY_DIR``: the paper's Tables 2-4 and the questionnaire's tests from the participants'
run folders (reads only; writes its own files into ``--out``). ``synth OUT``: a synthetic study
folder, agents in the human seat and drawn answers, to try the analysis before anyone plays.
"""

from __future__ import annotations

import argparse
import shlex
import sys
import webbrowser
from pathlib import Path

from proagent.cli.agent_options import add_agent_options
from proagent.cli.arg_types import bounded_int, horizon_steps, port_number, seed_number, writable_folder

LOOPBACK = ("127.0.0.1", "localhost")


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("study", help="human studies: tables and tests from a study folder, or a synthetic study")
    actions = p.add_subparsers(dest="study_command", required=True)
    r = actions.add_parser("report", help="Tables 2-4, questionnaire tests and correlations of a study folder")
    r.add_argument("study_dir", type=Path, metavar="STUDY_DIR", help="a study folder (study.toml, participants/)")
    r.add_argument("--out", type=writable_folder, default=None, help="where the report goes (default STUDY_DIR/report)")
    r.set_defaults(run=run_report)
    s = actions.add_parser("synth", help="a synthetic study folder: agents in the human seat, seeded answers")
    s.add_argument("out", type=writable_folder, metavar="OUT", help="a new (or empty) folder")
    s.add_argument("--participants", type=bounded_int(1, 10_000), default=12)
    s.add_argument("--rounds", type=bounded_int(1, 500), default=8, help="rounds per participant")
    s.add_argument("--seed", type=seed_number, default=0)
    s.add_argument("--horizon", type=horizon_steps, default=100, help="steps per round")
    s.add_argument(
        "--proxy", default="greedy", help="the partner playing the human seat (e.g. greedy, human_proxy_deliverer)"
    )
    s.add_argument("--partners", default=None, help="comma-separated study partners (default: the scripted ones)")
    s.set_defaults(run=run_synth)
    u = actions.add_parser("run", help="serve a study: the experimenter starts participants, they play in the browser")
    u.add_argument("study_dir", type=Path, metavar="STUDY_DIR", help="a study folder with its study.toml")
    u.add_argument("--port", type=port_number, default=8770, help="local port (0: any free port)")
    u.add_argument(
        "--host",
        default="127.0.0.1",
        help="address to listen on (default loopback; another makes the study reachable from the network)",
    )
    u.add_argument(
        "--no-browser", action="store_true", help="print the experimenter page's address instead of opening it"
    )
    add_agent_options(u)
    u.set_defaults(run=run_study)


def run_study(args: argparse.Namespace) -> int:
    import secrets
    import time

    from proagent.cli.requests import llm_flags
    from proagent.request import RequestError
    from proagent.study.app import PAGE, study_routes
    from proagent.study.read import StudyError
    from proagent.study.runner import StudyRunner
    from proagent.web.server import WebServer

    try:
        runner = StudyRunner(args.study_dir, llm_flags(args), args.command_line)
        print("compiling the layouts...", file=sys.stderr, flush=True)
        runner.check_partners()
    except (StudyError, RequestError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if args.host not in LOOPBACK:
        print(f"warning: listening on {args.host}: anyone who can reach it can start participants", file=sys.stderr)
    try:
        key = secrets.token_urlsafe(16)  # the experimenter's page; participants get only their own link
        server = WebServer(study_routes(runner, key), PAGE, args.port, args.host).start()
    except OSError as exc:
        print(f"error: cannot listen on {args.host}:{args.port}: {exc} (try --port 0)", file=sys.stderr)
        return 2
    print(f"study {runner.config.name!r} in {args.study_dir}", file=sys.stderr)
    print(
        f"experimenter page: {server.url}?key={key}  (Ctrl+C to stop; participants resume where they were)", flush=True
    )
    if not args.no_browser:
        webbrowser.open(f"{server.url}?key={key}")
    try:
        while True:
            time.sleep(1.0)
    except KeyboardInterrupt:
        pass
    finally:
        runner.close()
        server.close()
    return 0


def run_report(args: argparse.Namespace) -> int:
    from proagent.study.read import StudyError, read_study
    from proagent.study.report import write_report

    try:
        study = read_study(args.study_dir)
    except StudyError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    out = args.out or args.study_dir / "report"
    written = write_report(study, out, " ".join(args.command_line))
    rounds = len(study.rounds)
    people = len({r.participant for r in study.rounds})
    print(f"{people} participants, {rounds} rounds ({len(study.notes)} skipped entries); wrote:", file=sys.stderr)
    for path in written:
        print(f"  {path}")
    return 0


def run_synth(args: argparse.Namespace) -> int:
    from proagent.builder import SetupError
    from proagent.study.synth import DEFAULT_PARTNERS, SynthError, write_study

    partners = tuple(x.strip() for x in args.partners.split(",") if x.strip()) if args.partners else DEFAULT_PARTNERS
    try:
        write_study(
            args.out, args.participants, args.rounds, args.seed, args.horizon, partners, proxy=args.proxy,
            progress=lambda line: print(line, file=sys.stderr, flush=True), command=shlex.join(args.command_line),
        )  # fmt: skip
    except (SynthError, SetupError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(f"wrote {args.out}; analyse it with: proagent study report {args.out}")
    return 0
