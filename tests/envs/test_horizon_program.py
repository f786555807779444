"""The horizon is an input of every world's compiled step, not a constant in it.

JAX's persistent compilation cache keys on the program, so a step that baked its horizon in would
compile once per horizon; with the horizon passed in (``run_params``), envs that differ only in it
lower to the same program text. Each world is checked both ways: the programs are equal, and an
episode still ends exactly at each env's own horizon (through ``jit_step``, ``step_batch`` and the
lockstep batch the evaluator steps)."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from envs.overcooked.presets import make_layout_env
from proagent.domains import domain_for, make_env
from proagent.eval.lockstep import _masked_step
from proagent.world.types import DomainEnv

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


@pytest.mark.parametrize("world", WORLDS)
def test_two_horizons_lower_to_one_step_program(world: str) -> None:
    short, long = WORLDS[world](SHORT), WORLDS[world](LONG)
    assert (short.run_params.horizon, long.run_params.horizon) == (SHORT, LONG)

    def step_text(env: DomainEnv) -> str:
        return _text(jax.jit(env.step_with).lower(env.run_params, KEY, env.reset(KEY), _idle(env)))

    def batch_text(env: DomainEnv) -> str:
        keys = jnp.stack([KEY, KEY])
        states = env.reset_batch(keys)
        step = jax.jit(jax.vmap(env.step_with, in_axes=(None, 0, 0, 0)))
        return _text(step.lower(env.run_params, keys, states, _idle(env, 2)))

    def lockstep_text(env: DomainEnv) -> str:
        keys = np.zeros((2, 2), np.uint32)
        states, ts, mask = env.reset_batch(keys), np.zeros(2, np.int32), np.ones(2, bool)
        return _text(_masked_step.lower(env, env.run_params, states, keys, ts, _idle(env, 2), mask))

    assert step_text(short) == step_text(long)
    assert batch_text(short) == batch_text(long)
    assert lockstep_text(short) == lockstep_text(long)
    # the check can tell: ``step`` (what training programs trace) holds its horizon as a constant
    plain = [_text(jax.jit(env.step).lower(KEY, env.reset(KEY), _idle(env))) for env in (short, long)]
    assert plain[0] != plain[1]


@pytest.mark.parametrize("world", WORLDS)
def test_each_episode_still_ends_at_its_own_horizon(world: str) -> None:
    for horizon in (SHORT, LONG):
        env = WORLDS[world](horizon)
        state, batch = env.jit_reset(KEY), env.reset_batch(jnp.stack([KEY, KEY]))
        for t in range(1, horizon + 2):
            key = jax.random.fold_in(KEY, t)
            tr = env.jit_step(key, state, _idle(env, action=IDLE[world]))
            batched = env.step_batch(jnp.stack([key, key]), batch, _idle(env, 2, IDLE[world]))
            assert bool(tr.done) == (t >= horizon), (world, horizon, t)
            assert np.asarray(batched.done).tolist() == [t >= horizon] * 2
            state, batch = tr.state, batched.state
