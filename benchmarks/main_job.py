"""The README's main job, measured: `proagent play --layout counter_circuit --partner cole` on the
embedded model, as a user runs it (a subprocess, no LLM cache), against a baseline run in the same
invocation: the same episode start with the full `proagent` prompt set, which the embedded model
used before the compact set existed.

Run: ``python benchmarks/main_job.py [--horizon 400] [--baseline-horizon 40] [--check]``.

Printed per run: wall time, decisions, prompt / reused-prefix / evaluated / generated tokens per
decision, LLM seconds per decision, peak RSS, score and the agent's own useful events; then the
ratio of seconds per decision (compact / full prompt) and the targets of the main job (≤ 300 s on
an idle 2-core machine, < 2 GiB, < 200 decisions). ``--check`` exits 1 when a target is missed.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from pydantic import BaseModel

from proagent.domains.overcooked.domain import PROGRESS_EVENTS
from proagent.runner.records import EpisodeRecord
from proagent.runner.summary import own_events

TARGET_WALL_S, TARGET_RSS_MB, TARGET_DECISIONS = 300.0, 2048.0, 200


class JobResult(BaseModel):
    label: str
    horizon: int
    wall_s: float
    peak_rss_mb: float
    score: float
    decisions: int
    llm_s_per_decision: float
    prompt_tokens_per_decision: float
    reused_tokens_per_decision: float
    evaluated_tokens_per_decision: float
    generated_tokens_per_decision: float
    oscillations: int
    skill_duration_mean: float | None
    agent_events: dict[str, int]


def run_job(label: str, extra: list[str], horizon: int, layout: str, partner: str) -> JobResult:
    """One `proagent play` in a child process; its own peak RSS comes from wait4."""
    with tempfile.TemporaryDirectory() as runs, tempfile.TemporaryFile("w+") as log:
        cmd = [sys.executable, "-c", "import sys; from proagent.cli import main; sys.exit(main())", "play"]
        cmd += ["--layout", layout, "--partner", partner, "--horizon", str(horizon)]
        cmd += ["--no-cache", "--live", "off", "--runs-dir", runs, *extra]
        started = time.perf_counter()
        child = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=log)
        _, status, usage = os.wait4(child.pid, 0)  # reaps the child: its own rusage, not all children's
        wall = time.perf_counter() - started
        if os.waitstatus_to_exitcode(status):
            log.seek(0)
            raise SystemExit(f"{label}: `{' '.join(cmd)}` failed:\n{log.read()[-2000:]}")
        record = json.loads(next(Path(runs).glob("*/episodes.jsonl")).read_text().splitlines()[0])
    return _result(label, horizon, wall, usage.ru_maxrss / 1024, record)


def _result(label: str, horizon: int, wall: float, rss_mb: float, record: dict) -> JobResult:
    n = max(record["decisions"], 1)
    return JobResult(
        label=label,
        horizon=horizon,
        wall_s=wall,
        peak_rss_mb=rss_mb,
        score=record["score"],
        decisions=record["decisions"],
        llm_s_per_decision=record["llm_latency_s"] / n,
        prompt_tokens_per_decision=record["prompt_tokens"] / n,
        reused_tokens_per_decision=record["reused_prompt_tokens"] / n,
        evaluated_tokens_per_decision=(record["prompt_tokens"] - record["reused_prompt_tokens"]) / n,
        generated_tokens_per_decision=record["completion_tokens"] / n,
        oscillations=record["oscillations"],
        skill_duration_mean=record["skill_duration_mean"],
        agent_events=own_events(EpisodeRecord.model_validate(record), PROGRESS_EVENTS),
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--layout", default="counter_circuit")
    parser.add_argument("--partner", default="cole")
    parser.add_argument("--horizon", type=int, default=400, help="the main job's episode length")
    parser.add_argument("--baseline-horizon", type=int, default=40, help="steps of the full-prompt baseline")
    parser.add_argument("--check", action="store_true", help="exit 1 when a main-job target is missed")
    args = parser.parse_args()
    print(f"cpu_count={os.cpu_count()} loadavg_before={os.getloadavg()[0]:.2f}")
    main_job = run_job("compact (default)", [], args.horizon, args.layout, args.partner)
    baseline = run_job("full proagent prompt", ["--prompt", "proagent"], args.baseline_horizon, args.layout, args.partner)
    for result in (main_job, baseline):
        print(result.model_dump_json())
    ratio = main_job.llm_s_per_decision / max(baseline.llm_s_per_decision, 1e-9)
    print(f"seconds per decision, compact / full prompt: {ratio:.2f}")
    misses = _misses(main_job) if args.horizon == 400 else []
    print(f"loadavg_after={os.getloadavg()[0]:.2f}")
    print("targets: " + ("met" if not misses else "MISSED: " + "; ".join(misses)) + (" (horizon 400 only)" if args.horizon != 400 else ""))
    return 1 if args.check and misses else 0


def _misses(result: JobResult) -> list[str]:
    misses = []
    if result.wall_s > TARGET_WALL_S:
        misses.append(f"wall {result.wall_s:.0f} s > {TARGET_WALL_S:.0f} s")
    if result.peak_rss_mb >= TARGET_RSS_MB:
        misses.append(f"peak RSS {result.peak_rss_mb:.0f} MB >= {TARGET_RSS_MB:.0f} MB")
    if result.decisions >= TARGET_DECISIONS:
        misses.append(f"{result.decisions} decisions >= {TARGET_DECISIONS}")
    return misses


if __name__ == "__main__":
    sys.exit(main())
