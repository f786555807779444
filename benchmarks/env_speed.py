"""How much does our env layer cost over raw JaxMARL OvercookedV2? Steps per second, same run.

    python benchmarks/env_speed.py            # full (about a minute on 2 CPU cores)
    python benchmarks/env_speed.py --quick    # fewer repeats and loop steps

Both sides play the same kitchen (our counter_circuit, the legacy grid) with the same pre-generated
random actions (ours in our action vocabulary, raw in the engine's, mapped before timing), from
the same reset keys. Everything is compiled (warmed up) before it is timed; each figure is the
median of several repeats.

(a) One env stepped from a Python loop, the LLM agent loop pattern: one jitted call per step and
    the host waits for its result (block_until_ready) before the next step, as an agent that reads
    the state each step does. Ours = ``env.jit_step`` then ``env.jit_observe`` (two dispatches);
    raw = ``jax.jit(OvercookedV2.step_env)``, which computes the observation inside. Also ours
    without observe (for reference).
(b) A vmapped batch of N envs stepped ``--scan-steps`` times inside one jitted ``jax.lax.scan``.
    Ours = vmap of ``env.step`` + ``env.observe``; raw = vmap of ``step_env``. Every side sums
    rewards and observations into the carry (so XLA cannot drop the observation work) and the sums
    must agree exactly. For reference also the engine core: vmap of ``step_agents`` +
    ``get_obs_default``, which is what any wrapper has to run (``step_env`` adds a per-agent
    observation dict that costs XLA some fusion).

Targets: our layer costs <= 25% over raw in (a) and <= 10% in (b) (cost = raw steps/s / ours - 1).
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

import envs
from envs.overcooked import engine
from envs.overcooked.actions import TO_ENGINE

LAYOUT = "counter_circuit"
TARGET_LOOP = 0.25
TARGET_SCAN = 0.10
OURS_TO_ENGINE = np.asarray(TO_ENGINE)  # our action index -> the engine's


@dataclass(frozen=True)
class Row:
    pattern: str
    ours: float  # steps/s
    raw: float  # steps/s
    target: float | None  # max allowed cost over raw, None = reference only

    @property
    def ratio(self) -> float:
        return self.ours / self.raw

    @property
    def cost(self) -> float:
        """Extra time per step of ours over raw (0.10 = 10% slower)."""
        return self.raw / self.ours - 1.0

    @property
    def verdict(self) -> str:
        if self.target is None:
            return ""
        return "ok" if self.cost <= self.target else "OVER"


@dataclass
class Pair:
    ours: envs.OvercookedEnv
    raw: engine.OvercookedV2


def build(layout: str = LAYOUT, ours: envs.OvercookedEnv | None = None) -> Pair:
    """Our env and a raw JaxMARL OvercookedV2 on the very same kitchen and horizon."""
    ours = ours or envs.make(layout)
    raw = engine.OvercookedV2(layout=ours.engine.layout, max_steps=ours.dynamics.horizon)
    return Pair(ours, raw)


def random_actions(shape: tuple[int, ...], seed: int = 0) -> np.ndarray:
    """Uniform over our six actions; ``OURS_TO_ENGINE[a]`` is the same joint action for the raw engine."""
    return np.random.default_rng(seed).integers(0, len(envs.Action), size=shape).astype(np.int32)


def median_time(run: Callable[[], object], repeats: int) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


# ---- (a) one env, Python loop ----


def loop_runners(pair: Pair, steps: int, seed: int = 0) -> dict[str, Callable[[], object]]:
    """Closures that each play ``steps`` steps from a reset, one jitted call (or two) per step."""
    ours, raw = pair.ours, pair.raw
    actions = random_actions((steps, ours.num_agents), seed)
    keys = list(jax.random.split(jax.random.PRNGKey(seed), steps))  # device arrays, sliced now
    ours_actions = [jnp.asarray(a) for a in actions]
    raw_actions = [{f"agent_{i}": jnp.asarray(OURS_TO_ENGINE[a[i]]) for i in range(raw.num_agents)} for a in actions]
    reset_key = jax.random.PRNGKey(seed + 1)
    ours_start = ours.jit_reset(reset_key)
    raw_start = jax.jit(raw.reset)(reset_key)[1]
    step, observe = ours.jit_step, ours.jit_observe
    raw_step = jax.jit(raw.step_env)

    def ours_step_observe():
        state = ours_start
        for key, action in zip(keys, ours_actions):
            tr = step(key, state, action)
            obs = observe(tr.state)
            jax.block_until_ready((tr, obs))
            state = tr.state
        return state

    def ours_step_only():
        state = ours_start
        for key, action in zip(keys, ours_actions):
            tr = step(key, state, action)
            jax.block_until_ready(tr)
            state = tr.state
        return state

    def raw_loop():
        state = raw_start
        for key, action in zip(keys, raw_actions):
            out = raw_step(key, state, action)
            jax.block_until_ready(out)
            state = out[1]
        return state

    return {"ours": ours_step_observe, "ours_step_only": ours_step_only, "raw": raw_loop}


def bench_loop(pair: Pair, steps: int, repeats: int) -> list[Row]:
    runners = loop_runners(pair, steps)
    for run in runners.values():  # one untimed pass: compiles, fills dispatch caches
        run()
    times: dict[str, list[float]] = {name: [] for name in runners}
    for _ in range(repeats):  # interleaved, so that a noisy neighbour slows every side alike
        for name, run in runners.items():
            times[name].append(median_time(run, 1))
    rate = {name: steps / statistics.median(t) for name, t in times.items()}
    return [
        Row("(a) loop: jit_step + jit_observe vs jit(step_env)", rate["ours"], rate["raw"], TARGET_LOOP),
        Row("(a) loop: jit_step only (no obs) vs jit(step_env)", rate["ours_step_only"], rate["raw"], None),
    ]


# ---- (b) vmapped batch inside lax.scan ----


def scan_rollouts(pair: Pair) -> dict[str, Callable]:
    """jitted (states, keys (T,N,2), actions (T,N,agents)) -> (final states, checksum), by name:
    "ours" (vmap of env.step + env.observe), "raw" (vmap of step_env), and "raw_core" (vmap of the
    engine's step_agents + get_obs_default: the engine's own work without step_env's per-agent
    observation dict, a lower bound for any wrapper)."""
    ours, raw = pair.ours, pair.raw
    to_engine = jnp.asarray(OURS_TO_ENGINE)

    def scan(body, states, keys, actions):
        """acc = (sum of rewards, sum of observations): equal on every side, and keeps obs alive."""
        (states, acc), _ = jax.lax.scan(body, (states, (jnp.float32(0), jnp.int32(0))), (keys, actions))
        return states, acc

    def add(acc, reward_sum, obs_sum):
        return acc[0] + reward_sum, acc[1] + obs_sum

    def total(obs):
        return jnp.sum(obs, dtype=jnp.int32)

    def ours_rollout(states, keys, actions):
        def body(carry, x):
            state, acc = carry
            key, action = x
            tr = jax.vmap(ours.step)(key, state, action)
            obs = jax.vmap(ours.observe)(tr.state)
            acc = add(acc, jnp.sum(tr.reward), total(obs))
            return (tr.state, acc), None

        return scan(body, states, keys, actions)

    def raw_rollout(states, keys, actions):
        def body(carry, x):
            state, acc = carry
            key, action = x
            action = to_engine[action]  # the engine's indices
            joint = {f"agent_{i}": action[:, i] for i in range(raw.num_agents)}
            obs, state, rewards, _, _ = jax.vmap(raw.step_env)(key, state, joint)
            acc = add(acc, jnp.sum(rewards["agent_0"]), sum(total(o) for o in obs.values()))
            return (state, acc), None

        return scan(body, states, keys, actions)

    def raw_core_rollout(states, keys, actions):
        def body(carry, x):
            state, acc = carry
            key, action = x
            state, reward, _ = jax.vmap(raw.step_agents)(key, state, to_engine[action])
            state = state.replace(step=state.step + 1)
            obs = jax.vmap(raw.get_obs_default)(state)
            acc = add(acc, jnp.sum(reward), total(obs))
            return (state, acc), None

        return scan(body, states, keys, actions)

    return {"ours": jax.jit(ours_rollout), "raw": jax.jit(raw_rollout), "raw_core": jax.jit(raw_core_rollout)}


def bench_scan(
    pair: Pair, n_envs: int, steps: int, repeats: int, rollouts: dict | None = None, core: bool = True
) -> list[Row]:
    rollouts = dict(rollouts or scan_rollouts(pair))
    if not core:
        rollouts.pop("raw_core")
    reset_keys = jax.random.split(jax.random.PRNGKey(2), n_envs)
    ours_states = jax.jit(jax.vmap(pair.ours.reset))(reset_keys)
    raw_states = jax.jit(jax.vmap(lambda k: pair.raw.reset(k)[1]))(reset_keys)
    keys = jax.random.split(jax.random.PRNGKey(3), steps * n_envs).reshape(steps, n_envs, -1)
    actions = jnp.asarray(random_actions((steps, n_envs, pair.ours.num_agents), seed=4))
    inputs = {"ours": ours_states, "raw": raw_states, "raw_core": raw_states}
    runs = {
        name: (lambda f=f, s=inputs[name]: jax.block_until_ready(f(s, keys, actions)))
        for name, f in rollouts.items()
    }
    checksums = {name: tuple(float(x) for x in run()[1]) for name, run in runs.items()}  # compiles
    if len(set(checksums.values())) != 1:
        raise AssertionError(f"the rollouts disagree (sum of rewards and observations): {checksums}")
    # interleave the repeats so that a noisy neighbour slows every side alike
    times: dict[str, list[float]] = {name: [] for name in runs}
    for _ in range(repeats):
        for name, run in runs.items():
            times[name].append(median_time(run, 1))
    rate = {name: n_envs * steps / statistics.median(t) for name, t in times.items()}
    pattern = f"(b) scan: vmap N={n_envs} x {steps} steps, step+obs vs step_env"
    rows = [Row(pattern, rate["ours"], rate["raw"], TARGET_SCAN)]
    if core:
        pattern = f"(b) scan: vmap N={n_envs}, vs engine core (no obs dict)"
        rows.append(Row(pattern, rate["ours"], rate["raw_core"], None))
    return rows


# ---- report ----


def run(
    layout: str = LAYOUT,
    loop_steps: int = 400,
    scan_sizes: tuple[int, ...] = (64, 1024),
    scan_steps: int = 100,
    repeats: int = 7,
    ours: envs.OvercookedEnv | None = None,
    core: bool = True,
) -> list[Row]:
    """All rows; ``core=False`` leaves out the engine-core reference rows of (b)."""
    pair = build(layout, ours)
    rows = bench_loop(pair, loop_steps, repeats)
    rollouts = scan_rollouts(pair)
    for n in scan_sizes:
        rows += bench_scan(pair, n, scan_steps, repeats, rollouts, core=core)
    return rows


def format_table(rows: list[Row], header: str = "") -> str:
    lines = [header] if header else []
    lines.append(f"{'pattern':54s} {'ours steps/s':>13s} {'raw steps/s':>13s} {'ours/raw':>9s} {'cost':>8s}  target")
    for r in rows:
        target = f"<= {r.target:.0%}  {r.verdict}" if r.target is not None else "(reference)"
        lines.append(f"{r.pattern:54s} {r.ours:13,.0f} {r.raw:13,.0f} {r.ratio:9.3f} {r.cost:+8.1%}  {target}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="fewer repeats and loop steps")
    parser.add_argument("--layout", default=LAYOUT)
    parser.add_argument("--repeats", type=int, default=None)
    parser.add_argument("--loop-steps", type=int, default=None)
    parser.add_argument("--scan-steps", type=int, default=100)
    parser.add_argument("--sizes", type=int, nargs="+", default=[64, 1024])
    args = parser.parse_args(argv)
    repeats = args.repeats or (3 if args.quick else 7)
    loop_steps = args.loop_steps or (200 if args.quick else 400)

    start = time.perf_counter()
    rows = run(args.layout, loop_steps, tuple(args.sizes), args.scan_steps, repeats)
    device = jax.devices()[0]
    header = (
        f"env_speed on {args.layout}: jax {jax.__version__}, {device.platform} ({device.device_kind}), "
        f"{os.cpu_count()} CPUs; median of {repeats} repeats; loop {loop_steps} steps"
    )
    print(format_table(rows, header))
    print(f"(total {time.perf_counter() - start:.0f} s including compiles)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
