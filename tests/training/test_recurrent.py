"""The recurrent (OvercookedV2) policy path: the loss replays exactly what the rollout played,
memory is cleared where an episode ends, a population with pool partners carries every actor's
memory, and a recurrent checkpoint plays as a partner with its own view radius."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import envs
from proagent.domains.overcooked.rl_spec import rl_env
from proagent.training.config import PPOConfig
from proagent.training.networks import V2_CPU_NETWORK, NetworkConfig, policy_fns, reset_hidden
from proagent.training.population import (
    POOL,
    Pairing,
    _Acting,
    _env_step,
    _learner_data,
    learner_params,
    make_population_train,
    set_pool_entry,
)

TINY = NetworkConfig(encoder="pointwise", pointwise=(8, 4), fc_dim=16, memory=8)


@pytest.fixture(scope="module")
def v2_env():
    """A V2 kitchen with the paper's partial view; a 12-step horizon ends episodes inside rollouts."""
    return rl_env(envs.make("demo_cook_simple", envs.Dynamics(agent_view_size=2, horizon=12, random_agent_positions=True)))


def test_replay_equals_stepping_with_resets():
    fns = policy_fns(TINY)
    obs = jax.random.bernoulli(jax.random.PRNGKey(1), 0.2, (3, 7, 5, 5, 6)).astype(jnp.float32)  # (B, T, ...)
    done = jnp.zeros((3, 7), bool).at[0, 2].set(True).at[1, 5].set(True)
    params = fns.init(jax.random.PRNGKey(0), obs[0, 0])
    hidden0 = jax.random.normal(jax.random.PRNGKey(2), (3, 8))
    logits, values = fns.replay(params, (hidden0, obs, done))
    hidden, step = hidden0, jax.jit(fns.step)
    for t in range(7):
        hidden, step_logits, step_values = step(params, hidden, obs[:, t])
        np.testing.assert_allclose(logits[:, t], step_logits, atol=1e-5)
        np.testing.assert_allclose(values[:, t], step_values, atol=1e-5)
        hidden = reset_hidden(hidden, done[:, t])
    # the memory matters: the same observation after different histories gives different logits
    assert not np.allclose(logits[0, 1], fns.step(params, fns.initial_hidden(1), obs[0:1, 1])[1][0])


def test_feedforward_policies_carry_no_memory():
    fns = policy_fns(NetworkConfig(encoder="fast"))
    obs = jnp.zeros((2, 5, 4, 30))
    params = fns.init(jax.random.PRNGKey(0), obs[0])
    hidden, logits, value = fns.step(params, None, obs)
    assert hidden is None and fns.initial_hidden(4) is None and logits.shape == (2, 6) and value.shape == (2,)


def _config(num_envs: int, **extra) -> PPOConfig:
    fields = {"num_steps": 30, "update_epochs": 1, "num_minibatches": 2, "total_steps": 10_000, **extra}
    return PPOConfig(layout="demo_cook_simple", num_envs=num_envs, network=TINY, **fields)


@pytest.mark.slow  # ~30 s: the slow CI step runs it
def test_the_loss_sees_the_log_probs_the_rollout_played(v2_env):
    """Roll 30 steps with a learner and a pool partner (episodes end at steps 12 and 24), cut the
    learner's sequences as the update does, replay them: the log-probs of the actions taken are the
    rollout's own (PPO's first ratio is 1), so memory and its resets line up."""
    pairing = Pairing(num_learners=1, slots=((0, 0), (0, POOL), (POOL, 0), (0, 0)), pool_size=1)
    config = _config(4)
    init, _ = make_population_train(config, pairing, v2_env)
    runner = init(jax.random.PRNGKey(0))
    fns = policy_fns(TINY)
    runner = set_pool_entry(runner, 0, fns.init(jax.random.PRNGKey(9), runner.envs.obs[0, 0].astype(jnp.float32)))
    acting = _Acting(fns.step, pairing, pairing.learner_actors(), pairing.pool_actors())

    def body(carry, key):
        return _env_step(v2_env, acting, runner, carry, key, 1.0)

    keys = jax.random.split(jax.random.PRNGKey(3), config.num_steps)
    _, (traj, _) = jax.jit(lambda c: jax.lax.scan(body, c, keys))((runner.envs, runner.partner))
    assert int(traj.ep_done.sum()) == 8  # 4 envs x 2 episode ends
    zeros = jnp.zeros_like(traj.reward)
    data = _learner_data(acting, traj, zeros, zeros, runner.envs.hidden)
    (seq, action, old_logp, *_) = jax.tree.map(lambda x: x[0], data)
    logits, _ = fns.replay(learner_params(runner, 0), seq)
    logp = jnp.take_along_axis(jax.nn.log_softmax(logits), action[..., None], -1)[..., 0]
    np.testing.assert_allclose(logp, old_logp, atol=1e-5)


@pytest.mark.slow  # ~20 s
def test_recurrent_self_play_trains_and_is_deterministic(v2_env):
    init, update = make_population_train(_config(4), Pairing.self_play(4), v2_env)

    def leaves(seed: int):
        runner, metrics = update(init(jax.random.PRNGKey(seed)))
        return [np.asarray(x) for x in jax.tree.leaves(runner.learners.params)], metrics

    (a, metrics), (b, _) = leaves(0), leaves(0)
    assert all(np.array_equal(x, y) for x, y in zip(a, b))
    assert np.isfinite(np.asarray(metrics.value_loss)).all() and float(metrics.approx_kl[0, 0]) >= 0.0
    assert float(np.asarray(metrics.pair_count).sum()) == 8


def test_recurrent_minibatches_must_split_the_actors(v2_env):
    with pytest.raises(ValueError, match="actor sequences"):
        make_population_train(_config(3, num_minibatches=4, num_steps=32), Pairing.self_play(3), v2_env)


def test_mep_bonus_refuses_a_recurrent_network(v2_env):
    pairing = Pairing(num_learners=1, slots=((0, 0),) * 4, pop_entropy_coef=0.01)
    with pytest.raises(ValueError, match="feedforward"):
        make_population_train(_config(4), pairing, v2_env)


def test_cpu_network_is_the_paper_structure_smaller():
    assert V2_CPU_NETWORK.recurrent and V2_CPU_NETWORK.encoder == "pointwise"
