"""The `proagent` command. Only the chosen subcommand's module is imported, and subcommands import
their heavy dependencies (JAX, the worlds, litellm) lazily, so that `proagent --help` and an
argument error answer at once (benchmarks/cli_startup.py measures it)."""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence
from types import MappingProxyType

from proagent.cli.arg_types import OneLineParser
from proagent.compile_cache import enable_compile_cache
from proagent.files import disk_problem, is_disk_error

# name -> (module of proagent.cli, the one-line help `proagent --help` lists), in the listing's order.
# The module's register() adds the parser with the same help (a test keeps them equal).
COMMANDS = MappingProxyType({
    "play": ("play_cmd", "play episodes of ProAgent with a partner"),
    "human": ("human_cmd", "play with agents: in the browser (arrows + space), or typing skills (Yōkai)"),
    "replay": ("replay_cmd", "watch a run's episode in the browser, or export it as one HTML file"),
    "layouts": ("layouts_cmd", "list every world's layouts, or print one"),
    "partners": ("partners_cmd", "list scripted partners and trained checkpoints"),
    "eval": ("eval_cmd", "evaluate agents with partners on layouts (tables, charts, resumable)"),
    "ablate": ("ablate_cmd", "run an ablation config from runs/ablations/ and compare its variants"),
    "reproduce": ("reproduce_cmd", "regenerate a published table (see --list) beside the paper's numbers"),
    "report": ("report_cmd", "re-render the tables and charts of an evaluation run from its records"),
    "analyze": ("analyze_cmd", "interdependence and intention metrics of a run folder"),
    "study": ("study_cmd", "human studies: tables and tests from a study folder, or a synthetic study"),
    "train": ("train_cmd", "train an RL partner of any world (SP, IPPO, PBT, FCP, MEP, COLE, OP, BC, ...)"),
    "finetune": ("finetune_cmd", "train a LoRA adapter for the embedded model on traced decisions"),
})  # fmt: skip


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The parser of every command; with ``only``, the others are named with their help but their
    modules are not imported (what a run of one command, or `proagent --help`, needs)."""
    parser = OneLineParser(prog="proagent", description="LLM agents that cooperate with unfamiliar teammates.")
    sub = parser.add_subparsers(dest="command", required=True)
    for name, (module, help_text) in COMMANDS.items():
        if only is None or name == only:
            importlib.import_module(f"proagent.cli.{module}").register(sub)
        else:
            sub.add_parser(name, help=help_text)
    return parser


def chosen_command(argv: Sequence[str]) -> str:
    """The command ``argv`` names first ("" when none: `proagent --help`, a typo)."""
    return argv[0] if argv and argv[0] in COMMANDS else ""


def main(argv: list[str] | None = None) -> int:
    given = sys.argv[1:] if argv is None else argv
    enable_compile_cache()  # before a command imports JAX
    args = build_parser(only=chosen_command(given)).parse_args(given)  # its command_line: the words as typed
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
