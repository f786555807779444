"""CUBE speed: vmapped JAX batch env-steps/s against the plain NumPy reference, in the same run.

    python benchmarks/cube_speed.py                 # hard_4a, batch 4096 x 100 steps
    python benchmarks/cube_speed.py --quick         # smaller batch, fewer repeats
    python benchmarks/cube_speed.py --check         # also assert the JAX target
    python benchmarks/cube_speed.py --scenario medium_3a --scenario hard_8a

Both sides play the same scenario with the same pre-generated random actions (biased toward
pushing right, so pushes and deliveries happen). JAX: ``--steps`` steps of the vmapped ``step``
over ``--batch`` envs inside one jitted ``lax.scan`` (the training pattern), for the rolled
(default) and the unrolled step; ``step_batch`` called once per step from Python; and ``jit_step``
on one env from Python (the LLM agent loop). NumPy: the reference's ``step`` (no events) in a
Python loop over one env, reset when done. Everything is compiled before it is timed; each figure
is the median of ``--repeats``. As a cross-check, env 0 of each JAX batch must end in the same
state as the reference fed the same actions.

Target: the default JAX batch (vmap + scan) reaches >= 100k env-steps/s on 2 CPU cores.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass

import jax
import jax.numpy as jnp
import numpy as np

from envs.cube import CubeEnv, CubeEnvState, ReferenceCube, Scenario, make

TARGET = 100_000  # env-steps/s for the default (rolled) JAX batch
ACTION_P = (0.15, 0.15, 0.15, 0.15, 0.4)  # stay, up, down, left, right


@dataclass(frozen=True)
class Row:
    scenario: str
    impl: str
    batch: int
    steps_per_s: float
    numpy_steps_per_s: float
    target: float | None = None

    @property
    def ratio(self) -> float:
        return self.steps_per_s / self.numpy_steps_per_s

    @property
    def passed(self) -> bool:
        return self.target is None or self.steps_per_s >= self.target


def random_actions(shape: tuple[int, ...], seed: int = 0) -> np.ndarray:
    return np.random.default_rng(seed).choice(5, size=shape, p=ACTION_P).astype(np.int32)


def median_time(fn: Callable[[], object], repeats: int) -> float:
    fn()  # warm up (compile, caches)
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        jax.block_until_ready(fn())
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def scan_rollout(env: CubeEnv) -> Callable:
    """jit(states, actions (T, N, A)) -> (final states, summed rewards): the whole rollout in XLA."""
    vstep = jax.vmap(env.step)

    def rollout(keys, states, actions):
        def body(carry, a):
            s, total = carry
            tr = vstep(keys, s, a)
            return (tr.state, total + tr.reward), None

        return jax.lax.scan(body, (states, jnp.zeros(keys.shape[0], jnp.float32)), actions)[0]

    return jax.jit(rollout)


def bench_jax(env: CubeEnv, actions: np.ndarray, repeats: int) -> tuple[float, float, CubeEnvState]:
    """(scan env-steps/s, per-step-dispatch env-steps/s, final states of the scan)."""
    steps, batch = actions.shape[:2]
    keys = jax.random.split(jax.random.PRNGKey(0), batch)
    states = env.reset_batch(keys)
    acts = jnp.asarray(actions)
    rollout = scan_rollout(env)
    scan_s = median_time(lambda: rollout(keys, states, acts), repeats)
    final, _ = rollout(keys, states, acts)

    def loop():
        s = states
        for t in range(steps):
            s = env.step_batch(keys, s, acts[t]).state
        return s

    loop_s = median_time(loop, repeats)
    return steps * batch / scan_s, steps * batch / loop_s, final


def bench_single(env: CubeEnv, actions: np.ndarray, repeats: int) -> float:
    """Env-steps/s of ``jit_step`` on env 0's actions, one dispatch and host sync per step."""
    start = env.jit_reset(jax.random.PRNGKey(0))
    acts = [jnp.asarray(a) for a in actions[:, 0]]

    def loop():
        s = start
        for a in acts:
            s = jax.block_until_ready(env.jit_step(None, s, a).state)
        return s

    return len(acts) / median_time(loop, repeats)


