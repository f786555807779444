"""Does `proagent eval --executor ray` pay off? Two grids, both measured in the same process run.

    python benchmarks/scale_out.py            # 16 API-bound episodes x 400 steps, 8 CPU-bound decisions, 3 repeats
    python benchmarks/scale_out.py --quick    # 4 episodes x 5 steps, API grid only, 1 repeat, no warm-up

(1) API-bound: ProAgent through the real HTTP path (litellm to the tests' loopback `FakeChatServer`,
    answering after ``--delay`` seconds) with the greedy partner on cramped_room, ``--episodes``
    episodes of ``--horizon`` steps, all in flight. Each variant is the command a user types, run
    as its own process: `proagent eval` (local), and the same with ``--executor ray --ray-address``
    joining a running one-node cluster (2 CPUs: 2 worker processes), as after `ray start --head`.
    Both walls hold what a run pays from the command on (imports, resolving the grid, compiling the
    env); Ray's also holds starting its worker processes, their imports, resolves and compiles.
    Reported: wall(ray) / wall(local). Target: <= 1.10. Ray's extra is fixed per run, not per
    episode, so the ratio depends on the grid's length: the default is a small but real API-bound
    grid (16 episodes of ProAgent's 400 steps, answers in 0.5 s, a hosted model's usual time for a
    short JSON answer); the extra seconds per run are printed beside it.
(2) CPU-bound: the embedded model (bundled SmolLM2 via llama.cpp, state cache off so every call
    evaluates its whole prompt) answering ``--decisions`` constrained decisions, in one Ray worker
    process vs split over two. Every process runs llama.cpp with one thread (``n_threads=1``, the
    baseline too), so two processes use the 2 cores without oversubscribing them and the speed-up
    measures scale-out, not threading. Models are loaded before timing. Target: >= 1.7 on 2 cores.

Variants are interleaved (local, ray, local, ray, ...) and repeated ``--repeats`` times so that other
load on the machine hits both alike; the table shows medians and the spread (min-max) of each ratio.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests.support (never tests/ itself)

import ray

from tests.support.fake_server import FakeChatServer
from tests.support.loopback import loopback_args
from tests.support.responders.overcooked import overcooked_answer

TARGET_OVERHEAD = 1.10
TARGET_SPEEDUP = 1.7
WORKERS = 2
RULES = 3  # rules in the CPU grid's system prompt (~200 tokens): seconds per decision on one thread
# What Ray's worker processes inherit: no usage reporting, and the JAX compilation cache of the
# driver so a worker's env compile costs what a local run's does.
WORKER_ENV = {
    "RAY_USAGE_STATS_ENABLED": "0",
    "JAX_COMPILATION_CACHE_DIR": str(Path(__file__).resolve().parents[1] / ".cache" / "jax-bench"),
    "JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS": "0",
}


@dataclass
class Ratio:
    """One ratio's repeats: the median is what is reported, the spread says how far to trust it."""

    name: str
    values: list[float]
    target: str

    @property
    def median(self) -> float:
        return statistics.median(self.values)

    def row(self) -> str:
        spread = f"{min(self.values):.2f}-{max(self.values):.2f}"
        return f"| {self.name:<34} | {self.median:6.2f}x | {spread:>11} | {len(self.values):>7} | {self.target:<7} |"


def eval_argv(url: str, episodes: int, horizon: int, ray_address: str | None, runs: str) -> list[str]:
    """The `proagent eval` command line of the API-bound grid (a test parses it, so a renamed flag
    fails there and not first in a benchmark run)."""
    grid = ["--agents", "proagent", "--partners", "greedy", "--layouts", "cramped_room", "--seats", "0"]
    sizes = ["--episodes", str(episodes), "--horizon", str(horizon), "--concurrency", str(episodes)]
    executor = ["--executor", "ray", "--ray-address", ray_address] if ray_address else []
    return ["eval", *grid, *sizes, *loopback_args(url), *executor, "--progress", "off", "--runs-dir", runs]


def eval_wall(url: str, episodes: int, horizon: int, ray_address: str | None) -> float:
    """Wall time of one `proagent eval` of the API-bound grid, a process of its own from start to
    exit (run folder in a temporary dir); on the cluster at ``ray_address`` when given."""
    with tempfile.TemporaryDirectory() as runs:
        argv = eval_argv(url, episodes, horizon, ray_address, runs)
        command = [sys.executable, "-c", "import sys; from proagent.cli import main; sys.exit(main())", *argv]
        started = time.perf_counter()
        done = subprocess.run(command, capture_output=True, text=True, check=False)  # its tables are not ours
        wall = time.perf_counter() - started
    if done.returncode != 0:
        raise RuntimeError(f"proagent eval exited {done.returncode}: {' '.join(argv)}\n{done.stderr[-2000:]}")
    return wall


def api_grid(
    delay: float, episodes: int, horizon: int, repeats: int, warm_up: bool = True
) -> tuple[Ratio, list[float], list[float]]:
    """Interleaved local and Ray commands of the API-bound grid; one short warm-up of each first
    (the compilation cache, the OS's file cache) so that repeats compare steady states."""
    address = ray.get_runtime_context().gcs_address
    with FakeChatServer(delay_s=delay, responder=overcooked_answer) as server:
        if warm_up:
            eval_wall(server.url, 1, 5, None)
            eval_wall(server.url, 1, 5, address)
        local, remote = [], []
        for _ in range(repeats):
            local.append(eval_wall(server.url, episodes, horizon, None))
            remote.append(eval_wall(server.url, episodes, horizon, address))
            print(f"  api grid: local {local[-1]:.2f}s  ray {remote[-1]:.2f}s", flush=True)
    ratios = [r / lo for r, lo in zip(remote, local, strict=True)]
    return Ratio("API-bound: wall(ray)/wall(local)", ratios, f"<= {TARGET_OVERHEAD}"), local, remote


