"""The environment step of every PPO rollout: vmapped envs, finished episodes reset in place.

``env_step`` is the one step both the population program (per-seat policies, pool partners, extra
rewards through ``bonus``) and ``rollout`` (one policy in both seats: benchmarks and tests) use.

The env is a world's ``RLEnv`` (``proagent.world.rl_spec``). It never auto-resets (a done env stays
frozen), so the rollout swaps a finished env for a fresh one itself. Where every episode lasts
exactly the horizon (Overcooked) all envs finish on the same step: the (comparatively costly)
batched reset runs under ``lax.cond`` only on the steps where some episode ended, and the per-env
select handles worlds whose episodes end early (CUBE, once every block is delivered).

Where the world has legal-action masks (``RLEnv.legal_actions``), the actors' logits are masked
before sampling and the mask is stored with the step, so the PPO loss scores the same masked
distribution the action was drawn from; a world without masks stores ``None`` and runs unmasked.

The team reward and the shaped reward stay apart up to the learner: the training reward is
``reward + shaping_coef * shaped`` but the logged episode return is the world's score alone.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp

from proagent.training.networks import Hidden, mask_logits, reset_hidden
from proagent.world.rl_spec import RLEnv, State

Policy = Callable[[jax.Array], tuple[jax.Array, jax.Array]]  # obs (B, ...) -> logits, value
# (hidden, obs (B, ...)) -> (hidden, logits, value); a feedforward one passes hidden (None) on
MemoryPolicy = Callable[[Hidden, jax.Array], tuple[Hidden, jax.Array, jax.Array]]
# (states before, obs (B, ...), actions (B,), states after the step and before resets) -> (B,) reward
Bonus = Callable[[State, jax.Array, jax.Array, State], jax.Array]


class EnvBatch(NamedTuple):
    """The part of the runner that rolls: states, their observations, running episode sums."""

    states: State  # (N, ...)
    obs: jax.Array  # (N, A, *obs_shape)
    score: jax.Array  # (N,) score of the episode in progress
    shaped: jax.Array  # (N,) shaped return (both agents) of the episode in progress
    hidden: Any = None  # (N * A, memory) recurrent policies' state, zeroed when an episode ends


class Trajectory(NamedTuple):
    """One rollout, time-major; per-agent arrays are flattened to B = N * A actors."""

    obs: jax.Array  # (T, B, *obs_shape)
    action: jax.Array  # (T, B)
    log_prob: jax.Array  # (T, B)
    value: jax.Array  # (T, B)
    reward: jax.Array  # (T, B) team reward + shaping_coef * own shaped reward
    done: jax.Array  # (T, B)
    ep_score: jax.Array  # (T, N) finished episodes' score, 0 elsewhere
    ep_shaped: jax.Array  # (T, N)
    ep_done: jax.Array  # (T, N)
    legal: jax.Array | None = None  # (T, B, actions) bool the actor's legal actions; None: all legal


def observe(env: RLEnv, states: State) -> jax.Array:
    """Batched observations in the dtype the world stores them (Overcooked: uint8 grids)."""
    return jax.vmap(env.observe)(states)


def legal_actions(env: RLEnv, states: State) -> jax.Array | None:
    """(N, A, actions) bool batched legal actions, or None for a world without masks."""
    return jax.vmap(env.legal_actions)(states)


def reset_envs(env: RLEnv, key: jax.Array, num_envs: int, hidden: Hidden = None) -> EnvBatch:
    """Fresh envs; ``hidden`` is the actors' initial memory (``PolicyFns.initial_hidden``)."""
    states = jax.vmap(env.reset)(jax.random.split(key, num_envs))
    zeros = jnp.zeros((num_envs,), jnp.float32)
    return EnvBatch(states, observe(env, states), zeros, zeros, hidden)


def _replace_done(env: RLEnv, key: jax.Array, states: State, done: jax.Array) -> State:
    def swap(states: State) -> State:
        fresh = jax.vmap(env.reset)(jax.random.split(key, done.shape[0]))
        pick = lambda new, old: jnp.where(done.reshape(done.shape + (1,) * (old.ndim - 1)), new, old)
        return jax.tree.map(pick, fresh, states)

    return jax.lax.cond(done.any(), swap, lambda s: s, states)


def env_step(
    env: RLEnv,
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
    legal = legal_actions(env, batch.states)
    legal = None if legal is None else legal.reshape(n * a, -1)
    hidden, logits, value = policy(batch.hidden, obs)
    logits = mask_logits(logits, legal)
    action = jax.random.categorical(k_act, logits)
    log_prob = jnp.take_along_axis(jax.nn.log_softmax(logits), action[:, None], -1)[:, 0]
    tr = jax.vmap(env.step)(jax.random.split(k_step, n), batch.states, action.reshape(n, a))
    reward = (tr.reward[:, None] + shaping_coef * tr.shaped).reshape(-1)  # (N * A,)
    if bonus is not None:
        reward = reward + bonus(batch.states, obs, action, tr.state)
    score = batch.score + tr.score
    shaped = batch.shaped + tr.shaped.sum(-1)
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
        legal=legal,
    )
    return nxt, row


def rollout(env: RLEnv, policy: Policy, batch: EnvBatch, key: jax.Array, num_steps: int, shaping_coef):
    """``num_steps`` steps of every env under a feedforward ``policy``: (next batch, Trajectory)."""

    def body(batch: EnvBatch, key: jax.Array):
        return env_step(env, lambda hidden, obs: (hidden, *policy(obs)), batch, key, shaping_coef)

    return jax.lax.scan(body, batch, jax.random.split(key, num_steps))
