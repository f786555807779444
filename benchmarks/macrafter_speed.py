"""MA-Crafter speed: env-steps/s of the JAX env for one env and for a vmapped batch.

    python benchmarks/macrafter_speed.py                    # emcoop (64x64, 3 agents), batch 1024 x 100 steps
    python benchmarks/macrafter_speed.py --quick            # batch 256, 50 steps, 2 repeats
    python benchmarks/macrafter_speed.py --scenario emcoop@6 --scenario medium_3a
    python benchmarks/macrafter_speed.py --quick --env collect_distance=2   # any rule, as --env in play

Every row plays the same pre-generated random actions (moves and DO most often, so agents walk,
collect and fail quorums; the rest spread over sleeping, placing, crafting and sharing):

- ``jax vmap+scan``: ``--steps`` steps of the vmapped ``step`` over ``--batch`` envs inside one
  jitted ``lax.scan`` (the training pattern);
- ``jax step_batch once per step``: the batched step called from Python each step;
- ``jax scan, 1 env``: one env's rollout inside one jitted scan;
- ``jax jit_step, 1 env, host sync``: one dispatch and host sync per step (the LLM agent loop);
- ``... + symbolic + events``: the same with the typed view and the events decoded each step,
  which is what an agent-facing episode pays per step;
- ``numpy reference, 1 env``: the plain NumPy restatement of EmCoop's step
  (`envs.macrafter.reference`), one env, on the same actions and the same draws: the baseline.

EmCoop's own env cannot run here (its code is not part of this project), so its speed is a stated,
measured constant: `EMCOOP_ENV_SLOWER` says how many times slower than this reference EmCoop's base
``Env.step`` ran when both were timed alternately on the same machine, `EMCOOP_COOP_ENV_SLOWER` the
same for its ``CooperativeEnv.step`` (see the constants). Each JAX row's ratio to EmCoop's env is its
ratio to the reference row of the same run times that factor, so a busy or a fast machine moves both
alike.

Everything is compiled before it is timed; each figure is the median of ``--repeats``; the last
lines give each JAX row's ratio to the reference row of its scenario. The rows are timed one after the
other, so a machine whose speed drifts between them moves the ratio (the reference row alone has
spread 2x over six runs in a row on a quiet 2-core box); the very last line times the vmap+scan row
and the reference back to back in pairs and gives the median of the pairs' ratios: the figure to
quote.
"""

from __future__ import annotations

import argparse
import functools
import os
import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass

import jax
import jax.numpy as jnp
import numpy as np

from envs.macrafter import Action, CrafterEnv, Scenario, make
from envs.macrafter.draws import step_draws
from envs.macrafter.reference import reference_step
from envs.macrafter.rules import NUM_ACTIONS, SHARE_BASE
from envs.macrafter.scenario import ScenarioError, load_scenario, with_settings
from envs.macrafter.state import CrafterState

MOVES_P, DO_P, SHARE_P = 0.4, 0.4, 0.05  # the rest is spread over sleeping, placing and crafting
REFERENCE = "numpy reference, 1 env"
# EmCoop's env, measured outside this project: the public repository HappyEureka/coop2-llm-mas,
# ma_crafter/macrafter (env.py, engine.py, objects.py, worldgen.py, coop_env.py, with Crafter's
# textures), at 64x64 with 3 players on this benchmark's actions (`random_actions((100, 1, 3))`, env 0),
# NumPy 2.4, numba 0.68, each side in its own process (one warm-up, median of 3 runs of 100 steps),
# alternated with this file's reference row on the same 2-core machine:
# - its base ``Env.step`` (object updates, chunk balancing, every player's view rendered), 7 pairs on
#   a quiet machine: the reference 14.4x to 15.8x faster, median 15.45x (7 pairs at load 6-7: 10.7x
#   to 20.1x, median 16.9x);
# - ``CooperativeEnv.step``, the env EmCoop's experiments step (that base step plus shares, quorum
#   collections, the task tracker and the symbolic world state, twice a step): 5 quiet pairs, 231x
#   to 246x, median 238x (with EmCoop's A* navigation importable, as its experiments run, slower
#   again: 367x at load 6-7).
EMCOOP_ENV_SLOWER = 15.45
EMCOOP_COOP_ENV_SLOWER = 238.0


@dataclass(frozen=True)
class Row:
    scenario: str
    impl: str
    batch: int
    steps_per_s: float


def random_actions(shape: tuple[int, ...], seed: int = 0) -> np.ndarray:
    p = np.zeros(NUM_ACTIONS)
    p[Action.SLEEP : SHARE_BASE] = (1 - MOVES_P - DO_P - SHARE_P) / (SHARE_BASE - Action.SLEEP)
    p[SHARE_BASE:] = SHARE_P / (NUM_ACTIONS - SHARE_BASE)
    p[[Action.LEFT, Action.RIGHT, Action.UP, Action.DOWN]] = MOVES_P / 4
    p[Action.DO] = DO_P
    return np.random.default_rng(seed).choice(NUM_ACTIONS, size=shape, p=p / p.sum()).astype(np.int32)


