"""PPO training speed (env-steps/s) of our trainer vs a straightforward JaxMARL baseline, same run.

    python benchmarks/train_speed.py [--layout cramped_room] [--num-envs 64] [--num-steps 256]
                                     [--updates 2] [--only fast,cnn,baseline]

- ``fast``: our self-play trainer (``trainer.make_self_play``: the population program with one
  learner in both seats) with the 1x1 encoder;
- ``cnn``: our trainer with the paper's CNN (5x5, 3x3, 3x3);
- ``pop-sp``, ``pop-br``, ``pop-rr4``: the population program (proagent.training.population, fast
  encoder) as self-play (1 learner), as a best response to an 8-member frozen pool (FCP/MEP stage
  2, COLE), and as a 4-learner round robin (PBT);
- ``baseline``: the same PPO update (GAE, 4 epochs x 16 minibatches) over raw JaxMARL OvercookedV2
  ``step`` (its auto-reset computes a reset every step) with JaxMARL IPPO's MLP (separate actor and
  critic, 64-64 tanh, over the flattened observation).

Every variant is compiled first (one warm-up each), then the variants take turns: in each of
``--repeats`` rounds (order rotated each round) each is timed over ``--updates`` whole PPO updates,
and its rollout alone (acting + env stepping) too. Run one after another, a variant's ratio moved
from 0.82x to 1.76x between runs as other load came and went; taking turns lets that load hit all
variants alike. Reported: median speeds, and each variant's ratio to the baseline as the median of
the rounds' ratios with its spread (min-max and the largest deviation from the median).
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable
from typing import Any

import flax.linen as nn
import jax
import jax.numpy as jnp
import numpy as np
import optax
from flax.linen.initializers import constant, orthogonal
from flax.training.train_state import TrainState

import envs
from proagent.domains.overcooked.rl_spec import OvercookedRLEnv, rl_env
from proagent.training.config import PPOConfig
from proagent.training.networks import NetworkConfig
from proagent.training.ppo import gae, ppo_epochs
from proagent.training.rollout import Trajectory, rollout
from proagent.training.trainer import make_self_play


class JaxMARLMLP(nn.Module):
    """JaxMARL IPPO-FF's actor-critic: two separate 64-64 tanh MLPs."""

    @nn.compact
    def __call__(self, obs):
        x = obs.reshape(obs.shape[0], -1).astype(jnp.float32)
        a = x
        for _ in range(2):
            a = nn.tanh(nn.Dense(64, kernel_init=orthogonal(np.sqrt(2)), bias_init=constant(0.0))(a))
        logits = nn.Dense(6, kernel_init=orthogonal(0.01), bias_init=constant(0.0))(a)
        c = x
        for _ in range(2):
            c = nn.tanh(nn.Dense(64, kernel_init=orthogonal(np.sqrt(2)), bias_init=constant(0.0))(c))
        return logits, nn.Dense(1, kernel_init=orthogonal(1.0), bias_init=constant(0.0))(c)[:, 0]


