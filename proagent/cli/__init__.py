"""The `proagent` command. Subcommands import their heavy dependencies (JAX, litellm) lazily so
that `proagent --help` answers at once."""

from __future__ import annotations

import argparse
import sys

from proagent.cli import (
    ablate_cmd,
    analyze_cmd,
    eval_cmd,
    finetune_cmd,
    human_cmd,
    layouts_cmd,
    partners_cmd,
    play_cmd,
    replay_cmd,
    report_cmd,
    reproduce_cmd,
    study_cmd,
    train_cmd,
)
from proagent.cli.arg_types import OneLineParser
from proagent.files import disk_problem, is_disk_error


def build_parser() -> argparse.ArgumentParser:
    parser = OneLineParser(prog="proagent", description="LLM agents that cooperate with unfamiliar teammates.")
    sub = parser.add_subparsers(dest="command", required=True)
    for module in (
        play_cmd,
        human_cmd,
        replay_cmd,
        layouts_cmd,
        partners_cmd,
        eval_cmd,
        ablate_cmd,
        reproduce_cmd,
        report_cmd,
        analyze_cmd,
        study_cmd,
        train_cmd,
        finetune_cmd,
    ):
        module.register(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)  # its command_line: the words as typed, recorded by every run
    try:
        return int(args.run(args) or 0)
    except KeyboardInterrupt:
        print("interrupted; finished episodes are saved in the run folder", file=sys.stderr)
        return 130
    except OSError as exc:
        if not is_disk_error(exc) and not isinstance(exc, PermissionError):
            raise
        print(f"error: {disk_problem(exc)}", file=sys.stderr)
        return 1