def once(fn: Callable[[], object]) -> float:
    """Seconds of one call, its results ready."""
    start = time.perf_counter()
    jax.block_until_ready(fn())
    return time.perf_counter() - start


def median_time(fn: Callable[[], object], repeats: int) -> float:
    jax.block_until_ready(fn())  # warm up (compile, caches)
    return statistics.median(once(fn) for _ in range(repeats))


def step_keys(steps: int, batch: int | None) -> jax.Array:
    """One key per step (and env): drawn before timing, so neither row times the key splitting."""
    keys = jax.random.split(jax.random.PRNGKey(1), steps * (batch or 1))
    return keys.reshape((steps, batch, -1) if batch else (steps, -1))


@functools.cache  # one compile per env and form: the paired figure reuses the row's scan
def scan_rollout(env: CrafterEnv, batched: bool) -> Callable:
    """jit(states, actions (T, [N,] A), keys (T, [N,] 2)) -> (final states, summed rewards)."""
    step = jax.vmap(env.step) if batched else env.step

    def rollout(states, actions, keys):
        def body(carry, xs):
            s, total = carry
            a, k = xs
            tr = step(k, s, a)
            return (tr.state, total + tr.reward), None

        zero = jnp.zeros(actions.shape[1] if batched else (), jnp.float32)
        return jax.lax.scan(body, (states, zero), (actions, keys))[0]

    return jax.jit(rollout)


def batch_inputs(env: CrafterEnv, actions: np.ndarray) -> tuple[CrafterState, jax.Array, jax.Array]:
    """The batch's first states, actions and keys (T, N, ...), made before any timing."""
    steps, batch = actions.shape[:2]
    states = env.reset_batch(jax.random.split(jax.random.PRNGKey(0), batch))
    return states, jnp.asarray(actions), step_keys(steps, batch)


def bench_batch(env: CrafterEnv, actions: np.ndarray, repeats: int, scan: bool) -> tuple[float, float]:
    """(scan env-steps/s or 0 when not ``scan``, step_batch-per-step env-steps/s) over the batch."""
    steps, batch = actions.shape[:2]
    states, acts, keys = batch_inputs(env, actions)
    rollout = scan_rollout(env, batched=True)
    scan_s = median_time(lambda: rollout(states, acts, keys), repeats) if scan else float("inf")
    per_step = [(acts[t], keys[t]) for t in range(steps)]  # sliced before timing

    def loop():
        s = states
        for a, k in per_step:
            s = env.step_batch(k, s, a).state
        return s

    return steps * batch / scan_s, steps * batch / median_time(loop, repeats)


def bench_single(env: CrafterEnv, actions: np.ndarray, repeats: int, scan: bool) -> tuple[float, float, float]:
    """(scan or 0, jit_step with host sync, jit_step + symbolic + events) env-steps/s on env 0's actions."""
    start = env.jit_reset(jax.random.PRNGKey(0))
    env0 = actions[:, 0]
    keys = step_keys(len(env0), None)
    rollout = scan_rollout(env, batched=False)
    run_scan = lambda: rollout(start, jnp.asarray(env0), keys)
    scan_s = median_time(run_scan, repeats) if scan else float("inf")
    acts = [jnp.asarray(a) for a in env0]
    key_list = [keys[t] for t in range(len(env0))]  # sliced before timing

    def loop():
        s = start
        for a, k in zip(acts, key_list, strict=True):
            s = jax.block_until_ready(env.jit_step(k, s, a).state)
        return s

    def agent_loop():
        s, view = start, env.symbolic(start)
        for a, raw, k in zip(acts, env0, key_list, strict=True):
            s = env.jit_step(k, s, a).state
            after = env.symbolic(s)
            env.events(view, raw.tolist(), after)
            view = after
        return s

    n = len(acts)
    return n / scan_s, n / median_time(loop, repeats), n / median_time(agent_loop, repeats)


def bench_reference(env: CrafterEnv, actions: np.ndarray, repeats: int) -> float:
    """Env-steps/s of the NumPy reference on env 0's actions and the JAX env's draws."""
    return len(actions) / median_time(reference_loop(env, actions), repeats)


def paired_scan_ratios(env: CrafterEnv, actions: np.ndarray, pairs: int) -> list[float]:
    """The vmap+scan row's env-steps/s over the reference row's, once per pair, the two timed back to
    back: on a machine whose speed drifts between the rows (the reference row alone, timed six
    times in a row, has spread 2x on a quiet 2-core box) both sides of a pair see the same machine."""
    steps, batch = actions.shape[:2]
    rollout, (states, acts, keys) = scan_rollout(env, batched=True), batch_inputs(env, actions)
    scan, reference = lambda: rollout(states, acts, keys), reference_loop(env, actions)
    once(scan), once(reference)  # compiled and warm before any pair
    return [(steps * batch / once(scan)) / (steps / once(reference)) for _ in range(pairs)]


