"""`proagent train` as the `proagent` command runs it: the training flags
(`proagent.training.cli`), plus a heartbeat line when training says nothing for
``--progress-seconds`` (compiling the update, a long self-play evaluation, a slow call), so a log
never looks hung."""

from __future__ import annotations

import argparse
import sys

from proagent.cli.arg_types import positive_float
from proagent.training import cli as training_cli


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("train", help="train an RL partner of any world (SP, IPPO, PBT, FCP, MEP, COLE, OP, BC, ...)")
    training_cli.add_arguments(p)
    p.add_argument(
        "--progress-seconds",
        type=positive_float,
        default=30.0,
        metavar="S",
        help="a 'still working' line when training printed nothing for S seconds",
    )
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from proagent.cli.progress_lines import Heartbeat
    from proagent.request import RequestError
    from proagent.training.request import TrainRequest

    try:
        request = TrainRequest.from_args(args)
    except RequestError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    with Heartbeat(args.progress_seconds, lambda line: print(line, flush=True)) as beat:
        return training_cli.run(request, beat.say)
