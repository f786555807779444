"""README command 1 on a machine that is doing something else: its decision time alone, beside a
busy process, and as one of two `play` runs at once, all in one invocation (ratios to the solo run
of the same invocation, so the machine's own speed cancels out).

`proagent play --layout counter_circuit --partner cole` on the embedded model runs as a user runs
it (a subprocess, no LLM cache), for ``--horizon`` steps. The busy process is a pure-Python loop
on every core this process may use (a compile, a test run, another user's job). The embedded
model sizes its llama.cpp threads to the cores that work leaves free (`thread_budget`); the
``--threads N`` rows show what a fixed count does instead.

Run: ``python benchmarks/shared_machine.py [--horizon 40] [--threads-rows 2] [--check]``.

Printed per row (JSON): seconds per decision, decisions, wall seconds, llama.cpp threads; then the
ratios busy / solo and concurrent / solo against the target (each ≤ 2.5x the solo time per
decision). ``--check`` exits 1 when a ratio misses it. Each row costs a play of ``--horizon``
steps: keep it short (the default 40 steps is about a dozen decisions).
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import subprocess
import sys
import tempfile
import time
from contextlib import contextmanager
from pathlib import Path

from pydantic import BaseModel

from proagent.llm.embedded import thread_budget, usable_cores
from proagent.runner.records import EpisodeRecord

TARGET_RATIO = 2.5  # each shared run's seconds per decision, at most this times the solo run's
PLAY = ["--layout", "counter_circuit", "--partner", "cole", "--no-cache", "--live", "off", "--no-gif"]


class Row(BaseModel):
    label: str
    decisions: int
    s_per_decision: float
    wall_s: float
    threads: str


def _spin(stop_at: float) -> None:
    """One busy core until ``stop_at`` (a pure-Python loop: it never sleeps)."""
    n = 0
    while time.monotonic() < stop_at:
        n += 1


@contextmanager
def busy_machine(cores: int, seconds: float):
    """``cores`` spinning processes for at most ``seconds`` (ended on exit either way)."""
    stop_at = time.monotonic() + seconds
    spinners = [multiprocessing.Process(target=_spin, args=(stop_at,), daemon=True) for _ in range(cores)]
    for spinner in spinners:
        spinner.start()
    time.sleep(3.0)  # let the load average see them, as it sees a job already running
    try:
        yield
    finally:
        for spinner in spinners:
            spinner.terminate()
            spinner.join()


def start_play(horizon: int, runs: Path, name: str, extra: list[str]) -> subprocess.Popen:
    cmd = [sys.executable, "-c", "import sys; from proagent.cli import main; sys.exit(main())", "play", *PLAY]
    cmd += ["--horizon", str(horizon), "--runs-dir", str(runs), "--name", name, *extra]
    return subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def finished_row(label: str, child: subprocess.Popen, runs: Path, name: str, started: float, threads: str) -> Row:
    if child.wait() != 0:
        raise SystemExit(f"{label}: play exited {child.returncode}")
    wall = time.perf_counter() - started
    (folder,) = runs.glob(f"*-{name}")
    (line,) = (folder / "episodes.jsonl").read_text().splitlines()
    record = EpisodeRecord.model_validate_json(line)
    return Row(label=label, decisions=record.decisions, s_per_decision=record.wall_time_s / max(1, record.decisions),
               wall_s=round(wall, 1), threads=threads)  # fmt: skip


def measure(label: str, horizon: int, copies: int = 1, extra: list[str] | None = None, threads: str = "auto") -> list[Row]:
    """``copies`` plays at once; one row each."""
    with tempfile.TemporaryDirectory() as tmp:
        runs = Path(tmp)
        started = time.perf_counter()
        children = [(f"{label}-{i}", start_play(horizon, runs, f"run{i}", extra or [])) for i in range(copies)]
        return [finished_row(name, child, runs, f"run{i}", started, threads) for i, (name, child) in enumerate(children)]


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--horizon", type=int, default=40, help="steps of each play (keep it short)")
    p.add_argument("--threads-rows", type=int, default=0, metavar="N", help="also the busy row with --threads N (0: skip)")
    p.add_argument("--check", action="store_true", help="exit 1 when a shared run misses the target ratio")
    args = p.parse_args(argv)
    cores = usable_cores()
    print(f"cores this process may use: {cores}; threads the embedded model would take now: {thread_budget()}")
    (solo,) = measure("solo", args.horizon)
    rows = [solo]
    with busy_machine(cores, seconds=3600):
        (busy,) = measure("beside a busy process", args.horizon)
        rows.append(busy)
        if args.threads_rows:
            rows += measure(f"busy, --threads {args.threads_rows}", args.horizon, extra=["--threads", str(args.threads_rows)],
                            threads=str(args.threads_rows))  # fmt: skip
    rows += measure("two plays at once", args.horizon, copies=2)
    for row in rows:
        print(json.dumps(row.model_dump()))
    ratios = {row.label: row.s_per_decision / solo.s_per_decision for row in rows[1:]}
    for label, ratio in ratios.items():
        print(f"{label}: {ratio:.2f}x the solo seconds per decision (target ≤ {TARGET_RATIO}x)")
    missed = [label for label, ratio in ratios.items() if ratio > TARGET_RATIO and "--threads" not in label]
    return 1 if args.check and missed else 0


if __name__ == "__main__":
    raise SystemExit(main())
