"""MAEIL's costs: the framework's own time per cognitive step, and whether talking agents' model
calls overlap.

    python benchmarks/maeil_speed.py                 # both parts, CUBE medium_3a, 3 ProAgents
    python benchmarks/maeil_speed.py --quick         # shorter episodes, 0.2 s latency
    python benchmarks/maeil_speed.py --check         # also assert the targets

1. Overhead: 3 ProAgents on an instant scripted model (the CUBE loopback responder), each
   topology, one episode. Per environment step the cognitive phase's wall time is split into the
   agents' own work (`prepare`, `deliberate`: prompts, parsing, checks, the controller) and the
   rest, which is MAEIL's (the stage log, topology, message delivery, asyncio scheduling). Target:
   MAEIL's own time <= 5 ms per cognitive step (median, and the mean).
2. Concurrency: a 3-agent centralized episode against the loopback HTTP server answering after
   ``--latency`` seconds. MAEIL runs each round's model calls together, so the time spent in
   cognitive phases should follow rounds x latency, not calls (or messages) x latency; the same
   agents without a conversation (acting in turn, the legacy loop) are timed in the same run.
   Target: cognition time <= 1.25 x rounds x latency + 0.5 s.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests.support (never tests/ itself)

from proagent.agent.config import AgentConfig
from proagent.agent.proagent import ProAgent
from proagent.domains import get_domain
from proagent.llm.factory import make_model
from proagent.maeil import TOPOLOGIES, TopologyConfig
from proagent.runner.episode import run_episode
from tests.support.fake_server import FakeChatServer
from tests.support.loopback import LOOPBACK_SPEC
from tests.support.responders.cube import cube_answer
from tests.support.scripted import ScriptedModel, answering

OVERHEAD_TARGET_MS = 5.0
DOMAIN = get_domain("cube")


class _Timed:
    """Adds the time spent inside an agent's MAEIL methods to ``box``."""

    def __init__(self, agent: ProAgent, box: list[float]) -> None:
        self.agent, self.box = agent, box
        for name in ("prepare", "execute"):
            setattr(agent, name, self._sync(getattr(agent, name)))
        agent.deliberate = self._async(agent.deliberate)  # type: ignore[method-assign]

    def _sync(self, fn: Callable) -> Callable:
        def wrapped(*args):
            t = time.perf_counter()
            try:
                return fn(*args)
            finally:
                self.box[0] += time.perf_counter() - t

        return wrapped

    def _async(self, fn: Callable) -> Callable:
        async def wrapped(*args):
            t = time.perf_counter()
            try:
                return await fn(*args)
            finally:
                self.box[0] += time.perf_counter() - t

        return wrapped


def overhead(topology: str, horizon: int) -> dict:
    env = DOMAIN.make_env("medium_3a", horizon)
    model = ScriptedModel(respond=answering(cube_answer))
    team = [ProAgent(AgentConfig(), model, DOMAIN, env) for _ in range(env.num_agents)]
    box = [0.0]
    for agent in team:
        _Timed(agent, box)
    per_step: list[float] = []

    from proagent.maeil import loop as maeil_loop

    original = maeil_loop.Maeil.step_actions

    async def measured(self, observations, events, truth=None):
        before_agents = box[0]
        t = time.perf_counter()
        actions = await original(self, observations, events, truth)
        per_step.append((time.perf_counter() - t) - (box[0] - before_agents))
        return actions

    maeil_loop.Maeil.step_actions = measured  # type: ignore[method-assign]
    try:
        record = asyncio.run(run_episode(env, DOMAIN, team, 0, 0, 0, topology=TopologyConfig(name=topology)))
    finally:
        maeil_loop.Maeil.step_actions = original  # type: ignore[method-assign]
    ms = [1000 * x for x in per_step]
    return {
        "topology": topology,
        "steps": len(ms),
        "rounds": record.process_metrics["cognitive_rounds"],
        "median_ms": statistics.median(ms),
        "mean_ms": statistics.fmean(ms),
        "p95_ms": sorted(ms)[int(0.95 * (len(ms) - 1))],
    }