class Decider:
    """A Ray actor holding one embedded model (one llama.cpp thread, no state cache): each
    `decide` is a full prompt evaluation plus a short constrained answer, i.e. pure CPU work."""

    def __init__(self) -> None:
        from proagent.llm.embedded import EmbeddedModel

        self._model = EmbeddedModel(n_threads=1, state_cache_mb=0)
        asyncio.run(self._model.preload())

    def ready(self) -> bool:
        return True

    def decide(self, steps: list[int]) -> int:
        """Answer one decision per step; returns the completion tokens produced (a sanity check)."""
        from embedded_prefix import SCHEMA, state_prompt, system_prompt  # benchmarks/ is on the workers' path

        from proagent.llm.types import Message

        produced = 0
        for step in steps:
            self._model.llama.reset()  # the next call evaluates its whole prompt
            system = Message(role="system", content=system_prompt(RULES))
            messages = [system, Message(role="user", content=state_prompt(step))]
            produced += asyncio.run(self._model.generate(messages, structured=SCHEMA, max_tokens=48)).completion_tokens
        return produced


def cpu_wall(actors: list[ray.actor.ActorHandle], decisions: int) -> float:
    """Wall time of ``decisions`` decisions split evenly over ``actors``."""
    shares = [list(range(i, decisions, len(actors))) for i in range(len(actors))]
    started = time.perf_counter()
    ray.get([actor.decide.remote(share) for actor, share in zip(actors, shares, strict=True)])
    return time.perf_counter() - started


def cpu_grid(decisions: int, repeats: int) -> tuple[Ratio, list[float], list[float]]:
    """Interleaved one-worker and two-worker runs of the CPU-bound grid (models loaded first)."""
    remote = ray.remote(Decider).options(num_cpus=1)
    actors = [remote.remote() for _ in range(WORKERS)]
    ray.get([actor.ready.remote() for actor in actors])
    cpu_wall(actors, WORKERS)  # warm-up: grammar compile, first touch of the weights in each process
    one, two = [], []
    for _ in range(repeats):
        one.append(cpu_wall(actors[:1], decisions))
        two.append(cpu_wall(actors, decisions))
        print(f"  cpu grid: 1 worker {one[-1]:.2f}s  {WORKERS} workers {two[-1]:.2f}s", flush=True)
    for actor in actors:
        ray.kill(actor)
    ratios = [a / b for a, b in zip(one, two, strict=True)]
    return Ratio(f"CPU-bound: speed-up {WORKERS} vs 1 worker", ratios, f">= {TARGET_SPEEDUP}"), one, two


def start_ray() -> None:
    """A local one-node cluster of ``WORKERS`` CPUs that the eval commands join and the actors
    share; the project (the tests' loopback double) and the benchmarks directory (the embedded
    decision's prompts) are importable in its workers and in the commands."""
    os.environ.update(WORKER_ENV)
    here = Path(__file__).resolve().parent
    paths = (str(here), str(here.parent), os.environ.get("PYTHONPATH", ""))
    os.environ["PYTHONPATH"] = os.pathsep.join(p for p in paths if p)
    ray.init(address="local", num_cpus=WORKERS, include_dashboard=False, log_to_driver=True, logging_level="WARNING")


def report(ratios: list[Ratio], walls: dict[str, list[float]]) -> None:
    print(f"\nmachine: {platform.node()} {platform.machine()}, {os.cpu_count()} cores (shared), Python "
          f"{platform.python_version()}, Ray {ray.__version__}, loadavg {os.getloadavg()[0]:.2f}")  # fmt: skip
    for name, values in walls.items():
        print(f"  {name:<18} median {statistics.median(values):6.2f}s  ({', '.join(f'{v:.2f}' for v in values)})")
    if "api ray" in walls:  # Ray's cost per run is mostly fixed (actors, imports, env compile in each)
        extra = statistics.median(r - lo for r, lo in zip(walls["api ray"], walls["api local"], strict=True))
        print(
            f"  ray's extra wall per run: median {extra:.2f}s; a local run of >= {extra / (TARGET_OVERHEAD - 1):.0f}s "
            f"would meet <= {TARGET_OVERHEAD}x"
        )
    print("\n| ratio                              | median  | spread      | repeats | target  |")
    print("|------------------------------------|---------|-------------|---------|---------|")
    for ratio in ratios:
        print(ratio.row())


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--quick", action="store_true", help="tiny API grid only, one repeat, no warm-up")
    p.add_argument("--delay", type=float, default=0.5, help="seconds the loopback LLM takes per answer")
    p.add_argument("--episodes", type=int, default=16)
    p.add_argument("--horizon", type=int, default=400)
    p.add_argument("--decisions", type=int, default=8, help="CPU grid: embedded decisions per run")
    p.add_argument("--repeats", type=int, default=3)
    args = p.parse_args(argv)
    if args.quick:
        args.episodes, args.horizon, args.repeats = 4, 5, 1
    start_ray()
    try:
        api, local, remote = api_grid(args.delay, args.episodes, args.horizon, args.repeats, warm_up=not args.quick)
        ratios, walls = [api], {"api local": local, "api ray": remote}
        if not args.quick:
            cpu, one, two = cpu_grid(args.decisions, args.repeats)
            ratios.append(cpu)
            walls.update({"cpu 1 worker": one, f"cpu {WORKERS} workers": two})
    finally:
        ray.shutdown()
    report(ratios, walls)


if __name__ == "__main__":
    main()
