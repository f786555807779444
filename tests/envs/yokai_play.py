"""Random legal play for the Yōkai tests: one jitted scan per env, episodes restarted when done."""

from __future__ import annotations

from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from envs.yokai import ReferenceYokai, YokaiEnv, YokaiState

END_BIAS = -3.0  # log-weight of END against 0 for every other legal action: most games run long


class Rollout(NamedTuple):
    before: YokaiState  # (T, ...) state each action was taken in
    actions: np.ndarray  # (T, P)
    after: YokaiState  # (T, ...) the step's result (before any restart)
    reward: np.ndarray  # (T,)
    shaped: np.ndarray  # (T, P)


def random_actions(env: YokaiEnv, key: jax.Array, state: YokaiState) -> jax.Array:
    """(P,) actions: the actor picks uniformly among legal actions (END down-weighted)."""
    bias = jnp.zeros(env.num_actions).at[0].set(END_BIAS)
    action = jax.random.categorical(key, jnp.where(state.legal, bias, -jnp.inf))
    return jnp.full(env.num_agents, env.layout.noop, jnp.int32).at[state.player].set(action.astype(jnp.int32))


def rollout_fn(env: YokaiEnv, steps: int):
    """jit(key, params) -> Rollout of ``steps`` random legal steps, resetting finished games."""

    def run(key: jax.Array, params) -> Rollout:
        def body(state: YokaiState, k: jax.Array):
            k_act, k_reset = jax.random.split(k)
            actions = random_actions(env, k_act, state)
            tr = env.step(k_act, state, actions, params)
            fresh = env.reset(k_reset)
            nxt = jax.tree.map(lambda new, cur: jnp.where(tr.done, new, cur), fresh, tr.state)
            return nxt, Rollout(state, actions, tr.state, tr.reward, tr.shaped_reward)

        k0, k_steps = jax.random.split(key)
        _, out = jax.lax.scan(body, env.reset(k0), jax.random.split(k_steps, steps))
        return out

    return jax.jit(run)


def host(tree):
    return jax.tree.map(np.asarray, jax.device_get(tree))


def at(states: YokaiState, t: int) -> YokaiState:
    return YokaiState(*(x[t] for x in states))


def replay_reference(env: YokaiEnv, ro: Rollout, params) -> int:
    """Feed the rollout's actions to the NumPy reference, restarting it from each JAX deal, and
    assert equal states (legal masks included), rewards and shaped rewards; returns games seen."""
    ref = ReferenceYokai(env.config, params)
    games, state = 0, None
    for t in range(len(ro.reward)):
        before = at(ro.before, t)
        if state is None or int(before.step) == 0:
            state, games = ref.start(before.card_colour, before.hint_colours), games + 1
        assert_same(state, before, f"before step {t}")
        res = ref.step(state, ro.actions[t])
        assert_same(res.state, at(ro.after, t), f"after step {t}")
        assert res.reward == ro.reward[t], (t, res.reward, ro.reward[t])
        np.testing.assert_allclose(res.shaped_reward, ro.shaped[t])
        state = res.state
    return games


def assert_same(ref: YokaiState, jx: YokaiState, where: str) -> None:
    for field in YokaiState._fields:
        a, b = np.asarray(getattr(ref, field)), np.asarray(getattr(jx, field))
        assert np.array_equal(a, b), f"{where}: {field} differs\nreference {a}\njax {b}"
