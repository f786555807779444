"""Two envs built from the same values are equal (and hash alike), so a function jitted with the env
as a static argument is traced once for both; envs that differ in anything their programs are built
from (layout, horizon, a rule setting, the engine's options) are not. An env built from arrays the
key cannot spell out (training start states, rule flags given as JAX arrays) equals only itself."""

from __future__ import annotations

from functools import partial

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from envs.jitted import value_key
from envs.overcooked.env import Dynamics, OvercookedEnv
from envs.overcooked.layouts import get_layout
from envs.yokai.env import YokaiEnv
from envs.yokai.scenario import load_config
from envs.yokai.state import YokaiParams
from proagent.domains import make_env
from proagent.domains.macrafter.domain import make_env_with

WORLDS = ["overcooked:counter_circuit", "overcooked:cramped_room_v2", "cube:easy_2a", "macrafter:easy_2a", "yokai:9c_2p"]


@pytest.mark.parametrize("spec", WORLDS)
def test_envs_of_the_same_values_are_equal_and_hash_alike(spec: str) -> None:
    first, second = make_env(spec, 12), make_env(spec, 12)
    assert first is not second
    assert first == second and hash(first) == hash(second)
    assert make_env(spec, 13) != first  # the horizon is part of what an env is


def test_envs_that_differ_in_layout_or_rules_are_not_equal() -> None:
    assert make_env("overcooked:counter_circuit", 12) != make_env("overcooked:cramped_room", 12)
    assert make_env("macrafter:easy_2a", 12) != make_env_with("easy_2a", 12, {"collect_distance": "2"})
    layout = get_layout("cramped_room")
    assert OvercookedEnv(layout) == OvercookedEnv(layout)
    assert OvercookedEnv(layout) != OvercookedEnv(layout, Dynamics(auto_cook=False))
    assert OvercookedEnv(layout) != OvercookedEnv(layout, op_ingredients=(0, 1))
    assert make_env("cube:easy_2a", 12) != make_env("macrafter:easy_2a", 12)  # another world, never equal


def test_an_env_built_from_arrays_equals_only_itself() -> None:
    layout = get_layout("cramped_room")
    plain = OvercookedEnv(layout)
    starts = jax.tree.map(lambda leaf: leaf[None], plain.reset(jax.random.PRNGKey(0)))
    augmented = OvercookedEnv(layout, start_states=starts)
    assert augmented != OvercookedEnv(layout, start_states=starts)
    assert hash(augmented) == hash(augmented) and augmented in {augmented}
    assert augmented != plain
    config = load_config("9c_2p")
    annealed = YokaiEnv(config, YokaiParams(shaping_scale=jnp.float32(0.5)))
    assert annealed != YokaiEnv(config, YokaiParams(shaping_scale=jnp.float32(0.5)))
    assert YokaiEnv(config, YokaiParams(shaping_scale=0.5)) == YokaiEnv(config, YokaiParams(shaping_scale=0.5))
    assert YokaiEnv(config, YokaiParams(shaping_scale=0.5)) != YokaiEnv(config, YokaiParams(shaping_scale=0.25))


def test_a_step_jitted_on_the_env_is_traced_once_for_two_equal_envs() -> None:
    traces: list[str] = []

    @partial(jax.jit, static_argnums=0)
    def first_reward(env, key):
        traces.append(env.name)  # runs only while tracing
        state = env.reset(key)
        actions = jnp.zeros((env.num_agents,), jnp.int32)
        return env.step(key, state, actions).reward

    key = jax.random.PRNGKey(0)
    first_reward(make_env("cube:easy_2a", 12), key)
    first_reward(make_env("cube:easy_2a", 12), key)
    assert traces == ["easy_2a"]
    first_reward(make_env("cube:easy_2a", 13), key)  # another horizon: another trace
    assert traces == ["easy_2a", "easy_2a"]


def test_the_value_key_spells_out_every_element_or_refuses() -> None:
    big = np.zeros((64, 64), np.int8)
    other = big.copy()
    other[32, 32] = 1  # where a printed array would show "..."
    assert value_key(big) != value_key(other)
    assert value_key(big) == value_key(big.copy())
    assert value_key(big) != value_key(big.astype(np.int16))
    with pytest.raises(TypeError):
        value_key(jnp.zeros(3))
    with pytest.raises(TypeError):
        value_key(object())


@pytest.mark.parametrize("spec", ["overcooked:cramped_room", "cube:easy_2a"])
def test_the_entry_points_of_two_equal_envs_share_one_trace(spec: str) -> None:
    from envs import jitted

    def sizes() -> list[int]:
        return [f._cache_size() for f in (jitted._reset, jitted._step, jitted._reset_batch, jitted._step_batch)]

    def use(env) -> None:
        state = env.jit_reset(jax.random.PRNGKey(0))
        env.jit_step(jax.random.PRNGKey(1), state, jnp.zeros((env.num_agents,), jnp.int32))
        states = env.reset_batch(jnp.zeros((2, 2), jnp.uint32))
        env.step_batch(jnp.zeros((2, 2), jnp.uint32), states, jnp.zeros((2, env.num_agents), jnp.int32))

    use(make_env(spec, 12))
    once = sizes()
    use(make_env(spec, 12))  # built anew, equal: nothing traced again
    assert sizes() == once
    use(make_env(spec, 13))  # another horizon is another env: traced for itself
    assert sizes() == [size + 1 for size in once]
