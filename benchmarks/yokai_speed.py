"""Yōkai speed: vmapped JAX env-steps/s under random legal play against the plain NumPy reference.

    python benchmarks/yokai_speed.py                  # 9c_2p and 16c_2p, 512/1024/2048 envs x 100 steps
    python benchmarks/yokai_speed.py --quick          # 64/128 envs x 20 steps, 1 repeat
    python benchmarks/yokai_speed.py --layout 16c_3p --batch 2048

Random legal play as in the paper's Table 1: each step the acting player draws uniformly among its
legal actions (``state.legal``, recomputed by every step, so the cost of the vectorised legal-move
search is in every figure), finished games restart from a fresh deal. JAX: ``--steps`` steps of the
vmapped ``step`` (with the draw and the restart) inside one jitted ``lax.scan``, compiled before it
is timed, median of ``--repeats``. NumPy: the reference stepping one env in a Python loop with the
same policy. As a cross-check, env 0's actions are replayed on the reference until its first game
ends, and the two must reach the same state.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass

import jax
import jax.numpy as jnp
import numpy as np

from envs.yokai import ReferenceYokai, YokaiEnv, YokaiState, make

BATCHES = (512, 1024, 2048)


@dataclass(frozen=True)
class Row:
    layout: str
    batch: int
    steps_per_s: float
    numpy_steps_per_s: float

    @property
    def ratio(self) -> float:
        return self.steps_per_s / self.numpy_steps_per_s


def scan_rollout(env: YokaiEnv, steps: int) -> Callable:
    """jit(keys (N, 2)) -> (final states, env 0's (actions, states after) per step)."""

    def one(key: jax.Array, state: YokaiState) -> tuple[YokaiState, jax.Array, YokaiState]:
        k_act, k_reset = jax.random.split(key)
        action = jax.random.categorical(k_act, jnp.where(state.legal, 0.0, -jnp.inf)).astype(jnp.int32)
        actions = jnp.full(env.num_agents, env.layout.noop, jnp.int32).at[state.player].set(action)
        tr = env.step(k_act, state, actions)
        fresh = env.reset(k_reset)
        return jax.tree.map(lambda f, s: jnp.where(tr.done, f, s), fresh, tr.state), actions, tr.state

    def rollout(keys: jax.Array):
        def body(states, k):
            nxt, actions, after = jax.vmap(one)(jax.vmap(lambda i: jax.random.fold_in(k, i))(jnp.arange(keys.shape[0])), states)
            return nxt, (actions[0], jax.tree.map(lambda x: x[0], after))

        states = jax.vmap(env.reset)(keys)
        return jax.lax.scan(body, states, jax.random.split(keys[0], steps))

    return jax.jit(rollout)


def median_time(fn: Callable[[], object], repeats: int) -> float:
    jax.block_until_ready(fn())  # warm up (compile, caches)
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        jax.block_until_ready(fn())
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def bench_numpy(env: YokaiEnv, steps: int, repeats: int) -> float:
    """Env-steps/s of the reference over one env under the same random legal policy."""
    ref = ReferenceYokai(env.config, env.params)

    def loop() -> YokaiState:
        rng = np.random.default_rng(0)
        state = ref.deal(rng)
        actions = np.full(env.num_agents, env.layout.noop, np.int32)
        for _ in range(steps):
            actions[int(state.player)] = rng.choice(np.flatnonzero(state.legal))
            state = ref.step(state, actions).state
            actions[:] = env.layout.noop
            state = ref.deal(rng) if state.done else state
        return state

    return steps / median_time(loop, repeats)


def cross_check(env: YokaiEnv, keys: jax.Array, actions: np.ndarray, after: YokaiState) -> None:
    """Replay env 0 on the reference from the same deal until its first game ends."""
    ref = ReferenceYokai(env.config, env.params)
    start = jax.tree.map(lambda x: np.asarray(x[0]), jax.vmap(env.reset)(keys[:1]))
    state = ref.start(start.card_colour, start.hint_colours)
    for t in range(len(actions)):
        state = ref.step(state, actions[t]).state
        jax_state = YokaiState(*(np.asarray(x[t]) for x in after))
        for field in YokaiState._fields:
            if not np.array_equal(np.asarray(getattr(state, field)), getattr(jax_state, field)):
                raise AssertionError(f"{env.name}: JAX env 0 and the NumPy reference differ in {field} at step {t}")
        if state.done:
            return


def run(layouts: list[str], batches: tuple[int, ...], steps: int, repeats: int, numpy_steps: int) -> list[Row]:
    rows: list[Row] = []
    for name in layouts:
        env = make(name)
        numpy_sps = bench_numpy(env, numpy_steps, repeats)
        for batch in batches:
            keys = jax.random.split(jax.random.PRNGKey(batch), batch)
            rollout = scan_rollout(env, steps)
            seconds = median_time(lambda rollout=rollout, keys=keys: rollout(keys), repeats)
            _, (actions, after) = rollout(keys)
            cross_check(env, keys, np.asarray(actions), jax.device_get(after))
            rows.append(Row(env.name, batch, steps * batch / seconds, numpy_sps))
    return rows


def format_table(rows: list[Row], header: str) -> str:
    lines = [header, f"{'layout':<8} {'envs':>6} {'jax env-steps/s':>16} {'numpy env-steps/s':>18} {'ratio':>8}"]
    for r in rows:
        lines.append(f"{r.layout:<8} {r.batch:>6} {r.steps_per_s:>16,.0f} {r.numpy_steps_per_s:>18,.0f} {r.ratio:>7.1f}x")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--layout", action="append", help="layout name (repeatable); default 9c_2p and 16c_2p")
    parser.add_argument("--batch", type=int, action="append", help=f"parallel envs (repeatable); default {BATCHES}")
    parser.add_argument("--steps", type=int, default=100, help="scan length (steps per timed rollout)")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--numpy-steps", type=int, default=1000, help="reference steps per timed pass")
    parser.add_argument("--quick", action="store_true", help="64 and 128 envs, 20 steps, 1 repeat, 200 numpy steps")
    args = parser.parse_args(argv)
    batches = tuple(args.batch or BATCHES)
    if args.quick:
        batches, args.steps, args.repeats, args.numpy_steps = (64, 128), 20, 1, 200
    rows = run(args.layout or ["9c_2p", "16c_2p"], batches, args.steps, args.repeats, args.numpy_steps)
    device = f"{jax.devices()[0].platform} ({platform.processor() or platform.machine()}), {os.cpu_count()} CPU cores visible"
    print(format_table(rows, header=f"Yōkai env-steps/s, random legal play ({device}, jax {jax.__version__})"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
