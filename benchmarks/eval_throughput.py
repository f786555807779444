"""Does concurrency hide the LLM wait? Wall time of 1 vs 32 concurrent episodes, and the framework's
own time per decision. All figures come from the same run.

    python benchmarks/eval_throughput.py            # 1 s per LLM answer, 400-step episodes (~3 min)
    python benchmarks/eval_throughput.py --quick    # 0.2 s answers, 100-step episodes (~1 min)
    python benchmarks/eval_throughput.py --quick --concurrent 128   # the loopback server under a burst

The agent is ProAgent through the real HTTP path (the tests' loopback model: litellm to
``api_base``, each request's grounding posted beside it) with the greedy partner on cramped_room;
the LLM is `FakeChatServer` (tests/support; its Overcooked responder plays a sensible policy) in a
separate process on 127.0.0.1, answering after a fixed delay, so its CPU work does not share this
process's core. No cache: every call waits the full delay. Environments
are compiled before timing; episode i plays seed i.

Reported:
  (a) wall time of 32 concurrent episodes (seeds 0..31, concurrency 32) and of one episode alone,
      and the ratio. Target: <= 1.2. The 32 episodes differ in their number of LLM calls, and
      their wall time can be no less than that of their longest one, so the ratio that measures
      what concurrency costs is against that episode (the most LLM calls) replayed alone: same
      seed, same answers, same work. Seed 0 alone is shown too.
  (b) overhead per decision: the agent's time in a decision outside the LLM wait (grounding,
      prompts, parsing, verification), median over episodes of each episode's median. Target:
      <= 5 ms. Also, for the single episode, all non-LLM time per decision (env steps, controller,
      partner, records): (wall - LLM wait) / decisions.
  (c) env stepping, LLM answering at once (delay 0, so the framework is the bottleneck): 32
      concurrent episodes with the envs of a layout batched (lockstep, the default) vs stepped one
      by one (single). This is the measurement behind the default.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests.support (never tests/ itself)

from proagent.eval.config import EvalConfig
from proagent.eval.lockstep import LockstepEnv
from proagent.eval.records import EvalRecord
from proagent.eval.session import play_run, start_run
from proagent.eval.world import World
from tests.support.loopback import LOOPBACK_SPEC

TARGET_RATIO = 1.2
TARGET_OVERHEAD_MS = 5.0
MANY = 32


def serve(delay: float) -> None:
    """Child process: run the fake server, print its URL, serve until killed."""
    from tests.support.fake_server import FakeChatServer
    from tests.support.responders.overcooked import overcooked_answer

    server = FakeChatServer(delay_s=delay, responder=overcooked_answer).start()
    print(server.url, flush=True)
    while True:
        time.sleep(3600)


def start_server(delay: float) -> tuple[subprocess.Popen, str]:
    proc = subprocess.Popen([sys.executable, __file__, "--serve", str(delay)], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    assert proc.stdout is not None
    return proc, proc.stdout.readline().strip()


def config(url: str, episodes: int, horizon: int, stepping: str = "lockstep", seed: int = 0) -> EvalConfig:
    """ProAgent over HTTP + greedy on cramped_room, all ``episodes`` in flight at once, no cache."""
    return EvalConfig(
        seed=seed,
        name=f"bench-{episodes}",
        agents=[{"kind": "proagent", "llm": LOOPBACK_SPEC, "api_base": url}],
        partners=["greedy"],
        layouts=["cramped_room"],
        seats=[0],
        episodes=episodes,
        horizon=horizon,
        concurrency=episodes,
        llm_concurrency=64,
        cache=False,
        stepping=stepping,
    )


@dataclass
class Results:
    delay: float
    horizon: int
    many: int
    wall_first: float  # seed 0 alone
    first: EvalRecord
    wall_longest: float  # the concurrent episode with the most LLM calls, replayed alone
    longest: EvalRecord
    wall_many: float
    records: list[EvalRecord]
    wall_lockstep: float  # delay 0, `many` concurrent, envs batched
    wall_single: float  # delay 0, `many` concurrent, envs stepped one by one

    @property
    def ratio(self) -> float:
        return self.wall_many / self.wall_longest

    @property
    def overhead_ms(self) -> float:
        return statistics.median(r.overhead_ms_median for r in self.records if r.overhead_ms_median is not None)

    @property
    def passed(self) -> bool:
        return self.ratio <= TARGET_RATIO and self.overhead_ms <= TARGET_OVERHEAD_MS


def timed_run(cfg: EvalConfig, world: World, runs: Path) -> tuple[float, list[EvalRecord]]:
    handle = start_run(cfg, world, "benchmarks/eval_throughput.py", runs)
    started = time.perf_counter()
    outcome = asyncio.run(play_run(handle, world, progress="off"))
    wall = time.perf_counter() - started
    assert outcome.played == cfg.episodes and not outcome.failures, outcome.failures
    return wall, outcome.records


def warm_up(world: World, url: str, horizon: int, many: int) -> None:
    """Compile the batched steps for 1 and ``many`` slots; make the first litellm call."""
    env = world.envs.get(world.domain("overcooked"), "cramped_room", horizon)
    for capacity in (1, many):
        LockstepEnv(env, capacity).warm_up()
    with tempfile.TemporaryDirectory() as runs:
        timed_run(config(url, 1, horizon), world, Path(runs))


def measure(delay: float, horizon: int, many: int = MANY) -> Results:
    world = World()
    proc, url = start_server(delay)
    zero, url0 = start_server(0.0)
    try:
        warm_up(world, url0, horizon, many)
        with tempfile.TemporaryDirectory() as tmp:
            runs = Path(tmp)
            wall1, (first,) = timed_run(config(url, 1, horizon), world, runs)
            wall_many, records = timed_run(config(url, many, horizon), world, runs)
            longest = max(records, key=lambda r: r.llm_calls)
            wall_long, (alone,) = timed_run(config(url, 1, horizon, seed=longest.seed), world, runs)
            assert alone.llm_calls == longest.llm_calls, "a replay with the same seed must do the same work"
            lock, _ = timed_run(config(url0, many, horizon, "lockstep"), world, runs)
            single, _ = timed_run(config(url0, many, horizon, "single"), world, runs)
    finally:
        proc.kill()
        zero.kill()
    return Results(delay, horizon, many, wall1, first, wall_long, alone, wall_many, records, lock, single)


def report(r: Results) -> str:
    calls = [x.llm_calls for x in r.records]
    per_decision = (r.wall_longest - r.longest.llm_latency_s) / max(r.longest.decisions, 1) * 1000
    n = r.many
    out = [
        (f"eval throughput: ProAgent (loopback over HTTP, {r.delay:g} s per answer) + greedy, cramped_room, "
        f"{r.horizon} steps"),
        f"(a) {n} concurrent episodes: {r.wall_many:7.2f} s wall; LLM calls per episode {min(calls)}-{max(calls)} (mean {statistics.fmean(calls):.1f})",
        f"    longest of them alone:  {r.wall_longest:7.2f} s wall (seed {r.longest.seed}, {r.longest.llm_calls} LLM calls)",
        f"    seed 0 alone:           {r.wall_first:7.2f} s wall ({r.first.llm_calls} LLM calls)",
        f"    ratio {n} concurrent / longest alone: {r.ratio:.3f} (target <= {TARGET_RATIO}); / seed 0 alone: {r.wall_many / r.wall_first:.3f}",
        f"    throughput: {60 * n / r.wall_many:.1f} episodes/min concurrent vs {60 / r.wall_longest:.2f} alone ({n * r.wall_longest / r.wall_many:.1f}x)",
        (f"(b) agent overhead per decision outside the LLM wait (median of episode medians): {r.overhead_ms:.2f} ms "
        f"with {n} concurrent, {r.longest.overhead_ms_median or 0:.2f} ms alone (target <= {TARGET_OVERHEAD_MS} ms)"),
        f"    all non-LLM time per decision, episode alone: {per_decision:.2f} ms ((wall - LLM wait) / {r.longest.decisions} decisions)",
        (f"(c) delay 0, {n} concurrent episodes: lockstep {r.wall_lockstep:.2f} s, single {r.wall_single:.2f} s "
        f"-> lockstep {r.wall_single / r.wall_lockstep:.2f}x faster"),
        (f"verdict: ratio {r.ratio:.3f} {'OK' if r.ratio <= TARGET_RATIO else 'MISSED'}, "
        f"overhead {r.overhead_ms:.2f} ms {'OK' if r.overhead_ms <= TARGET_OVERHEAD_MS else 'MISSED'}"),
    ]
    return "\n".join(out)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="0.2 s answers, 100 steps (targets are for the full run)")
    parser.add_argument("--concurrent", type=int, default=MANY, help=f"episodes run at once (default {MANY})")
    parser.add_argument("--serve", type=float, default=None, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve is not None:
        serve(args.serve)
        return 0
    results = measure(*((0.2, 100) if args.quick else (1.0, 400)), many=args.concurrent)
    print(report(results))
    if args.quick:
        print("(--quick: 0.2 s answers leave the LLM wait too short to hide the CPU work of many episodes; the targets apply to the full run)")
        return 0
    return 0 if results.passed else 1


if __name__ == "__main__":
    sys.exit(main())
