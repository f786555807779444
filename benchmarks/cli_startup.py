"""Start-up of the `proagent` command: how long `--help`, each command's `--help` and an argument
error take in a fresh interpreter, against a bare interpreter and `import jax` in the same run.

    PYTHONPATH=. python benchmarks/cli_startup.py            # 5 repeats of each, medians
    PYTHONPATH=. python benchmarks/cli_startup.py --check    # also assert the targets below

The command imports only the chosen subcommand's module, and the modules import JAX, the worlds,
matplotlib and litellm where a command runs, not where it parses; so `--help` and a bad flag
answer before any of them loads. Each figure is the median wall time of ``--repeats`` fresh
processes (``python -c``), so the interpreter's own start-up is in every figure; the bare
interpreter's is printed to subtract.

Targets: `proagent --help` and every command's `--help` within 1 s of the bare interpreter, and
`proagent --help` at most a third of `import jax`'s time.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time

from proagent.cli import COMMANDS  # the command table alone: importing it loads no command

CLI = "import sys; from proagent.cli import main; sys.exit(main({argv!r}))"
MARGIN_S = 1.0  # a --help answers within this much of the bare interpreter
JAX_SHARE = 1 / 3  # `proagent --help` against `import jax`


def timed(code: str, repeats: int) -> float:
    """The median wall seconds of ``python -c code`` in a fresh process."""
    times = []
    for _ in range(repeats):
        started = time.perf_counter()
        subprocess.run([sys.executable, "-c", code], capture_output=True, check=False)
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    p.add_argument("--repeats", type=int, default=5)
    p.add_argument("--check", action="store_true", help="assert the targets")
    args = p.parse_args(argv)
    bare = timed("pass", args.repeats)
    jax = timed("import jax", args.repeats)
    rows = {"proagent --help": timed(CLI.format(argv=["--help"]), args.repeats)}
    rows["proagent play --episodes x (an argument error)"] = timed(CLI.format(argv=["play", "--episodes", "x"]), args.repeats)
    rows.update({f"proagent {c} --help": timed(CLI.format(argv=[c, "--help"]), args.repeats) for c in COMMANDS})
    print(f"bare interpreter: {bare:.2f} s; import jax: {jax:.2f} s (medians of {args.repeats})")
    for name, seconds in rows.items():
        print(f"{name}: {seconds:.2f} s ({seconds - bare:+.2f} s over the bare interpreter)")
    if args.check:
        slow = [name for name, seconds in rows.items() if seconds - bare > MARGIN_S]
        assert not slow, f"more than {MARGIN_S} s over the bare interpreter: {slow}"
        assert rows["proagent --help"] <= JAX_SHARE * jax, "proagent --help is not well under import jax"
    return 0


if __name__ == "__main__":
    sys.exit(main())
