"""The horizon is an input of every world's compiled step, not a constant in it.

JAX's persistent compilation cache keys on the program, so a step that baked its horizon in would
compile once per horizon; with the horizon passed in (``run_params``), envs that differ only in it
lower to the same program text. Each world is checked both ways: the programs are equal, and an
episode still ends exactly at each env's own horizon (through ``jit_step``, ``step_batch`` and the
lockstep batch the evaluator steps)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from envs.overcooked.presets import make_layout_env
from proagent.domains import domain_for, make_env
from proagent.eval.lockstep import _masked_step
from proagent.world.types import DomainEnv, Transition

WORLDS = {
    "overcooked classic": lambda h: make_env("cramped_room", h),
    "overcooked v2": lambda h: make_layout_env("demo_cook_simple", h),
    "cube": lambda h: make_env("cube:easy_2a", h),
    "macrafter": lambda h: make_env("macrafter:easy_2a", h),
    "yokai": lambda h: make_env("yokai:9c_2p", h),
}
IDLE = {world: domain_for(None, world.split()[0]).idle_action for world in WORLDS}  # changes nothing
SHORT, LONG = 3, 5
KEY = jax.random.PRNGKey(0)


def _text(lowered: jax.stages.Lowered) -> str:
    return lowered.as_text(debug_info=False)


def _idle(env: DomainEnv, batch: int | None = None, action: int = 0) -> jax.Array:
    shape = (env.num_agents,) if batch is None else (batch, env.num_agents)
    return jnp.full(shape, action, jnp.int32)


def _step_text(env: DomainEnv) -> str:
    state = jax.eval_shape(env.reset, KEY)  # shapes suffice to lower
    return _text(jax.jit(env.step_with).lower(env.run_params, KEY, state, _idle(env)))


@pytest.mark.parametrize("world", WORLDS)
def test_two_horizons_lower_to_one_step_program(world: str) -> None:
    short, long = WORLDS[world](SHORT), WORLDS[world](LONG)
    assert (short.run_params.horizon, long.run_params.horizon) == (SHORT, LONG)
    assert _step_text(short) == _step_text(long)


def test_the_batched_and_lockstep_steps_take_the_horizon_as_an_input() -> None:
    """Both wrap ``step_with`` the same way for every world; the check can tell: the plain
    ``step`` (what training programs trace) holds its horizon as a constant, so its programs differ."""
    short, long = WORLDS["cube"](SHORT), WORLDS["cube"](LONG)
    keys = np.zeros((2, 2), np.uint32)
    states = jax.eval_shape(short.reset_batch, keys)
    ts, mask = np.zeros(2, np.int32), np.ones(2, bool)

    def batch_text(env: DomainEnv) -> str:
        step = jax.jit(jax.vmap(env.step_with, in_axes=(None, 0, 0, 0)))
        return _text(step.lower(env.run_params, keys, states, _idle(env, 2)))

    def lockstep_text(env: DomainEnv) -> str:
        return _text(_masked_step.lower(env, env.run_params, states, keys, ts, _idle(env, 2), mask))

    def plain_text(env: DomainEnv) -> str:
        return _text(jax.jit(env.step).lower(KEY, jax.eval_shape(env.reset, KEY), _idle(env)))

    assert batch_text(short) == batch_text(long)
    assert lockstep_text(short) == lockstep_text(long)
    assert plain_text(short) != plain_text(long)


@pytest.mark.parametrize("world", WORLDS)
def test_each_episode_still_ends_at_its_own_horizon(world: str) -> None:
    for horizon in (SHORT, LONG):
        env = WORLDS[world](horizon)
        state = env.jit_reset(KEY)
        for t in range(1, horizon + 2):
            state, done = _stepped(env, env.jit_step, world, t, state)
            assert done == [t >= horizon], (world, horizon, t)


def test_batched_episodes_still_end_at_their_own_horizon() -> None:
    for horizon in (SHORT, LONG):
        env = WORLDS["cube"](horizon)
        batch = env.reset_batch(jnp.stack([KEY, KEY]))
        for t in range(1, horizon + 2):
            batch, done = _stepped(env, env.step_batch, "cube", t, batch, 2)
            assert done == [t >= horizon] * 2, (horizon, t)


def _stepped(
    env: DomainEnv, step: Callable[..., Transition], world: str, t: int, state: Any, batch: int | None = None
) -> tuple[Any, list[bool]]:
    """The state after every seat idles through step ``t``, and the done flags as a list."""
    key = jax.random.fold_in(KEY, t)
    keys = key if batch is None else jnp.stack([key] * batch)
    tr = step(keys, state, _idle(env, batch, IDLE[world]))
    return tr.state, np.atleast_1d(np.asarray(tr.done)).tolist()
