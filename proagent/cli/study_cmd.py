"""`proagent study`: human studies kept as study folders (docs/human_study.md).

``report STUDY_DIR``: the paper's Tables 2-4 and the questionnaire's tests from the participants'
run folders (reads only; writes its own files into ``--out``). ``synth OUT``: a synthetic study
folder, agents in the human seat and drawn answers, to try the analysis before anyone plays.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from proagent.cli.arg_types import bounded_int, horizon_steps, seed_number, writable_folder


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
            progress=lambda line: print(line, file=sys.stderr, flush=True),
        )  # fmt: skip
    except (SynthError, SetupError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(f"wrote {args.out}; analyse it with: proagent study report {args.out}")
    return 0
