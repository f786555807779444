"""Batched entry points: reset_batch/step_batch/observe_batch equal the single-env functions, exactly,
and every env of a batch ends (and stays ended) on its own."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from kitchen_helpers import CUSTOM, CUSTOM_SCRIPT, assert_trees_equal, index_tree, parse_script, stack_trees

import envs

N = 8
HORIZON = CUSTOM["horizon"]


@pytest.fixture(scope="module")
def env(make_env) -> envs.OvercookedEnv:
    # the dynamics tests' kitchen: cook_time 5 makes soups within a 40-step episode
    return make_env("cramped_room", **CUSTOM)


def random_actions(rng: np.random.Generator, shape: tuple[int, ...]) -> np.ndarray:
    """Moves, many interacts (so that things get picked up, put down and cooked), a few stays."""
    p = [0.15, 0.15, 0.15, 0.15, 0.05, 0.35]
    return rng.choice(len(envs.Action), size=shape, p=p).astype(np.int32)


def step_keys(t: int) -> np.ndarray:
    """N step keys as a host array (indexing it costs no device op)."""
    return np.asarray(jax.random.split(jax.random.fold_in(jax.random.PRNGKey(5), t), N))


def test_step_batch_matches_single_envs(env):
    steps = HORIZON + 5
    rng = np.random.default_rng(0)
    actions = random_actions(rng, (steps, N, 2))
    actions[: len(CUSTOM_SCRIPT), 0] = parse_script(CUSTOM_SCRIPT)  # env 0 cooks and serves a soup

    keys = jax.random.split(jax.random.PRNGKey(11), N)
    batch = env.reset_batch(keys)
    singles = [env.jit_reset(k) for k in keys]
    for i in range(N):
        assert_trees_equal(index_tree(batch, i), singles[i], f"reset env {i}")

    total = np.zeros(N)
    for t in range(steps):
        skeys = step_keys(t)
        tb = env.step_batch(skeys, batch, jnp.asarray(actions[t]))
        assert tb.reward.shape == (N,) and tb.shaped_reward.shape == (N, 2) and tb.done.shape == (N,)
        host = jax.device_get(tb)
        for i in range(N):
            ts = env.jit_step(skeys[i], singles[i], actions[t, i])
            assert_trees_equal(index_tree(host, i), ts, f"step {t} env {i}")
            singles[i] = ts.state
        total += np.asarray(tb.reward)
        batch = tb.state
        assert np.array_equal(np.asarray(tb.done), np.full(N, t + 1 >= HORIZON))
    assert total[0] == CUSTOM["soup_reward"]  # the scripted env served its soup
    assert np.all(np.asarray(batch.step) == HORIZON)


def test_observe_batch_matches_single_envs(env):
    batch = env.reset_batch(jax.random.split(jax.random.PRNGKey(2), N))
    batch = env.step_batch(step_keys(0), batch, jnp.asarray(random_actions(np.random.default_rng(1), (N, 2)))).state
    obs = env.observe_batch(batch)
    assert obs.shape[:2] == (N, 2) and obs.shape[2:4] == (env.layout.height, env.layout.width)
    for i in range(N):
        assert np.array_equal(np.asarray(obs[i]), np.asarray(env.jit_observe(index_tree(batch, i))))


def test_per_env_done_in_a_batch(env):
    """A batch whose envs are at different steps, some already finished: each stops at its own horizon
    and finished ones stay exactly as they were (no reward, no shaping)."""
    rng = np.random.default_rng(2)
    start_steps = [0, 5, 37, 38, 39, HORIZON, HORIZON + 7, 20]  # HORIZON + 7 steps: frozen at HORIZON
    states = []
    for i, n in enumerate(start_steps):
        state = env.jit_reset(jax.random.PRNGKey(100 + i))
        for a in random_actions(rng, (n, 2)):
            state = env.jit_step(jax.random.PRNGKey(0), state, jnp.asarray(a)).state
        states.append(state)
    batch = stack_trees(states)
    assert np.array_equal(np.asarray(batch.step), np.minimum(start_steps, HORIZON))

    for t in range(3):
        before = batch
        tb = env.step_batch(step_keys(t), batch, jnp.asarray(random_actions(rng, (N, 2))))
        for i in range(N):
            was_done = bool(before.done[i])
            assert was_done == (int(before.step[i]) >= HORIZON)
            if was_done:
                assert_trees_equal(index_tree(tb.state, i), index_tree(before, i), f"frozen env {i}, step {t}")
                assert float(tb.reward[i]) == 0.0 and not np.any(np.asarray(tb.shaped_reward[i]))
            else:
                assert int(tb.state.step[i]) == int(before.step[i]) + 1
            assert bool(tb.done[i]) == (int(tb.state.step[i]) >= HORIZON)
        batch = tb.state
    assert np.array_equal(np.asarray(batch.step), np.minimum(np.array(start_steps) + 3, HORIZON))
