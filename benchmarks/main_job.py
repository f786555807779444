"""The README's main job, measured: `proagent play --layout counter_circuit --partner cole` on the
embedded model, as a user runs it (a subprocess, no LLM cache), against a baseline run in the same
invocation: the same episode start with the full `proagent` prompt set, which the embedded model
used before the compact set existed.

Run: ``python benchmarks/main_job.py [--horizon 400] [--baseline-horizon 40] [--episodes N] [--check]``.

Printed per run: wall time (and per episode), decisions, prompt / reused-prefix / evaluated /
generated tokens per decision, LLM seconds per decision, peak RSS, score (mean and each episode's),
undo loops detected per episode and the agent's own useful events; then the ratio of seconds per
decision (compact / full prompt) and the targets of the main job (≤ 300 s an episode on an idle
2-core machine, < 2 GiB, < 200 decisions). ``--check`` exits 1 when a target is missed.

The adapter arm: ``--adapter PATH`` plays the same command with ``--adapter PATH`` and with
``--adapter none`` (the raw model, named, so the arm stays the raw model whatever the default) in
the same invocation, instead of the main job and the full-prompt baseline, on seeds 0..N-1
(``--episodes N``, 5 for the targets), and checks the adapter's targets as well: ≤ 300 s an
episode, < 2 GiB, a mean score of at least greedy + cole's (148) over seeds 0-4, at most 10 undo
loops in any episode, and a mean above the raw model's.
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
# the adapter's targets: greedy + cole's mean score on counter_circuit over seeds 0-4, and undo loops an episode
TARGET_ADAPTER_SCORE, TARGET_ADAPTER_LOOPS, TARGET_ADAPTER_EPISODES = 148.0, 10, 5


class JobResult(BaseModel):
    label: str
    horizon: int
    episodes: int
    wall_s: float
    wall_s_per_episode: float
    peak_rss_mb: float
    score: float  # mean over the episodes
    scores: list[float]
    decisions: int  # per episode, mean
    llm_s_per_decision: float
    prompt_tokens_per_decision: float
    reused_tokens_per_decision: float
    evaluated_tokens_per_decision: float
    generated_tokens_per_decision: float
    oscillations: list[int]  # undo loops detected, each episode
    skill_duration_mean: float | None  # the first episode's
    agent_events: dict[str, int]  # the first episode's


def run_job(label: str, extra: list[str], horizon: int, layout: str, partner: str, episodes: int = 1) -> JobResult:
    """One `proagent play` (``episodes`` episodes, seeds 0..episodes-1) in a child process; its own
    peak RSS comes from wait4."""
    with tempfile.TemporaryDirectory() as runs, tempfile.TemporaryFile("w+") as log:
        cmd = [sys.executable, "-c", "import sys; from proagent.cli import main; sys.exit(main())", "play"]
        cmd += ["--layout", layout, "--partner", partner, "--horizon", str(horizon), "--episodes", str(episodes)]
        cmd += ["--no-cache", "--live", "off", "--runs-dir", runs, *extra]
        started = time.perf_counter()
        child = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=log)
        _, status, usage = os.wait4(child.pid, 0)  # reaps the child: its own rusage, not all children's
        wall = time.perf_counter() - started
        if os.waitstatus_to_exitcode(status):
            log.seek(0)
            raise SystemExit(f"{label}: `{' '.join(cmd)}` failed:\n{log.read()[-2000:]}")
        lines = next(Path(runs).glob("*/episodes.jsonl")).read_text().splitlines()
    return _result(label, horizon, wall, usage.ru_maxrss / 1024, [json.loads(line) for line in lines])


def _result(label: str, horizon: int, wall: float, rss_mb: float, records: list[dict]) -> JobResult:
    def total(field: str) -> float:
        return float(sum(r[field] for r in records))

    n = max(total("decisions"), 1.0)
    return JobResult(
        label=label,
        horizon=horizon,
        episodes=len(records),
        wall_s=wall,
        wall_s_per_episode=wall / len(records),
        peak_rss_mb=rss_mb,
        score=total("score") / len(records),
        scores=[r["score"] for r in records],
        decisions=round(total("decisions") / len(records)),
        llm_s_per_decision=total("llm_latency_s") / n,
        prompt_tokens_per_decision=total("prompt_tokens") / n,
        reused_tokens_per_decision=total("reused_prompt_tokens") / n,
        evaluated_tokens_per_decision=(total("prompt_tokens") - total("reused_prompt_tokens")) / n,
        generated_tokens_per_decision=total("completion_tokens") / n,
        oscillations=[r["oscillations"] for r in records],
        skill_duration_mean=records[0]["skill_duration_mean"],
        agent_events=own_events(EpisodeRecord.model_validate(records[0]), PROGRESS_EVENTS),
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--layout", default="counter_circuit")
    parser.add_argument("--partner", default="cole")
    parser.add_argument("--horizon", type=int, default=400, help="the main job's episode length")
    parser.add_argument("--baseline-horizon", type=int, default=40, help="steps of the full-prompt baseline")
    parser.add_argument("--episodes", type=int, default=1, help="episodes of each arm (seeds 0..N-1)")
    parser.add_argument("--adapter", type=Path, help="a LoRA adapter GGUF: the adapter arm against the raw model")
    parser.add_argument("--check", action="store_true", help="exit 1 when a main-job target is missed")
    args = parser.parse_args()
    if args.adapter is not None and not args.adapter.is_file():
        parser.error(f"--adapter {args.adapter}: no such file")
    print(f"cpu_count={os.cpu_count()} loadavg_before={os.getloadavg()[0]:.2f}")
    if args.adapter is None:
        main_job = run_job("compact (default)", [], args.horizon, args.layout, args.partner, args.episodes)
        other = run_job(
            "full proagent prompt", ["--prompt", "proagent"], args.baseline_horizon, args.layout, args.partner
        )
    else:  # the raw model against the adapter, on the same seeds
        raw = ["--adapter", "none"]
        main_job = run_job("raw model (--adapter none)", raw, args.horizon, args.layout, args.partner, args.episodes)
        extra = ["--adapter", str(args.adapter)]
        other = run_job(f"adapter {args.adapter.name}", extra, args.horizon, args.layout, args.partner, args.episodes)
    for result in (main_job, other):
        print(result.model_dump_json())
    ratio = main_job.llm_s_per_decision / max(other.llm_s_per_decision, 1e-9)
    print(f"seconds per decision, compact / {'adapter' if args.adapter else 'full prompt'}: {ratio:.2f}")
    misses = _misses(main_job) if args.horizon == 400 and args.adapter is None else []
    if args.adapter is not None:
        misses += _adapter_misses(other, main_job, args.horizon, args.layout, args.partner)
    print(f"loadavg_after={os.getloadavg()[0]:.2f}")
    print(
        "targets: "
        + ("met" if not misses else "MISSED: " + "; ".join(misses))
        + (" (horizon 400 only)" if args.horizon != 400 else "")
    )
    return 1 if args.check and misses else 0


def _misses(result: JobResult) -> list[str]:
    misses = []
    if result.wall_s_per_episode > TARGET_WALL_S:
        misses.append(f"{result.label}: wall {result.wall_s_per_episode:.0f} s an episode > {TARGET_WALL_S:.0f} s")
    if result.peak_rss_mb >= TARGET_RSS_MB:
        misses.append(f"{result.label}: peak RSS {result.peak_rss_mb:.0f} MB >= {TARGET_RSS_MB:.0f} MB")
    if result.decisions >= TARGET_DECISIONS:
        misses.append(f"{result.label}: {result.decisions} decisions >= {TARGET_DECISIONS}")
    return misses


def _adapter_misses(adapter: JobResult, raw: JobResult, horizon: int, layout: str, partner: str) -> list[str]:
    """The adapter's targets: speed and memory at the main job's length, and its play on seeds 0-4 of
    counter_circuit with cole (the score target is greedy + cole's there)."""
    misses = _misses(adapter) if horizon == 400 else []
    if adapter.score <= raw.score:
        misses.append(f"adapter mean score {adapter.score:.1f} <= the raw model's {raw.score:.1f}")
    if max(adapter.oscillations) > TARGET_ADAPTER_LOOPS:
        misses.append(f"adapter: {max(adapter.oscillations)} undo loops in an episode > {TARGET_ADAPTER_LOOPS}")
    main_setting = (horizon, layout, partner) == (400, "counter_circuit", "cole")
    main_setting = main_setting and adapter.episodes >= TARGET_ADAPTER_EPISODES
    if main_setting and adapter.score < TARGET_ADAPTER_SCORE:
        misses.append(f"adapter mean score {adapter.score:.1f} < greedy + cole's {TARGET_ADAPTER_SCORE:.0f}")
    return misses


if __name__ == "__main__":
    sys.exit(main())
