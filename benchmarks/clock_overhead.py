"""What does the clock machinery cost an episode played as under turns? Wall and CPU time, same run.

    python benchmarks/clock_overhead.py                  # 10 rounds of 150-step episodes
    python benchmarks/clock_overhead.py --rounds 3 --horizon 100

Under ``--clock turns`` the agent is the plain ProAgent: the clock's only work is reading the spec
once per agent. To measure the machinery itself, the same episode (cramped_room, seat 0, the greedy
partner, the world's scripted planner in process, seed 0, the trace kept in memory) is played by
both agents in this process:

  * plain: ProAgent under ``turns``;
  * clocked: `TokenClockProAgent` under ``tokens:1000000``, a budget no decision reaches, so every
    decision lands in the step it was asked, and the episode is the turns episode (checked: the
    same actions every step), with all of the clock's bookkeeping (the ledger, the fallback's
    check, the landing, the trace's ``clock`` record) done on every step.

Rounds alternate the two (plain, clocked, plain, ...) after a warm-up episode of each, so that a
machine's drift hits both alike. Each side's figures are the median and the minimum of its rounds
(the minimum: the least disturbed episode, which on a quiet machine is the better estimate; on a shared
one a single lucky episode moves it by tens of per cent); the target is on the medians: clocked / plain
<= 1.02 (the clock adds at most 2 % to an episode's wall time). Compare the CPU ratios too, which the
machine's other work disturbs less, and figures of one run only.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from proagent.agent.config import AgentConfig
from proagent.builder import llm_agent
from proagent.domains import get_domain
from proagent.llm.scripted import ScriptedPlannerModel
from proagent.runner.episode import run_episode

TARGET_RATIO = 1.02
LAYOUT = "cramped_room"
CLOCKS = {"plain": "turns", "clocked": "tokens:1000000"}


def play(env, clock: str) -> tuple[float, float, list[list[str]]]:
    """One episode under ``clock``: its wall and CPU seconds and every step's actions."""
    domain = get_domain("overcooked")
    scripted = domain.capabilities.scripted
    assert scripted is not None
    agent = llm_agent(domain, env, AgentConfig(clock=clock), ScriptedPlannerModel(scripted.answer))
    lines: list[dict] = []
    wall, cpu = time.perf_counter(), time.process_time()
    asyncio.run(run_episode(env, domain, [agent, domain.make_partner("greedy", env)], 0, 0, 0, trace=lines.append))
    return time.perf_counter() - wall, time.process_time() - cpu, [line["actions"] for line in lines]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument("--horizon", type=int, default=150)
    args = parser.parse_args()
    env = get_domain("overcooked").make_env(LAYOUT, args.horizon)
    actions = {name: play(env, clock)[2] for name, clock in CLOCKS.items()}  # warm-up: compiles, caches
    if actions["plain"] != actions["clocked"]:
        print("error: the clocked episode is not the turns episode; the comparison would be unfair", file=sys.stderr)
        return 1
    times: dict[str, list[tuple[float, float]]] = {name: [] for name in CLOCKS}
    for _ in range(args.rounds):
        for name, clock in CLOCKS.items():
            wall, cpu, _ = play(env, clock)
            times[name].append((wall, cpu))
    print(f"{LAYOUT}, {args.horizon} steps, {args.rounds} rounds per side, seconds per episode (median, min):")
    ratios = {}
    for kind, index in (("wall", 0), ("CPU", 1)):
        med = {name: statistics.median(x[index] for x in t) for name, t in times.items()}
        low = {name: min(x[index] for x in t) for name, t in times.items()}
        for name, clock in CLOCKS.items():
            print(f"  {kind:4s} {name:8s} ({clock}): {med[name]:.3f}, {low[name]:.3f}")
        ratios[kind] = (med["clocked"] / med["plain"], low["clocked"] / low["plain"])
        print(f"  {kind} clocked / plain: median {ratios[kind][0]:.3f}, min {ratios[kind][1]:.3f}")
    verdict = "met" if ratios["wall"][0] <= TARGET_RATIO else "NOT met"
    print(f"target: the clock adds <= {100 * (TARGET_RATIO - 1):.0f} % (wall, median against median): {verdict}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