def bench_numpy(env: CubeEnv, actions: np.ndarray, min_steps: int, repeats: int) -> float:
    """Env-steps/s of the reference over one env, cycling through env 0's actions."""
    ref = ReferenceCube(env.scenario)
    env0 = actions[:, 0]
    laps = max(1, -(-min_steps // len(env0)))

    def loop():
        state = ref.reset()
        for _ in range(laps):
            for a in env0:
                state = ref.step(state, a, record_events=False).state
                state = ref.reset() if state.done else state
        return state

    return laps * len(env0) / median_time(loop, repeats)


def cross_check(env: CubeEnv, actions: np.ndarray, final: CubeEnvState) -> None:
    ref = ReferenceCube(env.scenario)
    state = ref.reset()
    for a in actions[:, 0]:
        state = ref.step(state, a, record_events=False).state
    for field in CubeEnvState._fields:
        if not np.array_equal(np.asarray(getattr(final, field))[0], getattr(state, field)):
            raise AssertionError(f"{env.name}: JAX batch env 0 and the NumPy reference differ in {field}")


def run(scenarios: list[str | Scenario], batch: int, steps: int, repeats: int, numpy_steps: int) -> list[Row]:
    rows: list[Row] = []
    for spec in scenarios:
        rolled, unrolled = make(spec), make(spec, unroll=True)
        name = rolled.name
        actions = random_actions((steps, batch, rolled.scenario.agent_capacity))
        numpy_sps = bench_numpy(rolled, actions, numpy_steps, repeats)
        scan_r, loop_r, final = bench_jax(rolled, actions, repeats)
        cross_check(rolled, actions, final)
        scan_u, _, final_u = bench_jax(unrolled, actions, repeats)
        cross_check(unrolled, actions, final_u)
        rows += [
            Row(name, "jax vmap+scan (default, rolled)", batch, scan_r, numpy_sps, TARGET),
            Row(name, "jax vmap+scan, unrolled step", batch, scan_u, numpy_sps),
            Row(name, "jax step_batch once per step", batch, loop_r, numpy_sps),
            Row(name, "jax jit_step, 1 env, host sync", 1, bench_single(rolled, actions, repeats), numpy_sps),
            Row(name, "numpy reference, 1 env", 1, numpy_sps, numpy_sps),
        ]
    return rows


def format_table(rows: list[Row], header: str) -> str:
    lines = [
        header,
        f"{'scenario':<11} {'implementation':<36} {'batch':>6} {'env-steps/s':>13} {'vs numpy':>9}  target",
    ]
    for r in rows:
        target = "" if r.target is None else (f">= {r.target:,.0f} " + ("ok" if r.passed else "MISSED"))
        line = f"{r.scenario:<11} {r.impl:<36} {r.batch:>6} {r.steps_per_s:>13,.0f} {r.ratio:>8.1f}x  {target}"
        lines.append(line.rstrip())
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--scenario", action="append", help="scenario spec (repeatable); default hard_4a")
    parser.add_argument("--batch", type=int, default=4096)
    parser.add_argument("--steps", type=int, default=100, help="scan length (steps per timed rollout)")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--numpy-steps", type=int, default=2000, help="reference steps per timed pass")
    parser.add_argument("--quick", action="store_true", help="batch 1024, 50 steps, 2 repeats, 1000 numpy steps")
    parser.add_argument("--check", action="store_true", help=f"exit 1 unless the default JAX batch >= {TARGET:,}")
    args = parser.parse_args(argv)
    if args.quick:
        args.batch, args.steps, args.repeats, args.numpy_steps = 1024, 50, 2, 1000
    scenarios = args.scenario or ["hard_4a"]
    rows = run(scenarios, args.batch, args.steps, args.repeats, args.numpy_steps)
    device = f"{jax.devices()[0].platform}, {os.cpu_count()} CPU cores visible, jax {jax.__version__}"
    print(format_table(rows, header=f"CUBE env-steps/s ({device})"))
    if args.check and not all(r.passed for r in rows):
        print(f"FAILED: the JAX batch is below {TARGET:,} env-steps/s", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
