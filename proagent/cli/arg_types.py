"""Argument types and the parser class of every `proagent` command.

Every flag is checked when the command line is parsed, before a run folder exists or a model is
called: a bad value exits with status 2 and one line that names the flag and the value.
"""

from __future__ import annotations

import argparse
import math
import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import NoReturn

from proagent.bounded import NumberError, read_float, read_int
from proagent.files import nearest_existing
from proagent.limits import MAX_CONCURRENCY, MAX_EPISODES, MAX_HORIZON, MAX_SEED, MAX_WALL_CLOCK_S


class OneLineParser(argparse.ArgumentParser):
    """argparse's parser, with errors as one line (``proagent play: error: argument --horizon: ...``)
    instead of a usage block followed by the error; ``--help`` still shows the usage."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message} (see {self.prog} --help)\n")

    def parse_args(  # type: ignore[override]
        self, args: Sequence[str] | None = None, namespace: argparse.Namespace | None = None
    ) -> argparse.Namespace:
        """The namespace, with ``command_line``: the words that made it (``args``, else the
        process's own), so a run records the command that made it however it was started
        (``proagent ...`` in a shell, or ``proagent.cli.main([...])`` from Python)."""
        parsed = super().parse_args(args, namespace)
        parsed.command_line = [self.prog.split()[0], *(sys.argv[1:] if args is None else args)]
        return parsed


def bounded_int(low: int, high: int | None = None) -> Callable[[str], int]:
    """An argparse type: a whole number in ``[low, high]``, ASCII digits only (`proagent.bounded`)."""

    def parse(text: str) -> int:
        try:
            return read_int(text, "value", low, high)
        except NumberError as exc:  # argparse names the flag itself
            raise argparse.ArgumentTypeError(exc.problem) from None

    parse.__name__ = "int"  # argparse names the type in some messages
    return parse


def positive_float(text: str) -> float:
    """An argparse type: a finite number above zero."""
    try:
        return read_float(text, "value", 0.0, math.inf, above_low=True)
    except NumberError as exc:
        raise argparse.ArgumentTypeError(exc.problem) from None


def wall_clock_seconds(text: str) -> float:
    """An argparse type: an episode's wall-clock budget in seconds (``--wall-clock``), finite, from
    0 (no budget, as EmCoop's ``--time-limit-seconds 0``) to `MAX_WALL_CLOCK_S`."""
    try:
        return read_float(text, "value", 0.0, MAX_WALL_CLOCK_S)
    except NumberError as exc:
        raise argparse.ArgumentTypeError(exc.problem) from None


def clock_spec(text: str) -> str:
    """An argparse type: a ``--clock`` spec (`proagent.agent.clock`), checked, kept as typed."""
    from proagent.agent.clock import ClockError, parse_clock

    try:
        parse_clock(text)
    except ClockError as exc:
        raise argparse.ArgumentTypeError(str(exc).removeprefix(f"--clock {text[:40]!r}: ")) from None
    return text


WALL_CLOCK_HELP = (
    "end an episode after the step in which S seconds of wall clock have passed since its first step "
    "(EmCoop's MA-Crafter budget, 120 in its grid; any world); default and 0: no budget"
)

positive_int = bounded_int(1)
non_negative_int = bounded_int(0)
port_number = bounded_int(0, 65535)
seed_number = bounded_int(0, MAX_SEED)
episode_count = bounded_int(1, MAX_EPISODES)
horizon_steps = bounded_int(1, MAX_HORIZON)
concurrency_count = bounded_int(1, MAX_CONCURRENCY)


def run_name(text: str) -> str:
    """An argparse type: a run folder's name part (`proagent.runner.run_folder.check_run_name`)."""
    from proagent.runner.run_folder import check_run_name

    try:
        return check_run_name(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def writable_folder(text: str) -> Path:
    """An argparse type: a folder to write into (``--runs-dir``, ``--cache-dir``): it may not exist
    yet, but neither it nor its nearest existing parent may be a file or read-only."""
    path = Path(text)
    existing = nearest_existing(path)
    if existing is not None and not existing.is_dir():
        raise argparse.ArgumentTypeError(f"{text!r} is not a folder ({existing} is a file)")
    if existing is not None and not os.access(existing, os.W_OK | os.X_OK):
        raise argparse.ArgumentTypeError(f"{text!r}: {existing} is not writable")
    return path


def add_progress_options(p: argparse.ArgumentParser, unit: str = "decisions") -> None:
    """How often a long command writes a plain progress line where output is not a terminal: every
    N ``unit`` or every S seconds, whichever comes first."""
    p.add_argument(
        "--progress-every",
        type=positive_int,
        default=10,
        metavar="N",
        help=f"without a terminal: a progress line every N {unit} (or every --progress-seconds)",
    )
    p.add_argument(
        "--progress-seconds",
        type=positive_float,
        default=10.0,
        metavar="S",
        help="without a terminal: a progress line at least every S seconds, also while one step runs long",
    )