def concurrency(latency: float, horizon: int) -> dict:
    """The cognitive phases' wall time (summed over the episode) against rounds x latency and
    calls x latency; the env is compiled once, before anything is timed."""
    env = DOMAIN.make_env("medium_3a", horizon)

    async def episode(url: str, topology: str | None) -> tuple[float, object]:
        team = [
            ProAgent(AgentConfig(), make_model(LOOPBACK_SPEC, api_base=url, cache_dir=None, timeout_s=60), DOMAIN, env)
            for _ in range(env.num_agents)
        ]
        t = time.perf_counter()
        record = await run_episode(env, DOMAIN, team, 0, 0, 0, topology=TopologyConfig(name=topology) if topology else None)
        return time.perf_counter() - t, record

    out: dict = {"latency_s": latency, "horizon": horizon}
    with FakeChatServer(delay_s=0.0, responder=cube_answer) as fast:
        asyncio.run(episode(fast.url, "centralized"))  # compile
        out["no_latency_wall_s"], _ = asyncio.run(episode(fast.url, "centralized"))
    with FakeChatServer(delay_s=latency, responder=cube_answer) as slow:
        wall, record = asyncio.run(episode(slow.url, "centralized"))
        out["sequential_wall_s"], seq = asyncio.run(episode(slow.url, None))
    p = record.process_metrics
    rounds = p["cognitive_rounds"]
    out.update(
        wall_s=wall,
        cognition_s=p["decision_latency_ms"] * record.steps / 1000,
        rounds=rounds,
        llm_calls=record.team_llm_calls,
        messages=p["messages"] + p["protocol_messages"],
        sequential_calls=seq.team_llm_calls,
    )
    out["rounds_x_latency_s"] = rounds * latency
    out["calls_x_latency_s"] = out["llm_calls"] * latency
    out["target_s"] = 1.25 * out["rounds_x_latency_s"] + 0.5
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--quick", action="store_true")
    p.add_argument("--check", action="store_true")
    p.add_argument("--latency", type=float, default=None)
    args = p.parse_args(argv)
    horizon = 40 if args.quick else 150
    latency = args.latency if args.latency is not None else (0.2 if args.quick else 1.0)
    failed = []
    print("MAEIL's own time per cognitive step (3 ProAgents, instant scripted model, medium_3a):")
    print("| topology | steps | rounds | median ms | mean ms | p95 ms |\n|---|---|---|---|---|---|")
    for topology in TOPOLOGIES:
        row = overhead(topology, horizon)
        print(f"| {topology} | {row['steps']} | {row['rounds']:.0f} | {row['median_ms']:.3f} | {row['mean_ms']:.3f} | {row['p95_ms']:.3f} |")
        if row["median_ms"] > OVERHEAD_TARGET_MS or row["mean_ms"] > OVERHEAD_TARGET_MS:
            failed.append(f"{topology}: MAEIL overhead {row['mean_ms']:.2f} ms > {OVERHEAD_TARGET_MS} ms")
    c = concurrency(latency, 30 if args.quick else 80)
    print(
        f"\ncentralized, 3 ProAgents, {c['horizon']} steps, loopback latency {c['latency_s']} s: {c['llm_calls']} model calls "
        f"and {c['messages']:.0f} messages in {c['rounds']:.0f} rounds; time in cognitive phases {c['cognition_s']:.2f} s "
        f"(rounds x latency {c['rounds_x_latency_s']:.2f} s, calls x latency {c['calls_x_latency_s']:.2f} s, "
        f"messages x latency {c['messages'] * c['latency_s']:.2f} s); episode wall {c['wall_s']:.2f} s, "
        f"{c['no_latency_wall_s']:.2f} s without latency; no conversation (agents in turn): {c['sequential_wall_s']:.2f} s "
        f"for {c['sequential_calls']} calls"
    )
    if c["cognition_s"] > c["target_s"]:
        failed.append(f"concurrency: cognition {c['cognition_s']:.2f} s > 1.25 x rounds x latency + 0.5 s = {c['target_s']:.2f} s")
    if args.check and failed:
        print("FAILED: " + "; ".join(failed), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
