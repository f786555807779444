"""The OvercookedV2 paper's training methods: Other-Play's permuted observations, the start-state
buffer of state-augmented self-play, and tiny runs of both with the recurrent network that save
partners which play a V2 kitchen through its partial view (the shipped recurrent FCP partner is
loaded in tests/training/test_rl_partner.py)."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from training_helpers import overcooked_partner

import envs
from proagent.domains.overcooked.rl_spec import OVERCOOKED_RL, recipe_ingredients, rl_env
from proagent.training.algorithms import SETTINGS, TRAINERS, AlgoConfig
from proagent.training.evaluate import make_pair_states
from proagent.training.networks import NetworkConfig, policy_fns

TINY_NET = NetworkConfig(encoder="pointwise", pointwise=(8, 4), fc_dim=16, memory=8)
TINY_PPO = {"num_steps": 16, "update_epochs": 1, "num_minibatches": 2, "num_envs": 4}


@pytest.fixture(scope="module")
def v2_env():
    return envs.make_layout_env("grounded_coord_simple", horizon=20)


@pytest.mark.slow  # ~20 s on a loaded machine
def test_other_play_permutes_only_what_an_agent_sees(v2_env):
    assert recipe_ingredients(v2_env.layout) == (0, 1)
    permuted_rl, items = OVERCOOKED_RL.symmetries.permuted(rl_env(v2_env), None)
    permuted = permuted_rl.env
    assert items == (0, 1)
    swapped = None
    for seed in range(8):  # find a reset where agent 0 sees the two ingredients swapped
        state = permuted.reset(jax.random.PRNGKey(seed))
        if state.ingredient_permutations[0].tolist()[:2] == [1, 0]:
            swapped = state
            break
    assert swapped is not None
    plain_state = swapped.replace(ingredient_permutations=None)
    seen, plain = np.asarray(permuted.observe(swapped)), np.asarray(v2_env.observe(plain_state))
    assert seen.shape == plain.shape and not np.array_equal(seen[0], plain[0])
    # the world is the same: the same joint action moves both envs alike
    actions = jnp.array([1, 2])
    after = permuted.step(jax.random.PRNGKey(1), swapped, actions).state
    after_plain = v2_env.step(jax.random.PRNGKey(1), plain_state, actions).state
    assert np.array_equal(after.grid, after_plain.grid) and np.array_equal(after.agents.pos.x, after_plain.agents.pos.x)


def test_other_play_needs_two_ingredients():
    with pytest.raises(ValueError, match="at least two ingredients"):
        OVERCOOKED_RL.symmetries.permuted(rl_env(envs.make("cramped_room")), None)


@pytest.mark.slow  # ~30 s: the slow CI step runs it
def test_pair_states_keeps_every_nth_state_of_every_pair(v2_env):
    fns = policy_fns(TINY_NET)
    obs = v2_env.observe(v2_env.reset(jax.random.PRNGKey(0)))[0].astype(jnp.float32)
    members = jax.tree.map(lambda *x: jnp.stack(x), *[fns.init(jax.random.PRNGKey(i), obs) for i in range(2)])
    states = make_pair_states(rl_env(v2_env), TINY_NET, 2, episodes=3, every=5)(members, jax.random.PRNGKey(0))
    steps = np.asarray(states.step)
    assert steps.shape == (2 * 2 * 4 * 3,)  # 4 ordered pairs x steps 0, 5, 10, 15 x 3 episodes
    assert sorted(set(steps.tolist())) == [0, 5, 10, 15]
    buffered = envs.OvercookedEnv(v2_env.layout, v2_env.dynamics, start_states=states)
    start = buffered.reset(jax.random.PRNGKey(4))
    assert int(start.step) == 0
    grids = np.asarray(states.grid)
    assert any(np.array_equal(np.asarray(start.grid), g) for g in grids)


@pytest.mark.slow  # ~40 s each: the slow CI step runs it (FCP's program is the population one state_aug runs)
@pytest.mark.parametrize("algo", ["op", "state_aug"])
def test_tiny_v2_run_saves_a_recurrent_partner(algo, tmp_path):
    from proagent.training import checkpoint

    algo_cfg = AlgoConfig(
        layout="grounded_coord_simple",
        total_steps=4 * 4 * 16,
        network=TINY_NET,
        ppo=TINY_PPO,
        updates_per_call=1,
        eval_episodes=2,
        horizon=20,
    )
    settings = {"state_aug": SETTINGS["state_aug"](population=2, iterations=2, rollouts=1, every=5)}.get(algo)
    out = tmp_path / algo
    manifest = TRAINERS[algo](algo_cfg, out, lambda _: None, settings)
    assert manifest.algorithm == algo and manifest.network.recurrent
    assert manifest.dynamics["agent_view_size"] == 2 and manifest.obs_shape[:2] == (5, 5)
    env = envs.make_layout_env("grounded_coord_simple")
    partner = overcooked_partner(out, env.layout)
    state = env.reset(jax.random.PRNGKey(0))
    for seat in (0, 1):
        partner.reset(seat, seed=3)
        first = [partner.policy(env.symbolic(state), state) for _ in range(4)]
        partner.reset(seat, seed=3)  # memory cleared: the same actions again
        assert [partner.policy(env.symbolic(state), state) for _ in range(4)] == first
    assert checkpoint.load_manifest(out).params_sha256 == manifest.params_sha256
