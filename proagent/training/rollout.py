"""The environment step of every PPO rollout: vmapped envs, finished episodes reset in place.

``env_step`` is the one step both the population program (per-seat policies, pool partners, extra
rewards through ``bonus``) and ``rollout`` (one policy in both seats: benchmarks and tests) use.

OvercookedEnv never auto-resets (a done env stays frozen), so the rollout swaps a finished env for
a fresh one itself. Every episode lasts exactly the horizon and all envs start together, so they
finish on the same step: the (comparatively costly) batched reset runs under ``lax.cond`` only on
those steps, and the per-env select keeps the code right if that ever changes.

The sparse score and the shaped reward stay apart up to the learner: the training reward is
``score + shaping_coef * shaped`` but the logged episode return is the score alone.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp

from envs import EnvState, OvercookedEnv
from proagent.training.networks import Hidden, reset_hidden

Policy = Callable[[jax.Array], tuple[jax.Array, jax.Array]]  # obs (B, H, W, C) -> logits, value
# (hidden, obs (B, H, W, C)) -> (hidden, logits, value); a feedforward one passes hidden (None) on
MemoryPolicy = Callable[[Hidden, jax.Array], tuple[Hidden, jax.Array, jax.Array]]
# (states before, obs (B, ...), actions (B,), states after the step and before resets) -> (B,) reward
Bonus = Callable[[EnvState, jax.Array, jax.Array, EnvState], jax.Array]


class EnvBatch(NamedTuple):
    """The part of the runner that rolls: states, their observations, running episode sums."""

    states: EnvState  # (N, ...)
    obs: jax.Array  # (N, A, H, W, C)
    score: jax.Array  # (N,) sparse return of the episode in progress
    shaped: jax.Array  # (N,) shaped return (both agents) of the episode in progress
    hidden: Any = None  # (N * A, memory) recurrent policies' state, zeroed when an episode ends


class Trajectory(NamedTuple):
    """One rollout, time-major; per-agent arrays are flattened to B = N * A actors."""

    obs: jax.Array  # (T, B, H, W, C)
    action: jax.Array  # (T, B)
    log_prob: jax.Array  # (T, B)
    value: jax.Array  # (T, B)
    reward: jax.Array  # (T, B) score + shaping_coef * own shaped reward
    done: jax.Array  # (T, B)
    ep_score: jax.Array  # (T, N) finished episodes' score, 0 elsewhere
    ep_shaped: jax.Array  # (T, N)
    ep_done: jax.Array  # (T, N)


def observe(env: OvercookedEnv, states: EnvState) -> jax.Array:
    """Batched observations as uint8: the engine's int32 grid holds small counts and timers (< 256,
    see ``check_observation_range``), and the rollout, the minibatch shuffles and the network input
    move 4x fewer bytes; the network casts to float32 anyway."""
    return jax.vmap(env.observe)(states).astype(jnp.uint8)


def check_observation_range(env: OvercookedEnv) -> None:
    if env.dynamics.cook_time > 255:
        raise ValueError(f"cook_time {env.dynamics.cook_time} does not fit the uint8 observations (max 255)")


def reset_envs(env: OvercookedEnv, key: jax.Array, num_envs: int, hidden: Hidden = None) -> EnvBatch:
    """Fresh envs; ``hidden`` is the actors' initial memory (``PolicyFns.initial_hidden``)."""
    states = jax.vmap(env.reset)(jax.random.split(key, num_envs))
    zeros = jnp.zeros((num_envs,), jnp.float32)
    return EnvBatch(states, observe(env, states), zeros, zeros, hidden)


def _replace_done(env: OvercookedEnv, key: jax.Array, states: EnvState, done: jax.Array) -> EnvState:
    def swap(states: EnvState) -> EnvState:
        fresh = jax.vmap(env.reset)(jax.random.split(key, done.shape[0]))
        pick = lambda new, old: jnp.where(done.reshape(done.shape + (1,) * (old.ndim - 1)), new, old)
        return jax.tree.map(pick, fresh, states)

    return jax.lax.cond(done.any(), swap, lambda s: s, states)


def env_step(
    env: OvercookedEnv,
    policy: MemoryPolicy,
    batch: EnvBatch,
    key: jax.Array,
    shaping_coef: jax.Array | float,
    bonus: Bonus | None = None,
) -> tuple[EnvBatch, Trajectory]:
    """One step of every env; returns the next batch and this step's row of the Trajectory.

    ``bonus`` adds never-annealed rewards that need the transition (MEP's population entropy, the
    human proxies' style events) to the training reward, not to the logged returns.
    """
    k_act, k_step, k_reset = jax.random.split(key, 3)
    n, a = batch.obs.shape[:2]
    obs = batch.obs.reshape(n * a, *batch.obs.shape[2:])
    hidden, logits, value = policy(batch.hidden, obs)
    action = jax.random.categorical(k_act, logits)
    log_prob = jnp.take_along_axis(jax.nn.log_softmax(logits), action[:, None], -1)[:, 0]
    tr = jax.vmap(env.step)(jax.random.split(k_step, n), batch.states, action.reshape(n, a))
    reward = (tr.reward[:, None] + shaping_coef * tr.shaped_reward).reshape(-1)  # (N * A,)
    if bonus is not None:
        reward = reward + bonus(batch.states, obs, action, tr.state)
    score = batch.score + tr.reward
    shaped = batch.shaped + tr.shaped_reward.sum(-1)
    states = _replace_done(env, k_reset, tr.state, tr.done)
    keep = 1.0 - tr.done.astype(jnp.float32)
    hidden = reset_hidden(hidden, jnp.repeat(tr.done, a))
    nxt = EnvBatch(states, observe(env, states), score * keep, shaped * keep, hidden)
    row = Trajectory(
        obs=obs,
        action=action,
        log_prob=log_prob,
        value=value,
        reward=reward,
        done=jnp.repeat(tr.done, a),
        ep_score=jnp.where(tr.done, score, 0.0),
        ep_shaped=jnp.where(tr.done, shaped, 0.0),
        ep_done=tr.done,
    )
    return nxt, row


def rollout(env: OvercookedEnv, policy: Policy, batch: EnvBatch, key: jax.Array, num_steps: int, shaping_coef):
    """``num_steps`` steps of every env under a feedforward ``policy``: (next batch, Trajectory)."""

    def body(batch: EnvBatch, key: jax.Array):
        return env_step(env, lambda hidden, obs: (hidden, *policy(obs)), batch, key, shaping_coef)

    return jax.lax.scan(body, batch, jax.random.split(key, num_steps))
