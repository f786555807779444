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
from proagent.training.networks import ActorCritic, NetworkConfig

Logits = Callable[[jax.Array], jax.Array]  # obs (B, H, W, C) -> logits (B, 6)
Act = Callable[[jax.Array, jax.Array], jax.Array]  # obs (B, H, W, C), key -> actions (B,)


def _pick(key: jax.Array, logits: jax.Array, stochastic: bool) -> jax.Array:
    return jax.random.categorical(key, logits) if stochastic else jnp.argmax(logits, -1)


def _episode_scores(env: OvercookedEnv, act0: Act, act1: Act, key: jax.Array, episodes: int) -> jax.Array:
    """Score of each of ``episodes`` episodes of the whole horizon from a fresh reset, one vmapped
    scan (traceable: the callers jit it)."""
    k_reset, k_run = jax.random.split(key)
    states = jax.vmap(env.reset)(jax.random.split(k_reset, episodes))

    def step(carry, key):
        states, score = carry
        k0, k1, k_env = jax.random.split(key, 3)
        obs = jax.vmap(env.observe)(states)  # (E, A, H, W, C)
        actions = jnp.stack([act0(obs[:, 0], k0), act1(obs[:, 1], k1)], -1)
        tr = jax.vmap(env.step)(jax.random.split(k_env, episodes), states, actions)
        return (tr.state, score + tr.reward), None

    init = (states, jnp.zeros((episodes,), jnp.float32))
    (_, score), _ = jax.lax.scan(step, init, jax.random.split(k_run, env.dynamics.horizon))
    return score


def pair_scores(
    env: OvercookedEnv, seat0: Logits, seat1: Logits, key: jax.Array, episodes: int, stochastic: bool = True
) -> np.ndarray:
    """Sparse score of each of ``episodes`` episodes, seat 0 played by ``seat0``, seat 1 by ``seat1``."""
    act0 = lambda obs, k: _pick(k, seat0(obs), stochastic)
    act1 = lambda obs, k: _pick(k, seat1(obs), stochastic)
    return np.asarray(jax.jit(lambda key: _episode_scores(env, act0, act1, key, episodes))(key))


def self_play_score(env: OvercookedEnv, network: NetworkConfig, params, seed: int, episodes: int) -> SelfPlayScore:
    """The policy paired with itself, stochastic as trained: the ``self_play`` of every manifest."""
    logits = lambda obs: ActorCritic(network).apply(params, obs)[0]
    return summarize(pair_scores(env, logits, logits, jax.random.PRNGKey(seed), episodes), env.dynamics.horizon)


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

    def payoff(members, key: jax.Array) -> jax.Array:
        pair_keys = jax.random.split(key, size * size).reshape(size, size, -1)
        return scores(members, pair_keys).mean(-1)

    return jax.jit(payoff)


def make_pair_scores(env: OvercookedEnv, apply_fn: Callable, size: int, episodes: int):
    """-> jitted ``scores(members, pair_keys) -> (size, size, episodes)``: the score of every episode
    of member i in seat 0 with member j in seat 1, played with ``pair_keys[i, j]``.

    ``members`` is a parameter tree with every leaf stacked over ``size``. Each pair's episodes
    depend only on the two members and that pair's key, so a cross-play cell does not move when
    members are added or removed (the caller derives the key from the pair's names). All pairs run
    as one vmapped scan compiled once, which keeps COLE's per-generation payoff matrix cheap (unused
    pool entries are evaluated too and sliced away by the caller).
    """
    seat0 = jnp.asarray(np.repeat(np.arange(size), size))
    seat1 = jnp.asarray(np.tile(np.arange(size), size))

    def one_pair(params0, params1, key: jax.Array) -> jax.Array:
        act0 = lambda obs, k: jax.random.categorical(k, apply_fn(params0, obs)[0])
        act1 = lambda obs, k: jax.random.categorical(k, apply_fn(params1, obs)[0])
        return _episode_scores(env, act0, act1, key, episodes)

    @jax.jit
    def scores(members, pair_keys: jax.Array) -> jax.Array:
        params0 = jax.tree.map(lambda t: t[seat0], members)
        params1 = jax.tree.map(lambda t: t[seat1], members)
        keys = pair_keys.reshape(size * size, -1)
        return jax.vmap(one_pair)(params0, params1, keys).reshape(size, size, episodes)

    return scores
