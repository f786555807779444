"""How much CPU does the client side of an LLM decision cost? CPU ms per decision, same run.

    python benchmarks/decision_cpu.py                 # 400 decisions per side
    python benchmarks/decision_cpu.py --decisions 50  # quicker
    python benchmarks/decision_cpu.py --profile 30    # also the 30 costliest functions (cProfile, CPU time)

ProAgent (default config, JSON answers) on cramped_room, seat 0, decides again and again from the
first state: the model answers ``wait(1)``, so every ``act`` is one decision with one model call.
The same loop runs twice in this process:

  * loopback: the model chain of an evaluation (metered, capped, the litellm backend over HTTP,
    which goes direct once litellm was seen to send the same request) to a `FakeChatServer` in
    another process answering at once, so its CPU is not counted here;
  * in-process: the same answer from an instant in-process model (no client at all).

Each side's figure is ``time.process_time`` of the loop (every thread of this process: litellm's
helpers included) over its decisions. The in-process side is the agent's own part (grounding,
prompts, parsing, verification, memory); the difference is the client side: everything a
decision costs between the agent and the server (request building, litellm, HTTP, response
parsing, metering). Wall time is not used: it is noisy on a shared machine (so is CPU time, less:
compare figures of one run, or runs on an idle machine). Target: the client side <= 2 ms of CPU
per decision. With ``--profile`` the loopback side runs under cProfile, whose own cost inflates it.
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import io
import json
import pstats
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests.support (never tests/ itself)

import jax

import envs
from proagent.agent.config import AgentConfig
from proagent.agent.proagent import ProAgent
from proagent.contract import Observation
from proagent.domains.overcooked import OvercookedDomain
from proagent.eval.models import LimitedModel
from proagent.llm.accounting import MeteredModel
from proagent.llm.factory import make_model
from proagent.llm.types import Completion, Grounding, Message, Model, StructuredOutput
from tests.support.loopback import BACKEND

TARGET_CLIENT_MS = 2.0
ANSWER = json.dumps({"analysis": "ok", "intention": "wait(1)", "plan": "wait(1)"})
LAYOUT = "cramped_room"
WARM_UP = 20  # decisions before timing: first imports, connection, caches


def serve() -> None:
    """Child process: a `FakeChatServer` that answers ``ANSWER`` at once; prints its URL."""
    from tests.support.fake_server import FakeChatServer, fixed

    server = FakeChatServer(responder=fixed(ANSWER)).start()
    print(server.url, flush=True)
    while True:
        time.sleep(3600)


def start_server() -> tuple[subprocess.Popen[str], str]:
    proc = subprocess.Popen(
        [sys.executable, __file__, "--serve"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True
    )
    assert proc.stdout is not None
    return proc, proc.stdout.readline().strip()


class InstantModel:
    """The answer at once, in process: what a decision costs with no client at all (the tests'
    `ScriptedModel` would not do: it validates and keeps every request, which costs more than the
    agent's own work)."""

    name = "instant"

    async def generate(
        self,
        messages: list[Message],
        *,
        structured: StructuredOutput | None = None,
        max_tokens: int = 256,
        temperature: float = 0.0,
        seed: int | None = None,
        grounding: Grounding | None = None,
    ) -> Completion:
        return Completion(text=ANSWER, model=self.name, prompt_tokens=42, completion_tokens=7, latency_s=0.0)


def eval_chain(url: str) -> Model:
    """The layers an evaluation puts around an API model (episode meter, run meter, request cap)."""
    backend = make_model(BACKEND, api_base=url)
    return MeteredModel(MeteredModel(LimitedModel(backend, asyncio.Semaphore(64))))


@dataclass(frozen=True)
class Side:
    """One loop's figures: decisions made and the process CPU they took."""

    decisions: int
    cpu_s: float

    @property
    def ms(self) -> float:
        return 1000 * self.cpu_s / self.decisions


async def decide(
    model: Model, env: envs.OvercookedEnv, decisions: int, warm_up: int, profile: cProfile.Profile | None = None
) -> Side:
    """``decisions`` decisions of a fresh agent from the first state, after ``warm_up`` untimed ones."""
    agent = ProAgent(AgentConfig(), model, OvercookedDomain(), env)
    first = env.symbolic(env.jit_reset(jax.random.PRNGKey(0)))
    obs = Observation(0, first, None, None, 0.0)
    agent.reset(0, 0, obs)
    for _ in range(warm_up):
        await agent.act(obs, ())
    before = agent.stats.decisions
    if profile is not None:
        profile.enable()
    started = time.process_time()
    for _ in range(decisions):
        await agent.act(obs, ())
    cpu = time.process_time() - started
    if profile is not None:
        profile.disable()
    made = agent.stats.decisions - before
    if made != decisions or agent.stats.parse_failures or agent.stats.fallbacks:
        raise RuntimeError(f"expected {decisions} clean decisions, got {made} ({agent.stats})")
    return Side(made, cpu)


@dataclass(frozen=True)
class Results:
    loopback: Side
    in_process: Side

    @property
    def client_ms(self) -> float:
        return self.loopback.ms - self.in_process.ms

    @property
    def ratio(self) -> float:
        return self.client_ms / self.in_process.ms


def measure(decisions: int, warm_up: int = WARM_UP, profile: cProfile.Profile | None = None) -> Results:
    """Both sides in this process, the server in another; ``profile`` covers the loopback side only."""
    env = envs.make(LAYOUT)
    proc, url = start_server()
    try:
        loopback = asyncio.run(decide(eval_chain(url), env, decisions, warm_up, profile))
    finally:
        proc.kill()
        proc.wait()
    in_process = asyncio.run(decide(InstantModel(), env, decisions, warm_up))
    return Results(loopback, in_process)


def report(r: Results) -> str:
    verdict = "OK" if r.client_ms <= TARGET_CLIENT_MS else "MISSED"
    return "\n".join(
        [
            f"decision CPU: ProAgent on {LAYOUT}, {r.loopback.decisions} decisions per side (process_time)",
            f"  loopback server over HTTP:    {r.loopback.ms:7.3f} ms CPU per decision",
            f"  in-process answer (agent):    {r.in_process.ms:7.3f} ms CPU per decision",
            f"  client side:                  {r.client_ms:7.3f} ms CPU per decision (target <= {TARGET_CLIENT_MS} ms)",
            f"  client / agent:               {r.ratio:7.2f}",
            f"verdict: client {r.client_ms:.3f} ms {verdict}",
        ]
    )


def top_functions(profile: cProfile.Profile, limit: int) -> str:
    """The ``limit`` functions with the most cumulative CPU, as pstats prints them."""
    out = io.StringIO()
    pstats.Stats(profile, stream=out).sort_stats("cumulative").print_stats(limit)
    return out.getvalue()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--decisions", type=int, default=400, help="timed decisions per side (default 400)")
    parser.add_argument("--profile", type=int, default=0, help="print the N costliest functions of the loopback side")
    parser.add_argument("--serve", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        serve()
        return 0
    profile = cProfile.Profile(time.process_time) if args.profile else None
    results = measure(args.decisions, profile=profile)
    print(report(results))
    if profile is not None:
        print(top_functions(profile, args.profile))
    return 0 if results.client_ms <= TARGET_CLIENT_MS else 1


if __name__ == "__main__":
    sys.exit(main())
