"""Dynamics options: cook time, soup reward, horizon and the frozen end, shaped rewards kept apart."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import pydantic
import pytest
from kitchen_helpers import (
    CUSTOM,
    CUSTOM_SCRIPT,
    THREE_ONIONS,
    assert_trees_equal,
    event_view,
    play,
    player_view,
    pot_view,
    wait,
)

import envs

SOUP = "soup(onion,onion,onion)"
ONION3 = ("onion", "onion", "onion")

AFTER_THE_END = ["IS", "LD", "II", "DR", "UU"]  # would put the onion in, move both, ... if not frozen


@pytest.fixture(scope="module")
def custom(make_env) -> envs.OvercookedEnv:
    return make_env("cramped_room", **CUSTOM)


@pytest.fixture(scope="module")
def rollout(custom):
    return play(custom, CUSTOM_SCRIPT + AFTER_THE_END)


def test_cook_time_ticks(rollout):
    ticks = [(pot_view(rollout.kitchens[step])[(2, 0)]) for step in range(15, 22)]
    assert ticks == [
        (("onion", "onion"), 0, False),  # step 15: the third onion goes in during this step
        (ONION3, 4, False),
        (ONION3, 3, False),
        (ONION3, 2, False),
        (ONION3, 1, False),
        (ONION3, 0, True),  # step 20 = 15 + cook_time
        (ONION3, 0, True),
    ]
    cooking = [rollout.kitchens[step].pot_at[(2, 0)].cooking for step in range(15, 22)]
    assert cooking == [False, True, True, True, True, False, False]


def test_soup_reward(rollout):
    assert [event_view(e)[:3] for e in rollout.events if e.kind == "deliver"] == [(27, 0, "deliver")]
    assert {t: r for t, r in enumerate(rollout.rewards) if r} == {27: 7.0}
    assert rollout.score == 7.0


def test_shaped_rewards_are_apart_from_the_score(rollout):
    shaped = {t: s for t, s in enumerate(rollout.shaped) if any(s)}
    assert shaped == {5: (3.0, 0.0), 10: (3.0, 0.0), 15: (3.0, 0.0), 19: (3.0, 0.0), 23: (5.0, 0.0), 34: (3.0, 0.0)}
    assert all(rollout.rewards[t] == 0.0 for t in shaped)


def test_done_exactly_at_the_horizon(rollout):
    horizon = CUSTOM["horizon"]
    assert rollout.dones[: horizon - 1] == [False] * (horizon - 1)
    assert rollout.dones[horizon - 1 :] == [True] * (1 + len(AFTER_THE_END))
    assert [k.step for k in rollout.kitchens[: horizon + 1]] == list(range(horizon + 1))
    assert rollout.kitchens[horizon].steps_left == 0
    assert not bool(rollout.states[horizon - 1].done) and bool(rollout.states[horizon].done)


def test_finished_episode_stays_frozen(rollout):
    horizon = CUSTOM["horizon"]
    end = rollout.states[horizon]
    assert player_view(rollout.kitchens[horizon]) == [((2, 1), "up", "onion"), ((3, 1), "up", None)]
    assert pot_view(rollout.kitchens[horizon]) == {(2, 0): (("onion",), 0, False)}
    for t in range(horizon, horizon + len(AFTER_THE_END)):
        assert_trees_equal(rollout.states[t + 1], end, f"state after step {t}")
        assert rollout.rewards[t] == 0.0 and rollout.shaped[t] == (0.0, 0.0)
    assert [e for e in rollout.events if e.step >= horizon] == []


def test_frozen_while_cooking(custom):
    """A pot cooking at the horizon does not tick on."""
    r = play(custom, [*wait(22), *THREE_ONIONS[:-1], "IS", *wait(5)])  # third onion in at step 37
    assert pot_view(r.kitchens[40]) == {(2, 0): (ONION3, 2, False)}
    assert_trees_equal(r.states[43], r.states[40])


def test_transition_types(custom):
    state = custom.jit_reset(jax.random.PRNGKey(0))
    tr = custom.jit_step(jax.random.PRNGKey(1), state, jnp.array([envs.Action.UP, envs.Action.STAY], dtype=jnp.int32))
    assert tr.reward.shape == () and tr.reward.dtype == jnp.float32
    assert tr.shaped_reward.shape == (2,) and tr.shaped_reward.dtype == jnp.float32
    assert tr.done.shape == () and tr.done.dtype == jnp.bool_


@pytest.mark.parametrize("cook_time", [1, 25])
def test_cook_time_extremes(make_env, cook_time):
    """Ready exactly cook_time steps after the step that put the third onion in (step 15)."""
    env = make_env("cramped_room", cook_time=cook_time)
    r = play(env, [*THREE_ONIONS, *wait(cook_time + 1)])
    states = {step: pot_view(r.kitchens[step])[(2, 0)] for step in range(16, 17 + cook_time)}
    ready_at = [step for step, (_, _, ready) in states.items() if ready]
    assert ready_at[0] == 15 + cook_time
    assert states[16] == (ONION3, cook_time - 1, cook_time == 1)


def test_default_dynamics_are_the_classic_ones():
    d = envs.Dynamics()
    assert (d.horizon, d.cook_time, d.soup_reward, d.auto_cook) == (400, 20, 20.0, True)
    assert (d.wrong_soup_penalty, d.new_recipe_on_delivery, d.agent_view_size) == (False, False, None)


@pytest.mark.parametrize("bad", [{"horizon": 0}, {"cook_time": 0}, {"cook_tim": 5}])
def test_dynamics_are_validated(bad):
    with pytest.raises(pydantic.ValidationError):
        envs.Dynamics(**bad)


def test_dynamics_are_frozen():
    with pytest.raises(pydantic.ValidationError):
        envs.Dynamics().horizon = 10


def test_partial_observation_honours_agent_view_size(make_env):
    """Dynamics(agent_view_size=2) promises a partial view (JaxMARL: a (2*2+1)x(2*2+1) window around
    each agent). BUG (envs/overcooked/env.py, OvercookedEnv.observe): it returns
    engine.get_obs_default(state), the full grid before JaxMARL's masking (which happens in
    engine.get_obs), so the option silently has no effect on observations."""
    env = make_env("counter_circuit", agent_view_size=2)
    state = env.jit_reset(jax.random.PRNGKey(0))
    obs = env.jit_observe(state)
    assert obs.shape == (2, *env.engine.obs_shape)  # (2, 5, 5, C)
    engine_obs = env.engine.get_obs(state)
    for i in range(2):
        assert jnp.array_equal(obs[i], engine_obs[f"agent_{i}"])