def reference_loop(env: CrafterEnv, actions: np.ndarray) -> Callable[[], object]:
    """The NumPy reference's rollout of env 0's actions on the JAX env's draws, ready to call."""
    start = jax.tree.map(np.asarray, env.jit_reset(jax.random.PRNGKey(0)))
    env0 = actions[:, 0]
    keys = step_keys(len(env0), None)
    draws = [jax.tree.map(np.asarray, step_draws(k, env.settings.cow_capacity, env.rules.num_chunks)) for k in keys]

    def loop():
        s = start
        for a, d in zip(env0, draws, strict=True):
            s = reference_step(env.settings, s, a, d)[0]
        return s

    return loop


def run(
    scenarios: list[str | Scenario | CrafterEnv], batch: int, steps: int, repeats: int, scan: bool = True
) -> list[Row]:
    """Six rows per scenario (four without ``scan``, which skips compiling the two scans); an env
    passed in is reused with its compiled functions."""
    rows: list[Row] = []
    for spec in scenarios:
        env = spec if isinstance(spec, CrafterEnv) else make(spec)
        actions = random_actions((steps, batch, env.scenario.agent_capacity))
        scan_b, loop_b = bench_batch(env, actions, repeats, scan)
        scan_1, loop_1, agent_1 = bench_single(env, actions, repeats, scan)
        rows += [Row(env.name, "jax vmap+scan", batch, scan_b)] if scan else []
        rows += [Row(env.name, "jax step_batch once per step", batch, loop_b)]
        rows += [Row(env.name, "jax scan, 1 env", 1, scan_1)] if scan else []
        rows += [
            Row(env.name, "jax jit_step, 1 env, host sync", 1, loop_1),
            Row(env.name, "... + symbolic + events, 1 env", 1, agent_1),
            Row(env.name, REFERENCE, 1, bench_reference(env, actions, repeats)),
        ]
    return rows


def ratios(rows: list[Row]) -> list[str]:
    """Each JAX row's env-steps/s over its scenario's reference row, and over EmCoop's env (the
    reference row divided by `EMCOOP_ENV_SLOWER`)."""
    base = {r.scenario: r.steps_per_s for r in rows if r.impl == REFERENCE}
    return [
        f"{r.scenario}: {r.impl} = {r.steps_per_s / base[r.scenario]:,.1f}x the NumPy reference"
        f" = {r.steps_per_s / base[r.scenario] * EMCOOP_ENV_SLOWER:,.0f}x EmCoop's Env.step"
        for r in rows
        if r.impl != REFERENCE and r.scenario in base
    ]


def format_table(rows: list[Row], header: str) -> str:
    lines = [header, f"{'scenario':<11} {'implementation':<32} {'batch':>6} {'env-steps/s':>13}"]
    lines += [f"{r.scenario:<11} {r.impl:<32} {r.batch:>6} {r.steps_per_s:>13,.0f}" for r in rows]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--scenario", action="append", help="scenario spec (repeatable); default emcoop")
    parser.add_argument("--batch", type=int, default=1024)
    parser.add_argument("--steps", type=int, default=100, help="scan length (steps per timed rollout)")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--quick", action="store_true", help="batch 256, 50 steps, 2 repeats")
    parser.add_argument("--env", action="append", default=[], metavar="KEY=VALUE", help="a rule, as in play")
    args = parser.parse_args(argv)
    if args.quick:
        args.batch, args.steps, args.repeats = 256, 50, 2
    bad = [item for item in args.env if "=" not in item]
    if bad:
        print(f"error: --env {bad[0]}: expected KEY=VALUE", file=sys.stderr)
        return 2
    try:
        overrides = dict(item.split("=", 1) for item in args.env)
        scenarios = [with_settings(load_scenario(s), overrides) for s in args.scenario or ["emcoop"]]
    except ScenarioError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    envs = [make(sc) for sc in scenarios]
    rows = run(envs, args.batch, args.steps, args.repeats)
    device = f"{jax.devices()[0].device_kind}, {os.cpu_count()} CPU cores visible, jax {jax.__version__}"
    rules = f"; {', '.join(args.env)}" if args.env else ""
    print(format_table(rows, header=f"MA-Crafter env-steps/s ({device}{rules})"))
    print("\n".join(ratios(rows)))
    for env in envs:
        actions = random_actions((args.steps, args.batch, env.scenario.agent_capacity))
        print(paired_line(env.name, paired_scan_ratios(env, actions, pairs=max(5, args.repeats))))
    return 0


def paired_line(scenario: str, pairs: list[float]) -> str:
    """The vmap+scan row over the reference, timed in pairs: the figure to read on a machine whose speed drifts."""
    mid = statistics.median(pairs)
    return (
        f"{scenario}: jax vmap+scan / reference, timed back to back in {len(pairs)} pairs: median {mid:,.1f}x"
        f" (pairs {min(pairs):,.1f}x to {max(pairs):,.1f}x) = {mid * EMCOOP_ENV_SLOWER:,.0f}x EmCoop's Env.step"
        f" = {mid * EMCOOP_COOP_ENV_SLOWER:,.0f}x its CooperativeEnv.step"
    )


if __name__ == "__main__":
    sys.exit(main())