def make_baseline(config: PPOConfig, env: envs.OvercookedEnv):
    """init(key) -> carry, jitted update(carry) -> carry: PPO over jaxmarl's auto-resetting step."""
    raw, net = env.engine, JaxMARLMLP()
    agents = [f"agent_{i}" for i in range(env.num_agents)]
    tx = optax.chain(optax.clip_by_global_norm(config.max_grad_norm), optax.adam(config.lr, eps=1e-5))

    def init(key):
        obs, states = jax.vmap(raw.reset)(jax.random.split(key, config.num_envs))
        obs = jnp.stack([obs[a] for a in agents], 1)
        ts = TrainState.create(apply_fn=net.apply, params=net.init(key, obs[:, 0]), tx=tx)
        return ts, states, obs, key

    def step(carry, key):
        ts, states, obs = carry
        k_act, k_env = jax.random.split(key)
        flat = obs.reshape(-1, *obs.shape[2:])
        logits, value = ts.apply_fn(ts.params, flat)
        action = jax.random.categorical(k_act, logits)
        act = action.reshape(config.num_envs, -1)
        actions = {a: act[:, i] for i, a in enumerate(agents)}
        nobs, states, rew, dones, info = jax.vmap(raw.step)(jax.random.split(k_env, config.num_envs), states, actions)
        reward = jnp.stack([rew[a] + info["shaped_reward"][a] for a in agents], 1).reshape(-1)
        done = jnp.repeat(dones["__all__"], len(agents))
        logp = jnp.take_along_axis(jax.nn.log_softmax(logits), action[:, None], -1)[:, 0]
        zero = jnp.zeros(config.num_envs)
        row = Trajectory(flat, action, logp, value, reward, done, zero, zero, dones["__all__"])
        return (ts, states, jnp.stack([nobs[a] for a in agents], 1)), row

    def collect(carry):
        ts, states, obs, key = carry
        key, k_roll = jax.random.split(key)
        (_, states, obs), traj = jax.lax.scan(step, (ts, states, obs), jax.random.split(k_roll, config.num_steps))
        return (ts, states, obs, key), traj

    def update(carry):
        (ts, states, obs, key), traj = collect(carry)
        _, last_value = ts.apply_fn(ts.params, obs.reshape(-1, *obs.shape[2:]))
        adv, target = gae(traj, last_value, config.gamma, config.gae_lambda)
        flat = lambda x: x.reshape(-1, *x.shape[2:])
        data = tuple(map(flat, (traj.obs, traj.action, traj.log_prob, traj.value, adv, target)))
        key, k_ep = jax.random.split(key)
        ts, _ = ppo_epochs(ts, config, data, k_ep)
        return ts, states, obs, key

    return jax.jit(init), jax.jit(update), jax.jit(lambda c: collect(c)[0])


class Timer:
    """One jitted step and the carry it threads: compiled on construction (one warm-up call), then
    timed over and over, so variants can take turns instead of running one after another."""

    def __init__(self, fn: Callable[[Any], Any], carry: Any) -> None:
        self._fn = fn
        self._carry = jax.block_until_ready(fn(carry))  # warm-up (compiles)

    def time(self, calls: int) -> float:
        start = time.perf_counter()
        for _ in range(calls):
            self._carry = self._fn(self._carry)
        jax.block_until_ready(self._carry)
        return time.perf_counter() - start


def prepare_ours(config: PPOConfig, env: OvercookedRLEnv) -> tuple[Timer, Timer]:
    """Our self-play trainer's update, and its rollout alone."""
    init, update = make_self_play(config, env, 1)
    runner = init(jax.random.PRNGKey(0))

    @jax.jit
    def roll(r):
        params = jax.tree.map(lambda x: x[0], r.learners.params)
        policy = lambda obs: r.learners.apply_fn(params, obs)
        return r._replace(envs=rollout(env, policy, r.envs, r.key, config.num_steps, 1.0)[0])

    return Timer(lambda r: update(r)[0], runner), Timer(roll, runner)


POPULATIONS = ("pop-sp", "pop-br", "pop-rr4")


def prepare_population(config: PPOConfig, env: OvercookedRLEnv, kind: str) -> tuple[Timer, None]:
    """The population program's update in one of its three shapes (no rollout-only timing)."""
    from proagent.training.algorithms.pairings import best_response, round_robin, self_play
    from proagent.training.population import Pairing, learner_params, make_population_train, stack_pool

    slots = {"pop-sp": self_play(1, config.num_envs), "pop-br": best_response(config.num_envs),
             "pop-rr4": round_robin(4, config.num_envs)}[kind]  # fmt: skip
    pairing = Pairing(num_learners=4 if kind == "pop-rr4" else 1, slots=slots, pool_size=8 if kind == "pop-br" else 0)
    init, update = make_population_train(config, pairing, env, 1)
    runner = init(jax.random.PRNGKey(0))
    if kind == "pop-br":
        runner = init(jax.random.PRNGKey(0), *stack_pool([learner_params(runner, 0)] * 8, 8))
    return Timer(lambda r: update(r)[0], runner), None


