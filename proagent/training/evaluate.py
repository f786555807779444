"""Score a pair of policies over whole episodes, all episodes vmapped in one jitted scan.

Self-play is the pair (pi, pi); cross-play later is (pi_i, pi_j). Each episode runs exactly the
horizon from a fresh reset, actions sampled as trained (or argmax when ``stochastic`` is False).
Needs flax/jax/numpy only, like the partner that loads a checkpoint.
"""

from __future__ import annotations

from collections.abc import Callable

import jax
import jax.numpy as jnp
import numpy as np

from envs import OvercookedEnv
from proagent.training.checkpoint import SelfPlayScore

Logits = Callable[[jax.Array], jax.Array]  # obs (B, H, W, C) -> logits (B, 6)


def _pick(key: jax.Array, logits: jax.Array, stochastic: bool) -> jax.Array:
    return jax.random.categorical(key, logits) if stochastic else jnp.argmax(logits, -1)


def pair_scores(
    env: OvercookedEnv, seat0: Logits, seat1: Logits, key: jax.Array, episodes: int, stochastic: bool = True
) -> np.ndarray:
    """Sparse score of each of ``episodes`` episodes, seat 0 played by ``seat0``, seat 1 by ``seat1``."""
    horizon = env.dynamics.horizon

    @jax.jit
    def run(key: jax.Array) -> jax.Array:
        k_reset, k_run = jax.random.split(key)
        states = jax.vmap(env.reset)(jax.random.split(k_reset, episodes))

        def step(carry, key):
            states, score = carry
            k0, k1, k_env = jax.random.split(key, 3)
            obs = jax.vmap(env.observe)(states)  # (E, A, H, W, C)
            a0 = _pick(k0, seat0(obs[:, 0]), stochastic)
            a1 = _pick(k1, seat1(obs[:, 1]), stochastic)
            tr = jax.vmap(env.step)(jax.random.split(k_env, episodes), states, jnp.stack([a0, a1], -1))
            return (tr.state, score + tr.reward), None

        init = (states, jnp.zeros((episodes,), jnp.float32))
        (_, score), _ = jax.lax.scan(step, init, jax.random.split(k_run, horizon))
        return score

    return np.asarray(run(key))


def summarize(scores: np.ndarray, horizon: int, stochastic: bool = True) -> SelfPlayScore:
    n = len(scores)
    std = float(np.std(scores, ddof=1)) if n > 1 else 0.0
    return SelfPlayScore(
        mean=float(np.mean(scores)),
        se=std / np.sqrt(max(n, 1)),
        std=std,
        episodes=n,
        horizon=horizon,
        stochastic=stochastic,
    )


def make_payoff_matrix(env: OvercookedEnv, apply_fn: Callable, size: int, episodes: int):
    """-> jitted ``payoff(members, key) -> (size, size)``: ``make_pair_scores`` averaged over episodes."""
    scores = make_pair_scores(env, apply_fn, size, episodes)
    return jax.jit(lambda members, key: scores(members, key).mean(-1))


def make_pair_scores(env: OvercookedEnv, apply_fn: Callable, size: int, episodes: int):
    """-> jitted ``scores(members, key) -> (size, size, episodes)``: the score of every episode of
    member i in seat 0 with member j in seat 1.

    ``members`` is a parameter tree with every leaf stacked over ``size``. All size*size*episodes
    episodes run as one vmapped scan compiled once, which keeps COLE's per-generation payoff
    matrix cheap (unused pool entries are evaluated too and sliced away by the caller).
    """
    seat0 = jnp.asarray(np.repeat(np.arange(size), size * episodes))
    seat1 = jnp.asarray(np.tile(np.repeat(np.arange(size), episodes), size))
    horizon, n = env.dynamics.horizon, size * size * episodes
    act = jax.vmap(lambda p, o: apply_fn(p, o)[0])

    @jax.jit
    def scores(members, key: jax.Array) -> jax.Array:
        params0 = jax.tree.map(lambda t: t[seat0], members)
        params1 = jax.tree.map(lambda t: t[seat1], members)
        k_reset, k_run = jax.random.split(key)
        states = jax.vmap(env.reset)(jax.random.split(k_reset, n))

        def step(carry, key):
            states, score = carry
            k0, k1, k_env = jax.random.split(key, 3)
            obs = jax.vmap(env.observe)(states)
            a0 = jax.random.categorical(k0, act(params0, obs[:, 0]))
            a1 = jax.random.categorical(k1, act(params1, obs[:, 1]))
            tr = jax.vmap(env.step)(jax.random.split(k_env, n), states, jnp.stack([a0, a1], -1))
            return (tr.state, score + tr.reward), None

        (_, score), _ = jax.lax.scan(step, (states, jnp.zeros((n,), jnp.float32)), jax.random.split(k_run, horizon))
        return score.reshape(size, size, episodes)

    return scores
