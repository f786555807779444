"""`proagent --help` and every command's `--help` answer without importing JAX, the worlds,
matplotlib or litellm (the command imports only the chosen subcommand, and that one imports its
heavy dependencies where it runs). Checked in a fresh interpreter by what it imported, not by a
clock (benchmarks/cli_startup.py times it)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from proagent.cli import COMMANDS

HEAVY = ("jax", "matplotlib", "litellm", "envs", "proagent.llm", "proagent.eval", "proagent.builder")
PROBE = """
import contextlib, io, json, sys
from proagent.cli import main
with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
    try:
        main(json.loads(sys.argv[1]))
    except SystemExit:
        pass
print(json.dumps(sorted(m for m in sys.modules if m.split(".")[0] in ("jax", "matplotlib", "litellm", "envs")
                        or m.startswith(("proagent.llm", "proagent.eval", "proagent.builder")))))
"""


def imported(argv: list[str]) -> list[str]:
    out = subprocess.run([sys.executable, "-c", PROBE, json.dumps(argv)], capture_output=True, text=True, check=True, timeout=120)
    return json.loads(out.stdout)


def test_proagent_help_imports_no_heavy_module() -> None:
    assert imported(["--help"]) == []
    assert imported(["no-such-command"]) == []


@pytest.mark.parametrize("command", list(COMMANDS))
def test_each_commands_help_imports_no_heavy_module(command: str) -> None:
    assert imported([command, "--help"]) == [], f"proagent {command} --help imports {HEAVY}"


def test_an_argument_error_imports_no_heavy_module() -> None:
    assert imported(["play", "--episodes", "x"]) == []


def test_the_listing_says_what_each_command_says_itself() -> None:
    import argparse
    import importlib

    for name, (module, help_text) in COMMANDS.items():
        sub = argparse.ArgumentParser().add_subparsers()
        importlib.import_module(f"proagent.cli.{module}").register(sub)
        (action,) = sub._choices_actions
        assert (action.dest, action.help) == (name, help_text)
