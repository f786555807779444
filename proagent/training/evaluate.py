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

from envs import EnvState, OvercookedEnv
from proagent.training.checkpoint import SelfPlayScore
from proagent.training.networks import Hidden, NetworkConfig, policy_fns

# (hidden, obs (B, H, W, C), key) -> (hidden, actions (B,)); a feedforward policy's hidden is None
Act = Callable[[Hidden, jax.Array, jax.Array], tuple[Hidden, jax.Array]]


def _pick(key: jax.Array, logits: jax.Array, stochastic: bool) -> jax.Array:
    return jax.random.categorical(key, logits) if stochastic else jnp.argmax(logits, -1)


def _actor(network: NetworkConfig, params, stochastic: bool = True) -> Act:
    step = policy_fns(network).step

    def act(hidden: Hidden, obs: jax.Array, key: jax.Array) -> tuple[Hidden, jax.Array]:
        hidden, logits, _ = step(params, hidden, obs)
        return hidden, _pick(key, logits, stochastic)

    return act


def _episode_scores(
    env: OvercookedEnv, acts: tuple[Act, Act], hidden: tuple[Hidden, Hidden], key: jax.Array, episodes: int
) -> jax.Array:
    """Score of each of ``episodes`` episodes of the whole horizon from a fresh reset, one vmapped
    scan (traceable: the callers jit it). ``hidden``: each seat's initial memory (None if none);
    every episode is one whole episode, so no memory is reset inside it."""
    return _play(env, acts, hidden, key, episodes, keep_states=False)[0]


def _play(
    env: OvercookedEnv,
    acts: tuple[Act, Act],
    hidden: tuple[Hidden, Hidden],
    key: jax.Array,
    episodes: int,
    keep_states: bool,
) -> tuple[jax.Array, EnvState | None]:
    """(scores (E,), the state before every step (T, E, ...) if ``keep_states``)."""
    k_reset, k_run = jax.random.split(key)
    states = jax.vmap(env.reset)(jax.random.split(k_reset, episodes))

    def step(carry, key):
        states, score, (h0, h1) = carry
        k0, k1, k_env = jax.random.split(key, 3)
        obs = jax.vmap(env.observe)(states)  # (E, A, H, W, C)
        (h0, a0), (h1, a1) = acts[0](h0, obs[:, 0], k0), acts[1](h1, obs[:, 1], k1)
        tr = jax.vmap(env.step)(jax.random.split(k_env, episodes), states, jnp.stack([a0, a1], -1))
        return (tr.state, score + tr.reward, (h0, h1)), states if keep_states else None

    init = (states, jnp.zeros((episodes,), jnp.float32), hidden)
    (_, score, _), seen = jax.lax.scan(step, init, jax.random.split(k_run, env.dynamics.horizon))
    return score, seen


def self_play_score(env: OvercookedEnv, network: NetworkConfig, params, seed: int, episodes: int) -> SelfPlayScore:
    """The policy paired with itself, stochastic as trained: the ``self_play`` of every manifest."""
    act = _actor(network, params)
    hidden = policy_fns(network).initial_hidden(episodes)
    run = jax.jit(lambda key: _episode_scores(env, (act, act), (hidden, hidden), key, episodes))
    return summarize(np.asarray(run(jax.random.PRNGKey(seed))), env.dynamics.horizon)


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


def make_payoff_matrix(env: OvercookedEnv, network: NetworkConfig, size: int, episodes: int):
    """-> jitted ``payoff(members, key) -> (size, size)``: ``make_pair_scores`` averaged over episodes."""
    scores = make_pair_scores(env, network, size, episodes)

    def payoff(members, key: jax.Array) -> jax.Array:
        pair_keys = jax.random.split(key, size * size).reshape(size, size, -1)
        return scores(members, pair_keys).mean(-1)

    return jax.jit(payoff)


def make_pair_scores(env: OvercookedEnv, network: NetworkConfig, size: int, episodes: int):
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

    hidden = policy_fns(network).initial_hidden(episodes)

    def one_pair(params0, params1, key: jax.Array) -> jax.Array:
        acts = (_actor(network, params0), _actor(network, params1))
        return _episode_scores(env, acts, (hidden, hidden), key, episodes)

    @jax.jit
    def scores(members, pair_keys: jax.Array) -> jax.Array:
        params0 = jax.tree.map(lambda t: t[seat0], members)
        params1 = jax.tree.map(lambda t: t[seat1], members)
        keys = pair_keys.reshape(size * size, -1)
        return jax.vmap(one_pair)(params0, params1, keys).reshape(size, size, episodes)

    return scores


def make_pair_states(env: OvercookedEnv, network: NetworkConfig, size: int, episodes: int, every: int):
    """-> jitted ``collect(members, key)``: every ``every``-th state (steps 0, every, ...) of
    ``episodes`` whole episodes of each ordered pair (i, j) of the ``size`` members (leaves stacked
    over ``size``), stacked on one leading axis: the start states of state-augmented self-play.
    Compiled once, called at every buffer refresh."""
    seat0 = jnp.asarray(np.repeat(np.arange(size), size))
    seat1 = jnp.asarray(np.tile(np.arange(size), size))
    hidden = policy_fns(network).initial_hidden(episodes)

    def one_pair(params0, params1, key: jax.Array) -> EnvState:
        acts = (_actor(network, params0), _actor(network, params1))
        return _play(env, acts, (hidden, hidden), key, episodes, keep_states=True)[1]

    @jax.jit
    def collect(members, key: jax.Array) -> EnvState:
        params0 = jax.tree.map(lambda t: t[seat0], members)
        params1 = jax.tree.map(lambda t: t[seat1], members)
        states = jax.vmap(one_pair)(params0, params1, jax.random.split(key, size * size))  # (P, T, E, ...)
        return jax.tree.map(lambda x: x[:, ::every].reshape(-1, *x.shape[3:]), states)

    return collect
