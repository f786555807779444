"""Score a team of policies over whole episodes, all episodes vmapped in one jitted scan.

Self-play is the team (pi, pi, ...); cross-play is (pi_i, pi_j). Each episode runs exactly the
env's horizon from a fresh reset (an ended episode stays frozen), actions sampled as trained (or
argmax when ``stochastic`` is False) among the legal actions where the world has masks; its score is the sum of the
world's score deltas. Needs flax/jax/numpy only, like the partner that loads a checkpoint.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from proagent.training.checkpoint import SelfPlayScore
from proagent.training.config import PROGRAMS_KEPT
from proagent.training.networks import Hidden, Network, mask_logits, pick_action, policy_fns
from proagent.world.rl_spec import RLEnv, State

# (hidden, obs (B, ...), key, legal (B, actions) or None) -> (hidden, actions (B,)); a feedforward
# policy's hidden is None, a world without masks passes legal None
Act = Callable[[Hidden, jax.Array, jax.Array, jax.Array | None], tuple[Hidden, jax.Array]]


def _actor(network: Network, num_actions: int, params, stochastic: bool = True) -> Act:
    step = policy_fns(network, num_actions).step

    def act(hidden: Hidden, obs: jax.Array, key: jax.Array, legal: jax.Array | None) -> tuple[Hidden, jax.Array]:
        hidden, logits, _ = step(params, hidden, obs)
        return hidden, pick_action(mask_logits(logits, legal), key, stochastic)

    return act


def _episode_scores(
    env: RLEnv, acts: tuple[Act, ...], hidden: tuple[Hidden, ...], key: jax.Array, episodes: int
) -> jax.Array:
    """Score of each of ``episodes`` episodes of the whole horizon from a fresh reset, one vmapped
    scan (traceable: the callers jit it). ``acts``/``hidden``: each seat's policy and initial
    memory (None if none); every episode is one whole episode, so no memory is reset inside it."""
    return _play(env, acts, hidden, key, episodes, keep_states=False)[0]


def _play(
    env: RLEnv,
    acts: tuple[Act, ...],
    hidden: tuple[Hidden, ...],
    key: jax.Array,
    episodes: int,
    keep_states: bool,
    keep_memory: bool = False,
) -> tuple[jax.Array, State | None, tuple[Hidden, ...] | None]:
    """(scores (E,), the state before every step (T, E, ...) if ``keep_states``, each seat's memory
    after it acted at every step (T, E, M) if ``keep_memory``)."""
    k_reset, k_run = jax.random.split(key)
    states = jax.vmap(env.reset)(jax.random.split(k_reset, episodes))
    seats = len(acts)

    def step(carry, key):
        states, score, memory = carry
        keys = jax.random.split(key, seats + 1)  # one per seat, then the env's
        obs = jax.vmap(env.observe)(states)  # (E, A, ...)
        legal = jax.vmap(env.legal_actions)(states)  # (E, A, actions), or None
        seat_legal = lambda seat: None if legal is None else legal[:, seat]
        moved = [
            act(h, obs[:, seat], keys[seat], seat_legal(seat))
            for seat, (act, h) in enumerate(zip(acts, memory, strict=True))
        ]
        actions = jnp.stack([a for _, a in moved], -1)
        tr = jax.vmap(env.step)(jax.random.split(keys[seats], episodes), states, actions)
        memory = tuple(h for h, _ in moved)
        return (tr.state, score + tr.score, memory), (states if keep_states else None, memory if keep_memory else None)

    init = (states, jnp.zeros((episodes,), jnp.float32), tuple(hidden))
    (_, score, _), (seen, memories) = jax.lax.scan(step, init, jax.random.split(k_run, env.horizon))
    return score, seen, memories


def seat_params(params: Any, seat_groups: int, seats: int) -> tuple[Any, ...]:
    """Each seat's parameters: ``params`` itself in every seat (``seat_groups`` 0), else leaves
    stacked over ``seat_groups`` groups, seat s playing group s % seat_groups (see the manifest)."""
    if seat_groups == 0:
        return (params,) * seats
    return tuple(jax.tree.map(lambda x, g=seat % seat_groups: x[g], params) for seat in range(seats))


def self_play_score(
    env: RLEnv, network: Network, params, seed: int, episodes: int, seat_groups: int = 0
) -> SelfPlayScore:
    """The policy (or per-seat policies, ``seat_params``) as a team, stochastic as trained: the
    ``self_play`` of every manifest."""
    team = seat_params(params, seat_groups, env.num_agents)
    scores = _jitted_team_scores(env, network, team, jax.random.PRNGKey(seed), episodes)
    return summarize(np.asarray(scores), env.horizon)


def _team_scores(env: RLEnv, network: Network, team: tuple[Any, ...], key: jax.Array, episodes: int) -> jax.Array:
    """Scores (E,) of ``team`` (each seat's parameters) over ``episodes`` whole episodes, actions
    sampled as trained, every seat's memory fresh (traceable: the callers jit it)."""
    acts = tuple(_actor(network, env.num_actions, p) for p in team)
    hidden = policy_fns(network, env.num_actions).initial_hidden(episodes)
    return _episode_scores(env, acts, (hidden,) * len(acts), key, episodes)


# The parameters are an input, not constants baked into the program: every training run scores its
# policy once, and runs of one env and network (a sweep's, a population's, a resumed run's, a test
# suite's) share one trace and one compiled program (with constants, each call compiled anew).
_jitted_team_scores = jax.jit(_team_scores, static_argnums=(0, 1, 4))

# The ``make_*`` builders below return one jitted program per distinct (env, network, sizes): their
# arguments are values (equal envs and network configs are equal and hash alike), so a run that
# builds them again with the same values (a resumed run, the runs of a sweep or a population, a test
# suite's many runs) gets the program already traced, not a new closure JAX would trace again.
@functools.lru_cache(maxsize=PROGRAMS_KEPT)
def make_learners_self_play(env: RLEnv, network: Network, episodes: int) -> Callable[[Any, jax.Array], jax.Array]:
    """-> jitted ``scores(stacked, key) -> (K, episodes)``: each of K learners (parameters stacked on
    a leading axis, as a population runner holds them) in self-play, stochastic as trained, all on
    the same deals (one key). Compiled once, so a training loop can score its learners after every
    call at the price of the episodes alone."""

    def one(params, key: jax.Array) -> jax.Array:
        return _team_scores(env, network, (params,) * env.num_agents, key, episodes)

    return jax.jit(jax.vmap(one, in_axes=(0, None)))


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


def _two_seats(env: RLEnv) -> None:
    if env.num_agents != 2:
        raise ValueError(f"pairwise evaluation needs a two-seat layout, this one has {env.num_agents} agents")


@functools.lru_cache(maxsize=PROGRAMS_KEPT)
def make_payoff_matrix(env: RLEnv, network: Network, size: int, episodes: int):
    """-> jitted ``payoff(members, key) -> (size, size)``: ``make_pair_scores`` averaged over episodes."""
    scores = make_pair_scores(env, network, size, episodes)

    def payoff(members, key: jax.Array) -> jax.Array:
        pair_keys = jax.random.split(key, size * size).reshape(size, size, -1)
        return scores(members, pair_keys).mean(-1)

    return jax.jit(payoff)


@functools.lru_cache(maxsize=PROGRAMS_KEPT)
def make_pair_scores(env: RLEnv, network: Network, size: int, episodes: int):
    """-> jitted ``scores(members, pair_keys) -> (size, size, episodes)``: the score of every episode
    of member i in seat 0 with member j in seat 1, played with ``pair_keys[i, j]``.

    ``members`` is a parameter tree with every leaf stacked over ``size``. Each pair's episodes
    depend only on the two members and that pair's key, so a cross-play cell does not move when
    members are added or removed (the caller derives the key from the pair's names). All pairs run
    as one vmapped scan compiled once, which keeps COLE's per-generation payoff matrix cheap (unused
    pool entries are evaluated too and sliced away by the caller).
    """
    grid = _grid_scores(env, network, network, size, size, episodes)
    return jax.jit(lambda members, pair_keys: grid(members, members, pair_keys))


@functools.lru_cache(maxsize=PROGRAMS_KEPT)
def make_grid_scores(env: RLEnv, network0: Network, network1: Network, size0: int, size1: int, episodes: int):
    """-> jitted ``scores(members0, members1, pair_keys) -> (size0, size1, episodes)``: member i of
    ``members0`` (network0, leaves stacked over size0) in seat 0 with member j of ``members1``
    (network1) in seat 1, with ``pair_keys[i, j]``: cross-play between two network families, which
    cannot share one stack of parameters. A pair's episodes are those ``make_pair_scores`` plays."""
    return jax.jit(_grid_scores(env, network0, network1, size0, size1, episodes))


def _ordered_pairs(members0, members1, size0: int, size1: int):
    """Every ordered pair (i, j) of ``size0`` seat-0 and ``size1`` seat-1 members (leaves stacked
    over members) as two trees stacked over the pairs, pair i * size1 + j: the one pairing that
    cross-play scores and state-augmented self-play's start states both vmap over."""
    seat0 = jnp.asarray(np.repeat(np.arange(size0), size1))
    seat1 = jnp.asarray(np.tile(np.arange(size1), size0))
    return jax.tree.map(lambda t: t[seat0], members0), jax.tree.map(lambda t: t[seat1], members1)


def _grid_scores(env: RLEnv, network0: Network, network1: Network, size0: int, size1: int, episodes: int):
    _two_seats(env)
    hidden = (
        policy_fns(network0, env.num_actions).initial_hidden(episodes),
        policy_fns(network1, env.num_actions).initial_hidden(episodes),
    )

    def one_pair(params0, params1, key: jax.Array) -> jax.Array:
        acts = (_actor(network0, env.num_actions, params0), _actor(network1, env.num_actions, params1))
        return _episode_scores(env, acts, hidden, key, episodes)

    def scores(members0, members1, pair_keys: jax.Array) -> jax.Array:
        params0, params1 = _ordered_pairs(members0, members1, size0, size1)
        keys = pair_keys.reshape(size0 * size1, -1)
        return jax.vmap(one_pair)(params0, params1, keys).reshape(size0, size1, episodes)

    return scores


def pair_traces(env: RLEnv, network: Network, params0: Any, params1: Any, key: jax.Array, episodes: int):
    """(the state before every step (T, E, ...), seat 0's memory after it acted (T, E, M)) of
    ``episodes`` whole episodes of a recurrent ``params0`` in seat 0 with ``params1`` in seat 1, as
    trained (stochastic): what a probe of seat 0's memory reads. Jit it at the call site."""
    _two_seats(env)
    if not network.recurrent:
        raise ValueError("pair_traces reads a recurrent policy's memory; this network has none")
    hidden = policy_fns(network, env.num_actions).initial_hidden(episodes)
    acts = (_actor(network, env.num_actions, params0), _actor(network, env.num_actions, params1))
    _, states, memories = _play(env, acts, (hidden, hidden), key, episodes, keep_states=True, keep_memory=True)
    return states, memories[0]


@functools.lru_cache(maxsize=PROGRAMS_KEPT)
def make_pair_states(env: RLEnv, network: Network, size: int, episodes: int, every: int):
    """-> jitted ``collect(members, key)``: every ``every``-th state (steps 0, every, ...) of
    ``episodes`` whole episodes of each ordered pair (i, j) of the ``size`` members (leaves stacked
    over ``size``), stacked on one leading axis: the start states of state-augmented self-play.
    Compiled once, called at every buffer refresh."""
    _two_seats(env)
    hidden = policy_fns(network, env.num_actions).initial_hidden(episodes)

    def one_pair(params0, params1, key: jax.Array) -> State:
        acts = (_actor(network, env.num_actions, params0), _actor(network, env.num_actions, params1))
        return _play(env, acts, (hidden, hidden), key, episodes, keep_states=True)[1]

    @jax.jit
    def collect(members, key: jax.Array) -> State:
        params0, params1 = _ordered_pairs(members, members, size, size)
        states = jax.vmap(one_pair)(params0, params1, jax.random.split(key, size * size))  # (P, T, E, ...)
        return jax.tree.map(lambda x: x[:, ::every].reshape(-1, *x.shape[3:]), states)

    return collect