def prepare_baseline(config: PPOConfig, env: envs.OvercookedEnv) -> tuple[Timer, Timer]:
    init, update, roll = make_baseline(config, env)
    carry = init(jax.random.PRNGKey(0))
    return Timer(update, carry), Timer(roll, carry)


def prepare(name: str, args: argparse.Namespace, env: envs.OvercookedEnv) -> tuple[PPOConfig, Timer, Timer | None]:
    """The variant ``name``'s config and timers (compiled)."""
    cfg = PPOConfig(
        layout=args.layout,
        num_envs=args.num_envs,
        num_steps=args.num_steps,
        num_minibatches=args.minibatches,
        network=NetworkConfig(encoder="cnn" if name == "cnn" else "fast"),
    )
    if name in POPULATIONS:
        return cfg, *prepare_population(cfg, rl_env(env), name)
    if name == "baseline":
        return cfg, *prepare_baseline(cfg, env)
    return cfg, *prepare_ours(cfg, rl_env(env))


def measure(timers: dict[str, tuple[Timer, Timer | None]], updates: int, repeats: int) -> dict[str, list[float]]:
    """Seconds per ``updates`` updates of each variant in each repeat (key ``name``) and of its rollout
    (key ``name/roll``). Variants take turns, in an order rotated each repeat, so that load from
    elsewhere and the machine's drift hit every variant alike."""
    names = list(timers)
    times: dict[str, list[float]] = {}
    for r in range(repeats):
        for name in names[r % len(names) :] + names[: r % len(names)]:
            upd, roll = timers[name]
            times.setdefault(name, []).append(upd.time(updates))
            if roll is not None:
                times.setdefault(f"{name}/roll", []).append(roll.time(updates))
    return times


def spread(values: list[float]) -> str:
    """Median and (min-max) of ``values``, and the largest deviation from the median in percent."""
    mid = statistics.median(values)
    dev = max(abs(v - mid) for v in values) / mid * 100
    return f"{mid:5.2f}x ({min(values):.2f}-{max(values):.2f}, +/-{dev:.0f}%)"


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--layout", default="cramped_room")
    p.add_argument("--num-envs", type=int, default=64)
    p.add_argument("--num-steps", type=int, default=256)
    p.add_argument("--minibatches", type=int, default=16, help="minibatches per epoch (16: paper / JaxMARL IPPO)")
    p.add_argument("--updates", type=int, default=2, help="timed PPO updates per variant and repeat")
    p.add_argument("--repeats", type=int, default=7, help="interleaved rounds over the variants (medians reported)")
    p.add_argument("--only", default="fast,cnn,pop-sp,pop-br,pop-rr4,baseline", help="comma-separated variants")
    args = p.parse_args(argv)
    env = envs.make(args.layout)
    dev = jax.devices()[0]
    print(
        f"device {dev.platform}:{getattr(dev, 'device_kind', '')}  layout {args.layout}  {args.num_envs} envs x "
        f"{args.num_steps} steps, 4 epochs x {args.minibatches} minibatches, {args.updates} timed updates each",
        flush=True,
    )
    timers: dict[str, tuple[Timer, Timer | None]] = {}
    steps = 0
    for name in args.only.split(","):
        cfg, upd, roll = prepare(name, args, env)
        timers[name], steps = (upd, roll), args.updates * cfg.steps_per_update
    times = measure(timers, args.updates, args.repeats)
    for name in timers:
        train, roll_times = times[name], times.get(f"{name}/roll", [float("nan")])
        print(
            f"{name:>9}: train {steps / statistics.median(train):>10,.0f} env-steps/s   "
            f"rollout only {steps / statistics.median(roll_times):>10,.0f}   (medians of {args.repeats})",
            flush=True,
        )
    if "baseline" in times:
        base = times["baseline"]
        for name in timers:  # each repeat's ratio against the baseline's time in the same repeat
            ratios = [b / t for b, t in zip(base, times[name], strict=True)]
            print(f"{name:>9}: {spread(ratios)} x baseline training speed")


if __name__ == "__main__":
    main()
